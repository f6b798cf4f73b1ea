"""``leastscore demo``: built-in bots play one match while you watch."""

from __future__ import annotations

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
    from leastscore.bots import make_bot
    from leastscore.bots.view import BotView
    from leastscore.game import Match, Rules, write_log

    from .replay_cmd import show_match

    names = [f"{level.capitalize()} {chr(ord('A') + i)}" for i in range(seats)]
    match = Match(names, Rules(threshold=threshold), seed)
    players = [make_bot(level, None if seed is None else seed + i) for i in range(seats)]
    match.start()
    while not match.over:
        seat = match.to_move
        match.apply(seat, players[seat].choose(BotView.of(match.view(seat))))
    show_match(match.log)
    if log_path:
        with open(log_path, "wb") as f:
            write_log(match.log, f)
        click.echo(f"log written to {log_path}")
