"""What a tournament match of in-process bots costs over a bare loop, counted in
machine instructions rather than timed.

    python -m bench.instructions [--deals 2]

The ratio of ``bench.tournament --only in-process`` is a ratio of CPU times, and
on a shared machine two runs of it differ by a fifth. Here the same fixtures are
played under valgrind's cachegrind, which counts the instructions the process
executes: the count does not depend on what else the machine runs, so a change
of 1 % shows. Each way of playing is run twice, for one pass and for three
passes over the fixtures, and the difference is divided by two: the start of
Python, the imports and the first pass that fills the caches cancel out.

- ``bare``: ``bench.tournament.bare_loop``, the floor (engine and bots only).
- ``core``: the same matches judged by ``seats.core.MatchCore`` with no seats
  and no event loop: what the referee's judgement costs by itself.
- ``play``: ``tournament.play``, as a tournament plays them.

Needs valgrind (``apt install valgrind``); says so and stops when it is missing.
Last line: one JSON object, with ``ratio_to_bare`` of ``play`` and of ``core``.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import subprocess
import sys

import click
from leastscore.game import Match
from leastscore.seats.core import MatchCore, Policy
from leastscore.seats.loop import loop_factory
from leastscore.tournament.pure.config import TournamentConfig, build
from leastscore.tournament.pure.deals import DuplicateDeck
from leastscore.tournament.pure.entrants import bot_factory, parse_entrant
from leastscore.tournament.pure.schedule import Fixture
from leastscore.tournament.running.lineup import Lineup
from leastscore.tournament.running.play import play

from bench.tournament import BARE_TARGET, bare_loop

WAYS = ("bare", "core", "play")


def fixtures(deals: int) -> tuple[TournamentConfig, list[Fixture]]:
    """The fixtures of ``bench.tournament``: four greedy entrants at a 4-seat table."""
    entrants = [parse_entrant(f"greedy{i}=builtin:greedy") for i in range(4)]
    config = build({"seed": 1, "deals": deals, "seats": 4}, entrants, {})
    return config, list(config.schedule())


def core_loop(fixtures: list[Fixture], config: TournamentConfig) -> int:
    """The matches judged by the core alone: the bots answer the core's asks at once."""
    factories = {e.name: bot_factory(e) for e in config.entrants}
    moves = 0
    for fixture in fixtures:
        match = Match(fixture.seats, config.rules, shuffler=DuplicateDeck(fixture.deal_seed))
        bots = [factories[n](s) for n, s in zip(fixture.seats, fixture.bot_seeds, strict=True)]
        for bot in bots:
            bot.reset()
        core = MatchCore(
            match,
            time_limit=lambda seat: config.move_time,
            policy=Policy(retry_illegal=False, max_faults=config.max_faults),
        )
        core.start(0.0)
        while (ask := core.asking) is not None:
            core.moved(ask.seat, bots[ask.seat].choose(ask.view), 0.0)  # type: ignore[arg-type]
            moves += 1
    return moves


def passes(way: str, count: int, deals: int) -> None:
    """Play the fixtures ``count`` times the ``way`` named (the process valgrind counts)."""
    config, matches = fixtures(deals)

    async def run() -> None:
        lineup = Lineup(config)
        try:
            for _ in range(count):
                if way == "play":
                    for fixture in matches:
                        await play(fixture, config, lineup)
                elif way == "core":
                    core_loop(matches, config)
                else:
                    bare_loop(matches, config)
        finally:
            await lineup.close()

    with asyncio.Runner(loop_factory=loop_factory()) as loop:
        loop.run(run())


def counted(way: str, count: int, deals: int) -> int:
    """Instructions of a process that plays ``count`` passes ``way``."""
    command = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=no",
        "--cachegrind-out-file=/dev/null",
        sys.executable,
        "-m",
        "bench.instructions",
        "--inner",
        way,
        "--passes",
        str(count),
        "--deals",
        str(deals),
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=os.environ)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count from valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def per_pass(way: str, deals: int) -> int:
    return (counted(way, 3, deals) - counted(way, 1, deals)) // 2


@click.command()
@click.option("--deals", default=2, show_default=True, help="Deals (each in 4 rotations).")
@click.option("--inner", type=click.Choice(WAYS), hidden=True)
@click.option("--passes", "count", default=1, hidden=True)
def main(deals: int, inner: str | None, count: int) -> None:
    if inner is not None:
        passes(inner, count, deals)
        return
    if shutil.which("valgrind") is None:
        click.echo("bench.instructions needs valgrind (apt install valgrind): not run")
        click.echo(json.dumps({"bench": "instructions", "skipped": "no valgrind"}))
        return
    config, matches = fixtures(deals)
    moves = core_loop(matches, config)
    figures = {way: per_pass(way, deals) for way in WAYS}
    bare = figures["bare"]
    for way in WAYS:
        click.echo(
            f"{way:>4}: {figures[way] / moves:9,.0f} instructions a move "
            f"({figures[way]:,} for {len(matches)} matches, {moves:,} moves): "
            f"{figures[way] / bare:.2f}x the bare loop"
        )
    ratio = round(figures["play"] / bare, 3)
    click.echo(f"a tournament match: {ratio:.2f}x the bare loop (target <= {BARE_TARGET}x)")
    result = {
        "bench": "instructions",
        "matches": len(matches),
        "moves": moves,
        "instructions": figures,
        "per_move": {way: round(figures[way] / moves) for way in WAYS},
        "core_ratio_to_bare": round(figures["core"] / bare, 3),
        "ratio_to_bare": ratio,
        "ratio_to_bare_target": BARE_TARGET,
        "python": sys.version.split()[0],
    }
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
