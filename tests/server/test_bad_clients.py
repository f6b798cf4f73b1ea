"""Every error code, every kind of bad input: a clear error, and nothing lost."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct

import msgspec
import pytest
from leastscore.protocol import errors
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig

from ..support.server import Raw, raw_player, wait_for


def frame(body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + body


async def greeted(server: Server, name: str = "raw") -> Raw:
    client = await Raw.connect(server.port)
    await client.hello(name)
    return client


async def expect_error(client: Raw, code: str, *, closed: bool, msg_id: int | None = None) -> None:
    message = await client.until("error")
    assert message["code"] == code, message
    assert message["message"]
    if msg_id is not None:
        assert message["id"] == msg_id
    if closed:
        assert await client.closed(), f"{code} should close the connection"
    else:
        client.send({"type": "ping", "id": 999})
        assert (await client.until("pong"))["id"] == 999


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"\xc1", "reserved byte"),
        (msgspec.msgpack.encode([1, 2, 3]), "an array"),
        (msgspec.msgpack.encode("hello"), "a string"),
        (msgspec.msgpack.encode({"type": "ping"}) + b"\x00", "trailing bytes"),
        (b"\x91" * 5000 + b"\x00", "deep nesting"),
        (msgspec.msgpack.encode({"type": "ping", "x": msgspec.msgpack.Ext(1, b"ab")}), "ext type"),
        (b"\xde\x00\x05", "a truncated map"),
    ],
)
async def test_bytes_that_are_not_one_map_are_bad_frames(server: Server, data: bytes, why: str):
    client = await greeted(server)
    client.send_raw(frame(data))
    await expect_error(client, errors.BAD_FRAME, closed=True)


async def test_garbage_before_hello(server: Server):
    client = await Raw.connect(server.port)
    client.send_raw(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # a prefix of 1.2 GB
    await expect_error(client, errors.FRAME_TOO_LARGE, closed=True)


async def test_oversized_frame_is_refused_from_its_prefix(server: Server):
    client = await greeted(server)
    client.send_raw(struct.pack(">I", 64 * 1024 + 1))  # no body is ever sent
    await expect_error(client, errors.FRAME_TOO_LARGE, closed=True)


async def test_a_frame_at_the_limit_is_read(server: Server):
    client = await greeted(server)
    body = msgspec.msgpack.encode({"type": "ping", "id": 1, "pad": "x" * (64 * 1024 - 40)})
    assert len(body) <= 64 * 1024
    client.send_raw(frame(body))
    assert (await client.until("pong"))["id"] == 1


@pytest.mark.parametrize(
    "message",
    [
        {"type": "create", "seats": "four"},
        {"type": "create", "seats": 9},
        {"type": "join"},
        {"type": "chat", "text": ""},
        {"type": "chat", "text": "x" * 501},
        {"type": "play", "discard": "7H", "take": "deck"},
        {"type": "play", "discard": ["7H"], "take": 5},
        {"type": "play", "discard": ["ZZ"], "take": "deck"},
        {"type": "hello", "protocol": [1]},
        {"type": 7},
        {"id": 3},
        {"type": "ping", "id": "seven"},
        {1: 2, "type": "ping"},
    ],
)
async def test_schema_breaks_are_bad_messages_and_keep_the_connection(server: Server, message):
    client = await greeted(server)
    client.send(message)
    await expect_error(client, errors.BAD_MESSAGE, closed=False)


async def test_unknown_type_keeps_the_connection(server: Server):
    client = await greeted(server)
    client.send({"type": "teleport", "id": 4})
    await expect_error(client, errors.UNKNOWN_TYPE, closed=False, msg_id=4)


async def test_handshake_rules(server: Server):
    first = await Raw.connect(server.port)
    first.send({"type": "tables", "id": 1})
    await expect_error(first, errors.HELLO_REQUIRED, closed=True)

    old = await Raw.connect(server.port)
    old.send({"type": "hello", "protocol": [2, 3], "name": "future", "id": 1})
    message = await old.until("error")
    assert message["code"] == errors.VERSION_UNSUPPORTED and message["supported"] == [1]
    assert await old.closed()

    bad = await Raw.connect(server.port)
    bad.send({"type": "hello", "protocol": "one"})
    assert (await bad.until("error"))["code"] == errors.BAD_MESSAGE
    await bad.hello("second try")  # the connection stayed open

    forged = await Raw.connect(server.port)
    forged.send({"type": "hello", "protocol": [1], "token": "not-a-token", "id": 2})
    assert (await forged.until("error"))["code"] == errors.BAD_TOKEN
    welcome = await forged.hello("fresh")
    assert welcome["resumed"] is False


async def test_a_silent_client_is_closed_after_the_handshake_deadline(server: Server):
    client = await Raw.connect(server.port)  # the fixture's deadline is 1 s
    message = await client.until("error")
    assert message["code"] == errors.HANDSHAKE_TIMEOUT
    assert await client.closed()


async def test_lobby_errors(server: Server):
    owner = await greeted(server, "owner")
    guest = await greeted(server, "guest")
    guest.send({"type": "join", "table": "t000000", "id": 1})
    await expect_error(guest, errors.NO_SUCH_TABLE, closed=False, msg_id=1)
    guest.send({"type": "leave", "id": 2})
    await expect_error(guest, errors.NOT_AT_TABLE, closed=False, msg_id=2)
    guest.send({"type": "play", "discard": ["AS"], "take": "deck", "id": 3})
    await expect_error(guest, errors.NOT_AT_TABLE, closed=False, msg_id=3)
    owner.send({"type": "create", "rules": {"threshold": -1}, "id": 4})
    await expect_error(owner, errors.BAD_RULES, closed=False, msg_id=4)
    owner.send({"type": "create", "rules": {"colour": "red"}, "id": 5})
    await expect_error(owner, errors.BAD_RULES, closed=False, msg_id=5)
    owner.send(
        {"type": "create", "seats": 2, "password": "pw", "rules": {"threshold": 10}, "id": 6}
    )
    table = (await owner.until("ok", id=6))["table"]
    owner.send({"type": "create", "id": 7})
    await expect_error(owner, errors.ALREADY_SEATED, closed=False, msg_id=7)
    owner.send({"type": "start", "id": 8})
    await expect_error(owner, errors.NOT_ALLOWED, closed=False, msg_id=8)  # 1 player
    owner.send({"type": "add_bot", "level": "godlike", "id": 9})
    await expect_error(owner, errors.BAD_MESSAGE, closed=False, msg_id=9)
    owner.send({"type": "add_bot", "level": "expert:samples=0", "id": 9})
    await expect_error(owner, errors.BAD_MESSAGE, closed=False, msg_id=9)
    guest.send({"type": "join", "table": table, "id": 10})
    await expect_error(guest, errors.PASSWORD_NEEDED, closed=False, msg_id=10)
    guest.send({"type": "join", "table": table, "password": "wrong", "id": 10})
    await expect_error(guest, errors.WRONG_PASSWORD, closed=False, msg_id=10)
    guest.send({"type": "join", "table": table, "password": "pw", "id": 11})
    assert (await guest.until("ok", id=11))["seat"] == 1
    guest.send({"type": "add_bot", "id": 12})
    await expect_error(guest, errors.NOT_ALLOWED, closed=False, msg_id=12)
    # the table was full, so the match started by itself
    third = await greeted(server, "third")
    third.send({"type": "join", "table": table, "password": "pw", "id": 13})
    await expect_error(third, errors.MATCH_RUNNING, closed=False, msg_id=13)
    owner.send({"type": "add_bot", "id": 14})
    code = (await owner.until("error", id=14))["code"]
    assert code in (errors.MATCH_RUNNING, errors.TABLE_FULL)
    third.send({"type": "join", "table": table, "password": "pw", "watch": True, "id": 15})
    await third.until("ok", id=15)
    third.send({"type": "declare", "id": 16})
    await expect_error(third, errors.NO_MATCH, closed=False, msg_id=16)


async def test_table_full_before_a_match(server: Server):
    owner = await greeted(server, "owner")
    owner.send({"type": "create", "seats": 3, "id": 1})
    table = (await owner.until("ok", id=1))["table"]
    owner.send({"type": "add_bot", "id": 2})
    await owner.until("ok", id=2)
    server.lobby.tables[table].size = 2  # as if two seats were all it had
    late = await greeted(server, "late")
    late.send({"type": "join", "table": table, "id": 3})
    await expect_error(late, errors.TABLE_FULL, closed=False, msg_id=3)


async def test_move_errors_leave_the_same_player_to_move(server: Server):
    a = await greeted(server, "a")
    b = await greeted(server, "b")
    a.send({"type": "create", "seats": 2, "rules": {"threshold": 50}, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    b.send({"type": "join", "table": table, "id": 1})
    await b.until("ok", id=1)
    turn = await b.until("turn", seat=1)  # seat 1 (b) moves first; a waits
    a.send({"type": "play", "discard": ["AS"], "take": "deck", "id": 2})
    await expect_error(a, errors.NOT_YOUR_TURN, closed=False, msg_id=2)
    hand = turn["hand"]
    not_mine = next(c for c in ("AS", "AH", "AD", "AC", "2S") if c not in hand)
    b.send({"type": "play", "discard": [not_mine], "take": "deck", "id": 3})
    message = await b.until("error", id=3)
    assert message["code"] == errors.ILLEGAL_MOVE and "not in your hand" in message["message"]
    b.send({"type": "declare", "id": 4})
    await expect_error(b, errors.CANNOT_DECLARE, closed=False, msg_id=4)
    b.send({"type": "play", "discard": [hand[0]], "take": "ZZZ", "id": 5})
    await expect_error(b, errors.BAD_MESSAGE, closed=False, msg_id=5)
    b.send({"type": "play", "discard": [hand[0]], "take": "9Z", "id": 6})
    await expect_error(b, errors.BAD_MESSAGE, closed=False, msg_id=6)
    # after all that, still b's turn, and a legal move goes through
    b.send({"type": "play", "discard": [hand[0]], "take": "deck", "id": 7})
    assert await b.until("ok", id=7)
    played = await a.until("played", seat=1)
    assert played["discard"] == [hand[0]] and "drawn" not in played


async def test_rate_limit_refuses_with_the_id_and_keeps_the_connection():
    server = Server(ServerConfig(port=0, rate=5, burst=5))
    await server.start()
    try:
        client = await greeted(server)
        for i in range(20):
            client.send({"type": "ping", "id": i})
        # the burst is answered, then one rate_limited names the first ping dropped;
        # the rest of the flood is dropped without a word
        replies = []
        while not replies or replies[-1]["type"] != "error":
            replies.append(await client.until_any({"pong", "error"}))
        *pongs, limited = replies
        assert limited["code"] == errors.RATE_LIMITED
        assert [p["id"] for p in pongs] == list(range(limited["id"]))
        probe = 100
        while True:  # the connection stays: once the bucket refills, a ping gets its pong
            client.send({"type": "ping", "id": probe})
            with contextlib.suppress(TimeoutError):
                await client.until("pong", timeout=0.5, id=probe)
                break
            probe += 1
    finally:
        await server.shutdown()


async def test_too_many_connections():
    server = Server(ServerConfig(port=0, max_connections=2))
    await server.start()
    try:
        a = await greeted(server, "a")
        b = await Raw.connect(server.port)
        c = await Raw.connect(server.port)
        await expect_error(c, errors.SERVER_FULL, closed=True)
        await b.hello("b")
        await expect_error(await Raw.connect(server.port), errors.SERVER_FULL, closed=True)
        a.close()  # a place comes free
        await wait_for(lambda: len(server.connections) < 2)
        await greeted(server, "d")
    finally:
        await server.shutdown()


async def test_idle_connections_are_closed():
    # Apart from the test above: an idle timeout short enough to wait for would free a
    # place there if the machine were slow to connect the third client.
    server = Server(ServerConfig(port=0, idle_timeout=0.5))
    await server.start()
    try:
        a = await greeted(server, "a")
        message = await a.until("error")
        assert message["code"] == errors.IDLE_TIMEOUT
        assert await a.closed()
    finally:
        await server.shutdown()


async def test_a_slow_reader_is_cut_and_never_stalls_its_table():
    server = Server(ServerConfig(port=0, send_limit=64 * 1024, bot_delay=0.0, rate=1e6, burst=1e6))
    await server.start()
    try:
        player = await greeted(server, "player")
        player.send({"type": "create", "seats": 4, "rules": {"threshold": 60}, "id": 1})
        table = (await player.until("ok", id=1))["table"]
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        reader, writer = await asyncio.open_connection(sock=sock)
        slow = Raw(reader, writer)
        await slow.hello("slow")
        slow.send({"type": "join", "table": table, "watch": True, "id": 1})
        await slow.until("ok", id=1)
        for i in range(3):
            player.send({"type": "add_bot", "level": "random", "id": 10 + i})
        # the slow one asks for snapshots (some 10 MB of them) and never reads them
        for i in range(10_000):
            slow.send({"type": "state", "id": 100 + i})
            if i % 500 == 0:
                await asyncio.sleep(0.01)
        # the table plays on: the player keeps getting its turns and finishes
        end = await asyncio.wait_for(raw_player(player), 60)
        assert end["type"] == "match_end"
        names = [c.player.name for c in server.connections if c.player is not None]
        assert names == ["player"]  # the slow reader was cut off
    finally:
        await server.shutdown()


async def test_accepted_moves_do_not_count_against_the_rate_limit():
    """A bot at a fast table moves far more often than the limit; that is not a flood."""
    server = Server(ServerConfig(port=0, rate=2, burst=5, bot_delay=0.0))
    await server.start()
    try:
        client = await greeted(server, "fast")
        client.send({"type": "create", "seats": 2, "rules": {"threshold": 30}, "id": 1})
        await client.until("ok", id=1)
        client.send({"type": "add_bot", "level": "greedy", "id": 2})
        end = await raw_player(client)  # dozens of moves in well under a second
        assert end["type"] == "match_end"
    finally:
        await server.shutdown()


async def test_a_move_for_a_turn_that_has_passed_is_refused(server: Server):
    a = await greeted(server, "a")
    b = await greeted(server, "b")
    a.send({"type": "create", "seats": 2, "rules": {"threshold": 50}, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    b.send({"type": "join", "table": table, "id": 1})
    await b.until("ok", id=1)
    turn = await b.until("turn", seat=1)
    move = {"type": "play", "discard": [turn["hand"][0]], "take": "deck"}
    b.send({**move, "id": 2, "round": turn["round"], "turn": turn["turn"] + 2})
    message = await b.until("error", id=2)
    assert (
        message["code"] == errors.NOT_YOUR_TURN
        and "is not the one being played" in message["message"]
    )
    b.send({**move, "id": 3, "round": turn["round"], "turn": turn["turn"]})
    assert await b.until("ok", id=3)
