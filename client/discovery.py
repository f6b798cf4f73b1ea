"""Finding Least Score servers on the LAN (mDNS / DNS-SD, through python-zeroconf).

``leastscore play`` with no ``--server`` and ``leastscore servers`` listen for
``_leastscore._tcp`` announcements for a moment and list what answered.
"""

from __future__ import annotations

import asyncio
from typing import Any

from leastscore.protocol.lan import SERVICE_TYPE, ServerAd, read_ad

WAIT = 1.5
"""Seconds to listen: servers answer a query within a few hundred milliseconds."""

PATIENCE = 6.0
"""Seconds to go on listening when nobody has answered yet: a busy machine or
network can be slow to answer, and waiting a little costs less than missing the
only server there is."""


class DiscoveryUnavailable(Exception):
    """python-zeroconf is not installed."""


async def find_servers(wait: float = WAIT, patience: float = PATIENCE) -> list[ServerAd]:
    """The servers that answered within ``wait`` seconds, by name; when none has
    answered by then, listening goes on up to ``patience`` seconds more and stops
    ``wait / 3`` after the first answer."""
    try:
        from zeroconf import IPVersion, ServiceStateChange
        from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
    except ImportError:
        raise DiscoveryUnavailable(
            "finding servers on the LAN needs python-zeroconf: pip install leastscore[lan]"
        ) from None
    names: set[str] = set()
    answered = asyncio.Event()

    def seen(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        if state_change is ServiceStateChange.Removed:
            names.discard(name)
        else:
            names.add(name)
            answered.set()

    zeroconf = AsyncZeroconf(ip_version=IPVersion.V4Only)
    try:
        browser = AsyncServiceBrowser(zeroconf.zeroconf, SERVICE_TYPE, handlers=[seen])
        await asyncio.sleep(wait)
        if not names and patience > 0:
            try:
                async with asyncio.timeout(patience):
                    await answered.wait()
                await asyncio.sleep(wait / 3)
            except TimeoutError:
                pass
        found: list[ServerAd] = []
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zeroconf.zeroconf, 3000):
                continue
            addresses = info.parsed_addresses()
            if addresses and info.port:
                found.append(read_ad(name, addresses[0], info.port, dict(info.properties)))
        await browser.async_cancel()
        return found
    finally:
        await zeroconf.async_close()
