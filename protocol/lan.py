"""How a server describes itself on the LAN: the DNS-SD service type and its TXT record.

Pure: what goes into an announcement and how it is read back. The server's
announcer (``server/lan/announce.py``) and the client's search
(``client/discovery.py``) do the multicasting.
"""

from __future__ import annotations

from dataclasses import dataclass

from .text import shown

SERVICE_TYPE = "_leastscore._tcp.local."


@dataclass(frozen=True)
class ServerAd:
    """One server as the LAN sees it."""

    name: str
    """The server's own name (its instance name), e.g. ``Ann's server``."""
    host: str
    """An address to connect to."""
    port: int
    protocols: tuple[int, ...]
    """The protocol versions the server speaks."""
    version: str = ""
    """The server's program and version, e.g. ``leastscore 0.1.0``."""
    tables: int = 0
    seats_free: int = 0

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def txt_record(ad: ServerAd) -> dict[str, str]:
    """The TXT record's keys (short, as DNS-SD asks): ``v`` protocols, ``sw`` program,
    ``t`` tables, ``f`` seats free."""
    return {
        "v": ",".join(map(str, ad.protocols)),
        "sw": ad.version,
        "t": str(ad.tables),
        "f": str(ad.seats_free),
    }


def read_ad(name: str, host: str, port: int, txt: dict[bytes, bytes | None]) -> ServerAd:
    """A ``ServerAd`` from what a browser found; unreadable values count as absent."""
    fields = {
        k.decode("utf-8", "replace"): (v or b"").decode("utf-8", "replace") for k, v in txt.items()
    }

    def number(key: str) -> int:
        text = fields.get(key, "")
        return int(text) if text.isdigit() else 0

    protocols = tuple(int(p) for p in fields.get("v", "").split(",") if p.strip().isdigit())
    instance = name.removesuffix("." + SERVICE_TYPE).removesuffix(SERVICE_TYPE)
    # anyone on the LAN may announce anything: nothing of it may reach a terminal raw
    version = shown(fields.get("sw", ""))
    return ServerAd(shown(instance), host, port, protocols, version, number("t"), number("f"))
