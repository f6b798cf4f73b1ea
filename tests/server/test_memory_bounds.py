"""A long-lived server holds nothing without bound: players gone for good are forgotten
(their tokens with them), and ``serve`` bounds the engine's hand cache of its process."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest
from click.testing import CliRunner
from leastscore.game import groups
from leastscore.server import cli
from leastscore.server.app import Server

from ..support.server import Raw, raw_player, wait_for


async def test_a_spectator_who_disconnects_is_forgotten(server: Server):
    owner = await Raw.connect(server.port)
    await owner.hello("owner")
    owner.send({"type": "create", "seats": 2, "id": 1})
    table = (await owner.until("ok", id=1))["table"]
    watcher = await Raw.connect(server.port)
    welcome = await watcher.hello("watcher")
    watcher.send({"type": "join", "table": table, "watch": True, "id": 1})
    await watcher.until("ok", id=1)
    assert len(server.lobby.players) == 2
    watcher.close()
    await wait_for(lambda: len(server.lobby.players) == 1)  # the watcher is let go
    again = await Raw.connect(server.port)
    again.send({"type": "hello", "protocol": [1], "token": welcome["token"], "id": 5})
    assert (await again.until("error", id=5))["code"] == "bad_token"
    owner.close()
    again.close()


async def test_a_player_replaced_by_a_bot_is_forgotten_when_the_match_ends(server: Server):
    a, b = await Raw.connect(server.port), await Raw.connect(server.port)
    await a.hello("a")
    welcome = await b.hello("b")
    a.send({"type": "create", "seats": 2, "rules": {"threshold": 10}, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    b.send({"type": "join", "table": table, "id": 1})
    await b.until("round_start")
    b.close()  # gone for good: after the grace period a bot plays b's seat
    end = await asyncio.wait_for(raw_player(a), 60)
    assert end["type"] == "match_end"
    kinds = [msgspec.msgpack.decode(body)["type"] for body in a.received]
    assert "player_replaced" in kinds
    await wait_for(lambda: len(server.lobby.players) == 1)  # b is let go
    again = await Raw.connect(server.port)
    again.send({"type": "hello", "protocol": [1], "token": welcome["token"], "id": 5})
    assert (await again.until("error", id=5))["code"] == "bad_token"
    a.close()
    again.close()


def test_serve_bounds_the_hand_cache_of_its_process(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []

    async def serving(*args: Any) -> None:  # what serve would run, with the bound it set
        seen.append(groups.HAND_CACHE_SIZE)

    before = groups.HAND_CACHE_SIZE
    monkeypatch.setattr(cli, "_serve", serving)
    try:
        for flags, bound in (([], 4096), (["--hand-cache", "32"], 32)):
            result = CliRunner().invoke(cli.serve, ["--no-db", "--no-uvloop", "-q", *flags])
            assert result.exit_code == 0, result.output
            assert seen.pop() == bound
            assert groups.groups_held() == 16_259  # and the legal groups held from the start
    finally:
        groups.set_hand_cache_size(before)
