"""How strong the built-in bots are: each candidate against a table of opponents.

    python -m bench.ladder [--matches 200] [--seats 4] [--candidate counter --opponent greedy]
                           [--seed 0] [--workers 1] [--threshold 100]

Duplicate deals: every deal seed is played once per seat, with the candidate in
that seat and the opponent in all the others, so each seat and each deal
counts the same for everyone; the cards come from the tournaments' duplicate
deck, so round k is dealt the same at every seat of a deal, whatever a
reshuffle did before it. Matches are played as tournaments play them, through
the match driver and in-process bot seats: every match gets freshly built bots,
fed the events their seat sees, choosing from views the engine builds (no bot
sees a hidden card); a move has no time limit, and any fault stops the run. A
win is finishing first; a first place shared by k players counts 1/k.
Intervals are Wilson's 95 % (matches are counted as independent, which the
duplicate format makes slightly conservative). Move times are wall clock per
``choose`` call. Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import math
import multiprocessing
import platform
import statistics
import time
from array import array
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import click
from leastscore.bots import Bot, make_bot
from leastscore.bots.seat import BotSeat
from leastscore.game import Match, Move, Rules, View
from leastscore.seats.driver import play_to_the_end
from leastscore.seats.loop import loop_factory
from leastscore.tournament.pure.deals import DuplicateDeck
from leastscore.tournament.pure.stats import wilson

LADDER = (
    ("greedy", "random"),
    ("counter", "greedy"),
    ("expert", "greedy"),
    ("expert", "counter"),
)
"""The rungs played when no candidate is named: each bot against the one below, and the
two strong ones against the baseline the targets are set on."""


@dataclass
class RungTally:
    """Results of one candidate against one opponent."""

    matches: int = 0
    wins: float = 0.0
    places: float = 0.0
    times: dict[str, array[int]] = field(default_factory=dict)

    def count(self, match: Match, seat: int) -> None:
        """One finished match of the candidate in ``seat``: a first place shared by k
        players counts 1/k."""
        firsts = [s.seat for s in match.standings if s.place == 1]
        self.matches += 1
        self.places += next(s.place for s in match.standings if s.seat == seat)
        if seat in firsts:
            self.wins += 1 / len(firsts)

    def add(self, other: RungTally) -> None:
        self.matches += other.matches
        self.wins += other.wins
        self.places += other.places
        for name, t in other.times.items():
            self.times.setdefault(name, array("q")).extend(t)


class TimedSeat(BotSeat):
    """A built-in bot's seat that times each of its moves (ns, wall clock), the
    ``BotView`` the seat builds for it included."""

    def __init__(self, bot: Bot, name: str, times: array[int]) -> None:
        super().__init__(bot, name)
        self.times = times

    def choose_now(self, view: View, time_limit: float) -> Move:
        start = time.perf_counter_ns()
        move = super().choose_now(view, time_limit)
        self.times.append(time.perf_counter_ns() - start)
        return move


async def play_match(
    levels: Sequence[str], rules: Rules, seed: int, times: dict[str, array[int]]
) -> Match:
    """One match, bot ``levels[i]`` in seat i, dealt from the duplicate deck of ``seed``
    (its rounds are dealt the same whatever came before); appends each move's time
    (ns) by level."""
    match = Match(len(levels), rules, shuffler=DuplicateDeck(seed))
    bots = [make_bot(level, seed * 16 + i) for i, level in enumerate(levels)]
    await play_seated(match, seed, bots, levels, times)
    return match


async def play_seated(
    match: Match,
    seed: int,
    bots: Sequence[Bot],
    names: Sequence[str],
    times: dict[str, array[int]],
) -> None:
    """Play ``match`` (dealt from ``seed``) to its end with ``bots`` in seat order, each
    move's time (ns) appended under its seat's name; any fault stops the run."""
    seats = [
        TimedSeat(bot, name, times.setdefault(name, array("q")))
        for bot, name in zip(bots, names, strict=True)
    ]
    faults = sum(f.total for f in await play_to_the_end(match, seats))
    if faults:
        raise RuntimeError(f"{faults} faults in a match of {', '.join(names)} (seed {seed})")


def play_deal(task: tuple[str, str, int, Rules, int]) -> RungTally:
    """One deal seed with the candidate in each seat in turn."""
    candidate, opponent, seats, rules, seed = task
    tally = RungTally()
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        for seat in range(seats):
            levels = [opponent] * seats
            levels[seat] = candidate
            match = runner.run(play_match(levels, rules, seed, tally.times))
            tally.count(match, seat)
    return tally


def run(
    candidate: str,
    opponent: str,
    seats: int,
    matches: int,
    seed: int,
    workers: int,
    rules: Rules,
    progress: bool = False,
) -> RungTally:
    deals = max(1, math.ceil(matches / seats))
    tasks = [(candidate, opponent, seats, rules, seed + d) for d in range(deals)]
    total = RungTally()
    results: Iterator[RungTally]
    if workers > 1:
        with multiprocessing.Pool(workers) as pool:
            results = pool.imap_unordered(play_deal, tasks)
            for i, t in enumerate(results):
                total.add(t)
                _tick(progress, i + 1, deals, total)
    else:
        for i, task in enumerate(tasks):
            total.add(play_deal(task))
            _tick(progress, i + 1, deals, total)
    return total


def _tick(progress: bool, done: int, deals: int, tally: RungTally) -> None:
    if progress and (done % max(1, deals // 20) == 0 or done == deals):
        click.echo(
            f"  ... {done}/{deals} deals, win rate {tally.wins / tally.matches:.3f}", err=True
        )


def move_times(times: array[int]) -> dict[str, float]:
    ordered = sorted(times)
    if not ordered:
        return {"moves": 0, "median_us": 0.0, "p90_us": 0.0}
    return {
        "moves": len(ordered),
        "median_us": round(statistics.median(ordered) / 1000, 1),
        "p90_us": round(ordered[int(0.9 * (len(ordered) - 1))] / 1000, 1),
    }


def report(candidate: str, opponent: str, seats: int, tally: RungTally) -> dict[str, object]:
    low, high = wilson(tally.wins, tally.matches)
    return {
        "candidate": candidate,
        "opponent": opponent,
        "seats": seats,
        "matches": tally.matches,
        "wins": round(tally.wins, 2),
        "win_rate": round(tally.wins / tally.matches, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "parity": round(1 / seats, 4),
        "mean_place": round(tally.places / tally.matches, 3),
        "move_times": {name: move_times(t) for name, t in sorted(tally.times.items())},
    }


@click.command()
@click.option("--matches", default=200, show_default=True, help="Matches per pairing.")
@click.option("--seats", multiple=True, type=click.IntRange(2, 8), help="Table size [default: 4].")
@click.option("--candidate", multiple=True, help="Bot to rate (repeatable) [default: the ladder].")
@click.option("--opponent", default="greedy", show_default=True, help="Bot in the other seats.")
@click.option("--seed", default=0, show_default=True, help="First deal seed.")
@click.option("--workers", default=1, show_default=True, type=click.IntRange(1))
@click.option("--threshold", default=100, show_default=True, type=click.IntRange(1))
@click.option("--progress/--quiet", default=False, help="Print progress to stderr.")
def main(
    matches: int,
    seats: tuple[int, ...],
    candidate: tuple[str, ...],
    opponent: str,
    seed: int,
    workers: int,
    threshold: int,
    progress: bool,
) -> None:
    rules = Rules(threshold=threshold)
    pairs = [(c, opponent) for c in candidate] if candidate else list(LADDER)
    results = []
    for n in seats or (4,):
        for cand, opp in pairs:
            start = time.perf_counter()
            tally = run(cand, opp, n, matches, seed, workers, rules, progress)
            result = report(cand, opp, n, tally)
            result["seconds"] = round(time.perf_counter() - start, 1)
            results.append(result)
            low, high = wilson(tally.wins, tally.matches)
            click.echo(
                f"{cand} vs {n - 1} {opp} ({n} seats, {tally.matches} matches): "
                f"wins {100 * tally.wins / tally.matches:.1f} % "
                f"[{100 * low:.1f}, {100 * high:.1f}] (parity {100 / n:.1f} %), "
                f"mean place {result['mean_place']}"
            )
            for name, t in sorted(tally.times.items()):
                stats = move_times(t)
                click.echo(
                    f"    {name:8} median {stats['median_us']:9.1f} us   "
                    f"p90 {stats['p90_us']:9.1f} us   ({stats['moves']} moves)"
                )
    click.echo(
        json.dumps(
            {
                "bench": "ladder",
                "threshold": threshold,
                "seed": seed,
                "results": results,
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
