"""A real server on 127.0.0.1, port 0, inside the test's event loop."""

from __future__ import annotations

import asyncio
import contextlib
import struct
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from leastscore.protocol import SERVER_FRAME_LIMIT, FrameReader
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[Server]:
    srv = Server(
        ServerConfig(
            port=0,
            db=str(tmp_path / "matches.sqlite3"),
            bot_delay=0.0,
            grace_period=1.0,
            handshake_timeout=1.0,
        )
    )
    await srv.start()
    yield srv
    await srv.shutdown()


@contextlib.asynccontextmanager
async def serving(**config: Any) -> AsyncIterator[Server]:
    """A server of a test's own, with the limits it tests (no database)."""
    srv = Server(ServerConfig(port=0, db=None, **config))
    await srv.start()
    try:
        yield srv
    finally:
        await srv.shutdown()


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
