"""How fast the rules engine plays: 4-seat matches of greedy bots, one process, one core.

    python -m bench.engine [--seconds 5] [--seats 4] [--level greedy]
    python -m bench.engine --hand-cache 256,4096,131072 [--seconds 5]

Every turn is the whole loop a table runs: build the mover's view (as a bot
gets it), let the bot choose, apply the move. Last line: one JSON object.

With ``--hand-cache`` the same play is timed for each bound of the engine's
hand cache (``game.groups.set_hand_cache_size``, what ``serve --hand-cache``
sets), each from an empty cache; the bounds are played in turn, twice, and
the best of each is kept. What a cached hand costs in memory is measured in a
pass of its own (tracemalloc), so each bound's megabytes are the hands it held
times that: what each megabyte of cache buys in turns per second, against the
smallest bound.
"""

from __future__ import annotations

import json
import platform
import time
import tracemalloc

import click
from leastscore.bots import make_bot
from leastscore.game import Match, groups


def play(seconds: float, seats: int, level: str) -> dict[str, float | int | str]:
    turns = rounds = matches = 0
    clock = time.perf_counter
    start = clock()
    deadline = start + seconds
    seed = 0
    while clock() < deadline:
        match = Match(seats, seed=seed)
        match.start()
        players = [make_bot(level, seed + i) for i in range(seats)]
        while not match.over:
            seat = match.to_move
            # greedy and random read only game.View: no BotView wrapping on the hot path
            match.apply(seat, players[seat].choose(match.view(seat)))  # type: ignore[arg-type]
            turns += 1
        rounds += match.round
        matches += 1
        seed += 1
    elapsed = clock() - start
    return {
        "bench": "engine",
        "level": level,
        "seats": seats,
        "seconds": round(elapsed, 3),
        "matches": matches,
        "rounds": rounds,
        "turns": turns,
        "turns_per_s": round(turns / elapsed),
        "rounds_per_s": round(rounds / elapsed, 1),
        "matches_per_s": round(matches / elapsed, 2),
        "python": platform.python_version(),
    }


PASSES = 2
"""Times each bound is played with ``--hand-cache`` (alternating), keeping the best."""


def _empty_cache(entries: int) -> None:
    groups.set_hand_cache_size(1)  # empties it
    groups.set_hand_cache_size(entries)


def bytes_per_hand(seats: int, level: str, seconds: float) -> float:
    """What one cached hand costs in memory: the engine's allocations (tracemalloc)
    over ``seconds`` of play from an empty, unbounded cache, over the hands it then holds."""
    _empty_cache(1 << 30)
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        play(seconds, seats, level)
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    grown = sum(
        stat.size_diff
        for stat in after.compare_to(before, "filename")
        if stat.traceback[0].filename == groups.__file__
    )
    return grown / max(1, groups.hand_cache_size())


def cache_sizes(bounds: list[int], seconds: float, seats: int, level: str) -> dict[str, object]:
    """``play`` once per cache bound, each from an empty cache, and what each holds."""
    default = groups.HAND_CACHE_SIZE
    best = dict.fromkeys(bounds, 0)
    held = dict.fromkeys(bounds, 0)
    try:
        for _ in range(PASSES):  # the bounds in turn, again: the best of each
            for entries in bounds:
                _empty_cache(entries)
                turns = int(play(seconds, seats, level)["turns_per_s"])
                best[entries] = max(best[entries], turns)
                held[entries] = max(held[entries], groups.hand_cache_size())
        per_hand = bytes_per_hand(seats, level, seconds)
    finally:
        _empty_cache(default)
    rows: list[dict[str, float | int | None]] = []
    floor = bounds[0]
    for entries in bounds:
        mb = round(min(entries, held[entries]) * per_hand / 1e6, 2)
        extra_mb = (min(entries, held[entries]) - min(floor, held[floor])) * per_hand / 1e6
        gained = best[entries] - best[floor]
        rows.append(
            {
                "entries": entries,
                "held": held[entries],
                "mb": mb,
                "turns_per_s": best[entries],
                "ratio_to_smallest": round(best[entries] / best[floor], 3),
                "turns_per_s_per_mb": round(gained / extra_mb) if extra_mb > 0.05 else None,
            }
        )
    return {
        "bench": "engine_cache",
        "level": level,
        "seats": seats,
        "bytes_per_hand": round(per_hand),
        "bounds": rows,
    }


@click.command()
@click.option("--seconds", default=5.0, show_default=True, help="How long to play.")
@click.option("--seats", default=4, show_default=True)
@click.option("--level", default="greedy", show_default=True, help="Built-in bot in every seat.")
@click.option(
    "--hand-cache",
    "bounds",
    default=None,
    help="Comma-separated bounds of the hand cache to compare (entries), smallest first.",
)
def main(seconds: float, seats: int, level: str, bounds: str | None) -> None:
    if bounds:
        sizes = sorted(int(b) for b in bounds.split(","))
        table = cache_sizes(sizes, seconds, seats, level)
        rows: list[dict[str, float | int | None]] = table["bounds"]  # type: ignore[assignment]
        for row in rows:
            per_mb = row["turns_per_s_per_mb"]
            click.echo(
                f"{row['entries']:>8,} entries ({row['held']:,} held, {row['mb']} MB): "
                f"{row['turns_per_s']:,} turns/s, {row['ratio_to_smallest']}x the smallest"
                + (f", {per_mb:,} turns/s more per MB" if per_mb is not None else "")
            )
        click.echo(json.dumps(table))
        return
    result = play(seconds, seats, level)
    click.echo(
        f"{result['matches']} matches, {result['rounds']} rounds, {result['turns']} turns "
        f"in {result['seconds']} s: {result['turns_per_s']:,} turns/s, "
        f"{result['rounds_per_s']:,} rounds/s"
    )
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
