"""One client cannot stall the server with costly bots: caps, think time, another process."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest
from leastscore.bots.seat import BotSeat
from leastscore.game import Match, Play, View
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig
from leastscore.server.house.thinking import ThinkingFailed, ThinkingPool

from ..programs.thinking_bots import Counting, Noting, Spinner
from ..support.server import Raw, ServerProcess


def _a_view() -> View:
    match = Match(["a", "b"], seed=3)
    match.start()
    return match.view(match.to_move)


async def test_a_runaway_bot_is_stopped_and_the_loop_never_waits_for_it():
    pool = ThinkingPool(workers=1, limit=1.0)
    ticks = 0
    stop = False

    async def ticker() -> None:
        nonlocal ticks
        while not stop:
            ticks += 1
            await asyncio.sleep(0)

    running = asyncio.ensure_future(ticker())
    try:
        with pytest.raises(ThinkingFailed, match="longer than"):
            await asyncio.wait_for(pool.choose(Spinner(), _a_view()), 60)
        assert ticks > 100  # the loop went on turning while the bot spun in its process
        # The killed worker is replaced, and state comes back with the move. Its limit
        # runs from the moment the decision is handed out, so it takes in the new worker's
        # start (a second or more with the cores busy): that decision gets a minute.
        pool.limit = 60.0
        counting = Counting()
        move, after = await asyncio.wait_for(pool.choose(counting, _a_view()), 60)
        assert isinstance(move, Play) and isinstance(after, Counting)
        assert after.decisions == 1 and after.pid not in (0, os.getpid())
    finally:
        stop = True
        await running
        pool.close()
    assert pool.pids == []


async def test_a_bot_seat_thinking_elsewhere_keeps_the_events_that_came_meanwhile():
    pool = ThinkingPool(workers=1, limit=30.0)
    seat = BotSeat(Noting(), "n", thinker=pool.choose)
    match = Match(["a", "b"], seed=4)
    events = match.start()
    try:
        thinking = asyncio.ensure_future(seat.choose(match.view(match.to_move), 30))
        await asyncio.sleep(0)
        seat.send([e.seen_by(0) for e in events])  # arrives while the bot is away
        await asyncio.wait_for(thinking, 60)
        assert isinstance(seat.bot, Noting) and seat.bot.decisions == 1
        assert seat.bot.seen == [type(e).__name__ for e in events]
    finally:
        pool.close()


async def test_bot_options_past_the_servers_caps_are_refused_naming_the_cap(tmp_path):
    server = Server(ServerConfig(port=0, db=None, max_bot_samples=64, bot_think_time=0.5))
    await server.start()
    try:
        client = await Raw.connect(server.port)
        await client.hello("ann")
        client.send({"type": "create", "seats": 4, "id": 1})
        await client.until("ok", id=1)
        client.send({"type": "add_bot", "level": "expert:samples=200000", "id": 2})
        refused = await client.until("error", id=2)
        assert refused["code"] == "bad_message"
        assert "samples is capped at 64" in refused["message"]
        assert "--max-bot-samples" in refused["message"]
        client.send({"type": "add_bot", "level": "expert:time_budget=60", "id": 3})
        refused = await client.until("error", id=3)
        assert "time_budget is capped at 0.5" in refused["message"]
        client.send({"type": "add_bot", "level": "expert:time_budget=none", "id": 4})
        assert (await client.until("error", id=4))["code"] == "bad_message"
        client.send({"type": "add_bot", "level": "expert:samples=64", "id": 5})
        assert (await client.until_any({"ok", "error"}))["type"] == "ok"
        # a bot seated without a budget gets the server's think time
        assert server.bots.make("expert").time_budget == 0.5  # type: ignore[attr-defined]
    finally:
        await server.shutdown()


async def test_heavy_bots_think_in_other_processes(tmp_path):
    server = Server(ServerConfig(port=0, db=None, bot_delay=0.0, thinkers=1))
    await server.start()
    try:
        client = await Raw.connect(server.port)
        await client.hello("bo", bot=True)
        client.send({"type": "create", "seats": 3, "rules": {"threshold": 30}, "id": 1})
        await client.until("ok", id=1)
        for i in range(2):
            client.send({"type": "add_bot", "level": "counter", "id": 2 + i})
        # counter bots move: their decisions came from a worker process of the pool
        await client.until("played", seat=1, timeout=60)
        pids = server.bots.pool.pids
        assert len(pids) == 1 and os.getpid() not in pids
    finally:
        await server.shutdown()
    assert server.bots.pool.pids == []


async def test_a_table_nobody_is_connected_to_stops_its_bots(tmp_path):
    server = Server(
        ServerConfig(port=0, db=str(tmp_path / "m.sqlite3"), grace_period=0.2, abandon_after=0.2)
    )
    await server.start()
    try:
        client = await Raw.connect(server.port)
        await client.hello("ann")
        client.send({"type": "create", "seats": 3, "rules": {"threshold": 1000000}, "id": 1})
        table = (await client.until("ok", id=1))["table"]
        for i in range(2):
            client.send({"type": "add_bot", "level": "greedy", "id": 2 + i})
        await client.until("round_start")
        client.close()  # gone without a word: after the grace period a bot takes the seat...
        end = time.monotonic() + 30
        while table in server.lobby.tables and time.monotonic() < end:
            await asyncio.sleep(0.05)
        # ...and with nobody left to watch, the table stops instead of playing on forever
        assert table not in server.lobby.tables
        assert len(server.lobby.players) == 0
    finally:
        await server.shutdown()
    from leastscore.server.records.store import MatchDatabase

    (record,) = MatchDatabase(str(tmp_path / "m.sqlite3")).matches(5)
    assert record.status == "aborted"


async def test_sigterm_ends_the_server_promptly_while_bots_think(tmp_path):
    served = ServerProcess(
        "--bot-delay", "0.05", "--bot-think-time", "60", "--max-bot-samples", "100000000",
        db=tmp_path / "m.sqlite3",
    )  # fmt: skip
    proc, port = served.proc, served.port
    try:
        client = await Raw.connect(port)
        await client.hello("ann", bot=True)
        client.send({"type": "create", "seats": 4, "rules": {"threshold": 1000000}, "id": 1})
        await client.until("ok", id=1)
        for i in range(3):
            client.send({"type": "add_bot", "level": "expert:samples=100000000", "id": 2 + i})
        for _ in range(3):  # a few bot turns: expert samples for minutes on a close call
            await client.until("turn", timeout=30)
        proc.send_signal(signal.SIGTERM)
        started = time.monotonic()
        proc.wait(timeout=60)
        # The bots could think for 60 s; ending in well under that is prompt, whatever
        # else the cores are doing.
        assert time.monotonic() - started < 20
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
