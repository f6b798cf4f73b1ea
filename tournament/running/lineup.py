"""The seats entrants play from, in one process.

- Built-in and Python bots: a fresh bot for every match, seeded from the
  schedule (bots start each match knowing nothing, and repeat themselves).
- Programs (``cmd:``): one process per entrant in each runner process, started
  before its first match (within the start-up time) and kept alive across
  matches. One that died since it last moved is started again before its next
  match, and that counts as a crash; one that forfeited a match is started
  afresh, since it may be stuck.
- Remote bots: their seat in the server's hall, once they are connected.

A player that cannot be made ready sits as ``Absent``: it forfeits the match
at its first turn, and the tournament goes on.

In worker processes a Python bot that is still thinking well past its time is
interrupted (``SIGALRM``): the move counts as a timeout and the match goes on.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import signal
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from leastscore.bots import Bot
from leastscore.bots.seat import BotSeat
from leastscore.game import Declare, Event, IllegalMove, Match, Move, View
from leastscore.seats.driver import MatchDriver
from leastscore.seats.limits import Mode
from leastscore.seats.program import ProgramSeat
from leastscore.seats.sandbox import Containment
from leastscore.seats.seat import DidNotStart, Gone, Seat, SeatFailed

from ..pure.config import TournamentConfig
from ..pure.entrants import Entrant, bot_factory
from ..pure.hall import EntrantHall
from ..pure.schedule import Fixture


class Absent:
    """A seat whose player is not there: it forfeits the match at its first turn."""

    def __init__(self, name: str, why: str) -> None:
        self.name = name
        self.why = why
        self.driver: MatchDriver | None = None

    def send(self, events: Sequence[Event]) -> None:
        pass

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        pass

    async def choose(self, view: View, time_limit: float) -> Move:
        assert self.driver is not None and view.seat is not None
        self.driver.resign(view.seat, self.why)  # cancels this very wait
        await asyncio.get_running_loop().create_future()
        raise AssertionError("a resigned seat was asked to move")

    def verdict(self, error: IllegalMove | None) -> None:
        pass


def _is_async(bot: Bot) -> bool:
    return inspect.iscoroutinefunction(bot.choose)


OVERRUN_GRACE = 0.25
"""Seconds past its time limit after which a thinking bot is interrupted."""


class Overrun(Exception):
    """Raised inside a Python bot that is still thinking past its time."""


def _overrun(signum: int, frame: object) -> None:
    raise Overrun("still thinking past the time limit")


class GuardedSeat(BotSeat):
    """A Python bot in a worker process, cut short by an alarm when it thinks past
    its time (a built-in bot needs no alarm: it sits as a plain ``BotSeat``, which
    already turns every failure into a fault). The move it was thinking of counts
    as a timeout, and the match goes on."""

    def choose_now(self, view: View, time_limit: float) -> Move:
        signal.setitimer(signal.ITIMER_REAL, time_limit + OVERRUN_GRACE)
        try:
            return super().choose_now(view, time_limit)
        except (SeatFailed, Overrun) as e:
            if isinstance(e, Overrun) or isinstance(e.__cause__, Overrun):
                # Too late anyway: the core sees that it came after its deadline,
                # counts a timeout and plays the automatic move instead of this one.
                return Declare()
            raise
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)


@dataclass(frozen=True)
class _Readied:
    """A program made ready for a match, and what was found on the way: ``died``, it had
    died since its last move, of ``why``, a failure of ``kind``; ``failed``, it could
    not be started, ``why``."""

    program: ProgramSeat
    why: str | None
    kind: str
    died: bool = False
    failed: bool = False


@dataclass
class Seating:
    """One match's seats, and what went wrong before it began."""

    seats: list[Seat]
    crashes: list[int]
    """Failures counted before the match began, by seat (each also a crash)..."""
    problems: list[str]
    failures: list[dict[str, int]] = field(default_factory=list)
    """...and by how they came about (``SeatFailed.kind``), by seat."""
    absent: list[Absent] = field(default_factory=list)
    remote: list[Seat] = field(default_factory=list)
    programs: dict[int, tuple[ProgramSeat, int]] = field(default_factory=dict)
    """Seat index: (program, how many problems it had before this match)."""
    before: dict[int, tuple[dict[str, int], float]] = field(default_factory=dict)
    """Seat index: a program's faults by kind and CPU seconds before this match."""
    usage: list[tuple[dict[str, int], float]] = field(default_factory=list)
    """By seat, after the match: faults by kind and CPU seconds in it."""

    def crashed(self, index: int, kind: str) -> None:
        """Count a failure of seat ``index`` before the match, of ``kind``."""
        self.crashes[index] += 1
        self.failures[index][kind] = self.failures[index].get(kind, 0) + 1


def contain(
    config: TournamentConfig,
    hidden: Sequence[str | None] = (),
    warn: Callable[[str], None] | None = None,
    *,
    sandbox: Mode | None = None,
) -> Containment:
    """How this process runs the tournament's programs: each sees its own folder and
    not the other ``cmd:`` entrants' (hidden too where one lies inside another's),
    nor the folders in ``hidden`` (the results, a worker's own). ``sandbox``: the mode
    the runner resolved (every worker runs what the runner chose), else the config's.
    ``warn`` hears of programs that share a folder (and so each other's files)."""
    programs = [e for e in config.entrants if e.kind == "cmd"]
    if not programs:
        return Containment(mode="none")
    own: dict[str, list[str]] = {}
    for entrant in programs:
        own.setdefault(entrant.placed().folder, []).append(entrant.name)
    for folder, names in own.items():
        if len(names) > 1 and warn is not None:
            warn(
                f"sandbox: {', '.join(names)} share the folder {folder} and can read each "
                "other's files there: give each its own (dir, see TOURNAMENTS.md)"
            )
    folders = set(own) | {h for h in hidden if h is not None}
    return Containment.make(sandbox or config.sandbox, config.limits, sorted(folders), warn)


class Lineup:
    """The entrants of a tournament as seats, in one process: built-in bots, Python
    bots, contained programs and remote players in the hall.

    Why: each fixture needs one seat per entrant, made the way that entrant plays,
    with its own limits, folder and stderr file; the main process and every worker
    make them alike from the same config, so a fixture plays the same wherever it runs.
    """

    def __init__(
        self,
        config: TournamentConfig,
        *,
        stderr_dir: Path | None = None,
        copy: str = "main",
        hall: EntrantHall | None = None,
        interrupt: bool = False,
        containment: Containment | None = None,
        fresh: bool = False,
    ) -> None:
        """``containment``: how programs run (made once per process: see ``contain``).
        ``copy`` names this process's copies of the ``cmd:`` programs: each copy
        writes its stderr to ``stderr_dir/NAME.COPY.stderr``, so that the copies in
        different workers do not interleave their lines in one file.
        ``interrupt``: cut short Python bots that think far too long (this
        process's main thread must be free to take ``SIGALRM``).
        ``fresh``: start every program afresh for each match, so that nothing it
        learnt of one seating of a deal is there for the next (the arena's tables)."""
        self.config = config
        self.containment = containment or Containment(mode="none")
        self.hall = hall
        self.interrupt = interrupt
        self.fresh = fresh
        if interrupt:
            signal.signal(signal.SIGALRM, _overrun)
        self._stderr_dir = stderr_dir
        self._copy = copy
        self._entrants = {e.name: e for e in config.entrants}
        self._factories: dict[str, Callable[[int], Bot] | str] = {}
        self._programs: dict[str, ProgramSeat] = {}
        self._stale: set[str] = set()
        """Programs to start afresh before their next match."""
        self._files: list[IO[bytes]] = []

    async def seat(self, fixture: Fixture, match: Match) -> Seating:
        n = len(fixture.seats)
        seating = Seating(seats=[], crashes=[0] * n, problems=[], failures=[{} for _ in range(n)])
        programs = [name for name in fixture.seats if self._entrants[name].kind == "cmd"]
        # made ready side by side: a program's start is mostly waiting for its hello
        ready: dict[str, _Readied] = {}
        if programs:  # none in an in-process tournament: no trip through the loop
            readied = await asyncio.gather(*(self._ready(self._entrants[p]) for p in programs))
            ready = dict(zip(programs, readied, strict=True))
        for index, name in enumerate(fixture.seats):
            entrant = self._entrants[name]
            seat: Seat
            if entrant.in_process:
                seat = self._bot_seat(entrant, fixture.bot_seeds[index], seating, index)
            elif entrant.kind == "cmd":
                seat = self._program_seat(ready[name], seating, index)
            else:
                seat = await self._remote_seat(entrant, match, seating, index)
            seating.seats.append(seat)
        return seating

    def finish(self, seating: Seating, match: Match) -> list[str]:
        """After the match: its programs' problems. Programs that forfeited start afresh
        (they may be stuck), and so do those that have used half of a limit that
        counts over a program start (CPU, stderr): limits hold per match, and an honest
        program never reaches them however long the tournament."""
        problems = list(seating.problems)
        seating.usage = [({}, 0.0) for _ in seating.seats]
        for index, (program, before) in seating.programs.items():
            program.police()
            faults, cpu = seating.before[index]
            now = program.usage.faults
            seating.usage[index] = (
                {k: v - faults.get(k, 0) for k, v in now.items() if v > faults.get(k, 0)},
                max(0.0, program.cpu_seconds - cpu),
            )
            problems.extend(f"{program.name}: {p}" for p in program.problems[before:])
            if self.fresh or index in match.resigned or program.worn():
                self._stale.add(program.name)
        if self.hall is not None:
            self.hall.done(seating.remote)
        return problems

    async def close(self) -> None:
        for program in self._programs.values():
            await program.close()
        for f in self._files:
            f.close()
        self._files.clear()

    # -- each kind ----------------------------------------------------------------------

    def _bot_seat(self, entrant: Entrant, seed: int, seating: Seating, index: int) -> Seat:
        factory = self._factories.get(entrant.name)
        if factory is None:
            try:
                factory = bot_factory(entrant)
            except ValueError as e:
                factory = str(e)
            self._factories[entrant.name] = factory
        why = factory if isinstance(factory, str) else None
        if not isinstance(factory, str):
            try:
                bot = factory(seed)
                if self.interrupt and entrant.kind == "python" and not _is_async(bot):
                    return GuardedSeat(bot, entrant.name)
                return BotSeat(bot, entrant.name)
            except Exception as e:
                why = f"{entrant.name}: could not be created: {type(e).__name__}: {e}"
        return self._absent(entrant.name, str(why), seating, index, DidNotStart.kind)

    async def _ready(self, entrant: Entrant) -> _Readied:
        """Have ``entrant``'s program running for its next match (started afresh when it
        is stale), and say what that found."""
        name = entrant.name
        program = self._programs.get(name)
        if program is None:
            placed = entrant.placed()
            program = self._programs[name] = ProgramSeat(
                placed.argv,
                name,
                startup_time=self.config.startup_time,
                stderr=self._stderr(name),
                cwd=placed.folder,
                containment=self.containment.with_limits(entrant.limits),
            )
        stale = name in self._stale
        if stale:
            self._stale.discard(name)
            await program.close()  # stopped by the runner, not dead by itself: no crash
        why, kind = program.failure, program.failure_kind.kind
        try:
            died = await program.ready() and not stale
        except SeatFailed as e:
            return _Readied(program, f"could not start: {program.failure}", e.kind, failed=True)
        return _Readied(program, why, kind, died=died)

    def _program_seat(self, readied: _Readied, seating: Seating, index: int) -> Seat:
        program = readied.program
        if readied.died:  # it died after its last move
            seating.crashed(index, readied.kind)
            seating.problems.append(f"{program.name}: {readied.why or 'stopped'}; started again")
        elif readied.failed:
            return self._absent(program.name, str(readied.why), seating, index, readied.kind)
        seating.programs[index] = (program, len(program.problems))
        seating.before[index] = (dict(program.usage.faults), program.cpu_seconds)
        return program

    async def _remote_seat(
        self, entrant: Entrant, match: Match, seating: Seating, index: int
    ) -> Seat:
        if self.hall is None:
            raise RuntimeError("remote entrants play only in the runner's own process")
        name = entrant.name
        if not await self.hall.arrival(name, self.config.startup_time):
            why = f"not connected within {self.config.startup_time:g} s"
            return self._absent(name, why, seating, index, Gone.kind)
        seat = self.hall.seat(name, match, index)
        seating.remote.append(seat)
        return seat

    def _absent(self, name: str, why: str, seating: Seating, index: int, kind: str) -> Absent:
        seat = Absent(name, why)
        seating.absent.append(seat)
        if not why.startswith(name):
            why = f"{name}: {why}"
        seating.problems.append(why)
        if not seating.crashes[index]:
            seating.crashed(index, kind)
        return seat

    def _stderr(self, name: str) -> IO[bytes] | int:
        if self._stderr_dir is None:
            return asyncio.subprocess.DEVNULL
        self._stderr_dir.mkdir(parents=True, exist_ok=True)
        safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        f = open(self._stderr_dir / f"{safe}.{self._copy}.stderr", "ab")  # noqa: SIM115 - closed in close()
        self._files.append(f)
        return f
