"""The site kit: what every web page of the project is made of (``leastscore.kit``).

The server's view, the tournament's report and live page, and the arena's pages were
once made three ways (f-strings with ``html.escape`` placed by hand, scripts sharing
globals, and each part borrowing the server's web helpers). They share this kit
instead, so a page is made one way wherever it is served:

- ``pages``: the one autoescaping Jinja2 environment every HTML page is rendered by
  (``render``), over the templates in ``templates/``; a name is escaped because the
  environment escapes everything, never because someone remembered to.
- ``serve``: serving them with aiohttp: the shipped static files (``static/``: the
  board's ES modules and its style), the page's words in each language, a JSON
  answer, and ``WebSite``, an application on HOST:PORT.
- ``address``: ``--web [HOST:]PORT``.

The kit knows no server, tournament or arena: it may import ``game`` and ``protocol``
only (``tests/test_layers.py``), and ``pages`` needs no aiohttp, so a tournament's
report is written where no web server is installed.
"""
