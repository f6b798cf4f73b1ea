"""A real server on 127.0.0.1 for tests of bots, and running bot programs against it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from leastscore.server.app import Server
from leastscore.server.config import ServerConfig
from leastscore.server.store import MatchDatabase


@contextlib.asynccontextmanager
async def serving(tmp_path: Path, bot_move_time: float = 60.0) -> AsyncIterator[Server]:
    """A server on a free port, recording matches; bots move at once and have a minute."""
    srv = Server(
        ServerConfig(
            port=0,
            db=str(tmp_path / "matches.sqlite3"),
            bot_delay=0.0,
            bot_move_time=bot_move_time,
            grace_period=10.0,
        )
    )
    await srv.start()
    try:
        yield srv
    finally:
        await srv.shutdown()


async def bot_run(*argv: str, timeout: float = 60, cwd: str | None = None) -> tuple[int, str]:
    """Run a bot program as a real subprocess; its exit status and stderr."""
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE, cwd=cwd
    )
    try:
        _, err = await asyncio.wait_for(proc.communicate(), timeout)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode is not None
    return proc.returncode, err.decode()


async def finished_matches(server: Server, count: int) -> list[str]:
    """The players of the recorded matches, once ``count`` are stored (on a thread)."""
    store = MatchDatabase(server.config.db or "")
    loop = asyncio.get_running_loop()
    end = loop.time() + 60
    while loop.time() < end:
        records = [r for r in store.matches() if r.status == "finished"]
        if len(records) >= count:
            return [p for r in records for p in r.players]
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {count} finished matches were stored")


async def wait_for(condition: object, timeout: float = 60) -> None:
    """Poll ``condition()`` until it is true."""
    assert callable(condition)
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not condition():
        if loop.time() > end:
            raise AssertionError("the condition never came true")
        await asyncio.sleep(0.02)
