"""``leastscore bot check``: is a program a bot a tournament can run?

It starts the program as the tournament does (``ProgramSeat``), checks the
handshake and the protocol version, plays a few matches against built-ins
under the tournament's fault policy, and turns what went wrong into plain
words: every problem once, with how often and an example, so that the author
knows what to fix first.
"""

from __future__ import annotations

import asyncio
import os
import shlex
import statistics
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from itertools import cycle, islice
from pathlib import Path
from typing import IO, Any

from leastscore.game import Event, IllegalMove, Match, Move, Resigned, Rules, View
from leastscore.protocol.plain import trace_line
from leastscore.seats.core import Faults, Policy
from leastscore.seats.driver import play_to_the_end
from leastscore.seats.folders import Placed, place
from leastscore.seats.program import ProgramSeat, last_lines
from leastscore.seats.sandbox import Containment
from leastscore.seats.seat import Seat, SeatFailed
from leastscore.words.narrate import ordinal

from . import make_bot
from .seat import BotSeat
from .settings import CheckSettings


@dataclass
class CheckedMatch:
    """One match `bot check` played: where the program sat, what it did wrong."""

    number: int
    seat: int
    seed: int
    opponents: list[str]
    moves: int = 0
    place: int | None = None
    faults: Faults = field(default_factory=Faults)
    forfeited: bool = False
    problems: list[str] = field(default_factory=list)


@dataclass
class CheckReport:
    """What ``bot check`` found: the lines it printed, the problems that fail the check,
    the warnings that do not, and each match and move time, so that the report and
    ``--json`` say the same."""

    command: str
    settings: CheckSettings
    lines: list[str] = field(default_factory=list)
    """What happened, in order: one line for the handshake and one per match."""
    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    matches: list[CheckedMatch] = field(default_factory=list)
    move_times: list[float] = field(default_factory=list)

    @property
    def compliant(self) -> bool:
        return not self.problems

    def text(self) -> str:
        """The whole report."""
        return "\n".join([f"Checking {self.command}", *self.lines, self.summary()])

    def summary(self) -> str:
        """What the report says after the line per step: times, problems, the verdict."""
        out: list[str] = []
        if self.move_times:
            times = self.move_times
            out.append(
                f"Move times: median {_seconds(statistics.median(times))}, slowest "
                f"{_seconds(max(times))} (budget {self.settings.budget:g} s, "
                f"limit {self.settings.move_time:g} s)"
            )
        if self.problems:
            out.append(f"\nProblems ({len(self.problems)}):")
            out.extend(_bullet(p) for p in self.problems)
        if self.warnings:
            out.append(f"\nWarnings ({len(self.warnings)}):")
            out.extend(_bullet(w) for w in self.warnings)
        verdict = "compliant" if self.compliant else f"NOT compliant: {len(self.problems)} problem"
        verdict += "" if self.compliant or len(self.problems) == 1 else "s"
        out.append(f"\nResult: {verdict}.")
        return "\n".join(out)


def _seconds(t: float) -> str:
    return f"{t * 1000:.1f} ms" if t < 1 else f"{t:.2f} s"


def _bullet(text: str) -> str:
    first, *rest = text.split("\n")
    return "\n".join([f"  - {first}", *(f"      {line}" for line in rest)])


class TimedSeat:
    """Passes everything to a program's seat and times each of its moves."""

    def __init__(self, program: ProgramSeat) -> None:
        self.program = program
        self.name = program.name
        self.times: list[float] = []
        self.moves = 0

    def send(self, events: Sequence[Event]) -> None:
        self.program.send(events)

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        self.program.send_turn(mover, time_limit, view)

    async def choose(self, view: View, time_limit: float) -> Move:
        starts = self.program.starts
        began = time.monotonic()
        move = await self.program.choose(view, time_limit)
        if self.program.starts == starts:  # a restart's start-up is not thinking time
            self.times.append(time.monotonic() - began)
        self.moves += 1
        return move

    def verdict(self, error: IllegalMove | None) -> None:
        self.program.verdict(error)


def _checked_program(
    placed: Placed,
    settings: CheckSettings,
    stderr: IO[bytes],
    tracer: FrameTracer | None,
    line: Callable[[str], None],
) -> ProgramSeat:
    """The program to check, contained as ``settings`` say (said in a line)."""
    contained = Containment.make(settings.sandbox, settings.limits, warn=line)
    line(contained.describe())
    return ProgramSeat(
        placed.argv,
        "program",
        startup_time=settings.startup_time,
        exit_time=settings.exit_time,
        stderr=stderr,
        cwd=placed.folder,
        trace=None if tracer is None else tracer.frame,
        containment=contained,
    )


async def check_program(
    command: str | Sequence[str],
    settings: CheckSettings | None = None,
    *,
    progress: Callable[[str], None] | None = None,
    cwd: str | None = None,
    trace: IO[bytes] | None = None,
) -> CheckReport:
    """Run the whole check; ``progress`` hears each report line as it is made; ``trace``
    gets every frame both ways as JSON lines. The program runs from its own folder
    (see ``seats.folders``), the paths in its command relative to ``cwd``."""
    settings = settings or CheckSettings()
    shown = command if isinstance(command, str) else " ".join(command)
    report = CheckReport(shown, settings)
    placed = place(shlex.split(command) if isinstance(command, str) else command, cwd or ".")

    def line(text: str) -> None:
        report.lines.append(text)
        if progress is not None:
            progress(text)

    with tempfile.TemporaryDirectory(prefix="leastscore-check-") as tmp:
        stderr_path = os.path.join(tmp, "stderr.txt")
        with open(stderr_path, "wb") as stderr:
            started = False
            tracer = None if trace is None else FrameTracer(trace)
            program = _checked_program(placed, settings, stderr, tracer, line)
            if tracer is not None:
                tracer.program = program
            try:
                started = await _handshake(program, report, line)
                if started:
                    await _play_matches(program, settings, report, line)
            finally:
                await program.close()
                if program.lingered and program.hello is not None:
                    report.warnings.append(
                        f"it did not exit within {settings.exit_time:g} s of bye and a closed "
                        "stdin: it was killed"
                    )
        for kind, count in sorted(program.usage.faults.items()):
            report.problems.append(f"it went over its {kind} limit ({count} time(s))")
        line(f"CPU time: {program.cpu_seconds:.2f} s")
        last_words = _tail(stderr_path)
        if not started:
            if last_words:
                report.problems[-1] += f"\nits last words on stderr:\n{last_words}"
        else:
            _explain(report, last_words)
    return report


async def _handshake(
    program: ProgramSeat, report: CheckReport, line: Callable[[str], None]
) -> bool:
    began = time.monotonic()
    try:
        await program.start()
    except SeatFailed:
        why = program.problems[-1] if program.problems else "it failed to start"
        line(f"FAIL  handshake: {why}")
        report.problems.append(_handshake_advice(why, program))
        return False
    hello = program.hello
    assert hello is not None
    line(
        f"PASS  started and said hello in {time.monotonic() - began:.2f} s "
        f'(name "{hello.name}", client "{hello.client}", protocol {hello.protocol})'
    )
    if not hello.bot:
        report.warnings.append('its hello says "bot": false; a bot should say "bot": true')
    if not hello.name:
        report.warnings.append("its hello has no name: tables and reports will show it nameless")
    return True


def _handshake_advice(why: str, program: ProgramSeat) -> str:
    if why.startswith("no hello within"):
        return (
            f"{why}: the first thing a program writes on stdout must be a hello frame, "
            'e.g. {"type": "hello", "protocol": [1], "name": "mybot", "bot": true}'
        )
    if why.startswith("speaks protocol"):
        return f"{why}: list 1 in hello's protocol field (this host speaks protocol 1)"
    if "hello_required" in why:
        return f"{why}: its first frame was not a hello"
    if why.startswith("cannot start"):
        return f"{why}: check the command (quote it as one argument) and the working directory"
    if why.startswith(("exited", "closed its output")):
        return f"it {why} before saying hello"
    if "broke the protocol" in why or "oversized" in why:
        return f"{why} (before the handshake): only length-prefixed frames may go to stdout"
    return why


async def _play_matches(
    program: ProgramSeat,
    settings: CheckSettings,
    report: CheckReport,
    line: Callable[[str], None],
) -> None:
    timed = TimedSeat(program)
    hello = program.hello
    me = (hello.name if hello and hello.name else "program")[:32]
    levels = cycle(settings.opponents)
    for i in range(settings.matches):
        number = i + 1
        seat = i % settings.seats
        opponents = list(islice(levels, settings.seats - 1))
        seed = settings.seed + i
        result = CheckedMatch(number, seat, seed, opponents)
        seats: list[Seat] = [
            BotSeat(make_bot(level, seed + k), level) for k, level in enumerate(opponents)
        ]
        seats.insert(seat, timed)
        names = seat_names(opponents, seat, me)
        match = Match(names, Rules(threshold=settings.threshold), seed=seed)
        policy = Policy(retry_illegal=False, max_faults=settings.max_faults)
        problems_before = len(program.problems)
        moves_before = timed.moves
        try:
            faults = await play_to_the_end(
                match, seats, time_limit=settings.move_time, policy=policy
            )
        except Exception as e:  # a driver error is the check's own failure: say it
            report.problems.append(f"match {number} could not be played: {e!r}")
            line(f"FAIL  match {number}: could not be played ({e!r})")
            return
        result.faults = faults[seat]
        result.moves = timed.moves - moves_before
        result.problems = program.problems[problems_before:]
        result.forfeited = any(isinstance(e, Resigned) and e.seat == seat for e in match.log)
        result.place = next((s.place for s in match.standings if s.seat == seat), None)
        report.matches.append(result)
        against = ", ".join(opponents)
        head = f"match {number} of {settings.matches}: seat {seat} against {against} (seed {seed})"
        place = f"placed {ordinal(result.place)} of {settings.seats}" if result.place else ""
        if result.faults.total or result.forfeited:
            what = _fault_words(result.faults)
            if result.forfeited:
                what += "; forfeited"
            line(f"FAIL  {head}: {result.moves} moves, {what}, {place}")
        else:
            line(f"PASS  {head}: {result.moves} moves, {place}")
    report.move_times = timed.times


def seat_names(opponents: Sequence[str], seat: int, me: str) -> list[str]:
    """The match's names: the opponents' levels and the program's own name, each at
    most 32 characters, and the program's told apart from a level of the same name
    (at most 42 in all, as PROTOCOL.md promises)."""
    names = [level[:32] for level in opponents]
    mine = me[:32]
    names.insert(seat, mine if mine not in names else f"{mine} (checked)")
    return names


def _fault_words(f: Faults) -> str:
    parts = []
    if f.timeouts:
        parts.append(f"{f.timeouts} timed out")
    if f.illegal:
        parts.append(f"{f.illegal} illegal")
    if f.crashes:
        parts.append(f"{f.crashes} crash{'es' if f.crashes > 1 else ''}")
    return ", ".join(parts) or "no faults"


def _times(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


class Noted:
    """The problems the host noted about the program, each told once: ``take`` hands
    over (and strikes off) those a test picks, with how many times each came."""

    def __init__(self, problems: list[str]) -> None:
        self.counts = Counter(problems)

    def take(self, pick: Callable[[str], bool]) -> str:
        found = [(p, n) for p, n in self.counts.items() if pick(p)]
        for p, _ in found:
            del self.counts[p]
        return "".join(f"\n{p}" + (f" ({n} times)" if n > 1 else "") for p, n in found)


def _explain(report: CheckReport, stderr_tail: str) -> None:
    """Turn faults, the program's problems and move times into plain words."""
    total = Faults()
    problems: list[str] = []
    for m in report.matches:
        total.timeouts += m.faults.timeouts
        total.illegal += m.faults.illegal
        total.crashes += m.faults.crashes
        problems += m.problems
    noted = Noted(problems)
    wrong, bad_cards = _wrong_moves(total, noted)
    report.problems += wrong
    report.problems += _broken_program(total, noted, stderr_tail, bad_cards)
    report.problems += _slow_or_late(report, total, noted)
    rest = noted.take(lambda p: True)
    if rest:
        report.problems.append("the host also noted:" + rest)


def _wrong_moves(total: Faults, noted: Noted) -> tuple[list[str], bool]:
    """Illegal moves, cards that do not exist, frames that are no message; and whether
    it named cards that do not exist."""
    out = []
    if total.illegal:
        out.append(
            _times(total.illegal, "illegal move", "illegal moves")
            + ", each replaced by the automatic move:"
            + noted.take(lambda p: p.startswith("illegal move"))
        )
    if bad_cards := noted.take(lambda p: "is not a card" in p):
        out.append(
            "it named cards that do not exist (each such move got the automatic move):" + bad_cards
        )
    if unreadable := noted.take(lambda p: p.startswith(("bad_message", "unknown_type"))):
        out.append(
            "it sent frames the host could not read as messages (each answered with an error):"
            + unreadable
        )
    return out, bool(bad_cards)


def _broken_program(total: Faults, noted: Noted, stderr_tail: str, bad_cards: bool) -> list[str]:
    """Crashes, and output that is not the protocol (a move that failed for a card that
    does not exist is told there already)."""
    out = []
    crashes = noted.take(
        lambda p: p.startswith(("exited", "closed its output", "stopped reading", "does not read"))
    )
    garbage = noted.take(lambda p: "broke the protocol" in p or "oversized frame" in p)
    if garbage:
        out.append(
            "it wrote something on stdout that is not a protocol frame, and was restarted: "
            "anything it prints must go to stderr" + garbage
        )
    if crashes:
        out.append(
            "it crashed and was restarted (its move was the automatic one):"
            + crashes
            + (f"\nits last words on stderr:\n{stderr_tail}" if stderr_tail else "")
        )
    elif total.crashes and not (garbage or bad_cards):
        out.append(_times(total.crashes, "move", "moves") + " failed and got the automatic move")
    return out


def _slow_or_late(report: CheckReport, total: Faults, noted: Noted) -> list[str]:
    """Timeouts, moves over the budget, answers out of turn, forfeits."""
    s, out = report.settings, []
    if total.timeouts:
        out.append(
            _times(total.timeouts, "move", "moves")
            + f" got no answer within the {s.move_time:g} s limit, "
            "so the automatic move was played"
        )
    if slow := [t for t in report.move_times if t > s.budget]:
        out.append(
            _times(len(slow), "move was", "moves were")
            + f" slower than the {s.budget:g} s budget (slowest {max(slow):.2f} s); "
            f"tournaments allow {s.move_time:g} s"
        )
    if late := noted.take(lambda p: p == "moved when it was not its turn"):
        out.append(
            "it answered when it was not its turn (a late answer to a turn that had timed "
            "out, or a move twice):" + late
        )
    if forfeits := [m.number for m in report.matches if m.forfeited]:
        out.append(
            f"it forfeited match {', '.join(map(str, forfeits))}: more than "
            f"{s.max_faults} faults in one match"
        )
    return out


def _tail(path: str) -> str:
    try:
        return "\n".join(last_lines(Path(path).read_bytes()))
    except OSError:
        return ""


class FrameTracer:
    """Writes each frame between the host and the program as a JSON line."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.began = time.monotonic()
        self.program: ProgramSeat | None = None

    def frame(self, sender: str, body: bytes) -> None:
        copy = self.program.starts if self.program is not None else 1
        self.out.write(trace_line(sender, body, time.monotonic() - self.began, copy))


def run_check(
    command: str,
    settings: CheckSettings,
    progress: Callable[[str], None] | None = None,
    trace: Path | None = None,
) -> CheckReport:
    async def check(out: IO[bytes] | None) -> CheckReport:
        asyncio.get_running_loop().set_exception_handler(_quiet_about_seat_failures)
        return await check_program(command, settings, progress=progress, trace=out)

    if trace is None:
        return asyncio.run(check(None))
    with open(trace, "wb") as out:
        return asyncio.run(check(out))


def _quiet_about_seat_failures(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    """A failed program leaves futures nobody awaits any more; the report already
    says what failed, so they are not worth a traceback."""
    if isinstance(context.get("exception"), SeatFailed):
        return
    loop.default_exception_handler(context)
