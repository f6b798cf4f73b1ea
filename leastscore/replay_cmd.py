"""``leastscore replay``: a recorded match, round by round, every hand shown."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import click

from leastscore.game import Event

ENDINGS = {
    "aborted": "The match was aborted after round {round}: it was stopped before it ended"
    " (everyone left the table, or the server was shut down).",
    "interrupted": "The match was interrupted in round {round}: its server stopped without"
    " a word; the log goes as far as the last event stored.",
    None: "The match did not end: the log stops in round {round}.",
}
"""What a log that has no end says, by the match's status in the database."""


def show_match(
    events: Sequence[Event], echo: object = click.echo, status: str | None = None
) -> None:
    """Print a full log: each round's deal, moves and reveal; how it ended if it did not.

    ``status`` is the match's in the database (``aborted``, ``interrupted``), when known.
    """
    from rich.console import Console
    from rich.table import Table

    from leastscore.game import Declared, MatchEnded, MatchStarted, RoundStarted
    from leastscore.game.rules import house_rules_text
    from leastscore.protocol.text import shown
    from leastscore.words.narrate import describe

    console = Console(highlight=False, markup=False)  # a name "[/b]" is text, not markup
    names: Sequence[str] = ()
    round_no = 0
    for event in events:
        if isinstance(event, MatchStarted):
            names = [shown(name) for name in event.seats]
            changes = event.rules.changes()
            changes.pop("threshold", None)
            console.print(shown(describe(event, names)))
            console.print(f"House rules: {house_rules_text(changes) or 'none'}")
            continue
        if isinstance(event, RoundStarted):
            round_no = event.round
        if isinstance(event, RoundStarted):
            console.rule(f"Round {event.round}")
            console.print(shown(describe(event, names)))
            for seat, hand in enumerate(event.hands):
                if hand is not None:
                    console.print(f"  {names[seat]}: {' '.join(hand)}")
            continue
        console.print(shown(describe(event, names)))
        if isinstance(event, Declared):
            table = Table("player", "hand", "total", "round", "match", box=None)
            for seat, hand in enumerate(event.hands):
                if hand is None:
                    continue
                table.add_row(
                    names[seat] + (" (declared)" if seat == event.seat else ""),
                    " ".join(hand),
                    str(event.totals[seat]),
                    f"+{event.round_scores[seat]}",
                    str(event.scores[seat]) + (" out" if seat in event.eliminated else ""),
                )
            console.print(table)
    if events and not isinstance(events[-1], MatchEnded):
        ending = ENDINGS.get(status, ENDINGS[None])
        console.print(ending.format(round=round_no))


@click.command()
@click.argument("source")
@click.option("--db", default=None, show_default="the server's", help="SQLite file for matches.")
@click.option(
    "--check",
    is_flag=True,
    help="Replay the moves through the engine and verify (an unfinished match: as far as"
    " its log goes).",
)
def replay(source: str, db: str | None, check: bool) -> None:
    """Show a recorded match: SOURCE is a JSON Lines log file or a match number."""
    from leastscore.game import read_log
    from leastscore.game import replay as rerun

    path = Path(source)
    status: str | None = None
    if source.isdigit() and not path.exists():
        from leastscore.about import default_db
        from leastscore.server.records.store import MatchDatabase, StoreError

        db = db or default_db()
        if not Path(db).exists():
            raise click.ClickException(f"no match database at {db}")
        try:
            store = MatchDatabase(db)
        except StoreError as e:
            raise click.ClickException(str(e)) from None
        record = store.match(int(source))
        if record is not None and record.status == "running":
            # its log holds every hand and the deck: secret while anyone plays it
            raise click.ClickException(
                f"match {source} is being played: its hands are secret until it ends"
                " (if its server died, starting one on this database marks it interrupted)"
            )
        found = store.log(int(source))
        if found is None:
            raise click.ClickException(f"no match {source} in {db}")
        events = found
        status = record.status if record is not None else None
    elif not path.exists():
        raise click.ClickException(f"no match log at {source}")
    else:
        try:
            with path.open("rb") as log:
                events = read_log(log)
        except Exception as e:
            raise click.ClickException(f"{source} is not a match log: {e}") from None
    show_match(events, status=status)
    if check:
        from leastscore.game import IllegalMove, MatchEnded

        try:
            same = rerun(events) == events
        except (ValueError, IllegalMove) as e:
            click.echo(f"replay check: FAILED ({e})")
            raise SystemExit(1) from None
        if not same:
            click.echo("replay check: DIFFERENT")
            raise SystemExit(1)
        if events and isinstance(events[-1], MatchEnded):
            click.echo("replay check: identical")
        else:  # aborted, interrupted by a crash, or still being played
            click.echo("replay check: identical as far as the log goes (the match did not end)")
