"""``leastscore demo``: built-in bots play one match while you watch."""

from __future__ import annotations

import click


def _level(value: str) -> str:
    from leastscore.bots import builtin

    try:
        builtin(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    return value


@click.command()
@click.option("--seats", default=4, show_default=True, type=click.IntRange(2, 8), help="Players.")
@click.option(
    "--level",
    default="greedy",
    show_default=True,
    callback=lambda ctx, param, value: _level(value),
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
    from leastscore.bots import make_bot
    from leastscore.bots.view import BotView
    from leastscore.game import Match, Rules, write_log

    from .replay_cmd import show_match

    players = [make_bot(level, None if seed is None else seed + i) for i in range(seats)]
    # named as at a server's table: "Greedy bot", "Greedy bot (2)", ...
    names = [f"{players[0].name.capitalize()} bot"] + [
        f"{players[0].name.capitalize()} bot ({i + 1})" for i in range(1, seats)
    ]
    match = Match(names, Rules(threshold=threshold), seed)
    match.start()
    while not match.over:
        seat = match.to_move
        match.apply(seat, players[seat].choose(BotView.of(match.view(seat))))
    show_match(match.log)
    if log_path:
        with open(log_path, "wb") as f:
            write_log(match.log, f)
        click.echo(f"log written to {log_path}")
