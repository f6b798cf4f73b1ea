"""Limits on one peer: its share of the connections, and the time a frame it has begun may
take. Each refusal is an error frame the client reads, then the connection is closed."""

from __future__ import annotations

import struct

import msgspec
import pytest
from leastscore.protocol import errors
from leastscore.protocol import frame as framed

from ..support.server import Raw, serving, wait_for


async def still_works(client: Raw, msg_id: int) -> None:
    client.send({"type": "ping", "id": msg_id})
    assert (await client.until("pong"))["id"] == msg_id


def frame(message: dict[str, object]) -> bytes:
    return framed(msgspec.msgpack.encode(message))


async def test_a_frame_begun_and_never_finished_is_cut_at_its_deadline() -> None:
    async with serving(frame_timeout=0.3) as server:
        seated = await Raw.connect(server.port)
        await seated.hello("trickler")
        seated.send({"type": "create", "id": 1})  # at a table: no idle timeout applies
        await seated.until("ok", id=1)
        whole = frame({"type": "ping", "id": 2})
        begun = frame({"type": "chat", "text": "x" * 60_000, "id": 3})
        seated.send_raw(whole + begun[:1000])  # one frame whole, the next only begun
        assert (await seated.until("pong"))["id"] == 2
        message = await seated.until("error", timeout=30)
        assert message["code"] == errors.FRAME_TIMEOUT and "0.3 s" in message["message"]
        assert await seated.closed()

        before_hello = await Raw.connect(server.port)  # a prefix alone is a frame begun too
        before_hello.send_raw(struct.pack(">I", 100))
        message = await before_hello.until("error", timeout=30)
        assert message["code"] == errors.FRAME_TIMEOUT
        assert await before_hello.closed()


async def test_one_address_holds_at_most_its_share_of_the_connections() -> None:
    async with serving(max_connections_per_peer=3) as server:
        first = [await Raw.connect(server.port) for _ in range(3)]
        for i, client in enumerate(first):
            await client.hello(f"c{i}")
        fourth = await Raw.connect(server.port)
        fourth.send({"type": "hello", "protocol": [1], "name": "c3"})  # as a real client does
        message = await fourth.until("error")
        assert message["code"] == errors.TOO_MANY_CONNECTIONS
        assert "127.0.0.1" in message["message"] and "3 connections" in message["message"]
        assert await fourth.closed()  # a clean close after the error, not a reset
        for i, client in enumerate(first):
            await still_works(client, i)
        try:
            other = await Raw.connect(server.port, source="127.0.0.2")
        except OSError:
            pytest.skip("this system has no second loopback address")
        # another machine is not held back
        await other.hello("elsewhere")
        first[0].close()  # a connection closed is a place free again
        await wait_for(lambda: len(server.connections) == 3)
        again = await Raw.connect(server.port)
        await again.hello("again")
        await still_works(again, 9)
