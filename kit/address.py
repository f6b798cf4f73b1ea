"""Where a web page is served: ``--web [HOST:]PORT`` (the server's view, a tournament's live
page), kept apart from aiohttp."""

from __future__ import annotations

DEFAULT_PORT = 7446


def parse_web(value: str, host: str) -> tuple[str, int]:
    """``[HOST:]PORT`` for ``--web``; without a host, the game server's."""
    where, _, port = value.rpartition(":")
    if not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"--web wants [HOST:]PORT, not {value!r}")
    return (where or host), int(port)
