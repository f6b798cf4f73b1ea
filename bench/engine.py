"""How fast the rules engine plays: 4-seat matches of greedy bots, one process, one core.

    python -m bench.engine [--seconds 5] [--seats 4] [--level greedy]

Every turn is the whole loop a table runs: build the mover's view (as a bot
gets it), let the bot choose, apply the move. Last line: one JSON object.
"""

from __future__ import annotations

import json
import platform
import time

import click
from leastscore.bots import make_bot
from leastscore.game import Match


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


@click.command()
@click.option("--seconds", default=5.0, show_default=True, help="How long to play.")
@click.option("--seats", default=4, show_default=True)
@click.option("--level", default="greedy", show_default=True, help="Built-in bot in every seat.")
def main(seconds: float, seats: int, level: str) -> None:
    result = play(seconds, seats, level)
    click.echo(
        f"{result['matches']} matches, {result['rounds']} rounds, {result['turns']} turns "
        f"in {result['seconds']} s: {result['turns_per_s']:,} turns/s, "
        f"{result['rounds_per_s']:,} rounds/s"
    )
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
