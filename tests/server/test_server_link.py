"""The client side's link to a server: a request that could not be sent leaves nothing behind."""

from __future__ import annotations

import asyncio
import gc
from typing import Any

import pytest
from leastscore.bots.link import ConnectionClosed, ServerLink
from leastscore.protocol.messages import Ping
from leastscore.server.app import Server


async def test_a_request_on_a_dropped_link_leaves_no_answer_waiting(server: Server) -> None:
    """A keepalive sent while the link is down fails at once; a later connection that
    drops must not then fail that forgotten request, which nobody awaits any more (an
    'exception was never retrieved' the terminal shows as an unhandled error)."""
    loop = asyncio.get_running_loop()
    unhandled: list[dict[str, Any]] = []
    loop.set_exception_handler(lambda _loop, context: unhandled.append(context))
    try:
        link = await ServerLink.open("127.0.0.1", server.port, "Ann")
        await link.close()
        with pytest.raises(ConnectionClosed):
            await link.request(Ping())
        await link.connect()
        await link.request(Ping())
        await link.close()
        gc.collect()  # a forgotten future reports its exception as it is collected
    finally:
        loop.set_exception_handler(None)
    assert unhandled == []
