"""Watching a table changes nothing at it: a spectator fills no seat and starts no match."""

from __future__ import annotations

import asyncio

import msgspec
from leastscore.server.app import Server

from ..support.server import Raw, raw_player


async def test_a_spectator_at_a_full_table_between_matches_starts_nothing(server: Server):
    a = await Raw.connect(server.port)
    await a.hello("a")
    a.send({"type": "create", "seats": 2, "rules": {"threshold": 10}, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    a.send({"type": "add_bot", "level": "greedy", "id": 2})  # full: the match starts
    end = await asyncio.wait_for(raw_player(a), 60)
    assert end["type"] == "match_end"
    watcher = await Raw.connect(server.port)
    await watcher.hello("watcher")
    watcher.send({"type": "join", "table": table, "watch": True, "id": 1})
    await watcher.until("ok", id=1)
    watcher.send({"type": "state", "id": 2})
    state = await watcher.until("state", id=2)
    assert not state["table"]["playing"], "watching started a match"
    errors = [m for m in map(msgspec.msgpack.decode, watcher.received) if m["type"] == "error"]
    assert errors == []
    a.close()
    watcher.close()


async def test_a_player_who_left_the_match_and_watches_gets_each_event_once(server: Server):
    a, b = await Raw.connect(server.port), await Raw.connect(server.port)
    await a.hello("a")
    await b.hello("b")
    a.send({"type": "create", "seats": 3, "rules": {"threshold": 10}, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    a.send({"type": "add_bot", "level": "greedy", "id": 2})
    await a.until("ok", id=2)
    b.send({"type": "join", "table": table, "id": 1})
    await a.until("round_start")
    a.send({"type": "leave", "id": 3})
    await a.until("ok", id=3)
    a.send({"type": "join", "table": table, "watch": True, "id": 4})
    await a.until("ok", id=4)
    end = await asyncio.wait_for(raw_player(b), 60)
    assert end["type"] == "match_end"
    await a.until("match_end")
    a.send({"type": "ping", "id": 5})
    await a.until("pong", id=5)
    kinds = [m["type"] for m in map(msgspec.msgpack.decode, a.received)]
    assert kinds.count("match_end") == 1, kinds[-12:]
    a.close()
    b.close()
