"""One bot class, three ways to play a whole match: in-process, over stdio, over TCP.

Every test here uses real subprocesses and real sockets on 127.0.0.1 only.
"""

from __future__ import annotations

import asyncio
import itertools
import re
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from leastscore.bots import GreedyBot
from leastscore.bots.link import ServerLink
from leastscore.bots.local import play_match, play_match_async
from leastscore.bots.sdk import BotView, Move
from leastscore.bots.seat import BotSeat
from leastscore.bots.tcp import TableChoice, play_over_tcp
from leastscore.game import Declared, Match, Played, Rules
from leastscore.protocol.messages import AddBot, Create
from leastscore.seats.core import Policy
from leastscore.seats.driver import MatchDriver
from leastscore.seats.program import ProgramSeat
from leastscore.server.app import Server
from leastscore.server.records.store import MatchDatabase

from ..programs.sdk_bots import Cheater, Raiser, Thinker, Watcher
from ..support.server import bot_run, finished_matches, recording, wait_for

SDK_BOTS = str(Path(__file__).parent.parent / "programs" / "sdk_bots.py")


def run_command(cls: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "leastscore", "bot", "run", f"{SDK_BOTS}:{cls}", *args]


@pytest.fixture
async def server(tmp_path) -> AsyncIterator[Server]:
    async with recording(tmp_path) as srv:
        yield srv


# -- in-process ------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [Watcher, Thinker])
def test_in_process_a_whole_match(cls: type[Watcher]) -> None:
    bot = cls()
    result = play_match(bot, ["greedy", "random"], threshold=25, seat=1)
    assert result.match.over and result.faults.total == 0
    assert bot.resets == 1 and bot.views > 5
    assert bot.events[-1] == "MatchEnded"
    assert 1 <= result.place <= 3


async def test_in_process_faults_get_the_automatic_move() -> None:
    raising = await play_match_async(Raiser(), threshold=20)
    assert raising.match.over and raising.faults.crashes == 1
    cheating = await play_match_async(Cheater(), threshold=20)
    assert cheating.match.over and cheating.faults.illegal == 1


# -- stdio ------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ["Watcher", "Thinker", "HeavyWatcher"])
async def test_stdio_whole_matches_in_one_program(tmp_path, cls: str) -> None:
    """Two matches at different seats; the bot prints, and the stream survives. A plain
    bot plays with no event loop, an async or ``heavy`` one on the loop: the same."""
    with open(tmp_path / "stderr", "wb") as stderr:
        seat = ProgramSeat(run_command(cls, "--stdio"), cls, stderr=stderr)
        await seat.start()
        for number, index in ((1, 0), (2, 1)):
            seats = [BotSeat(GreedyBot()), BotSeat(GreedyBot())]
            seats.insert(index, seat)  # type: ignore[arg-type]
            match = Match(3, Rules(threshold=25), seed=number)
            ref = MatchDriver(match, seats, time_limit=lambda s: 60.0, policy=Policy(False, 5))
            await asyncio.wait_for(ref.run(), 60)
            assert match.over and ref.faults[index].total == 0, seat.problems
        assert seat.starts == 1 and seat.problems == []
        await seat.close()
    said = (tmp_path / "stderr").read_text()
    assert "thinking about turn" in said and said.count("match over: the bot ") == 2
    assert "(winner)" not in said and "one player was left under the threshold" in said


async def play_stdio(
    tmp_path,
    cls: str,
    limit: Callable[[int], float] = lambda seat: 60.0,
    until_said: str = "",
    max_faults: int | None = None,
):
    """One 2-seat match of ``cls`` over stdio against greedy; (faults, seat, stderr).

    ``limit`` gives each turn's time for the seat to move. With ``until_said``, the
    program is closed only once its stderr says that; with ``max_faults``, a program
    that fails again and again forfeits instead of playing the whole match one restart
    a move."""
    said = tmp_path / "stderr"
    with open(said, "wb") as stderr:
        seat = ProgramSeat(run_command(cls, "--stdio"), cls, stderr=stderr)
        match = Match(2, Rules(threshold=20), seed=3)
        ref = MatchDriver(
            match,
            [seat, BotSeat(GreedyBot())],
            time_limit=limit,
            policy=Policy(False, max_faults),
        )
        await asyncio.wait_for(ref.run(), 120)
        await wait_for(lambda: until_said in said.read_text(), 60)
        problems = list(seat.problems)  # (closing adds how it ended)
        await seat.close()
    assert match.over
    return ref.faults[0], seat.starts, problems, (tmp_path / "stderr").read_text()


async def test_stdio_a_bot_that_raises_crashes_and_is_restarted(tmp_path) -> None:
    faults, starts, problems, said = await play_stdio(tmp_path, "Raiser", max_faults=2)
    assert faults.crashes >= 1 and starts >= 2
    assert "ZeroDivisionError: planted" in said and "exited with code 1" in problems[0]


@pytest.mark.parametrize("cls", ["Hanger", "HeavyHanger"])
async def test_stdio_a_move_after_the_deadline_is_dropped_not_sent(tmp_path, cls: str) -> None:
    # The late answer comes 2 s into a 0.5 s turn: the bot says so and keeps it. Every
    # other turn has a minute: a move answered on the last millisecond of its turn would
    # cross the host's timeout on the way, which no bot can help.
    program_turns = itertools.count(1)

    def limit(seat: int) -> float:
        return 0.5 if seat == 0 and next(program_turns) == 2 else 60.0

    faults, _, problems, said = await play_stdio(tmp_path, cls, limit=limit, until_said="too slow")
    assert faults.timeouts >= 1
    assert "too slow" in said
    assert not any("not its turn" in p for p in problems), problems


async def test_stdio_an_illegal_move_is_refused_and_reported(tmp_path) -> None:
    faults, _, problems, said = await play_stdio(tmp_path, "Cheater")
    assert faults.illegal == 1
    assert any(p.startswith("illegal move") for p in problems)
    assert "the host refused the move" in said


async def test_stdio_writes_to_fd_1_never_reach_the_stream(tmp_path) -> None:
    faults, starts, problems, said = await play_stdio(tmp_path, "Scribbler")
    assert faults.total == 0 and problems == [] and starts == 1
    assert "raw bytes on fd 1" in said


async def test_stdio_something_that_is_not_a_move_is_a_crash(tmp_path) -> None:
    faults, _, _, said = await play_stdio(tmp_path, "Liar", max_faults=2)
    assert faults.crashes >= 1
    assert "return a Play or a Declare" in said


# -- TCP --------------------------------------------------------------------------------


async def test_tcp_create_a_table_with_built_ins_and_play_two_matches(server: Server) -> None:
    code, said = await bot_run(
        *run_command("Watcher"),
        "--server",
        f"127.0.0.1:{server.port}",
        "--create",
        "--bots",
        "greedy,random",
        "--threshold",
        "20",
        "--matches",
        "2",
    )
    assert code == 0, said
    assert "2 match(es) played" in said and "0 refused" in said
    players = await finished_matches(server, 2)
    assert players.count("watcher") == 2


async def test_tcp_two_sdk_bots_meet_at_one_table(server: Server) -> None:
    host = f"127.0.0.1:{server.port}"
    creator = asyncio.ensure_future(
        bot_run(
            *run_command("Watcher"),
            "--server",
            host,
            "--create",
            "--seats",
            "3",
            "--bots",
            "greedy",
            "--threshold",
            "20",
        )
    )
    await wait_for(lambda: server.lobby.tables, 60)
    (table,) = server.lobby.tables
    joiner = await bot_run(*run_command("Thinker"), "--server", host, "--table", table)
    code, said = await creator
    assert code == 0 and joiner[0] == 0, (said, joiner[1])
    assert f"sitting at table {table}, seat 2" in joiner[1]
    assert sorted(await finished_matches(server, 1)) == sorted(["watcher", "Greedy bot", "thinker"])


class Interrupted(Watcher):
    """Stops at its third move until the test has cut its connection."""

    def __init__(self) -> None:
        super().__init__()
        self.at_gate = asyncio.Event()
        self.gate = asyncio.Event()

    async def choose(self, view: BotView) -> Move:  # type: ignore[override]
        if self.views == 2 and not self.gate.is_set():
            self.at_gate.set()
            await self.gate.wait()
        return super().choose(view)


@pytest.mark.parametrize("answer", ["before resuming", "after resuming"])
async def test_tcp_a_dropped_connection_is_resumed_mid_turn(
    server: Server, capsys, answer: str
) -> None:
    """The bot's answer is lost with the connection (the snapshot asks again), or it
    goes out on the new one after the snapshot (it is not asked twice)."""
    bot = Interrupted()
    where = TableChoice(create=True, seats=3, bots=["greedy", "greedy"], rules={"threshold": 40})
    playing = asyncio.ensure_future(play_over_tcp(bot, "127.0.0.1", server.port, where))
    await asyncio.wait_for(bot.at_gate.wait(), 30)
    (player,) = [p for p in server.lobby.players if p.name == "watcher"]
    old = player.conn
    assert old is not None and old.transport is not None
    old.transport.abort()  # the network drops it mid-turn: no goodbye
    said = ""
    if answer == "after resuming":

        def resumed() -> bool:
            nonlocal said
            said += capsys.readouterr().err
            return "resumed" in said

        await wait_for(lambda: player.conn is not old and player.connected)
        await wait_for(resumed)  # the bot has its new connection: the snapshot follows
    else:
        await wait_for(lambda: old.closed)
    bot.gate.set()
    code = await asyncio.wait_for(playing, 60)
    said += capsys.readouterr().err
    assert "connection lost" in said and "resumed" in said
    assert code == 0, said
    # Every move the runner sent was played, once: none lost, none sent twice.
    await finished_matches(server, 1)
    log = MatchDatabase(server.config.db or "").log(
        MatchDatabase(server.config.db or "").matches()[0].id
    )
    assert log is not None
    moved = [e for e in log if isinstance(e, Played | Declared) and e.seat == 0]
    sent = int(re.search(r"(\d+) moves", said).group(1))  # type: ignore[union-attr]
    assert sent == len([e for e in moved if not getattr(e, "auto", False)]), said


async def test_tcp_a_bot_takes_over_a_player_with_its_token(server: Server) -> None:
    """How a host hands a seat to a bot (a tournament's remote entrant): a token."""
    seated = await ServerLink.open("127.0.0.1", server.port, "entrant", bot=True)
    await seated.request(Create(name="hall", seats=2, rules={"threshold": 20}))
    await seated.request(AddBot(level="greedy"))  # the table is full: the match starts
    token = seated.tracker.token
    assert token
    await seated.close()
    code, said = await bot_run(
        *run_command("Watcher"),
        "--server",
        f"127.0.0.1:{server.port}",
        "--token",
        token,
        "--matches",
        "1",
    )
    assert code == 0, said
    assert "1 match(es) played" in said
    assert "entrant" in await finished_matches(server, 1)


async def test_tcp_faults_are_reported_and_the_match_goes_on(tmp_path) -> None:
    # A bot that raised sends nothing: the server's move time runs out for it (1 s).
    async with recording(tmp_path, bot_move_time=1.0) as server:
        host = f"127.0.0.1:{server.port}"
        faults = (("Raiser", "ZeroDivisionError"), ("Cheater", "the host refused the move"))
        for cls, words in faults:
            code, said = await bot_run(
                *run_command(cls), "--server", host, "--create", "--bots", "greedy",
                "--threshold", "15",
            )  # fmt: skip
            assert code == 1 and words in said and "1 match(es) played" in said, said
            assert re.search(r"match over: the bot (won, 1st|placed 2nd) of 2 \(", said), said


async def test_tcp_a_table_that_does_not_exist(server: Server) -> None:
    code, said = await bot_run(
        *run_command("Watcher"), "--server", f"127.0.0.1:{server.port}", "--table", "nope"
    )
    assert code == 1 and "no_such_table" in said
