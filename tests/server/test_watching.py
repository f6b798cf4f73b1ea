"""Watching a table changes nothing at it: a spectator fills no seat and starts no match."""

from __future__ import annotations

import asyncio

import msgspec
from leastscore.server.app import Server

from .conftest import Raw, raw_player


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
