"""Playing a tournament's fixtures with the standings live on the terminal.

``play_live`` plays what is left of one tournament (one stage of a contest),
counting results as they come, with a progress bar and the standings so far on
standard error when that is a terminal; it returns the tally. Printing the
end result is the command's business.
"""

from __future__ import annotations

import asyncio
import time
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

from . import report
from .config import TournamentConfig
from .per_deal import SprtRun, SprtSettings
from .results import MatchResult
from .runner import Runner
from .stats import Tally
from .store import Store

if TYPE_CHECKING:
    from leastscore.server.app import Server

    from .remote import Hall


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


def play_live(
    config: TournamentConfig,
    store: Store | None,
    *,
    workers: int,
    affinity: bool,
    quiet: bool,
    err: Console,
    cluster: str | None = None,
    title: str = "matches",
    keep_results: bool = False,
    web: tuple[str, int] | None = None,
) -> LiveRun:
    """Play what is left of ``config`` (the results in ``store`` count as played)."""
    schedule = config.schedule()

    def unit_of(fixture: int) -> tuple[int, int]:
        f = schedule[fixture]
        return f.deal, f.group

    tally = Tally(config.names, len(schedule), unit_of)
    sprt = None
    if config.sprt is not None:
        assert config.gauntlet is not None
        sprt = SprtRun(SprtSettings.parse(config.sprt), config.gauntlet, schedule)
    stored = list(store.results()) if store is not None else []
    tally.add_all(stored)
    for result in stored:
        if sprt is not None:
            sprt.add(result)
    done = tally.counted
    todo = [i for i in range(len(schedule)) if not tally.has(i)]
    if sprt is not None and sprt.cut is not None:
        todo = []  # the test had decided before the run was stopped
    if done and store is not None and todo:
        err.print(f"{done} of {len(schedule)} matches already played in {store.path}")

    progress = Progress(
        TextColumn(title),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("eta"),
        TimeRemainingColumn(),
        console=err,
    )
    task = progress.add_task(title, total=len(schedule), completed=done)

    class LiveStandings:
        def __rich__(self) -> Any:
            table = report.rich_table(config, tally, err.width)
            return table if sprt is None else Group(table, report.sprt_line(sprt))

    kept: list[MatchResult] = list(stored) if keep_results else []

    def on_result(result: MatchResult) -> None:
        if keep_results:
            kept.append(result)
        tally.add(result)
        if sprt is not None:
            sprt.add(result)
        progress.advance(task)

    def on_hall(server: Server, hall: Hall) -> None:
        host = config.listen.rpartition(":")[0]
        err.print(f"remote bots: connect to {host}:{server.port} and say hello with a token:")
        chosen = config.remote_tokens()
        for name, token in hall.tokens().items():
            err.print(f"  {name}: " + ("the token in its spec" if chosen.get(name) else token))

    runner = Runner(
        config,
        workers=workers,
        affinity=affinity,
        cluster=cluster,
        store=store,
        on_result=on_result,
        on_hall=on_hall,
        stop_when=None if sprt is None else lambda: sprt.cut is not None,
        warn=None
        if quiet
        else lambda line: err.print(line, highlight=False, markup=False, soft_wrap=True),
    )
    show = err.is_terminal and not quiet
    started = time.perf_counter()
    interrupted = False
    served: list[tuple[str, int]] = []

    async def play() -> None:
        if web is None:
            await runner.run(todo)
            return
        from .web import Clock, TournamentView

        clock = Clock(len(schedule), done)

        def page() -> str:
            return report.to_html(config, tally, sprt, progress=clock.progress(tally.counted))

        view = TournamentView(
            *web,
            page=page,
            standings=lambda: report.to_json(config, tally, sprt),
        )
        await view.start()
        served.append((view.host, view.port))
        err.print(f"the tournament live at {view.address}", highlight=False)
        try:
            await runner.run(todo)
        finally:
            await view.stop()

    try:
        if todo:
            with asyncio.Runner(loop_factory=loop_factory()) as loop:
                if show:
                    live = Live(Group(LiveStandings(), progress), console=err, refresh_per_second=2)
                    with live:
                        loop.run(play())
                else:
                    loop.run(play())
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if store is not None:
            store.close()
    elapsed = time.perf_counter() - started
    if sprt is not None and sprt.cut is not None:
        # the test decided at a deal: count every match up to it and none after, so
        # the standings do not depend on how far the workers had got past it
        cut = sprt.cut
        upto = Tally(config.names, cut, unit_of)
        upto.add_all(r for r in [*stored, *runner.results] if r.fixture < cut)
        tally = upto
        kept = [r for r in kept if r.fixture < cut]
    tally.finish()
    web_address = served[0] if served else None
    return LiveRun(tally, sprt, tally.counted - done, elapsed, interrupted, kept, web_address)


def write_reports(config: TournamentConfig, store: Store, played: LiveRun) -> None:
    """standings.json, standings.csv and report.html in the tournament's folder."""
    tally, sprt = played.tally, played.sprt
    store.write("standings.json", report.to_json(config, tally, sprt))
    store.write("standings.csv", report.to_csv(tally).encode())
    store.write("report.html", report.to_html(config, tally, sprt, logs=True).encode())
