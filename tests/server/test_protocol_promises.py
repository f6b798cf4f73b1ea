"""Promises of PROTOCOL.md that a client written from the document alone relies on,
kept over real TCP: nil means the default, ids on every reply, closing errors that
arrive, one rate_limited a second, rematches, and the edge cases the document lists."""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import sys
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
from leastscore.protocol import errors
from leastscore.protocol.messages import CLIENT_TYPES, ListTables, optional_fields
from leastscore.seats.program import ProgramSeat
from leastscore.seats.seat import SeatFailed
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig
from leastscore.server.lobby import lobby
from leastscore.server.net.session import WARN_EVERY, RateLimit

from leastscore import protocol

from ..support.messages import minimal, nested
from ..support.server import Raw, raw_player, wait_for


def frame(message: Any) -> bytes:
    body = msgspec.msgpack.encode(message)
    return struct.pack(">I", len(body)) + body


async def greeted(server: Server, name: str = "raw", **extra: Any) -> Raw:
    client = await Raw.connect(server.port)
    await client.hello(name, **extra)
    return client


async def replies_until_pong(client: Raw, probe: int = 10**6) -> list[dict[str, Any]]:
    """Everything the server sent before the pong to a ping sent now."""
    client.send({"type": "ping", "id": probe})
    seen = []
    while (message := await client.recv(10)) != {"type": "pong", "id": probe}:
        seen.append(message)
    return seen


@pytest.fixture
async def lingering() -> AsyncIterator[Server]:
    """A server whose closed connections wait a long time for the client to hang up:
    a test sees the half-close and never a linger that ran out."""
    srv = Server(ServerConfig(port=0, max_connections=1, linger=60.0, bot_delay=0.0))
    await srv.start()
    yield srv
    await srv.shutdown()


# -- 1. nil in an optional field is the default --------------------------------------------


@pytest.mark.parametrize(
    ("kind", "name"),
    [(kind, name) for kind, cls in CLIENT_TYPES.items() for name in sorted(optional_fields(cls))],
)
async def test_nil_in_any_optional_field_is_accepted(server: Server, kind: str, name: str):
    message = {**minimal(kind), name: None}
    if kind == "hello":
        client = await Raw.connect(server.port)
        client.send(message)
        reply = await client.until_any({"welcome", "error"})
        assert reply["type"] == "welcome", reply
        return
    client = await greeted(server)
    client.send(message)
    refused = [m for m in await replies_until_pong(client) if m["type"] == "error"]
    assert all(m["code"] != errors.BAD_MESSAGE for m in refused), refused


async def test_nil_seats_and_rules_make_the_standard_table(server: Server):
    client = await greeted(server)
    client.send({"type": "create", "name": None, "seats": None, "rules": None, "id": 1})
    await client.until("ok", id=1)
    state = await client.until("state")
    assert state["table"]["seats"] == 4 and state["table"]["rules"] == {}


# -- 2. round and turn together --------------------------------------------------------


async def test_a_move_with_round_but_no_turn_is_refused_and_not_taken(server: Server):
    client = await greeted(server, "prog", bot=True)
    client.send({"type": "create", "seats": 2, "id": 1})
    await client.until("ok", id=1)
    client.send({"type": "add_bot", "level": "greedy", "id": 2})
    turn = await client.until("turn", seat=0, timeout=30)
    while "hand" not in turn:
        turn = await client.until("turn", seat=0, timeout=30)
    move = {"type": "play", "discard": [turn["hand"][0]], "take": "deck"}
    client.send({**move, "id": 3, "round": turn["round"]})
    refused = await client.until_any({"ok", "error"})
    assert refused["type"] == "error" and refused["code"] == errors.BAD_MESSAGE, refused
    assert refused["id"] == 3 and "round and turn go together" in refused["message"]
    client.send({**move, "id": 4, "turn": turn["turn"]})
    assert (await client.until_any({"ok", "error"}))["code"] == errors.BAD_MESSAGE
    client.send({**move, "id": 5, "round": turn["round"], "turn": turn["turn"]})
    assert await client.until_any({"ok", "error"}) == {"type": "ok", "id": 5}


# -- 3. every reply carries its request's id --------------------------------------------


async def test_hello_required_carries_the_id(server: Server):
    client = await Raw.connect(server.port)
    client.send({"type": "tables", "id": 7})
    refused = await client.until("error")
    assert (refused["code"], refused.get("id")) == (errors.HELLO_REQUIRED, 7)
    assert await client.closed()

    schema_break = await Raw.connect(server.port)
    schema_break.send({"type": "join", "watch": "yes", "id": 8})  # a bad message, not a hello
    refused = await schema_break.until("error")
    assert (refused["code"], refused.get("id")) == (errors.HELLO_REQUIRED, 8)


async def test_a_bad_hello_then_another_frame(server: Server):
    """PROTOCOL.md: bad_message, then a hello may follow; anything else is hello_required."""
    client = await Raw.connect(server.port)
    client.send({"type": "hello", "protocol": "one", "id": 1})
    client.send({"type": "ping", "id": 2})
    first = await client.until("error")
    assert (first["code"], first["id"]) == (errors.BAD_MESSAGE, 1)
    second = await client.until("error")
    assert (second["code"], second["id"]) == (errors.HELLO_REQUIRED, 2)
    assert await client.closed()

    again = await Raw.connect(server.port)
    again.send({"type": "hello", "protocol": "one", "id": 1})
    again.send({"type": "hello", "protocol": [1], "id": 2})
    assert (await again.until("error"))["code"] == errors.BAD_MESSAGE
    assert (await again.until("welcome"))["id"] == 2


async def test_an_internal_error_carries_the_id_and_keeps_the_connection(server, monkeypatch):
    def broken(*args: Any) -> None:
        raise RuntimeError("a bug in the server")

    monkeypatch.setitem(lobby._HANDLERS, ListTables, broken)
    client = await greeted(server)
    client.send({"type": "tables", "id": 5})
    refused = await client.until("error")
    assert (refused["code"], refused.get("id")) == (errors.INTERNAL_ERROR, 5)
    client.send({"type": "ping", "id": 6})
    assert (await client.until("pong"))["id"] == 6


# -- 4. a closing error arrives: half-close, then linger ---------------------------------


async def read_to_the_end(sock: socket.socket) -> list[dict[str, Any]]:
    """Every frame the server sends before it ends the stream cleanly (a reset raises)."""
    reader, writer = await asyncio.open_connection(sock=sock)
    data = await asyncio.wait_for(reader.read(), 30)  # to the end of the stream
    writer.close()
    frames = protocol.FrameReader(protocol.SERVER_FRAME_LIMIT).feed(data)
    return [msgspec.msgpack.decode(body) for body in frames]


async def test_connections_over_the_limit_all_read_server_full(lingering: Server):
    first = await greeted(lingering, "first")  # the one connection allowed
    socks = []
    for _ in range(20):
        # Connected and written while the loop (and so the server) is busy here: each
        # hello is waiting, unread, when the server refuses the connection.
        sock = socket.create_connection(("127.0.0.1", lingering.port))
        sock.sendall(frame({"type": "hello", "protocol": [1]}))
        socks.append(sock)
    for sock in socks:
        received = await read_to_the_end(sock)
        assert [m["code"] for m in received] == [errors.SERVER_FULL]
    await wait_for(lambda: not lingering.closing)  # each closed once its client did
    first.send({"type": "ping", "id": 1})
    assert (await first.until("pong"))["id"] == 1


async def test_a_bad_frame_with_more_input_behind_it_is_read(lingering: Server):
    client = await greeted(lingering)
    pings = b"".join(frame({"type": "ping", "id": i}) for i in range(100_000))
    client.send_raw(struct.pack(">I", 1) + b"\xc1" + pings)  # 1.5 MB behind a bad frame
    received = await asyncio.wait_for(client.reader.read(), 30)  # to the end: a reset raises
    messages = [msgspec.msgpack.decode(b) for b in client.frames.feed(received)]
    assert [m["code"] for m in messages if m["type"] == "error"] == [errors.BAD_FRAME]
    assert not [m for m in messages if m["type"] == "pong"]  # nothing after it was read


async def test_a_client_that_never_hangs_up_is_cut_after_the_linger():
    server = Server(ServerConfig(port=0, linger=0.1))
    await server.start()
    try:
        client = await Raw.connect(server.port)
        client.send({"type": "tables", "id": 1})  # hello_required: a closing error
        assert (await client.until("error"))["code"] == errors.HELLO_REQUIRED
        assert await client.closed()  # the server's side ended; ours stays open
        await wait_for(lambda: not server.closing and not server.connections)
    finally:
        await server.shutdown()


# -- 6. one rate_limited per second ---------------------------------------------------------


def test_the_rate_limit_tells_once_a_second():
    limit = RateLimit(rate=5, burst=5, now=0.0)
    assert [limit.allow(0.0) for _ in range(6)] == [True] * 5 + [False]
    assert limit.warn(0.0) and not limit.warn(0.5) and not limit.warn(WARN_EVERY - 0.01)
    assert limit.allow(0.5)  # 2.5 tokens came back in half a second
    assert limit.warn(WARN_EVERY)
    limit.refund()
    assert limit.tokens <= limit.burst


async def test_a_flood_gets_one_rate_limited_a_second():
    server = Server(ServerConfig(port=0, rate=5, burst=5))
    await server.start()
    try:
        client = await greeted(server)
        loop = asyncio.get_running_loop()
        began = loop.time()
        client.send_raw(b"".join(frame({"type": "ping", "id": i}) for i in range(3000)))
        pongs: list[int] = []
        limited: list[dict[str, Any]] = []
        probe = -1
        while probe not in pongs:  # until the bucket has refilled and a ping gets through
            probe -= 1
            client.send({"type": "ping", "id": probe})
            with contextlib.suppress(TimeoutError):
                while probe not in pongs:
                    message = await client.recv(0.5)
                    if message["type"] == "pong":
                        pongs.append(message["id"])
                    else:
                        limited.append(message)
        elapsed = loop.time() - began
        assert {m["code"] for m in limited} == {errors.RATE_LIMITED}
        dropped = limited[0]["id"]  # the first ping over the limit: those before it got pongs
        assert 1 <= dropped <= 5 and pongs[:dropped] == list(range(dropped))
        assert 1 <= len(limited) <= 1 + elapsed / WARN_EVERY  # not ~3,000
    finally:
        await server.shutdown()


# -- 5. after match_end ----------------------------------------------------------------------


async def play_one_match(client: Raw, *, rematch: bool) -> None:
    client.send(
        {"type": "create", "seats": 2, "rules": {"threshold": 10}, "rematch": rematch, "id": 1}
    )
    await client.until("ok", id=1)
    client.send({"type": "add_bot", "level": "random", "id": 2})
    end = await raw_player(client)
    assert end["type"] == "match_end"
    # the table says the match is over before anything else happens
    await client.until("table", timeout=30)


async def test_a_table_of_bots_and_programs_with_rematch_plays_again(server: Server):
    program = await greeted(server, "prog", bot=True)
    await play_one_match(program, rematch=True)
    again = await program.until_any({"table", "match_start"})
    assert again["type"] == "table" and again["table"]["playing"] is True
    assert again["table"]["rematch"] is True
    await program.until("match_start")
    assert (await raw_player(program))["type"] == "match_end"  # and the second one ends too


@pytest.mark.parametrize(("bot", "rematch"), [(True, False), (False, True)])
async def test_otherwise_the_owner_starts_the_next_match(server: Server, bot: bool, rematch: bool):
    client = await greeted(server, "owner", bot=bot)
    await play_one_match(client, rematch=rematch)
    client.send({"type": "state", "id": 3})
    state = await client.until("state", id=3)
    assert state["table"]["playing"] is False and state["match"]["over"] is True
    client.send({"type": "start", "id": 4})
    await client.until("ok", id=4)
    await client.until("match_start")


# -- 7. the edge cases PROTOCOL.md lists ------------------------------------------------------


@pytest.mark.parametrize(
    "message",
    [
        {"type": "play", "discard": [], "take": "deck"},
        {"type": "play", "discard": ["2C", "3C", "4C", "5C", "6C", "7C"], "take": "deck"},
        {"type": "create", "seats": 9},
        {"type": "create", "seats": 1},
        {1: 2, "type": "ping"},
        {"type": "create", "rules": {1: 2}},
        {"type": "declare", "round": 1},
        {"type": "hello", "protocol": [1]},  # a second hello
    ],
)
async def test_listed_schema_breaks_are_bad_messages_with_the_id(server: Server, message):
    client = await greeted(server)
    client.send({**message, "id": 42})
    refused = await client.until("error")
    assert (refused["code"], refused.get("id")) == (errors.BAD_MESSAGE, 42), refused
    client.send({"type": "ping", "id": 43})
    assert (await client.until("pong"))["id"] == 43


async def test_a_card_twice_in_one_discard(server: Server):
    a = await greeted(server, "a")
    b = await greeted(server, "b")
    a.send({"type": "create", "seats": 2, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    b.send({"type": "join", "table": table, "id": 1})
    turn = await b.until("turn", seat=1)  # seat 1 moves first
    card = turn["hand"][0]
    twice = {"type": "play", "discard": [card, card], "take": "deck"}
    a.send({**twice, "id": 2})
    assert (await a.until("error", id=2))["code"] == errors.NOT_YOUR_TURN
    b.send({**twice, "id": 3})
    refused = await b.until("error", id=3)
    assert refused["code"] == errors.ILLEGAL_MOVE and "twice" in refused["message"]


async def test_a_join_to_a_full_running_table_is_match_running(server: Server):
    """Which error for what: the password first, then ``match_running`` whenever a match
    runs (full or not: watching is allowed), ``table_full`` at a full table between matches."""
    owner = await greeted(server, "owner", bot=True)
    owner.send({"type": "create", "seats": 2, "password": "pw", "id": 1})
    table = (await owner.until("ok", id=1))["table"]
    guest = await greeted(server, "guest")
    guest.send({"type": "join", "table": table, "password": "pw", "id": 2})
    await guest.until("ok", id=2)  # the last seat: the match starts
    await guest.until("match_start")
    late = await greeted(server, "late")
    for msg_id, password, code in [
        (3, None, errors.PASSWORD_NEEDED),
        (4, "nope", errors.WRONG_PASSWORD),
        (5, "pw", errors.MATCH_RUNNING),
    ]:
        late.send({"type": "join", "table": table, "password": password, "id": msg_id})
        assert (await late.until("error", id=msg_id))["code"] == code
    late.send({"type": "join", "table": table, "password": "pw", "watch": True, "id": 6})
    assert "seat" not in await late.until("ok", id=6)
    late.send({"type": "leave", "id": 7})
    await late.until("ok", id=7)
    guest.send({"type": "leave", "id": 8})  # forfeits: the owner wins, the match ends
    await owner.until("match_end")
    # the forfeited seat stays taken until the next match starts: full, between matches
    owner.send({"type": "state", "id": 9})
    assert (await owner.until("state", id=9))["table"]["playing"] is False
    late.send({"type": "join", "table": table, "password": "pw", "id": 10})
    assert (await late.until("error", id=10))["code"] == errors.TABLE_FULL


async def test_the_nesting_limit_is_32_levels(server: Server):
    client = await greeted(server)
    client.send(nested(32))
    assert (await client.until_any({"pong", "error"}))["type"] == "pong"
    client.send(nested(33))
    assert (await client.until("error"))["code"] == errors.BAD_FRAME
    assert await client.closed()


# -- 9. the negotiated version, everywhere ------------------------------------------------------


async def test_the_resumed_welcome_names_the_version_agreed(server: Server, monkeypatch):
    monkeypatch.setattr(protocol, "SUPPORTED", (1, 2))
    first = await Raw.connect(server.port)
    welcome = await first.hello("ann", protocol=[1, 2])
    assert welcome["protocol"] == 2
    again = await Raw.connect(server.port)  # resumes while the first is still connected
    again.send({"type": "hello", "protocol": [1, 2], "token": welcome["token"], "id": 1})
    resumed = await again.until("welcome")
    assert resumed["resumed"] is True and resumed["protocol"] == 2
    assert (await first.until("bye"))["reason"]
    (conn,) = [c for c in server.connections if c.player is not None and not c.closed]
    assert conn.version == 2
    old = await Raw.connect(server.port)
    old.send({"type": "hello", "protocol": [7], "id": 2})
    refused = await old.until("error")
    assert refused["code"] == errors.VERSION_UNSUPPORTED and refused["supported"] == [1, 2]


PROGRAM = """
import struct, sys, msgspec
offered = [int(v) for v in sys.argv[1].split(",")]
body = msgspec.msgpack.encode({"type": "hello", "protocol": offered, "bot": True, "id": 1})
sys.stdout.buffer.write(struct.pack(">I", len(body)) + body)
sys.stdout.buffer.flush()
(size,) = struct.unpack(">I", sys.stdin.buffer.read(4))
with open(sys.argv[2] + ".part", "wb") as out:
    out.write(sys.stdin.buffer.read(size))
os.replace(sys.argv[2] + ".part", sys.argv[2])
sys.stdin.buffer.read()
"""


async def test_the_stdio_host_speaks_the_version_agreed(tmp_path, monkeypatch):
    monkeypatch.setattr(protocol, "SUPPORTED", (1, 2))
    script = tmp_path / "prog.py"
    script.write_text("import os\n" + PROGRAM)
    got = tmp_path / "first-frame"
    seat = ProgramSeat([sys.executable, str(script), "1,2", str(got)], "prog")
    try:
        await seat.start()
        assert seat.version == 2
        await wait_for(got.exists, timeout=30)
    finally:
        await seat.close()
    welcome = msgspec.msgpack.decode(got.read_bytes())
    assert (welcome["type"], welcome["protocol"], welcome["id"]) == ("welcome", 2, 1)

    refused = ProgramSeat([sys.executable, str(script), "7", str(got)], "old")
    with pytest.raises(SeatFailed):
        await refused.start()
    await refused.close()
    assert refused.version is None and "not 1, 2" in refused.problems[-1]
