"""The arena as it runs: submissions judged one at a time, tables played side by side,
the leaderboard kept up to date, for as long as the process lives.

Everything the arena knows is in its book, written as it happens, so the process
may be killed at any moment and started again; the organiser's commands (invite,
pause, resume, disqualify, roll back) write the same book from another process and
the loops read it again at every turn.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import shutil
from pathlib import Path

from .book import Book, Submission
from .config import ArenaConfig
from .intake import judge, receive
from .matchmaker import Standing, next_table
from .standings import Row, leaderboard
from .tables import Seated, play_table

log = logging.getLogger("leastscore.arena")

IDLE = 1.0
"""Seconds a loop with nothing to do waits before it looks at the book again."""


class Arena:
    """A standing competition kept in one folder: the book (``arena.sqlite``), every
    submission's folder (``submissions/AUTHOR/vN``) and every table's standard error
    (``tables/ID``). Why one object: the web pages, the intake and the tables all
    read the same book and the same leaderboard, and one ``changed`` event wakes
    whichever of them was waiting for news."""

    def __init__(self, folder: Path, config: ArenaConfig) -> None:
        self.folder = folder
        self.config = config
        self.book = Book.open(folder / "arena.sqlite")
        self.changed = asyncio.Event()
        self._board: list[Row] | None = None
        self._rng = random.Random(secrets.randbits(64))

    def submission_folder(self, submission: Submission) -> Path:
        return self.folder / "submissions" / submission.author / f"v{submission.version}"

    def table_folder(self, table_id: int) -> Path:
        return self.folder / "tables" / str(table_id)

    def poke(self) -> None:
        """Something changed: the leaderboard is worked out again, and idle loops wake."""
        self._board = None
        self.changed.set()

    @property
    def paused(self) -> bool:
        return self.book.setting("paused") == "yes"

    # -- submissions --------------------------------------------------------------------

    def receive(self, author: str, archive: bytes) -> Submission:
        """A new version from ``author``, unpacked and waiting for its build and check;
        ``UploadRefused`` (nothing kept) when the archive breaks a rule."""
        submission = self.book.submit(author)
        folder = self.submission_folder(submission)
        shutil.rmtree(folder, ignore_errors=True)  # left by a submission cut short
        try:
            receive(archive, folder, self.config)
        except ValueError as e:
            self.book.judged(submission.id, False, f"rejected: {e}\n", None)
            raise
        self.poke()
        return self.book.submission(submission.id)

    async def intake(self) -> None:
        """Judge waiting submissions, oldest first, forever."""
        while True:
            waiting = self.book.submissions(state="waiting")
            if not waiting:
                await self._idle()
                continue
            submission = waiting[0]
            self.book.start_building(submission.id)
            verdict = await judge(self.submission_folder(submission), self.config)
            self.book.judged(submission.id, verdict.accepted, verdict.log, verdict.run)
            log.info(
                "%s v%d: %s",
                submission.author,
                submission.version,
                "accepted" if verdict.accepted else "rejected",
            )
            self.poke()

    # -- tables -------------------------------------------------------------------------

    async def tables(self) -> None:
        """Play the next table the matchmaker chooses, one after another, forever."""
        while True:
            chosen = [] if self.paused else self._choose()
            if not chosen:
                await self._idle()
                continue
            seed = secrets.randbits(63)
            table_id = self.book.begin_table(seed, [s.submission for s in chosen])
            played = await play_table(chosen, seed, self.config, self.table_folder(table_id))
            self.book.end_table(table_id, played)
            self.poke()

    def _choose(self) -> list[Seated]:
        playing = self.book.playing()
        board = {row.author: row for row in self.board()}
        standings = [
            Standing(sub.id, board[a].rating, board[a].width, board[a].matches)
            for a, sub in playing.items()
            if a in board
        ]
        ids = next_table(standings, self.config.seats, self._rng)
        subs = {sub.id: sub for sub in playing.values()}
        return [
            Seated(i, subs[i].author, self.submission_folder(subs[i]), subs[i].run or "")
            for i in ids
        ]

    def board(self) -> list[Row]:
        """The leaderboard (worked out again only after a change)."""
        if self._board is None:
            authors = {s.id: s.author for s in self.book.submissions()}
            self._board = leaderboard(
                self.book.played(), self.book.playing(), authors, self.config.new_version
            )
        return self._board

    async def _idle(self) -> None:
        self.changed.clear()
        try:
            await asyncio.wait_for(self.changed.wait(), IDLE)
        except TimeoutError:
            self._board = None  # another process may have written the book

    async def run(self) -> None:
        """The intake and ``tables_at_once`` table loops, until cancelled."""
        async with asyncio.TaskGroup() as group:
            group.create_task(self.intake())
            for _ in range(self.config.tables_at_once):
                group.create_task(self.tables())
