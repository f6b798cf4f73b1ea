"""How fast expert's play-outs run: rounds played to their end from sampled deals.

    python -m bench.rollout [--positions 40] [--samples 48] [--passes 5] [--before REV]

Positions are taken from seeded 4-seat matches of counter players (the seat to
move, some turns into a round); for each, expert's own guesses (``sample_deal``)
and declarers are built once, and every pass plays each deal out from a copy
(``play_out``, with the reshuffles seeded alike in every pass). The figures are
the best pass's microseconds per play-out, and that as a ratio to a floor
measured in the same run: a fixed pure-Python loop over card masks, so runs on
machines of different speed compare. ``--before REV`` also times the play-out
of ``bots/ladder/rollout.py`` as it was at git revision REV (the engine of its
own, before ``game.rollout``: its ``Deal`` and ``play_out(deal, rules, active,
declarers, rng)``), on the same deals, passes alternating which goes first.
Last line: one JSON
object.
"""

from __future__ import annotations

import copy
import importlib.util
import json
import platform
import random
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import click
from leastscore.bots.ladder import rollout
from leastscore.bots.ladder.expert import ExpertBot
from leastscore.bots.ladder.rollout import Declarer
from leastscore.bots.view import BotView
from leastscore.game import Match, Play
from leastscore.game.cards import VALUE
from leastscore.game.rollout import Round

Case = tuple[Round, list[Declarer]]


def positions(count: int, samples: int) -> list[Case]:
    """Sampled deals with expert's declarers, from ``count`` seeded positions."""
    cases: list[Case] = []
    seed = 0
    while len(cases) < count * samples:
        rng = random.Random(seed)
        match = Match(4, seed=seed)
        match.view_kind = BotView
        match.start()
        expert = ExpertBot(seed, samples)
        for _ in range(rng.randint(4, 14)):
            view = match.view(match.to_move)
            move = expert.choose(view)  # type: ignore[arg-type]
            if not isinstance(move, Play) or match.round > 1:
                break
            match.apply(match.to_move, move)
        seed += 1
        view = match.view(match.to_move)
        if match.round > 1 or match.over:
            continue
        table = expert.read_table(view)  # type: ignore[arg-type]
        g = expert.guesses(table)
        declarers = expert.declarers(g)
        cases.extend((deal, declarers) for deal in expert.deals(g))
    return cases[: count * samples]


def floor_us(reps: int = 2000) -> float:
    """Microseconds of a fixed loop: the points of a 13-card mask, summed card by card."""
    best = float("inf")
    for _ in range(5):
        start = time.perf_counter()
        for i in range(reps):
            mask = (0x1F0F3 << (i % 7)) & ((1 << 52) - 1)
            total = 0
            while mask:
                low = mask & -mask
                total += VALUE[low.bit_length() - 1]
                mask ^= low
        best = min(best, time.perf_counter() - start)
    return best / reps * 1e6


def time_pass(cases: list[Case], play: Callable[[Round, list[Declarer], int], object]) -> float:
    """Seconds to play every case out once (each from a copy, seeded by its index)."""
    start = time.perf_counter()
    for i, (deal, declarers) in enumerate(cases):
        play(deal, declarers, i)
    return time.perf_counter() - start


def play_now(deal: Round, declarers: list[Declarer], i: int) -> object:
    world = deal.copy()
    world.shuffle = random.Random(i).shuffle
    return rollout.play_out(world, [d.copy() for d in declarers])


def load_before(rev: str) -> ModuleType:
    """``bots/ladder/rollout.py`` at ``rev``, as a module of the ladder (its relative
    imports resolve to today's helpers, which its play-out shares)."""
    root = Path(__file__).resolve().parent.parent
    source = subprocess.run(
        ["git", "show", f"{rev}:bots/ladder/rollout.py"],
        cwd=root, check=True, capture_output=True, text=True,
    ).stdout  # fmt: skip
    name = "leastscore.bots.ladder._rollout_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "leastscore.bots.ladder"
    sys.modules[name] = module
    exec(compile(source, f"{rev}:bots/ladder/rollout.py", "exec"), module.__dict__)
    return module


def player_before(old: ModuleType) -> Callable[[Round, list[Declarer], int], object]:
    """The old play-out, on the same deal as its own ``Deal`` and its own declarers."""

    def play(deal: Round, declarers: list[Declarer], i: int) -> object:
        world = old.Deal(
            list(deal.hands), list(deal.deck), list(deal.dead), deal.open,
            list(deal.turns), deal.to_move, deal.turn,
        )  # fmt: skip
        theirs = [old.Declarer(d.at, d.upto, d.need, _watcher(old, d.watcher)) for d in declarers]
        return old.play_out(world, deal.rules, list(deal.seats), theirs, random.Random(i))

    return play


def _watcher(old: ModuleType, watcher: Any) -> Any:
    if watcher is None:
        return None
    mine = old.Watcher((), watcher.model, watcher.strict)
    mine.known, mine.known_total = dict(watcher.known), dict(watcher.known_total)
    mine.caps = copy.deepcopy(watcher.caps)
    return mine


@click.command()
@click.option("--positions", "count", default=40, show_default=True, help="Positions.")
@click.option("--samples", default=48, show_default=True, help="Sampled deals per position.")
@click.option("--passes", default=5, show_default=True, help="Timed passes (best kept).")
@click.option("--before", default=None, help="Also time the play-out at this git revision.")
def main(count: int, samples: int, passes: int, before: str | None) -> None:
    cases = positions(count, samples)
    players: dict[str, Callable[[Round, list[Declarer], int], object]] = {"now": play_now}
    if before is not None:
        players["before"] = player_before(load_before(before))
    best = {name: float("inf") for name in players}
    floor = float("inf")
    for k in range(passes):
        floor = min(floor, floor_us())
        turns = list(players.items())
        for name, play in turns if k % 2 == 0 else turns[::-1]:  # neither always goes first
            best[name] = min(best[name], time_pass(cases, play))
    out: dict[str, object] = {
        "bench": "rollout",
        "play_outs": len(cases),
        "floor_us": round(floor, 3),
    }
    for name, seconds in best.items():
        us = seconds / len(cases) * 1e6
        click.echo(f"{name:>7}: {us:8.1f} us per play-out, {us / floor:7.1f} floors")
        out[name] = {"us_per_play_out": round(us, 1), "floors": round(us / floor, 2)}
    if before is not None:
        ratio = best["now"] / best["before"]
        click.echo(f"now / before: {ratio:.3f}")
        out["now_over_before"] = round(ratio, 3)
    out["python"] = platform.python_version()
    click.echo(json.dumps(out))


if __name__ == "__main__":
    main()
