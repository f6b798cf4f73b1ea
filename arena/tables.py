"""Arena tables: a deal played from every seat by the entrants the matchmaker chose,
through the tournament's own seats and referee (``tournament.running``).

Each entrant runs its accepted version from that version's folder, contained as a
tournament contains programs: under bubblewrap it sees the system and its own
folder, read-only, and no other submission, not even by name. Unlike a
tournament's, a program is started afresh for every match: a table plays one deal
from every seat, and a program that lived on would know at the second seating the
hands it was dealt at the first. Its standard error goes to one file per table
slot; each table notes where in that file its part begins and ends, so an author
reads what their program wrote at any one table.
Each match's full log is kept (``tables/ID/logs/``, gzipped once the table is
over), shown only as a spectator sees it.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, cast

from leastscore.tournament.pure.config import TournamentConfig
from leastscore.tournament.pure.entrants import make_entrant
from leastscore.tournament.pure.results import encode_result
from leastscore.tournament.pure.schedule import Schedule
from leastscore.tournament.running.lineup import Lineup, contain
from leastscore.tournament.running.play import play_safely
from leastscore.tournament.running.store import LOGS, Store

from .config import ArenaConfig


@dataclass(frozen=True)
class Seated:
    """An entrant at a table: its submission, its author (its name at the table), and
    how its version runs."""

    submission: int
    author: str
    folder: Path
    run: str


@dataclass(frozen=True)
class PlayedTable:
    """What a table left: each match's seats (submission ids, in seat order) and result,
    and where each author's standard error for this table lies (file, start, end); and,
    for a table played on a cluster, the worker that played it."""

    matches: list[tuple[tuple[int, ...], bytes]]
    stderr: dict[str, tuple[str, int, int]]
    worker: str | None = None


class WorkerLost(RuntimeError):
    """A table that could not be played to the end for no fault of its entrants: the
    workers it was played on died, or what it needed went with them. It is forgotten
    and played again later; no program is charged for it (a program's own faults are
    the referee's, in the match's result)."""


def stderr_file(stderr_dir: Path, author: str) -> Path:
    """The file that holds what ``author``'s programs at one table slot wrote to stderr
    (as the ``Lineup`` names it)."""
    return stderr_dir / f"{author}.main.stderr"


def compress_logs(table_dir: Path) -> None:
    """Gzip each finished match's log of a table (a tenth of its size, or less), the
    plain file replaced only once its copy is whole: a kill leaves one or the other."""
    for plain in sorted((table_dir / LOGS).glob("*.jsonl")):
        packed = plain.with_name(plain.name + ".gz")
        partial = packed.with_name(f".{packed.name}.part")
        with open(plain, "rb") as source, gzip.open(partial, "wb", compresslevel=6) as into:
            shutil.copyfileobj(source, into)
        os.replace(partial, packed)
        plain.unlink()


def open_log(table_dir: Path, fixture: int) -> BinaryIO | None:
    """A table's log of one match, to read (gzipped or not yet), or None."""
    plain = table_dir / LOGS / f"{fixture:06d}.jsonl"
    packed = plain.with_name(plain.name + ".gz")
    with contextlib.suppress(FileNotFoundError):
        return cast(BinaryIO, gzip.open(packed, "rb"))
    with contextlib.suppress(FileNotFoundError):
        return open(plain, "rb")
    return None


def stderr_slice(path: str, start: int, end: int) -> bytes:
    """What a program wrote to stderr at one table: its part of the file, as noted."""
    with open(path, "rb") as f:
        f.seek(start)
        return f.read(max(0, end - start))


class Tables:
    """One table at a time, each match with programs started afresh for it.

    Why a class: the lineup that starts the programs, with their stderr files and
    containment, outlives a table, and must be made again when the entrants who play
    change (a new version, a disqualification); it holds it and knows for which
    entrants it was made. ``tables_at_once`` tables are as many of these."""

    def __init__(self, config: ArenaConfig, stderr_dir: Path) -> None:
        self.config = config
        self.stderr_dir = stderr_dir
        self._lineup: Lineup | None = None
        self._tournament: TournamentConfig | None = None
        self._for: tuple[Seated, ...] = ()

    async def play(self, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
                   table_dir: Path) -> PlayedTable:  # fmt: skip
        """Play the table of ``seated``; ``everyone`` is every entrant playing now."""
        lineup, tournament = await self._ready(tuple(everyone))
        logs = Store(table_dir)  # each match's full log, for its replay
        logs.log_path(0).parent.mkdir(parents=True, exist_ok=True)
        names = [e.author for e in seated]
        schedule = Schedule(names, len(names), 1, seed, groups=(tuple(names),))
        fixtures = list(schedule) if self.config.deal_rotations else [schedule[0]]
        before = {name: self._stderr_size(name) for name in names}
        by_author = {e.author: e.submission for e in seated}
        matches = []
        for fixture in fixtures:
            result = await play_safely(fixture, tournament, lineup, logs)
            matches.append((tuple(by_author[a] for a in fixture.seats), encode_result(result)))
        stderr = {
            name: (str(self._stderr_path(name)), before[name], self._stderr_size(name))
            for name in names
        }
        return PlayedTable(matches, stderr)

    async def _ready(self, everyone: tuple[Seated, ...]) -> tuple[Lineup, TournamentConfig]:
        if self._lineup is None or self._tournament is None or everyone != self._for:
            await self.close()
            self._tournament = self._config_for(everyone)
            self.stderr_dir.mkdir(parents=True, exist_ok=True)
            containment = contain(self._tournament, [str(self.stderr_dir)])
            self._lineup = Lineup(
                self._tournament, stderr_dir=self.stderr_dir, containment=containment, fresh=True
            )
            self._for = everyone
        return self._lineup, self._tournament

    def _config_for(self, everyone: Sequence[Seated]) -> TournamentConfig:
        seats = self.config.seats
        # absolute: a folder relative to where the arena was started (``arena serve
        # contest/``) would be joined onto itself as the entrant's base and its dir
        folders = [str(e.folder.absolute()) for e in everyone]
        return TournamentConfig(
            entrants=tuple(
                make_entrant(e.author, f'cmd:"{e.run}"', where, folder=where)
                for e, where in zip(everyone, folders, strict=True)
            ),
            seed=0,
            seats=seats,
            deals=1,
            groups=(tuple(e.author for e in everyone[:seats]),),  # one: no schedule is kept
            rules=self.config.game_rules(),
            move_time=self.config.move_time,
            max_faults=self.config.max_faults,
            sandbox=self.config.sandbox,
            limits=self.config.limits,
        )

    def _stderr_path(self, name: str) -> Path:
        return stderr_file(self.stderr_dir, name)

    def _stderr_size(self, name: str) -> int:
        path = self._stderr_path(name)
        return path.stat().st_size if path.exists() else 0

    async def close(self) -> None:
        if self._lineup is not None:
            await self._lineup.close()
        self._lineup = None
