"""Contests in stages: a field too large for one round-robin, cut down stage by stage.

Every 4-combination of 100 entrants is 3.9 million tables, so a large field
plays in stages. Each stage is a round-robin, a gauntlet, or a Swiss stage
(rounds in which the entrants sit at tables with those of similar standing,
best together, every entrant playing the same number of deals), and ends in a
cut: the best ``keep`` go on, or everyone but those whose 95 % win-rate
interval (over deals) lies wholly below ``below``, so that nobody is cut on
noise alone. The next stage plays the survivors.

Each stage, and each round of a Swiss stage, is an ordinary tournament with
its own seed (derived from the contest's), stored in its own folder under the
contest's (``stage-1/``, ``stage-2/round-1/``, ...), so a contest resumes where
it stopped and the same seed and stages give the same result, however many
workers played it.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from ..pure.config import Running, Stage, TournamentConfig
from ..pure.deals import derive
from ..pure.results import MatchResult
from ..pure.schedule import Schedule
from ..pure.stats import EntrantStanding, Tally

if TYPE_CHECKING:
    from rich.console import Console

    from ..running.store import Store
    from .live import LiveRun


@dataclass
class StageOutcome:
    """One stage: its standings, who went on, who was cut and why."""

    number: int
    stage: Stage
    entrants: list[str]
    tally: Tally
    kept: list[str]
    cut: dict[str, str] = field(default_factory=dict)
    """Entrant -> why it was cut, in plain words."""


def cut(stage: Stage, tally: Tally) -> tuple[list[str], dict[str, str]]:
    """Who goes on after ``stage`` (best first), and why each of the others does not."""
    standings = tally.standings()
    order = [s.bot for s in standings]
    if stage.keep is not None:
        kept = order[: stage.keep]
        why = {
            s.bot: f"ranked {s.rank} of {len(order)}; the best {stage.keep} go on"
            for s in standings[stage.keep :]
        }
        return kept, why
    if stage.below is not None:
        why = {
            s.bot: (
                f"its 95 % win-rate interval [{s.win_rate_ci[0]:.2f}, {s.win_rate_ci[1]:.2f}] "
                f"lies wholly below {stage.below:g}"
            )
            for s in standings
            if s.win_rate_ci[1] < stage.below
        }
        return [b for b in order if b not in why], why
    return order, {}


def swiss_tables(order: list[str], seats: int) -> tuple[tuple[str, ...], ...]:
    """Tables of entrants of similar standing: the best ``seats`` together, and so on."""
    return tuple(tuple(order[i : i + seats]) for i in range(0, len(order), seats))


def run_contest(
    config: TournamentConfig, store: Store | None, running: Running, err: Console
) -> int:
    """Play every stage in turn (what is stored counts as played); the exit code."""
    from .live import play_live

    runs: list[LiveRun] = []

    def play(part: TournamentConfig, part_store: Store | None, title: str) -> LiveRun:
        runs.append(play_live(part, part_store, running, err, title=title, keep_results=True))
        return runs[-1]

    entrants = list(config.names)
    outcomes: list[StageOutcome] = []
    for index in range(len(config.stages)):
        outcome = _play_stage(config, index, entrants, store, play, err)
        if outcome is None:
            where = "" if store is None else f"; continue with: --resume {store.path}"
            err.print(f"the contest was stopped{where}")
            return 130
        outcomes.append(outcome)
        entrants = outcome.kept
    _report_contest(config, outcomes, store, running.output)
    played, seconds = sum(r.played for r in runs), sum(r.elapsed for r in runs)
    rate = f", {played / seconds:.1f} matches/s" if played and seconds else ""
    err.print(f"{played} matches in {seconds:.1f} s{rate}", highlight=False)
    if store is not None:
        err.print(f"results, logs and reports in {store.path}")
    return 0


def _play_stage(
    config: TournamentConfig,
    index: int,
    entrants: list[str],
    store: Store | None,
    play: Callable[[TournamentConfig, Store | None, str], LiveRun],
    err: Console,
) -> StageOutcome | None:
    """Play stage ``index`` (each round of a Swiss stage in turn) between ``entrants``
    and cut it; None when it was interrupted."""
    from ..running.ready import NotReady

    stage, number = config.stages[index], index + 1
    err.print(
        f"stage {number} of {len(config.stages)}: {stage.kind.replace('_', '-')}, "
        f"{len(entrants)} entrants",
        highlight=False,
    )
    runs = stage.rounds if stage.kind == "swiss" else 1
    book = StageTally(entrants)
    tally = book.tally()
    order = list(entrants)
    if stage.kind == "swiss" and index == 0:  # by lot, not in the order they were listed
        random.Random(derive(config.seed, "swiss", index)).shuffle(order)
    for round_number in range(runs):
        groups = swiss_tables(order, stage.seats or config.seats) if stage.kind == "swiss" else None
        part = config.stage_config(index, entrants, groups, round_number)
        part_store = _sub_store(store, number, round_number + 1 if runs > 1 else None, part)
        title = f"stage {number}" + (f" round {round_number + 1}" if runs > 1 else "")
        try:
            played = play(part, part_store, title)
        except NotReady as e:
            if number > 1 or round_number > 0:
                e.when = f"the first match of {title}"
            raise
        if played.interrupted:
            return None
        book.add_round(part.schedule(), played.results)
        tally = book.tally()
        order = [s.bot for s in tally.standings()]
    kept, why = cut(stage, tally) if number < len(config.stages) else (order, {})
    for bot, reason in why.items():
        err.print(f"  cut: {bot}: {reason}", highlight=False)
    return StageOutcome(number, stage, list(entrants), tally, kept, why)


def _report_contest(
    config: TournamentConfig, outcomes: list[StageOutcome], store: Store | None, output: str
) -> None:
    """The standings of the last stage with a line for each stage: written to the
    contest's folder, and printed as ``output`` says."""
    import sys

    from ..pure import report

    last = outcomes[-1]
    # what the table shows: the last stage's format, the contest's seed
    final = config.stage_config(len(outcomes) - 1, last.entrants)
    final = msgspec.structs.replace(final, seed=config.seed)
    stages = [stage_report(o) for o in outcomes]
    if store is not None:
        store.write("standings.json", report.to_json(final, last.tally, stages=stages))
        store.write("standings.csv", report.to_csv(last.tally).encode())
        store.write("report.html", report.to_html(final, last.tally, stages=stages).encode())
    if output == "json":
        sys.stdout.buffer.write(report.to_json(final, last.tally, stages=stages))
        sys.stdout.flush()
    elif output == "csv":
        sys.stdout.write(report.to_csv(last.tally))
    else:
        console = report.output_console()
        for o in outcomes:
            console.print(report.stage_line(stage_report(o)), soft_wrap=True)
        console.print(report.rich_table(final, last.tally, console.width))


ROUND = 10**8
"""A round's fixtures are renumbered ``round * ROUND + fixture`` in its stage's tally
(a schedule holds at most 10 million)."""


class StageTally:
    """A stage's results over all its rounds, as one tally."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.results: list[MatchResult] = []
        self.schedules: list[Schedule] = []

    def add_round(self, schedule: Schedule, results: list[MatchResult]) -> None:
        offset = len(self.schedules) * ROUND
        self.schedules.append(schedule)
        self.results += [
            msgspec.structs.replace(r, fixture=offset + r.fixture)
            for r in sorted(results, key=lambda r: r.fixture)
        ]

    def unit_of(self, fixture: int) -> tuple[int, int]:
        round_number, number = divmod(fixture, ROUND)
        f = self.schedules[round_number][number]
        return round_number * ROUND + f.deal, f.group

    def tally(self) -> Tally:
        tally = Tally(self.names, len(self.results), self.unit_of)
        tally.add_all(self.results)
        tally.finish()
        return tally


def _sub_store(
    store: Store | None, number: int, round_number: int | None, config: TournamentConfig
) -> Store | None:
    if store is None:
        return None
    from ..running.store import DEFINITION, Store

    path = Path(store.path, f"stage-{number}")
    if round_number is not None:
        path = path / f"round-{round_number}"
    if (path / DEFINITION).exists():
        sub, stored = Store.resume(path)
        if stored != config:
            raise ValueError(f"{path} holds another tournament than this stage")
        return sub
    return Store.create(path, config)


def stage_report(outcome: StageOutcome) -> report.StageReport:
    from ..pure import report

    stage = outcome.stage
    rule = None
    if stage.keep is not None:
        rule = f"the best {stage.keep} go on"
    elif stage.below is not None:
        rule = f"cut when the 95 % win-rate interval lies wholly below {stage.below:g}"
    standings: list[EntrantStanding] = outcome.tally.standings()
    return report.StageReport(
        number=outcome.number,
        kind=stage.kind,
        seats=stage.seats,
        deals=stage.deals,
        rounds=stage.rounds if stage.kind == "swiss" else 1,
        entrants=outcome.entrants,
        matches=outcome.tally.played,
        rule=rule,
        standings=standings,
        kept=outcome.kept,
        cut=[report.CutNote(bot, why) for bot, why in outcome.cut.items()],
    )


if TYPE_CHECKING:
    from ..pure import report
