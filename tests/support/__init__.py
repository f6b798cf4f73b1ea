"""What the test modules share, so that none imports another.

- ``cli``: the ``leastscore`` command in a real subprocess, the one way tests run it.
- ``server``: a server, in the test's own event loop or as ``leastscore serve`` in a
  real process; a client of hand-written frames; waiting for what a server writes.
- ``contest``: a tournament through ``leastscore tournament``, or played in this
  process for what only reads its results (the reports, the standings).
- ``cards``: what a seat or a spectator may see of a match's full log.
- ``terminal``: ``leastscore play`` in a real pseudo-terminal, and a cable to cut.
- ``browser``: the web view in a real browser, each step bounded.
- ``arena``: ``leastscore arena serve`` in a real process, a contest's folder, the
  bots and built-in levels entered in it, its pages and API read.
- ``tools``: the system tools some tests need (a C toolchain, Node.js).
- ``sandbox``: what the sandbox can do here, as marks that skip with the reason.
"""
