"""One arena table: a deal played from every seat by the entrants the matchmaker chose,
through the tournament's own seats and referee (``tournament.running``).

Each entrant runs its accepted version from that version's folder, contained as a
tournament contains programs: under bubblewrap it sees the system and its own
folder, read-only, and no other submission, not even by name. Its standard error
goes to a file of the table's, which the arena shows to that author alone; each
match's full log is kept beside them (``logs/``), and shown only as a spectator
sees it, once the table is over.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from leastscore.tournament.pure.config import TournamentConfig
from leastscore.tournament.pure.entrants import make_entrant
from leastscore.tournament.pure.results import encode_result
from leastscore.tournament.running.lineup import Lineup, contain
from leastscore.tournament.running.play import play_safely
from leastscore.tournament.running.store import Store

from .config import ArenaConfig


@dataclass(frozen=True)
class Seated:
    """An entrant at a table: its submission, its author (its name at the table), and
    how its version runs."""

    submission: int
    author: str
    folder: Path
    run: str


async def play_table(
    entrants: Sequence[Seated], seed: int, config: ArenaConfig, stderr_dir: Path
) -> list[tuple[tuple[int, ...], bytes]]:
    """Play the table: each match's seats (submission ids, in seat order) and result."""
    tournament = TournamentConfig(
        entrants=tuple(
            make_entrant(e.author, f'cmd:"{e.run}"', str(e.folder), folder=str(e.folder))
            for e in entrants
        ),
        seed=seed,
        seats=len(entrants),
        deals=1,
        groups=(tuple(e.author for e in entrants),),
        rules=config.game_rules(),
        move_time=config.move_time,
        sandbox=config.sandbox,
        limits=config.limits,
    )
    stderr_dir.mkdir(parents=True, exist_ok=True)
    lineup = Lineup(
        tournament, stderr_dir=stderr_dir, containment=contain(tournament, [str(stderr_dir)])
    )
    logs = Store(stderr_dir)  # each match's full log, for its replay: logs/000000.jsonl, ...
    logs.log_path(0).parent.mkdir(exist_ok=True)
    by_author = {e.author: e.submission for e in entrants}
    fixtures = list(tournament.schedule())
    if not config.deal_rotations:
        fixtures = fixtures[:1]
    played = []
    try:
        for fixture in fixtures:
            result = await play_safely(fixture, tournament, lineup, logs)
            played.append((tuple(by_author[a] for a in fixture.seats), encode_result(result)))
    finally:
        await lineup.close()
    return played
