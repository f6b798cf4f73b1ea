"""A real server on 127.0.0.1, port 0, inside the test's event loop (the client of
hand-written frames the tests talk to it with is ``tests.support.server.Raw``)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from leastscore.server.app import Server

from ..support.server import serving


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[Server]:
    async with serving(
        db=str(tmp_path / "matches.sqlite3"),
        bot_delay=0.0,
        grace_period=1.0,
        handshake_timeout=1.0,
    ) as srv:
        yield srv
