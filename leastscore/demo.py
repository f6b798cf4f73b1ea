"""``leastscore demo``: built-in bots play one match while you watch."""

from __future__ import annotations

import click

from leastscore.bots.cli import level_option


@click.command()
@click.option("--seats", default=4, show_default=True, type=click.IntRange(2, 8), help="Players.")
@click.option(
    "--level",
    default="greedy",
    show_default=True,
    callback=level_option,
    help="The bots' level: random, greedy, counter or expert (options as LEVEL:KEY=VALUE).",
)
@click.option(
    "--threshold",
    default=100,
    show_default=True,
    type=click.IntRange(1),
    help="A player above this many points is out.",
)
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
    from leastscore.seats.driver import play_to_the_end
    from leastscore.seats.names import unique_names

    from .replay_cmd import show_match

    players = [make_bot(level, None if seed is None else seed + i) for i in range(seats)]
    # named as at a server's table: "Greedy bot", "Greedy bot (2)", ...
    names = unique_names([f"{p.name.capitalize()} bot" for p in players])
    match = Match(names, Rules(threshold=threshold), seed)
    seats_ = [BotSeat(players[i], names[i]) for i in range(seats)]
    asyncio.run(play_to_the_end(match, seats_))
    show_match(match.log)
    if log_path:
        with open(log_path, "wb") as f:
            write_log(match.log, f)
        click.echo(f"log written to {log_path}")
