"""PROTOCOL.md's fine print on a real connection: str never bin, ids of 64 bits echoed
as sent, key order free, the last of a twice-given key counts."""

from __future__ import annotations

import struct

import pytest
from leastscore.protocol import errors
from leastscore.server.app import Server

from ..support.server import Raw


async def greeted(server: Server) -> Raw:
    client = await Raw.connect(server.port)
    await client.hello("wire")
    return client


def send_body(client: Raw, body: bytes) -> None:
    client.send_raw(struct.pack(">I", len(body)) + body)


def fixstr(text: str) -> bytes:
    data = text.encode()
    return bytes([0xA0 | len(data)]) + data


async def still_open(client: Raw) -> None:
    client.send({"type": "ping", "id": 4242})
    assert (await client.until("pong"))["id"] == 4242


@pytest.mark.parametrize(
    "message",
    [
        {"type": "chat", "text": b"hello", "id": 1},
        {"type": "play", "discard": [b"7H"], "take": "deck", "id": 1},
        {"type": "join", "table": b"t1a2b3", "id": 1},
    ],
    ids=["chat text", "a card", "a table id"],
)
async def test_a_bin_where_a_string_belongs_is_a_bad_message(
    server: Server, message: dict[str, object]
) -> None:
    client = await greeted(server)
    client.send(message)
    refused = await client.until("error")
    assert refused["code"] == errors.BAD_MESSAGE and refused["id"] == 1
    assert "bytes" in refused["message"]
    await still_open(client)


async def test_a_bin_type_is_a_bad_message(server: Server) -> None:
    client = await greeted(server)
    client.send({"type": b"ping", "id": 2})
    refused = await client.until("error")
    assert refused["code"] == errors.BAD_MESSAGE and refused["id"] == 2
    await still_open(client)


async def test_a_bin_name_in_hello_is_refused_and_hello_may_be_said_again(server: Server) -> None:
    client = await Raw.connect(server.port)
    client.send({"type": "hello", "protocol": [1], "name": b"alice"})
    assert (await client.until("error"))["code"] == errors.BAD_MESSAGE
    assert (await client.hello("alice"))["protocol"] == 1


@pytest.mark.parametrize("msg_id", [2**64 - 1, 2**63, 2**63 - 1, -(2**63), -1, 0])
async def test_ids_of_64_bits_signed_or_unsigned_are_echoed_as_sent(
    server: Server, msg_id: int
) -> None:
    client = await greeted(server)
    client.send({"type": "ping", "id": msg_id})
    assert (await client.until("pong"))["id"] == msg_id
    client.send({"type": "leave", "id": msg_id})  # a refusal echoes it too
    refused = await client.until("error")
    assert refused["code"] == errors.NOT_AT_TABLE and refused["id"] == msg_id
    if msg_id > 2**63 - 1:
        assert client.received[-1].endswith(b"\xa2id\xcf" + msg_id.to_bytes(8, "big"))


@pytest.mark.parametrize("msg_id", [1.0, "1", True])
async def test_an_id_that_is_no_integer_is_a_bad_message(server: Server, msg_id: object) -> None:
    client = await greeted(server)
    client.send({"type": "ping", "id": msg_id})
    assert (await client.until("error"))["code"] == errors.BAD_MESSAGE
    await still_open(client)


async def test_key_order_is_free(server: Server) -> None:
    client = await greeted(server)
    body = b"\x82" + fixstr("id") + b"\x05" + fixstr("type") + fixstr("ping")
    send_body(client, body)
    assert (await client.until("pong"))["id"] == 5


async def test_of_a_key_given_twice_the_last_counts(server: Server) -> None:
    client = await greeted(server)
    ids = fixstr("id") + b"\x01" + fixstr("id") + b"\x02"
    send_body(client, b"\x83" + fixstr("type") + fixstr("ping") + ids)
    assert (await client.until("pong"))["id"] == 2
    types = fixstr("type") + fixstr("leave") + fixstr("type") + fixstr("ping")
    send_body(client, b"\x83" + types + fixstr("id") + b"\x03")
    assert (await client.until_any({"pong", "error"})) == {"type": "pong", "id": 3}
