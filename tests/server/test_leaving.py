"""Players who leave at awkward moments: before the deal, and while the last one moves."""

from __future__ import annotations

import logging
import struct
from typing import Any

import msgspec
import pytest
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig
from leastscore.server.records.store import MatchDatabase

from ..support.server import Raw, raw_player


def frames(*messages: dict[str, Any]) -> bytes:
    """Several frames as one write: the server reads them in one go."""
    out = b""
    for message in messages:
        body = msgspec.msgpack.encode(message)
        out += struct.pack(">I", len(body)) + body
    return out


def no_tracebacks(caplog: pytest.LogCaptureFixture) -> None:
    failed = [r.getMessage() for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert failed == []


async def test_a_leave_in_the_packet_that_starts_the_match_is_answered_ok(
    server: Server, caplog: pytest.LogCaptureFixture
):
    ann = await Raw.connect(server.port)
    await ann.hello("ann")
    ann.send({"type": "create", "seats": 2, "id": 1})
    await ann.until("ok", id=1)
    # the bot fills the table (the match starts) and ann leaves before its first step
    ann.send_raw(
        frames({"type": "add_bot", "level": "greedy", "id": 2}, {"type": "leave", "id": 3})
    )
    await ann.until("ok", id=2)
    assert await ann.until_any({"ok", "error"}) == {"type": "ok", "id": 3}
    ann.send({"type": "create", "seats": 2, "id": 4})  # no longer seated anywhere
    assert (await ann.until_any({"ok", "error"}))["type"] == "ok"
    no_tracebacks(caplog)


async def test_a_player_who_leaves_before_the_deal_forfeits_and_the_others_play_on(
    server: Server, caplog: pytest.LogCaptureFixture
):
    ann, bea = await Raw.connect(server.port), await Raw.connect(server.port)
    await ann.hello("ann")
    await bea.hello("bea")
    ann.send({"type": "create", "seats": 3, "rules": {"threshold": 15}, "id": 1})
    table = (await ann.until("ok", id=1))["table"]
    bea.send({"type": "join", "table": table, "id": 1})
    await bea.until("ok", id=1)
    ann.send_raw(
        frames({"type": "add_bot", "level": "greedy", "id": 2}, {"type": "leave", "id": 3})
    )
    assert (await ann.until_any({"ok", "error"}))["id"] == 2
    assert await ann.until_any({"ok", "error"}) == {"type": "ok", "id": 3}
    await bea.until("match_start")
    resigned = await bea.until("resigned")
    assert resigned == {"type": "resigned", "seat": 0, "reason": "ann left"}
    end = await raw_player(bea)
    assert end["standings"][-1]["seat"] == 0
    no_tracebacks(caplog)


async def test_the_last_person_leaving_in_the_write_that_fills_the_table_closes_it(
    server: Server, caplog: pytest.LogCaptureFixture
):
    """The match is set up but not dealt when the leave is read: the seat still goes, and
    with nobody left but bots the table closes."""
    ann = await Raw.connect(server.port)
    await ann.hello("ann")
    ann.send_raw(
        frames(
            {"type": "create", "seats": 3, "id": 1},
            {"type": "add_bot", "level": "greedy", "id": 2},
            {"type": "add_bot", "level": "greedy", "id": 3},  # full: the match starts
            {"type": "leave", "id": 4},
        )
    )
    for msg_id in (1, 2, 3, 4):
        reply = await ann.until_any({"ok", "error"})
        assert (reply["type"], reply["id"]) == ("ok", msg_id), reply
    ann.send({"type": "tables", "id": 5})
    assert (await ann.until("tables", id=5))["tables"] == []
    no_tracebacks(caplog)


def _saved(db: str) -> list[str]:
    store = MatchDatabase(db)
    try:
        return [record.status for record in store.matches()]
    finally:
        store.close()


async def test_the_match_ends_when_the_others_leave_while_the_last_one_is_asked(
    tmp_path, caplog: pytest.LogCaptureFixture
):
    db = str(tmp_path / "matches.sqlite3")
    server = Server(ServerConfig(port=0, db=db, bot_delay=0.0, human_move_time=60.0))
    await server.start()
    try:
        names = ("ann", "bea", "cy")
        clients = [await Raw.connect(server.port) for _ in names]
        for client, name in zip(clients, names, strict=True):
            await client.hello(name)
        clients[0].send({"type": "create", "seats": 3, "id": 1})
        table = (await clients[0].until("ok", id=1))["table"]
        for client in clients[1:]:
            client.send({"type": "join", "table": table, "id": 1})
            await client.until("ok", id=1)
        mover = (await clients[0].until("turn"))["seat"]
        for seat, client in enumerate(clients):
            if seat != mover:
                client.send({"type": "leave", "id": 2})
                await client.until("ok", id=2)
        # the match is over at once, with a winner: the mover's clock is not waited for
        end = await clients[mover].until("match_end")
        assert end["reason"] == "winner" and end["standings"][0]["seat"] == mover
        changed = await clients[mover].until("table")
        assert changed["table"]["playing"] is False
    finally:
        await server.shutdown()
    assert _saved(db) == ["finished"]
    no_tracebacks(caplog)


async def test_the_match_ends_when_the_others_leave_while_a_bot_thinks(
    tmp_path, caplog: pytest.LogCaptureFixture
):
    db = str(tmp_path / "matches.sqlite3")
    server = Server(ServerConfig(port=0, db=db, bot_delay=30.0))  # the bot is slow to move
    await server.start()
    try:
        ann, bea, cy = [await Raw.connect(server.port) for _ in range(3)]
        for client, name in ((ann, "ann"), (bea, "bea"), (cy, "cy")):
            await client.hello(name)
        ann.send({"type": "create", "seats": 3, "id": 1})
        table = (await ann.until("ok", id=1))["table"]
        cy.send({"type": "join", "table": table, "watch": True, "id": 1})  # keeps it open
        await cy.until("ok", id=1)
        bea.send({"type": "join", "table": table, "id": 1})
        await bea.until("ok", id=1)
        ann.send({"type": "add_bot", "level": "greedy", "id": 2})
        await ann.until("ok", id=2)
        turn = await bea.until("turn", seat=1)  # bea moves first, then the bot (seat 2)
        bea.send(
            {
                "type": "play",
                "id": 3,
                "discard": turn["legal"][-1],
                "take": "deck" if turn["can_draw"] else turn["open"][0],
            }
        )
        await bea.until("ok", id=3)
        await cy.until("turn", seat=2)
        for client in (ann, bea):
            client.send({"type": "leave", "id": 4})
            await client.until("ok", id=4)
        end = await cy.until("match_end")
        assert end["standings"][0]["seat"] == 2
    finally:
        await server.shutdown()
    assert _saved(db) == ["finished"]
    no_tracebacks(caplog)
