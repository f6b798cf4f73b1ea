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


class DiscoveryUnavailable(Exception):
    """python-zeroconf is not installed."""


async def find_servers(wait: float = WAIT) -> list[ServerAd]:
    """The servers that answered within ``wait`` seconds, by name."""
    try:
        from zeroconf import IPVersion, ServiceStateChange
        from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf
    except ImportError:
        raise DiscoveryUnavailable(
            "finding servers on the LAN needs python-zeroconf: pip install leastscore[lan]"
        ) from None
    names: set[str] = set()

    def seen(zeroconf: Any, service_type: str, name: str, state_change: Any) -> None:
        if state_change is ServiceStateChange.Removed:
            names.discard(name)
        else:
            names.add(name)

    zeroconf = AsyncZeroconf(ip_version=IPVersion.V4Only)
    try:
        browser = AsyncServiceBrowser(zeroconf.zeroconf, SERVICE_TYPE, handlers=[seen])
        await asyncio.sleep(wait)
        found: list[ServerAd] = []
        for name in sorted(names):
            info = AsyncServiceInfo(SERVICE_TYPE, name)
            if not await info.async_request(zeroconf.zeroconf, 1000):
                continue
            addresses = info.parsed_addresses()
            if addresses and info.port:
                found.append(read_ad(name, addresses[0], info.port, dict(info.properties)))
        await browser.async_cancel()
        return found
    finally:
        await zeroconf.async_close()
