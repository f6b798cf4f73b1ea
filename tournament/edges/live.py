"""Playing a tournament's fixtures with the standings live on the terminal.

``play_live`` plays what is left of one tournament (one stage of a contest),
counting results as they come, with a progress bar and the standings so far on
standard error when that is a terminal; it returns the tally. Printing the
end result is the command's business.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from leastscore.seats.loop import loop_factory
from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..pure import report
from ..pure.config import Running, TournamentConfig
from ..pure.per_deal import SprtRun, SprtSettings
from ..pure.results import MatchResult
from ..pure.stats import Tally
from ..running.runner import Runner
from ..running.store import Store

if TYPE_CHECKING:
    from ..pure.hall import EntrantHall


@dataclass
class LiveRun:
    """What playing a tournament left: its tally (cut at the SPRT's decision), the
    test, how many matches this run played and how long it took."""

    tally: Tally
    sprt: SprtRun | None
    played: int
    elapsed: float
    interrupted: bool
    results: list[MatchResult]
    """Every result counted (kept only when asked for)."""
    web_address: tuple[str, int] | None = None
    """Where ``--web`` served the live page (its port known once it was served)."""


class Counted:
    """What a run has counted so far: the results stored before it, the standings and
    the SPRT as results come in, the results kept for the caller. Why a class: the
    progress bar, the live standings and the web page all read it while it grows."""

    def __init__(self, config: TournamentConfig, store: Store | None, keep: bool) -> None:
        self.config = config
        self.schedule = config.schedule()
        self.tally = Tally(config.names, len(self.schedule), self.unit_of)
        self.sprt = None
        if config.sprt is not None:
            assert config.gauntlet is not None
            self.sprt = SprtRun(SprtSettings.parse(config.sprt), config.gauntlet, self.schedule)
        self.stored = list(store.results()) if store is not None else []
        self.keep = keep
        self.kept: list[MatchResult] = []
        for result in self.stored:
            self.add(result)
        self.done = self.tally.counted
        """Matches played before this run."""

    def unit_of(self, fixture: int) -> tuple[int, int]:
        f = self.schedule[fixture]
        return f.deal, f.group

    def add(self, result: MatchResult) -> None:
        if self.keep:
            self.kept.append(result)
        self.tally.add(result)
        if self.sprt is not None:
            self.sprt.add(result)

    def decided(self) -> bool:
        """Whether the SPRT has decided (and the run may stop)."""
        return self.sprt is not None and self.sprt.cut is not None

    def todo(self) -> list[int]:
        """The fixtures left to play (none once the test had decided)."""
        if self.decided():
            return []
        return [i for i in range(len(self.schedule)) if not self.tally.has(i)]

    def standings(self, width: int) -> Any:
        table = report.rich_table(self.config, self.tally, width)
        return table if self.sprt is None else Group(table, report.sprt_line(self.sprt))

    def finished(
        self,
        played: list[MatchResult],
        elapsed: float,
        interrupted: bool,
        served: list[tuple[str, int]],
    ) -> LiveRun:
        """What the run left, once it is over (``played``: the results it played)."""
        self.cut_at_decision(played)
        self.tally.finish()
        return LiveRun(
            self.tally,
            self.sprt,
            self.tally.counted - self.done,
            elapsed,
            interrupted,
            self.kept,
            served[0] if served else None,
        )

    def cut_at_decision(self, played: list[MatchResult]) -> None:
        """Count every match up to the deal where the test decided and none after, so
        the standings do not depend on how far the workers had got past it."""
        if self.sprt is None or self.sprt.cut is None:
            return
        cut = self.sprt.cut
        upto = Tally(self.config.names, cut, self.unit_of)
        upto.add_all(r for r in [*self.stored, *played] if r.fixture < cut)
        self.tally = upto
        self.kept = [r for r in self.kept if r.fixture < cut]


def greeter(config: TournamentConfig, err: Console) -> Callable[[EntrantHall], None]:
    """What to print when the hall for remote bots opens: where, and their tokens."""

    def greet(hall: EntrantHall) -> None:
        host = config.listen.rpartition(":")[0]
        err.print(f"remote bots: connect to {host}:{hall.port} and say hello with a token:")
        chosen = config.remote_tokens()
        for name, token in hall.tokens().items():
            err.print(f"  {name}: " + ("the token in its spec" if chosen.get(name) else token))

    return greet


class LiveStandings:
    """The standings so far, drawn afresh at each refresh of the live display."""

    def __init__(self, counted: Counted, err: Console) -> None:
        self.counted, self.err = counted, err

    def __rich__(self) -> Any:
        return self.counted.standings(self.err.width)


async def run_watched(
    runner: Runner,
    todo: list[int],
    counted: Counted,
    web: tuple[str, int] | None,
    served: list[tuple[str, int]],
    err: Console,
) -> None:
    """Play ``todo``, with the live page served at ``web`` meanwhile (its address is
    added to ``served`` once it is up)."""
    if web is None:
        await runner.run(todo)
        return
    from .web import Clock, TournamentView

    config, sprt, tally = counted.config, counted.sprt, counted.tally
    clock = Clock(len(counted.schedule), counted.done)
    view = TournamentView(
        *web,
        page=lambda: report.to_html(config, tally, sprt, progress=clock.progress(tally.counted)),
        standings=lambda: report.to_json(config, tally, sprt),
    )
    await view.start()
    served.append((view.host, view.port))
    err.print(f"the tournament live at {view.address}", highlight=False)
    try:
        await runner.run(todo)
    finally:
        await view.stop()


def run_shown(playing: Coroutine[Any, Any, None], shown: Group | None, err: Console) -> bool:
    """Run ``playing`` on a fresh event loop, with ``shown`` live on the terminal
    meanwhile (when there is one); whether it was interrupted (Ctrl-C)."""
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as loop:
            if shown is None:
                loop.run(playing)
            else:
                with Live(shown, console=err, refresh_per_second=2):
                    loop.run(playing)
    except KeyboardInterrupt:
        return True
    return False


def progress_bar(title: str, err: Console) -> Progress:
    return Progress(
        TextColumn(title),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err,
    )


def play_live(
    config: TournamentConfig,
    store: Store | None,
    running: Running,
    err: Console,
    *,
    title: str = "matches",
    keep_results: bool = False,
    web: tuple[str, int] | None = None,
) -> LiveRun:
    """Play what is left of ``config`` (the results in ``store`` count as played)."""
    counted = Counted(config, store, keep_results)
    todo = counted.todo()
    if counted.done and store is not None and todo:
        err.print(
            f"{counted.done} of {len(counted.schedule)} matches already played in {store.path}"
        )
    progress = progress_bar(title, err)
    task = progress.add_task(title, total=len(counted.schedule), completed=counted.done)

    def on_result(result: MatchResult) -> None:
        counted.add(result)
        progress.advance(task)

    def warn(line: str) -> None:
        err.print(line, highlight=False, markup=False, soft_wrap=True)

    runner = Runner(
        config,
        running,
        store=store,
        on_result=on_result,
        on_hall=greeter(config, err),
        stop_when=None if counted.sprt is None else counted.decided,
        warn=None if running.quiet else warn,
    )
    started = time.perf_counter()
    served: list[tuple[str, int]] = []
    shown = (
        Group(LiveStandings(counted, err), progress)
        if err.is_terminal and not running.quiet
        else None
    )
    try:
        interrupted = bool(todo) and run_shown(
            run_watched(runner, todo, counted, web, served, err), shown, err
        )
    finally:
        if store is not None:
            store.close()
    elapsed = time.perf_counter() - started
    return counted.finished(runner.results, elapsed, interrupted, served)


def write_reports(config: TournamentConfig, store: Store, played: LiveRun) -> None:
    """standings.json, standings.csv and report.html in the tournament's folder."""
    tally, sprt = played.tally, played.sprt
    store.write("standings.json", report.to_json(config, tally, sprt))
    store.write("standings.csv", report.to_csv(tally).encode())
    store.write("report.html", report.to_html(config, tally, sprt, logs=True).encode())
