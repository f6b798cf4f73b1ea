"""Every HTML page from a template, rendered by one autoescaping Jinja2 environment."""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined

PAGES = Environment(
    loader=PackageLoader("leastscore.kit", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
"""The one environment every page of the project is made by. It escapes every value a
template is given (a bot's, an author's or a player's name holding ``<script>`` is shown
as those characters), so no page escapes by hand and none can forget to; a value that is
markup already (an inline chart) says so with ``Markup``. ``StrictUndefined``: a value a
template names and is not given fails the page's test, rather than showing nothing."""


def render(name: str, **values: Any) -> str:
    """The page ``templates/NAME`` with ``values``, escaped."""
    return PAGES.get_template(name).render(**values)
