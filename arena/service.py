"""The arena as it runs: submissions judged one at a time, tables played side by side,
the leaderboard kept up to date, for as long as the process lives.

Everything the arena knows is in its book, written as it happens, so the process
may be killed at any moment and started again; the organiser's commands (invite,
pause, resume, disqualify, roll back) write the same book from another process and
the loops read it again at every turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import shutil
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Any

from leastscore.about import private_folder
from leastscore.heap import HeapTrimmer

from .book import Book, Submission
from .config import ArenaConfig
from .intake import Verdict, judge, receive
from .matchmaker import Standing, next_table
from .standings import Ledger, Row, around, spread
from .tables import Seated, Tables, WorkerLost, compress_logs

if TYPE_CHECKING:
    from distributed import Client

    from .cluster import ClusterTables, Shipping

log = logging.getLogger("leastscore.arena")

IDLE = 1.0
"""Seconds a loop with nothing to do waits before it looks at the book again."""
TRIM_EVERY = 10.0
"""Seconds between hand-backs of freed memory to the system (``leastscore.heap``):
with them, the arena's resident memory is what it holds, not its busiest hour's."""
INTERVALS_EVERY = 5.0
"""Seconds between two bootstraps of the intervals, at least: the ratings are fitted
again after every table, the intervals (two hundred fits) at most this often."""


def submission_folder(folder: Path, submission: Submission) -> Path:
    """Where a version's files are kept in the arena's ``folder``."""
    return folder / "submissions" / submission.author / f"v{submission.version}"


class Arena:
    """A standing competition kept in one folder: the book (``arena.sqlite``), every
    submission's folder (``submissions/AUTHOR/vN``) and every table's standard error
    (``tables/ID``). Why one object: the web pages, the intake and the tables all
    read the same book and the same leaderboard, and one ``changed`` event wakes
    whichever of them was waiting for news."""

    def __init__(self, folder: Path, config: ArenaConfig, cluster: str | None = None) -> None:
        """``cluster``: a Dask cluster to play the tables on (``local:N`` or the
        scheduler's address); None plays them in this process."""
        self.folder = folder.absolute()  # the same folder whatever the working one
        self.config = config
        self.cluster = cluster
        self.book = Book.open(self.folder / "arena.sqlite")
        for room in ("submissions", "programs", "tables"):  # every hand, every log: yours
            private_folder(self.folder / room)
        self.changed = asyncio.Event()
        self._board: list[Row] | None = None
        self._spans: dict[str, tuple[float, float] | None] = {}
        """Each author's interval at the last bootstrap, as its reach below and above
        the rating then (so that it is shown around the rating of now)."""
        self._ledger = Ledger(config.new_version)
        self._last_match = 0
        """The last match the ledger holds (matches are never undone)."""
        self._unfitted = asyncio.Event()
        """Set when the ledger has results its ratings were not fitted on."""
        self._fitter: asyncio.Task[None] | None = None
        """``ratings`` running (``fit_in_background``): the board then never fits on
        the event loop."""
        self._rng = random.Random(secrets.randbits(64))

    def submission_folder(self, submission: Submission) -> Path:
        return submission_folder(self.folder, submission)

    def table_folder(self, table_id: int) -> Path:
        return self.folder / "tables" / str(table_id)

    def poke(self) -> None:
        """Something changed: the leaderboard is worked out again, and idle loops wake."""
        self._board = None
        self.changed.set()

    @property
    def paused(self) -> bool:
        return self.book.setting("paused") == "yes"

    def waiting(self) -> str | None:
        """Why no table can start however long one waits, in a sentence for the
        leaderboard (too few entrants for a table), or None."""
        short = self.config.seats - len(self.book.playing())
        if short <= 0:
            return None
        more = "1 more accepted entrant is" if short == 1 else f"{short} more accepted ones are"
        return f"Tables seat {self.config.seats}: {more} needed before anything plays."

    def disqualified(self, author: str) -> str | None:
        """Why the organiser disqualified ``author`` (None: they were not)."""
        return dict(self.book.authors()).get(author)

    # -- submissions --------------------------------------------------------------------

    async def receive(self, author: str, archive: bytes) -> Submission:
        """A new version from ``author``, unpacked and waiting for its build and check;
        ``UploadRefused`` when the archive breaks a rule (none of its files are kept; the
        book notes the refused version and why)."""
        submission = self.book.submit(author, "receiving")  # the intake leaves it alone
        folder = self.submission_folder(submission)
        shutil.rmtree(folder, ignore_errors=True)  # left by a submission cut short
        try:  # unpacking 20 MB must not hold up the tables and the pages
            await asyncio.to_thread(receive, archive, folder, self.config)
        except ValueError as e:
            self.book.judged(submission.id, False, f"rejected: {e}\n", None)
            raise
        self.book.received(submission.id)
        self.poke()
        return self.book.submission(submission.id)

    async def intake(self) -> None:
        """Judge waiting submissions, oldest first, forever: ``builds_at_once`` side by
        side (one author's versions one after another, so that a newer one's verdict is
        never overtaken by an older one's)."""
        building: dict[str, asyncio.Task[None]] = {}
        try:
            while True:
                for author in [a for a, task in building.items() if task.done()]:
                    building.pop(author)
                waiting = [
                    s for s in self.book.submissions(state="waiting") if s.author not in building
                ]
                if not waiting or len(building) >= self.config.builds_at_once:
                    await self._idle()
                    continue
                submission = waiting[0]
                self.book.start_building(submission.id)
                building[submission.author] = asyncio.create_task(self._judge(submission))
        finally:
            for task in building.values():
                task.cancel()

    async def _judge(self, submission: Submission) -> None:
        try:
            verdict = await judge(self.submission_folder(submission), self.config)
        except Exception as e:  # the arena's own fault: the version is not played
            log.exception("judging %s v%d failed", submission.author, submission.version)
            verdict = Verdict(False, f"rejected: the arena could not judge it: {e}\n", None)
        self.book.judged(submission.id, verdict.accepted, verdict.log, verdict.run)
        log.info(
            "%s v%d: %s",
            submission.author,
            submission.version,
            "accepted" if verdict.accepted else "rejected",
        )
        self.poke()

    # -- tables -------------------------------------------------------------------------

    async def tables(self, slot: int, cluster: tuple[Client, Shipping] | None = None) -> None:
        """Play the next table the matchmaker chooses, one after another, forever (the
        ``slot``-th of ``tables_at_once``, with programs of its own; on the ``cluster``'s
        workers when there is one)."""
        tables: Tables | ClusterTables
        stderr_dir = self.folder / "programs" / str(slot)
        if cluster is None:
            tables = Tables(self.config, stderr_dir)
        else:
            from .cluster import ClusterTables  # needs distributed: only with --cluster

            tables = ClusterTables(*cluster, slot, stderr_dir)
        try:
            while True:
                everyone = [] if self.paused else self._everyone()
                chosen = self._choose(everyone)
                if not chosen:
                    await self._idle()
                    continue
                await self._play(tables, chosen, everyone)
        finally:
            await tables.close()

    async def _play(
        self, tables: Tables | ClusterTables, chosen: list[Seated], everyone: list[Seated]
    ) -> None:
        """One table, written to the book when it is over. A table that fails (a fault of
        the arena's own, a lost worker) is forgotten, as a kill would leave it, and the
        loop goes on: one broken table must not stop the arena. A worker lost is said in
        one line (it is the cluster's doing, not a bug); any other failure with its
        traceback. Neither charges an entrant: a program's faults are in its results."""
        seed = secrets.randbits(63)
        table_id = self.book.begin_table(seed, [s.submission for s in chosen])
        try:
            played = await tables.play(chosen, everyone, seed, self.table_folder(table_id))
        except Exception as e:
            if isinstance(e, WorkerLost):
                log.warning("table %d: its worker was lost: %s; it is forgotten", table_id, e)
            else:
                log.exception("table %d failed; it is forgotten", table_id)
            self.book.forget_table(table_id)
            await asyncio.sleep(IDLE)
            return
        self.book.end_table(table_id, played.matches, played.stderr, played.worker)
        self.poke()
        await asyncio.to_thread(compress_logs, self.table_folder(table_id))

    def _everyone(self) -> list[Seated]:
        """Every entrant that plays now, as a table seats it."""
        return [
            Seated(sub.id, author, self.submission_folder(sub), sub.run or "")
            for author, sub in self.book.playing().items()
        ]

    def _choose(self, everyone: list[Seated]) -> list[Seated]:
        board = {row.author: row for row in self.board()}
        standings = [
            Standing(e.submission, board[e.author].rating, board[e.author].width,
                     board[e.author].matches)
            for e in everyone
            if e.author in board
        ]  # fmt: skip
        by_id = {e.submission: e for e in everyone}
        return [by_id[i] for i in next_table(standings, self.config.seats, self._rng)]

    def board(self) -> list[Row]:
        """The leaderboard: each entrant's matches and faults as the book has them now,
        the ratings of the last fit (``ratings``, in a thread; when it does not run, as
        when a command reads the book, fitted here), and around each rating the interval
        of the last bootstrap (``bootstrap``), so that a rating is never outside it."""
        if self._board is None:
            authors = self.book.authors_of()
            new = self.book.played("m.id > ?", (self._last_match,))
            self._ledger.add(new, authors)
            self._last_match = new[-1].id if new else self._last_match
            in_thread = self._fitter is not None and not self._fitter.done()
            rows = self._ledger.rows(
                self.book.playing(), authors, with_intervals=False, refit=not in_thread
            )
            if not self._ledger.fitted:
                self._unfitted.set()
            self._board = [around(r, self._spans.get(r.author)) for r in rows]
        return self._board

    def fit_in_background(
        self, spawn: Callable[[Coroutine[Any, Any, None]], asyncio.Task[None]] | None = None
    ) -> asyncio.Task[None]:
        """Start fitting the ratings in a thread (``ratings``), as a task ``spawn`` makes
        (a task group's ``create_task``; by default the running loop's): from now on
        the board shows the last fit's ratings and never fits on the event loop."""
        self._fitter = (spawn or asyncio.get_running_loop().create_task)(self.ratings())
        return self._fitter

    async def ratings(self) -> None:
        """Fit the ratings again whenever the ledger has results the last fit lacked,
        forever, in a thread, and say so (``poke``) when a fit lands. Why a thread: with
        1,000 entrants a fit after one table is five solves of a 1,000 by 1,000 system
        (0.2 s), and numpy's solves let the event loop go on serving pages and seating
        tables meanwhile. A fit that fails is logged and the last ratings stay."""
        while True:
            await self._unfitted.wait()
            self._unfitted.clear()
            fitting = self._ledger.fitting()
            try:
                self._ledger.ratings = await asyncio.to_thread(fitting)
            except Exception:
                log.exception("the ratings could not be fitted; the last stay")
            self.poke()

    async def bootstrap(self) -> None:
        """The intervals bootstrapped again on the matches so far, in a thread, and
        noted in each version's history. Why a thread: the bootstrap is two hundred fits
        (0.75 s of work with 100 entrants, minutes with 1,000), and numpy's solves let
        the event loop go on serving pages and seating tables meanwhile."""
        self.board()  # the ledger catches up
        playing = self.book.playing()
        rows = await asyncio.to_thread(self._ledger.frozen().rows, playing, self.book.authors_of())
        self._spans = {r.author: spread(r) for r in rows}
        self._board = None
        self._note_history(self.board(), playing)

    async def intervals(self) -> None:
        """Bootstrap whenever tables have finished since the last, forever; never two at
        once, and never more often than every ``INTERVALS_EVERY`` seconds nor than the
        last one took, so that however large the arena the bootstrap keeps to half a
        core at most. A bootstrap that fails is logged and the last intervals stay:
        the tables and the pages go on without new ones."""
        done = -1
        while True:
            began = time.monotonic()
            if self.board() and self._last_match != done:
                done = self._last_match
                try:
                    await self.bootstrap()
                except Exception:
                    log.exception("the intervals could not be bootstrapped; the last stay")
            took = time.monotonic() - began
            await asyncio.sleep(max(INTERVALS_EVERY, took))

    def _note_history(self, board: list[Row], playing: dict[str, Submission]) -> None:
        """Each rated version's rating and interval of this bootstrap, for its chart (the
        book keeps at most one point a version every ``HISTORY_EVERY`` seconds)."""
        points = [
            (playing[r.author].id, r.rating, r.low, r.high, r.matches)
            for r in board
            if r.matches and r.author in playing
        ]
        if points:
            self.book.note_ratings(time.time(), points)

    async def _idle(self) -> None:
        self.changed.clear()
        try:  # not wait_for: in Python 3.11 it drops a cancel that comes with the wake-up
            async with asyncio.timeout(IDLE):
                await self.changed.wait()
        except TimeoutError:
            self._board = None  # another process may have written the book

    async def run(self) -> None:
        """The intake and ``tables_at_once`` table loops, until cancelled."""
        async with contextlib.AsyncExitStack() as stack:
            heap = HeapTrimmer(asyncio.get_running_loop(), TRIM_EVERY)
            heap.start()
            stack.callback(heap.stop)
            cluster = None
            if self.cluster is not None:
                from .cluster import Shipping, connect

                client = await connect(stack, self.cluster, self.config)
                cluster = (client, Shipping(client))
            async with asyncio.TaskGroup() as group:
                group.create_task(self.intake())
                self.fit_in_background(group.create_task)
                group.create_task(self.intervals())
                for slot in range(self.config.tables_at_once):
                    group.create_task(self.tables(slot, cluster))
