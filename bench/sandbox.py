"""What containing a program costs: per program start (a match start) and per move.

    python -m bench.sandbox [--starts 20] [--matches 20]

For each ``--sandbox`` mode this machine has (``none``, ``limits``, ``bwrap``):

1. Start: ``tests/programs/stdio_player.py`` started, its handshake done, and
   closed again, ``--starts`` times (the median counts): what a match costs
   when a program has to be started for it (a first match, or after a crash).
2. Move: the same heads-up matches against ``greedy`` as bench.tournament's
   stdio cost, with the program started once (the best of three passes).

Modes are measured in turns (start after start, pass after pass), in the same
run; the ratio is to ``none``. Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time

import click
from leastscore.seats.limits import Mode
from leastscore.seats.loop import loop_factory
from leastscore.seats.program import ProgramSeat
from leastscore.seats.sandbox import Containment, bwrap_path

from .tournament import PLAYER, _play


async def start_once(contained: Containment) -> float:
    """Seconds to start a program, greet it and close it."""
    program = ProgramSeat([sys.executable, str(PLAYER)], "program", containment=contained)
    began = time.perf_counter()
    await program.start()
    await program.close()
    return time.perf_counter() - began


@click.command()
@click.option("--starts", default=20, show_default=True, help="Program starts per mode.")
@click.option("--matches", default=20, show_default=True, help="Matches per pass per mode.")
def main(starts: int, matches: int) -> None:
    modes: list[Mode] = ["none", "limits"]
    if bwrap_path() is not None:
        modes.append("bwrap")
    figures: dict[str, dict[str, float]] = {}

    async def run() -> None:
        # In turns, mode after mode, so that the machine's load falls on each alike.
        contained = {mode: Containment.make(mode) for mode in modes}
        start_times: dict[str, list[float]] = {mode: [] for mode in modes}
        for _ in range(starts):
            for mode in modes:
                start_times[mode].append(await start_once(contained[mode]))
        programs = {
            mode: ProgramSeat([sys.executable, str(PLAYER)], "program", containment=c)
            for mode, c in contained.items()
        }
        move_best = {mode: float("inf") for mode in modes}
        moves = 0
        try:
            for program in programs.values():
                await program.start()
                await _play(program, 2)
            for _ in range(3):
                for mode, program in programs.items():
                    seconds, moves, _ = await _play(program, matches)
                    move_best[mode] = min(move_best[mode], seconds / moves)
        finally:
            for program in programs.values():
                await program.close()
        for mode in modes:
            start = statistics.median(start_times[mode])
            move = move_best[mode]
            figures[mode] = {"start_ms": round(1000 * start, 2), "move_us": round(1e6 * move, 1)}
            click.echo(
                f"{mode:>6}: start {1000 * start:.1f} ms (median of {starts}), move "
                f"{1e6 * move:.1f} us (best of 3 passes of {moves} moves); "
                f"{contained[mode].describe()}"
            )

    with asyncio.Runner(loop_factory=loop_factory()) as loop:
        loop.run(run())
    base = figures["none"]
    for mode in modes[1:]:
        f = figures[mode]
        f["start_ratio"] = round(f["start_ms"] / base["start_ms"], 2)
        f["move_ratio"] = round(f["move_us"] / base["move_us"], 2)
        click.echo(f"{mode}: {f['start_ratio']}x a start, {f['move_ratio']}x a move")
    click.echo(json.dumps({"bench": "sandbox", "starts": starts, "matches": matches, **figures}))


if __name__ == "__main__":
    main()
