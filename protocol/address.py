"""``HOST:PORT`` as people type it, read one way for every command that takes one."""

from __future__ import annotations

DEFAULT_PORT = 7445
"""The port ``leastscore serve`` listens on by default."""


def parse_address(
    text: str, default_port: int = DEFAULT_PORT, *, listening: bool = False
) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST``, ``:PORT`` or ``[::1]:PORT``; raises ``ValueError`` saying why.

    A missing host is 127.0.0.1 and a missing port ``default_port``. Port 0 (any free
    port) is accepted only for an address to listen on.
    """
    text = text.strip()
    if not text:
        raise ValueError("the address is empty")
    host, port = text, ""
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise ValueError(f"{text!r}: an IPv6 address ends with ]")
        host, rest = text[1:close], text[close + 1 :]
        if rest and not rest.startswith(":"):
            raise ValueError(f"{text!r} is not HOST:PORT")
        port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    host = host or "127.0.0.1"
    if not port:
        return host, default_port
    lowest = 0 if listening else 1
    if not port.isdigit() or not lowest <= int(port) < 65536:
        raise ValueError(f"{port!r} is not a port number ({lowest}-65535)")
    return host, int(port)
