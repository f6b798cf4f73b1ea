"""Remote entrants connect to the runner's server over TCP with their token."""

from __future__ import annotations

import asyncio
import json
import struct
from typing import Any

import msgspec
import pytest
from leastscore.server.app import Server
from leastscore.server.entrants import ServedHall, open_hall
from leastscore.server.lobby.hall import Hall
from leastscore.tournament.pure.config import Running, build
from leastscore.tournament.pure.entrants import parse_entrant
from leastscore.tournament.pure.hall import NoHall
from leastscore.tournament.pure.results import MatchResult
from leastscore.tournament.running.runner import Runner

from ..support.cli import started, stop


async def remote_bot(port: int, token: str, *, drop_after: int | None = None) -> list[str]:
    """A bot on a real socket: hello with the token, then the last legal discard each turn."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    seen: list[str] = []

    def send(message: dict[str, Any]) -> None:
        body = msgspec.msgpack.encode(message)
        writer.write(struct.pack(">I", len(body)) + body)

    send({"type": "hello", "protocol": [1], "name": "far", "bot": True, "token": token})
    moves = 0
    try:
        while True:
            head = await reader.readexactly(4)
            message = msgspec.msgpack.decode(await reader.readexactly(*struct.unpack(">I", head)))
            seen.append(message["type"])
            if message["type"] == "bye":
                break
            if message["type"] == "turn" and "hand" in message:
                if drop_after is not None and moves == drop_after:
                    break
                moves += 1
                take = "deck" if message.get("can_draw", True) else message["open"][0]
                send({"type": "play", "id": moves, "discard": message["legal"][-1], "take": take})
    except asyncio.IncompleteReadError:
        pass
    writer.close()
    return seen


async def run_with_remote(
    remote_names: list[str], **settings: Any
) -> tuple[list[MatchResult], Any]:
    """``remote_names``: ``NAME`` (the runner makes its token) or ``NAME:TOKEN``."""
    entrants = [parse_entrant("hero=builtin:greedy")]
    entrants += [parse_entrant("{}=remote{}{}".format(*n.partition(":"))) for n in remote_names]
    config = build(
        {"seed": 2, "seats": 2, "deals": 1, "move_time": 60.0, "startup_time": 60.0, **settings},
        entrants,
        {"threshold": 25},
    )
    results: list[MatchResult] = []
    halls: asyncio.Queue[ServedHall] = asyncio.Queue()

    def opened(hall: Any) -> None:
        assert isinstance(hall, ServedHall)
        halls.put_nowait(hall)

    runner = Runner(config, Running(open_hall=open_hall), on_result=results.append, on_hall=opened)
    task = asyncio.ensure_future(runner.run(range(len(config.schedule()))))
    served = await asyncio.wait_for(halls.get(), 60)
    server: Server = served.server
    hall: Hall = served.hall
    return results, (task, server, hall)


def test_remote_entrants_without_a_hall_to_open_is_a_clear_error() -> None:
    config = build(
        {"seed": 2, "seats": 2, "deals": 1},
        [parse_entrant("hero=builtin:greedy"), parse_entrant("far=remote")],
        {"threshold": 25},
    )
    with pytest.raises(NoHall, match="leastscore tournament"):
        Runner(config)


async def test_a_remote_bot_plays_its_matches_over_tcp():
    results, (task, server, hall) = await run_with_remote(["far"])
    assert server.config.host == "127.0.0.1"
    bot = asyncio.ensure_future(remote_bot(server.port, hall.tokens()["far"]))
    await asyncio.wait_for(task, 60)
    seen = await asyncio.wait_for(bot, 60)
    assert len(results) == 2 and all(r.status == "played" for r in results)
    for r in results:
        far = next(s for s in r.seats if s.bot == "far")
        assert (far.timeouts, far.illegal, far.crashes, far.forfeit) == (0, 0, 0, False)
        assert far.rounds > 0
    assert seen[0] == "welcome" and "match_start" in seen and "turn" in seen
    assert seen[-1] == "bye"


async def test_a_wrong_token_is_refused_and_an_absent_bot_forfeits():
    results, (task, server, _) = await run_with_remote(["far"], startup_time=0.3)
    reader, writer = await asyncio.open_connection("127.0.0.1", server.port)
    body = msgspec.msgpack.encode({"type": "hello", "protocol": [1], "token": "guess"})
    writer.write(struct.pack(">I", len(body)) + body)
    head = await reader.readexactly(4)
    answer = msgspec.msgpack.decode(await reader.readexactly(*struct.unpack(">I", head)))
    assert answer["type"] == "error" and answer["code"] == "bad_token"
    writer.close()
    await asyncio.wait_for(task, 60)
    assert len(results) == 2
    for r in results:
        far = next(s for s in r.seats if s.bot == "far")
        assert far.forfeit and far.crashes == 1
        assert any("far: not connected" in p for p in r.problems)


async def test_a_remote_bot_that_drops_out_counts_crashes_and_forfeits():
    results, (task, server, hall) = await run_with_remote(["far"], startup_time=0.5)
    bot = asyncio.ensure_future(remote_bot(server.port, hall.tokens()["far"], drop_after=2))
    await asyncio.wait_for(task, 60)
    await bot
    assert len(results) == 2
    first = next(s for s in results[0].seats if s.bot == "far")
    assert first.crashes >= 1 and first.forfeit


async def test_a_token_chosen_in_advance_seats_the_bot_and_stays_out_of_reports():
    token = "agreed-before-the-day-0123"
    results, (task, server, hall) = await run_with_remote([f"far:{token}"])
    assert hall.tokens()["far"] == token
    bot = asyncio.ensure_future(remote_bot(server.port, token))
    await asyncio.wait_for(task, 60)
    seen = await asyncio.wait_for(bot, 60)
    assert len(results) == 2 and all(r.status == "played" for r in results)
    assert seen[0] == "welcome" and "turn" in seen
    assert token not in msgspec.json.encode(results).decode()


async def test_the_command_opens_the_server_s_hall_for_remote_entrants() -> None:
    """``leastscore tournament`` with a remote entrant: the command hands the tournament
    the server's hall, says where to connect, and a bot on a socket plays its matches."""
    proc = started(
        "tournament", "--bot", "hero=builtin:greedy", "--bot", "far=remote:far-token-0123456789",
        "--seats", "2", "--deals", "1", "--threshold", "25", "--listen", "127.0.0.1:0",
        "--workers", "1", "--move-time", "60", "--startup-time", "60", "--format", "json",
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        said = []
        while not said or "connect to" not in said[-1]:
            line = await asyncio.to_thread(proc.stderr.readline)
            assert line, f"it ended before opening the hall: {''.join(said)}"
            said.append(line)
        port = int(said[-1].split("connect to 127.0.0.1:")[1].split()[0])
        seen = await asyncio.wait_for(remote_bot(port, "far-token-0123456789"), 120)
        out, err = await asyncio.to_thread(proc.communicate, timeout=120)
    finally:
        stop(proc)
    assert proc.returncode == 0, err
    assert "turn" in seen
    standings = json.loads(out)
    assert {row["bot"] for row in standings["standings"]} == {"hero", "far"}
