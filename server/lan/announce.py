"""Telling the LAN that a server is here (mDNS / DNS-SD, through python-zeroconf).

``leastscore serve --lan`` announces ``_leastscore._tcp`` with the server's
name, its protocol versions, and how many tables and free seats it has, so
that ``leastscore play`` finds it without an address being typed. The counts
are refreshed while the server runs; a shutdown withdraws the announcement.
zeroconf is an optional dependency (``pip install leastscore[lan]``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
from typing import TYPE_CHECKING, Any, Protocol

from leastscore.protocol import SUPPORTED
from leastscore.protocol.lan import SERVICE_TYPE, ServerAd, txt_record

from leastscore.about import VERSION

if TYPE_CHECKING:
    from ..lobby.lobby import Lobby

log = logging.getLogger("leastscore.server")

REFRESH = 5.0
"""Seconds between looks at the lobby for changed counts."""


class Announced(Protocol):
    """What the announcement tells of the server: its port and its lobby's tables."""

    @property
    def port(self) -> int: ...

    @property
    def lobby(self) -> Lobby: ...


class Announcer:
    """Keeps the server's mDNS announcement true while it runs: registers it, refreshes
    the table counts as they change, withdraws it at shutdown."""

    def __init__(self, server: Announced, name: str) -> None:
        self.server = server
        self.name = name
        self._zeroconf: Any = None
        self._info: Any = None
        self._ad: ServerAd | None = None
        self._addresses: list[str] = []
        self._make_info: Any = None
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> bool:
        """Announce the server; False (and a log line saying why) when it cannot be."""
        try:
            from zeroconf import IPVersion, ServiceInfo
            from zeroconf.asyncio import AsyncZeroconf
        except ImportError:
            log.warning("not announced on the LAN: install leastscore[lan] (python-zeroconf)")
            return False
        self._addresses = lan_addresses() or ["127.0.0.1"]
        self._ad = self._current(self._addresses[0])
        self._zeroconf = AsyncZeroconf(ip_version=IPVersion.V4Only)
        self._make_info = lambda name, ad: ServiceInfo(
            SERVICE_TYPE,
            name,
            addresses=[socket.inet_aton(a) for a in self._addresses],
            port=self.server.port,
            properties=txt_record(ad),
            server=f"{socket.gethostname().split('.')[0] or 'leastscore'}.local.",
        )
        self._info = self._make_info(f"{self.name}.{SERVICE_TYPE}", self._ad)
        await self._zeroconf.async_register_service(self._info, allow_name_change=True)
        self._task = asyncio.get_running_loop().create_task(self._refresh())
        log.info("announced on the LAN as %r", self._info.name.removesuffix("." + SERVICE_TYPE))
        return True

    def _current(self, host: str) -> ServerAd:
        tables = list(self.server.lobby.tables.values())
        free = sum(t.size - len(t.slots) for t in tables if not t.playing)
        return ServerAd(
            self.name,
            host,
            self.server.port,
            tuple(SUPPORTED),
            f"leastscore {VERSION}",
            len(tables),
            free,
        )

    async def _refresh(self) -> None:
        while True:
            await asyncio.sleep(REFRESH)
            assert self._ad is not None
            now = self._current(self._ad.host)
            if now != self._ad:
                self._ad = now
                self._info = self._make_info(self._info.name, now)
                await self._zeroconf.async_update_service(self._info)

    async def stop(self) -> None:
        """Withdraw the announcement (a goodbye the browsers act on at once)."""
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        if self._zeroconf is not None:
            with contextlib.suppress(Exception):
                await self._zeroconf.async_unregister_service(self._info)
            await self._zeroconf.async_close()
            self._zeroconf = None


def lan_addresses() -> list[str]:
    """This machine's IPv4 addresses, the LAN's first; loopback only when there is no other."""
    import ifaddr

    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and ip.ip not in found:
                found.append(ip.ip)
    outside = [a for a in found if not a.startswith("127.")]
    return outside or [a for a in found if a.startswith("127.")]
