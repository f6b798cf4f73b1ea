"""``leastscore demo``: built-in bots play one match while you watch."""

from __future__ import annotations

import math

import click


@click.command()
@click.option("--seats", default=4, show_default=True, type=click.IntRange(2, 8))
@click.option("--level", default="greedy", show_default=True, help="Built-in bot level.")
@click.option("--threshold", default=100, show_default=True, type=click.IntRange(1))
@click.option("--seed", type=int, default=None, help="Deal from this seed (replayable).")
@click.option(
    "--log", "log_path", type=click.Path(dir_okay=False), help="Write the JSON Lines log."
)
def demo(seats: int, level: str, threshold: int, seed: int | None, log_path: str | None) -> None:
    """Watch built-in bots play one match."""
    import asyncio

    from leastscore.bots import make_bot
    from leastscore.bots.seat import BotSeat
    from leastscore.game import Match, Rules, write_log
    from leastscore.seats.core import Policy
    from leastscore.seats.driver import MatchDriver

    from .replay_cmd import show_match

    names = [f"{level.capitalize()} {chr(ord('A') + i)}" for i in range(seats)]
    match = Match(names, Rules(threshold=threshold), seed)
    players = [
        BotSeat(make_bot(level, None if seed is None else seed + i), names[i]) for i in range(seats)
    ]
    driver = MatchDriver(
        match, players, time_limit=lambda _seat: math.inf, policy=Policy(retry_illegal=False)
    )
    asyncio.run(driver.run())
    show_match(match.log)
    if log_path:
        with open(log_path, "wb") as f:
            write_log(match.log, f)
        click.echo(f"log written to {log_path}")
