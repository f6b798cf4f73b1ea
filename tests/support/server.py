"""A real server on 127.0.0.1, port 0: in the test's own event loop, or as ``leastscore
serve`` in a real process; a client of hand-written frames; waiting for what a server
writes on a thread of its own."""

from __future__ import annotations

import asyncio
import contextlib
import re
import signal
import struct
import subprocess
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import msgspec
from leastscore.protocol import SERVER_FRAME_LIMIT, FrameReader
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig

from .cli import ROOT, started, stop


@contextlib.asynccontextmanager
async def serving(**config: Any) -> AsyncIterator[Server]:
    """A server of a test's own in this event loop, with the settings it tests (no
    database unless ``db`` is given)."""
    srv = Server(ServerConfig(port=0, **config))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.shutdown()


def recording(tmp_path: Path, **config: Any) -> contextlib.AbstractAsyncContextManager[Server]:
    """``serving`` for bots to play at: it records its matches in ``tmp_path``, bots
    move at once and have a minute a move (``config`` changes any of that)."""
    settings = {"bot_delay": 0.0, "bot_move_time": 60.0, "grace_period": 10.0, **config}
    return serving(db=str(tmp_path / "matches.sqlite3"), **settings)


class ServerProcess:
    """``leastscore serve`` in a process of its own, on a free loopback port (read from
    the first line it prints); without a database unless ``db`` is given. ``extra``
    flags come last, so they override the defaults (bots move at once)."""

    def __init__(self, *extra: str, db: str | Path | None = None) -> None:
        store = ["--db", str(db)] if db is not None else ["--no-db"]
        self.proc = started(
            "serve", "--port", "0", *store, "--bot-delay", "0", *extra,
            cwd=ROOT, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        found = re.search(r"^listening on 127\.0\.0\.1:(\d+)$", line.strip())
        assert found, f"the server said {line!r}"
        self.port = int(found.group(1))

    def interrupt(self, timeout: float = 60) -> int:
        """Ctrl-C, as at a terminal; the exit status."""
        self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout)

    def stop(self) -> int:
        """SIGTERM (SIGKILL if it does not end); the exit status."""
        return stop(self.proc)


class Raw:
    """A client made of hand-written frames: plain dicts through msgpack, no SDK."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.frames = FrameReader(limit=SERVER_FRAME_LIMIT)
        self.pending: list[dict[str, Any]] = []
        self.received: list[bytes] = []
        """Every frame body received, for scans."""

    @classmethod
    async def connect(cls, port: int, source: str | None = None) -> Raw:
        """Connect to 127.0.0.1; ``source`` is another loopback address to come from
        (such as 127.0.0.2), to stand for another machine."""
        local = (source, 0) if source is not None else None
        reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=local)
        return cls(reader, writer)

    def send(self, message: dict[str, Any]) -> None:
        body = msgspec.msgpack.encode(message)
        self.writer.write(struct.pack(">I", len(body)) + body)

    def send_raw(self, data: bytes) -> None:
        self.writer.write(data)

    async def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        while not self.pending:
            data = await asyncio.wait_for(self.reader.read(65536), timeout)
            if not data:
                raise ConnectionError("closed")
            for body in self.frames.feed(data):
                self.received.append(body)
                self.pending.append(msgspec.msgpack.decode(body))
        return self.pending.pop(0)

    async def until(self, kind: str, timeout: float = 30.0, **fields: Any) -> dict[str, Any]:
        """Read until a message of ``kind`` (with ``fields``) arrives; return it."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, end - loop.time()))
            if message["type"] == kind and all(message.get(k) == v for k, v in fields.items()):
                return message

    async def until_any(self, kinds: set[str], timeout: float = 30.0) -> dict[str, Any]:
        """Read until a message of one of ``kinds`` arrives; return it."""
        loop = asyncio.get_running_loop()
        end = loop.time() + timeout
        while True:
            message = await self.recv(max(0.01, end - loop.time()))
            if message["type"] in kinds:
                return message

    async def closed(self, timeout: float = 30.0) -> bool:
        """True once the server has closed the connection."""
        try:
            while True:
                data = await asyncio.wait_for(self.reader.read(65536), timeout)
                if not data:
                    return True
                for body in self.frames.feed(data):
                    self.received.append(body)
                    self.pending.append(msgspec.msgpack.decode(body))
        except (TimeoutError, ConnectionError):
            return False

    async def hello(self, name: str = "raw", **extra: Any) -> dict[str, Any]:
        self.send({"type": "hello", "protocol": [1], "name": name, **extra})
        return await self.until("welcome")

    def close(self) -> None:
        self.writer.close()


def answer(turn: dict[str, Any], msg_id: int) -> dict[str, Any]:
    """A play answering ``turn`` (a ``turn`` or a snapshot's ``match``), with its stamp:
    the last legal group, from the deck when it may."""
    return {
        "type": "play",
        "id": msg_id,
        "discard": turn["legal"][-1],
        "take": "deck" if turn["can_draw"] else turn["open"][0],
        "round": turn["round"],
        "turn": turn["turn"],
    }


async def raw_player(client: Raw) -> dict[str, Any]:
    """Play until the match ends: the last legal group, from the deck; declare at 4 or less."""
    from leastscore.game.cards import BY_NAME, VALUE

    next_id = 100
    while True:
        message = await client.until_any({"turn", "match_end"}, timeout=30)
        if message["type"] == "match_end":
            return message
        if "hand" not in message:
            continue
        next_id += 1
        total = sum(VALUE[BY_NAME[c]] for c in message["hand"])
        if message["can_declare"] and total <= 4:
            client.send({"type": "declare", "id": next_id})
        else:
            take = "deck" if message["can_draw"] else message["open"][0]
            client.send(
                {"type": "play", "id": next_id, "discard": message["legal"][-1], "take": take}
            )
        reply = await client.until_any({"ok", "error"})
        assert reply == {"type": "ok", "id": next_id}, reply


async def wait_for(
    condition: Callable[[], Any], timeout: float = 60, what: str = "the condition"
) -> Any:
    """Poll ``condition()`` until it gives something true (a server writes its database
    on a thread of its own); return that. ``what`` names it when it never does."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while True:
        found = condition()
        if found:
            return found
        if loop.time() > end:
            raise AssertionError(f"{what} never came true in {timeout:g} s")
        await asyncio.sleep(0.02)


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
    from leastscore.server.records.store import MatchDatabase

    store = MatchDatabase(server.config.db or "")
    records = await wait_for(
        lambda: (
            (done := [r for r in store.matches() if r.status == "finished"])
            and len(done) >= count
            and done
        ),
        what=f"{count} finished matches stored",
    )
    return [p for r in records for p in r.players]
