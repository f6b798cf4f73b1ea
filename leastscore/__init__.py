"""Least Score: the rules engine, protocol, server, client, bots and tournaments.

Each part is a subpackage (``leastscore.game``, ``leastscore.server``, ...);
this one holds the ``leastscore`` command and ``about``, the version.
"""

from .about import VERSION as __version__

__all__ = ["__version__"]
