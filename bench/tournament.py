"""How fast the tournament runner plays, and what an external program costs.

    python -m bench.tournament [--deals 12] [--stdio-matches 30]

1. Matches per second of four ``greedy`` entrants at a 4-seat table (one
   group, every deal in 4 rotations), with 1 and with 2 workers. Matches are
   played in worker processes either way; "steady" is counted from the moment
   every worker is ready (process start-up excluded), "total" is the whole
   run. Target: 2 workers >= 1.8x one worker (steady). The CPU time per match
   of the workers and of the runner says how it would scale on idle cores,
   which a shared machine may not have.
2. The cost per move of an external program on stdio. The same 2-seat matches
   are played twice against ``greedy``: once by a program (``tests/programs/
   stdio_player.py``, raw protocol-v1 frames, and ``bench/sdk_player.py``, a bot
   on the SDK) and once by an in-process bot with exactly the same strategy, so
   both play identical moves; the difference in time is the cost of the pipe,
   the codec and the other process (best of three passes each way), with the
   CPU it took on each side (the host's beyond the in-process run, the
   program's). Measured twice: with this process and the program on one core,
   as a tournament's workers run their programs (``--affinity``, the default
   on Linux), and free to run anywhere. Targets: on one core at most 4 pipe
   round trips (measured in the same run), on any core at most 2x one core.
   Two floors of the program, from its recorded frames: ``program_floor_us``, a
   plain host that only writes them and reads each answer (the program's own
   cost), and ``loop_floor_us``, the same through a host on this process's
   event loop, spawned and heard as ``ProgramSeat`` does (the least any host on
   the loop can cost, with no game work at all).
3. The same fixtures as 1, played one after the other in this process (no
   pool): matches per CPU second, best of ``--runs``. This is the cost of the
   bots, the engine and the match driver around them, without the workers'
   start-up or the pipes, and the figure to watch when the driver changes.
   Its floor, in the same run: the same fixtures played by a bare loop over
   ``Match`` with the same bots (no match core, no seats, no asyncio);
   ``ratio_to_bare`` is the one over the other. Target: <= 1.3x.

Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import platform
import resource
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import click
from leastscore.bots import GreedyBot
from leastscore.bots.seat import BotSeat
from leastscore.game import Match, Played, Rules
from leastscore.protocol import FrameReader, encode, frame
from leastscore.protocol.convert import program_welcome
from leastscore.seats.core import Faults
from leastscore.seats.driver import play_to_the_end
from leastscore.seats.loop import loop_factory
from leastscore.seats.program import ProgramSeat
from leastscore.seats.sandbox import Containment, Usage, spawn
from leastscore.seats.seat import Seat
from leastscore.tournament.pure.config import Running, TournamentConfig, build
from leastscore.tournament.pure.deals import DuplicateDeck
from leastscore.tournament.pure.entrants import bot_factory, parse_entrant
from leastscore.tournament.pure.results import MatchResult, summarize
from leastscore.tournament.pure.schedule import Fixture
from leastscore.tournament.running.cluster import ClusterWorkers
from leastscore.tournament.running.lineup import Lineup
from leastscore.tournament.running.play import play
from leastscore.tournament.running.pool import worker_cores
from leastscore.tournament.running.runner import Runner

from bench.sdk_player import LastLegal

BARE_TARGET = 1.3
"""A tournament match of in-process bots costs at most this many bare loops."""

PLAYER = Path(__file__).resolve().parent.parent / "tests" / "programs" / "stdio_player.py"
SDK_PLAYER = Path(__file__).resolve().parent / "sdk_player.py"
PROGRAMS = {"raw": PLAYER, "sdk": SDK_PLAYER}
"""The programs timed on stdio: raw protocol-v1 frames, and a bot on the SDK."""
PIPE_TARGET = 4.0
"""Extra cost of a program move, one core: at most this many pipe round trips."""
ANY_CORE_TARGET = 2.0
"""The same on any core: at most this many times its one-core figure."""
ECHO = """import os
while True:
    data = os.read(0, 65536)
    if not data:
        break
    os.write(1, data)
"""


def matches_per_second(workers: int, deals: int, cluster: str | None = None) -> dict[str, float]:
    entrants = [parse_entrant(f"greedy{i}=builtin:greedy") for i in range(4)]
    config = build({"seed": 1, "deals": deals, "seats": 4}, entrants, {})
    total = len(config.schedule())
    finished: list[float] = []
    extra: dict[str, float] = {}

    async def run() -> tuple[float, float]:
        loop = asyncio.get_running_loop()
        runner = Runner(
            config,
            Running(workers=workers, cluster=cluster),
            on_result=lambda r: finished.append(loop.time()),
        )
        started = loop.time()
        await runner.run(range(total))
        assert runner.pool is not None
        if isinstance(runner.pool, ClusterWorkers):
            pool = runner.pool
            extra.update(
                task_ms=round(1000 * (pool.task_cost or 0), 2),
                match_ms=round(1000 * (pool.match_cost or 0), 2),
                batches=pool.batches,
            )
        return started, runner.pool.ready_at or started

    before = _cpu()
    with asyncio.Runner(loop_factory=loop_factory()) as loop:
        started, ready = loop.run(run())
    runner_cpu, workers_cpu = (after - then for after, then in zip(_cpu(), before, strict=True))
    end = finished[-1]
    steady = [t for t in finished if t >= ready]
    return {
        "matches": total,
        "total_s": round(end - started, 3),
        "startup_s": round(ready - started, 3),
        "total_per_s": round(total / (end - started), 2),
        "steady_per_s": round(len(steady) / (end - ready), 2),
        "runner_cpu_ms_per_match": round(1000 * runner_cpu / total, 2),
        "worker_cpu_ms_per_match": round(1000 * workers_cpu / total, 2),
        **extra,
    }


def in_process(deals: int, runs: int) -> dict[str, float]:
    """Matches per CPU second of the fixtures of ``matches_per_second`` played in
    this process, one at a time, through ``tournament.play``; and the same
    fixtures played by ``bare_loop``, the floor. Passes alternate, best of ``runs``
    each way, after one pass each way that warms the bots' caches."""
    entrants = [parse_entrant(f"greedy{i}=builtin:greedy") for i in range(4)]
    config = build({"seed": 1, "deals": deals, "seats": 4}, entrants, {})
    fixtures = list(config.schedule())
    faults = [Faults()] * config.seats

    async def run() -> tuple[float, float]:
        lineup = Lineup(config)
        played = bare = float("inf")
        try:
            for rep in range(runs + 1):
                began = time.process_time()
                results = [await play(fixture, config, lineup) for fixture in fixtures]
                if rep:
                    played = min(played, time.process_time() - began)
                began = time.process_time()
                matches = bare_loop(fixtures, config)
                if rep:
                    bare = min(bare, time.process_time() - began)
                else:
                    same = [
                        _outcome(summarize(r.fixture, m, faults))
                        for r, m in zip(results, matches, strict=True)
                    ]
                    assert [_outcome(r) for r in results] == same, "both ways play the same"
        finally:
            await lineup.close()
        return played, bare

    with asyncio.Runner(loop_factory=loop_factory()) as loop:
        cpu, floor = loop.run(run())
    return {
        "matches": len(fixtures),
        "cpu_ms_per_match": round(1000 * cpu / len(fixtures), 2),
        "per_cpu_s": round(len(fixtures) / cpu, 2),
        "bare_ms_per_match": round(1000 * floor / len(fixtures), 2),
        "ratio_to_bare": round(cpu / floor, 2),
    }


def _outcome(result: MatchResult) -> tuple[object, ...]:
    return result.moves, result.rounds, result.end, [(s.place, s.score) for s in result.seats]


def bare_loop(fixtures: list[Fixture], config: TournamentConfig) -> list[Match]:
    """The floor of ``in_process``: the same matches (same cards, same bots, same
    seeds) played by a plain loop over ``Match``: build the mover's view, let its
    bot choose, apply the move. No match core, no seats, no asyncio, no events
    told to the bots (greedy reads only its ``game.View``)."""
    factories = {e.name: bot_factory(e) for e in config.entrants}
    matches: list[Match] = []
    for fixture in fixtures:
        match = Match(fixture.seats, config.rules, shuffler=DuplicateDeck(fixture.deal_seed))
        bots = [factories[n](s) for n, s in zip(fixture.seats, fixture.bot_seeds, strict=True)]
        for bot in bots:
            bot.reset()
        match.start()
        while not match.over:
            seat = match.to_move
            match.apply(seat, bots[seat].choose(match.view(seat)))  # type: ignore[arg-type]
        matches.append(match)
    return matches


def _cpu() -> tuple[float, float]:
    """CPU seconds of this process and of its finished children (the workers)."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, children.ru_utime + children.ru_stime


def cpu_of(pid: int) -> float:
    """CPU seconds a running process has used so far (from /proc: Linux only; NaN elsewhere).

    The scheduler's own count, to the nanosecond, where there is one (``schedstat``):
    the clock-tick counts of ``stat`` are samples, which a process that runs for tens
    of microseconds at a time, as a program on a pipe does, may dodge or collect."""
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def _play(first: Seat, matches: int) -> tuple[float, int, int]:
    """Seconds, all moves, and the first seat's moves over ``matches`` 2-seat matches."""
    seconds = 0.0
    moves = mine = 0
    for seed in range(matches):
        match = Match(["program", "greedy"], Rules(threshold=100), seed=seed)
        started = time.perf_counter()
        faults = await play_to_the_end(match, [first, BotSeat(GreedyBot())], time_limit=5.0)
        seconds += time.perf_counter() - started
        assert all(f.total == 0 for f in faults)
        played = [e for e in match.log if type(e) is Played]
        moves += len(played)
        mine += sum(1 for e in played if e.seat == 0)
    return seconds, moves, mine


def pipe_round_trip(trips: int = 20000, size: int = 256, rounds: int = 3) -> float:
    """Microseconds a frame of ``size`` bytes takes there and back through two pipes
    to a child that echoes what it reads (best of ``rounds``): the floor of a move
    by an external program."""
    child = subprocess.Popen(
        [sys.executable, "-c", ECHO], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
    )
    assert child.stdin is not None and child.stdout is not None
    out, back = child.stdin.fileno(), child.stdout.fileno()
    data = frame(b"x" * size)
    best = float("inf")
    try:
        for _ in range(rounds):
            began = time.perf_counter()
            for _ in range(trips):
                os.write(out, data)
                got = 0
                while got < len(data):
                    got += len(os.read(back, 65536))
            best = min(best, time.perf_counter() - began)
    finally:
        child.stdin.close()
        child.wait()
    return round(1e6 * best / trips, 2)


async def record_moves(program: Path, matches: int) -> list[bytes]:
    """What the host writes to ``program`` over ``matches`` matches against greedy, cut
    into the batches between its answers: each batch ends with the turn it answers."""
    batches: list[bytes] = []
    batch: list[bytes] = []
    recording = False

    def heard(who: str, body: bytes) -> None:
        if not recording:
            return
        if who == "host":
            batch.append(frame(body))
        elif batch:
            batches.append(b"".join(batch))
            batch.clear()

    seat = ProgramSeat([sys.executable, str(program)], "program", trace=heard)
    await seat.start()
    recording = True
    try:
        await _play(seat, matches)
    finally:
        recording = False
        await seat.close()
    return batches


def program_floor(program: Path, batches: list[bytes], rounds: int = 3) -> tuple[float, float]:
    """The floor of a move by ``program`` on a pipe: microseconds from writing a move's
    frames (recorded by ``record_moves``) to reading its answer, with a host that does
    nothing else, and the program's CPU microseconds per move (best of ``rounds``)."""
    child = subprocess.Popen(
        [sys.executable, str(program)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    assert child.stdin is not None and child.stdout is not None
    out, back = child.stdin.fileno(), child.stdout.fileno()
    reader = FrameReader()

    def answer() -> None:
        while not reader.feed(os.read(back, 65536)):
            if not select.select([back], [], [], 30)[0]:
                raise RuntimeError(f"{program.name} did not answer a recorded move")

    best = cpu = float("inf")
    try:
        answer()  # its hello
        os.write(out, encode(program_welcome(1, "bench", None)))
        for _ in range(rounds):
            began, program_began = time.perf_counter(), cpu_of(child.pid)
            for batch in batches:
                os.write(out, batch)
                answer()
            best = min(best, time.perf_counter() - began)
            cpu = min(cpu, cpu_of(child.pid) - program_began)
    finally:
        child.stdin.close()
        child.wait()
    return round(1e6 * best / len(batches), 1), round(1e6 * cpu / len(batches), 1)


class _Replay:
    """The output side of ``program_loop_floor``: each answer of the program, cut from
    the stream in the callback that read it, is followed at once by the next batch."""

    def __init__(self, program: Path, batches: list[bytes]) -> None:
        self.program, self.batches = program, batches
        self.frames = FrameReader()
        self.stdin: asyncio.StreamWriter | None = None
        self.next = len(batches)
        """The batch written after the next answer (none left: the round is over)."""
        self.over: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def round(self) -> asyncio.Future[None]:
        """Start a round of every batch; done at the answer to the last."""
        assert self.stdin is not None
        self.over = asyncio.get_running_loop().create_future()
        self.next = 1
        self.stdin.write(self.batches[0])
        return self.over

    def received(self, data: bytes) -> None:
        for _ in self.frames.feed(data):
            if self.next < len(self.batches):
                assert self.stdin is not None
                self.stdin.write(self.batches[self.next])
                self.next += 1
            elif not self.over.done():
                self.over.set_result(None)

    def ended(self, error: BaseException | None) -> None:
        if not self.over.done():
            self.over.set_exception(RuntimeError(f"{self.program.name} closed its output"))


async def program_loop_floor(
    program: Path, batches: list[bytes], rounds: int = 3
) -> tuple[float, float]:
    """``program_floor`` with a host on this process's event loop, through the same
    spawn and channel as ``ProgramSeat`` (under uvloop, socket pairs). Microseconds a
    move, and this host's CPU microseconds a move (best of ``rounds``): the floor of
    any host on the loop, which does no game work."""
    replay = _Replay(program, batches)
    jail = await spawn(
        Containment(mode="none"),
        [sys.executable, str(program)],
        Usage(),
        cwd=None,
        env=None,
        stderr=asyncio.subprocess.DEVNULL,
        output=replay,
    )
    stdin = replay.stdin = jail.proc.stdin
    assert stdin is not None
    best = cpu = math.inf
    try:
        await asyncio.wait_for(replay.over, 30)  # its hello
        stdin.write(encode(program_welcome(1, "bench", None)))
        for _ in range(rounds):
            began, host_began = time.perf_counter(), time.process_time()
            await asyncio.wait_for(replay.round(), 60)
            best = min(best, time.perf_counter() - began)
            cpu = min(cpu, time.process_time() - host_began)
    finally:
        stdin.close()
        await jail.proc.wait()
        await jail.end()
    return round(1e6 * best / len(batches), 1), round(1e6 * cpu / len(batches), 1)


def stdio_cost(
    matches: int, rounds: int = 3, core: int | None = None, program: Path = PLAYER
) -> dict[str, float]:
    """Best of ``rounds`` alternating passes each way, after a pass that warms the
    bots' caches (so that neither side gains from going second). With ``core``, this
    process and the program it starts run on that core only. The pipe round trip
    is measured in the same conditions, before the matches."""
    if core is not None:
        before = os.sched_getaffinity(0)
        os.sched_setaffinity(0, {core})
        try:
            return stdio_cost(matches, rounds, program=program)
        finally:
            os.sched_setaffinity(0, before)
    pipe = pipe_round_trip()

    async def run() -> dict[str, float]:
        local_seat = BotSeat(LastLegal(), "program")
        program_seat = ProgramSeat([sys.executable, str(program)], "program")
        await program_seat.start()
        assert program_seat.proc is not None
        pid = program_seat.proc.pid
        piped = local = host_cpu = local_cpu = program_cpu = float("inf")
        try:
            await _play(local_seat, matches)
            await _play(program_seat, 2)
            for _ in range(rounds):
                began, program_began = time.process_time(), cpu_of(pid)
                seconds, moves, mine = await _play(program_seat, matches)
                host_cpu = min(host_cpu, time.process_time() - began)
                program_cpu = min(program_cpu, cpu_of(pid) - program_began)
                piped = min(piped, seconds)
                began = time.process_time()
                seconds, moves_again, _ = await _play(local_seat, matches)
                local_cpu = min(local_cpu, time.process_time() - began)
                local = min(local, seconds)
                assert moves == moves_again, "the two ways should play the same moves"
        finally:
            await program_seat.close()
        extra = 1e6 * (piped - local) / mine
        return {
            "matches": matches,
            "moves": moves,
            "program_moves": mine,
            "stdio_s": round(piped, 3),
            "in_process_s": round(local, 3),
            "us_per_move_in_process": round(1e6 * local / moves, 1),
            "us_per_move_stdio": round(1e6 * piped / moves, 1),
            "extra_us_per_program_move": round(extra, 1),
            "extra_us_per_move": round(1e6 * (piped - local) / moves, 1),
            "pipe_round_trip_us": pipe,
            "ratio_to_pipe": round(extra / pipe, 2),
            "host_cpu_extra_us_per_program_move": round(1e6 * (host_cpu - local_cpu) / mine, 1),
            "program_cpu_us_per_program_move": round(1e6 * program_cpu / mine, 1),
        }

    with asyncio.Runner(loop_factory=loop_factory()) as loop:
        figures = loop.run(run())
        batches = loop.run(record_moves(program, FLOOR_MATCHES))
        on_loop, on_loop_cpu = loop.run(program_loop_floor(program, batches))
    floor, floor_cpu = program_floor(program, batches)
    figures.update(
        program_floor_us=floor,
        program_floor_cpu_us=floor_cpu,
        program_floor_to_pipe=round(floor / pipe, 2),
        loop_floor_us=on_loop,
        loop_floor_host_cpu_us=on_loop_cpu,
        loop_floor_to_pipe=round(on_loop / pipe, 2),
    )
    return figures


FLOOR_MATCHES = 6
"""Matches recorded for ``program_floor``, which plays them three times over."""


def dask_figures(
    best: Callable[[int, str | None], dict[str, float]], pool: dict[str, float]
) -> dict[str, object]:
    """The same runs on a Dask LocalCluster of 1 and 2 workers, against the local pool."""
    figures: dict[str, object] = {}
    for n in (1, 2):
        run = best(n, f"local:{n}")
        figures[f"cluster_{n}"] = run
        click.echo(
            f"local:{n} cluster: {run['matches']} matches in {run['total_s']} s "
            f"({run['startup_s']} s starting): {run['steady_per_s']} matches/s steady, "
            f"{run['batches']:g} batches, {run['task_ms']} ms a task, {run['match_ms']} ms "
            "a match"
        )
    one, two = figures["cluster_1"], figures["cluster_2"]
    assert isinstance(one, dict) and isinstance(two, dict)
    scaling = two["steady_per_s"] / one["steady_per_s"]
    to_pool = two["steady_per_s"] / pool["steady_per_s"]
    click.echo(
        f"local:2 / local:1: {scaling:.2f}x (target >= 1.7x); "
        f"local:2 / 2 local workers: {to_pool:.2f}x (target >= 0.9x)"
    )
    figures.update(cluster_speedup=round(scaling, 2), cluster_to_pool=round(to_pool, 2))
    return figures


@click.command()
@click.option("--deals", default=100, show_default=True, help="Deals (x4 rotations) per run.")
@click.option(
    "--runs", default=2, show_default=True, help="Runs per worker count (the best counts)."
)
@click.option("--stdio-matches", default=60, show_default=True, help="Matches for the stdio cost.")
@click.option(
    "--cluster/--no-cluster",
    default=True,
    show_default=True,
    help="Also on a Dask LocalCluster of 1 and 2 workers (needs leastscore[cluster]).",
)
@click.option(
    "--only",
    type=click.Choice(["all", "in-process", "stdio"]),
    default="all",
    show_default=True,
    help="Run one part: the matches in this process and their floor, or the stdio costs.",
)
def main(deals: int, runs: int, stdio_matches: int, cluster: bool, only: str) -> None:
    result: dict[str, object] = {"bench": "tournament"}
    if only == "all":
        result.update(pool_figures(deals, runs, cluster))
    if only in ("all", "in-process"):
        here = in_process(deals, runs)
        click.echo(
            f"in this process: {here['per_cpu_s']} matches per CPU second "
            f"({here['cpu_ms_per_match']} ms a match, {here['matches']} matches); a bare "
            f"loop over Match: {here['bare_ms_per_match']} ms a match: "
            f"{here['ratio_to_bare']}x (target <= {BARE_TARGET}x)"
        )
        result.update(
            in_process=here,
            ratio_to_bare=here["ratio_to_bare"],
            ratio_to_bare_target=BARE_TARGET,
        )
    if only in ("all", "stdio"):
        result.update(stdio_figures(stdio_matches))
    result.update(cores=os.cpu_count(), python=platform.python_version())
    click.echo(json.dumps(result))


def pool_figures(deals: int, runs: int, cluster: bool) -> dict[str, object]:
    def best(workers: int, on: str | None = None) -> dict[str, float]:
        tries = [matches_per_second(workers, deals, on) for _ in range(runs)]
        return max(tries, key=lambda t: t["steady_per_s"])

    one = best(1)
    click.echo(
        f"1 worker:  {one['matches']} matches in {one['total_s']} s "
        f"({one['startup_s']} s starting): {one['steady_per_s']} matches/s steady, "
        f"{one['total_per_s']} overall"
    )
    two = best(2)
    click.echo(
        f"2 workers: {two['matches']} matches in {two['total_s']} s "
        f"({two['startup_s']} s starting): {two['steady_per_s']} matches/s steady, "
        f"{two['total_per_s']} overall"
    )
    ratio = two["steady_per_s"] / one["steady_per_s"]
    click.echo(f"speed-up with 2 workers: {ratio:.2f}x (target >= 1.8x)")
    click.echo(
        f"CPU per match: workers {one['worker_cpu_ms_per_match']} ms (1) and "
        f"{two['worker_cpu_ms_per_match']} ms (2), their start-up included; the runner "
        f"{one['runner_cpu_ms_per_match']} and {two['runner_cpu_ms_per_match']} ms"
    )
    dask: dict[str, object] = {}
    if cluster:
        dask = dask_figures(best, two)
    return {
        "workers_1": one,
        "workers_2": two,
        "speedup": round(ratio, 2),
        "speedup_target": 1.8,
        **dask,
    }


def stdio_figures(matches: int) -> dict[str, object]:
    """``stdio_cost`` of each program in ``PROGRAMS``, on one core (as a tournament's
    workers run their programs) and on any core, against the pipe's round trip."""
    cores = worker_cores(1)
    figures: dict[str, object] = {}
    for kind, program in PROGRAMS.items():
        one = stdio_cost(matches, core=cores[0] if cores else None, program=program)
        free = stdio_cost(matches, program=program) if cores else one
        for how, c in (("on one core", one), ("on any core", free)):
            click.echo(
                f"{kind} stdio program against greedy, {how}: {c['us_per_move_stdio']} us a "
                f"move, in-process {c['us_per_move_in_process']}: "
                f"{c['extra_us_per_program_move']} us more per move the program makes; a "
                f"pipe round trip {c['pipe_round_trip_us']} us: {c['ratio_to_pipe']}x"
                + (f" (target <= {PIPE_TARGET}x)" if c is one else "")
                + f"; CPU per program move: host {c['host_cpu_extra_us_per_program_move']} us "
                f"more than in-process, program {c['program_cpu_us_per_program_move']} us; "
                f"the program's floor (a host that only writes recorded frames): "
                f"{c['program_floor_us']} us a move ({c['program_floor_to_pipe']}x the pipe), "
                f"{c['program_floor_cpu_us']} us of its CPU; the same through a host on the "
                f"event loop that does no game work: {c['loop_floor_us']} us a move "
                f"({c['loop_floor_to_pipe']}x the pipe), {c['loop_floor_host_cpu_us']} us of "
                "the host's CPU"
            )
        to_one = free["extra_us_per_program_move"] / one["extra_us_per_program_move"]
        click.echo(f"{kind}: any core / one core: {to_one:.2f}x (target <= {ANY_CORE_TARGET}x)")
        key = "stdio" if kind == "raw" else f"stdio_{kind}"
        figures[key] = one
        figures[f"{key}_any_core"] = free
        figures[f"{key}_ratio_to_pipe"] = one["ratio_to_pipe"]
        figures[f"{key}_any_core_to_one_core"] = round(to_one, 2)
    figures.update(ratio_to_pipe_target=PIPE_TARGET, any_core_target=ANY_CORE_TARGET)
    return figures


if __name__ == "__main__":
    main()
