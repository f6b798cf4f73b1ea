"""Matches written down while they are played, so that a crash loses only moments.

A table's ``Recording`` takes every batch of events the referee publishes; the
``Journal`` hands them to the store's thread in one transaction for all tables
every ``interval`` seconds (at once when ``batch`` events are waiting). One write
is on its way at a time: while it is, the next batch grows, so a slow disk makes
fewer, larger transactions instead of a queue. The loop never waits for the disk.

What a kill -9 loses: the events not yet committed, that is those of the last
``interval`` (0.1 s) plus the time the write under way takes. A batch of one
move's events is stored whole or not at all, so a stored log always replays.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from leastscore.game import Event, Rules

from .store import AsyncStore, Batch, MatchDatabase

log = logging.getLogger("leastscore.server")


@dataclass(eq=False)
class Recording:
    """One match being written down; its table calls ``add`` and ``end``."""

    journal: Journal
    table_name: str
    started: float
    players: tuple[str, ...]
    rules: Rules
    id: int | None = None
    """The match's row, set on the store's thread (before any of its events are written)."""
    seq: int = 0
    """Events handed in so far."""
    ended: bool = field(default=False)

    def add(self, events: Sequence[Event]) -> None:
        """Events as the match publishes them (one move's at a time)."""
        self.journal.add(self, events)

    def end(self, events: Sequence[Event], status: str) -> None:
        """The match is over (``finished``) or stopped (``aborted``): ``events`` is its
        full log, the record that replaces what was written on the way."""
        self.journal.end(self, events, status)


_StoreCall = Callable[[MatchDatabase, Recording], None]


class Journal:
    """The server's one writer of matches in progress: batching across every table is
    what keeps the cost per move small (see ``bench.store``), and handing each batch
    to the store's thread is what keeps the disk off the loop."""

    def __init__(
        self,
        store: AsyncStore | None,
        interval: float = 0.1,
        batch: int = 2000,
        keep_aborted: bool = True,
    ) -> None:
        self.store = store
        self.keep_aborted = keep_aborted
        """Keep a match stopped before its end; without, its row goes (see ``ServerConfig``)."""
        self.interval = interval
        self.batch = batch
        self.written = 0
        """Events committed so far."""
        self._pending: list[tuple[Recording, int, float, Sequence[Event]]] = []
        self._count = 0
        self._timer: asyncio.TimerHandle | None = None
        self._writing: asyncio.Future[int] | None = None
        self._due = False
        """The pending events' time came while a write was under way: write on its end."""
        self._calls: set[asyncio.Future[None]] = set()
        self._open: set[Recording] = set()
        """Recordings begun and not ended."""

    def begin(
        self, table_name: str, started: float, players: Sequence[str], rules: Rules
    ) -> Recording:
        """A match starts: its row is written (status running) before any of its events."""
        recording = Recording(self, table_name, started, tuple(players), rules)
        if self.store is not None:
            self._open.add(recording)
            self._call(recording, _begin)
        return recording

    def add(self, recording: Recording, events: Sequence[Event]) -> None:
        if self.store is None or recording.ended or not events:
            return
        self._pending.append((recording, recording.seq, time.time(), list(events)))
        recording.seq += len(events)
        self._count += len(events)
        if self._count >= self.batch:
            self._write()
        elif self._timer is None and self._writing is None:
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._write)

    def end(self, recording: Recording, events: Sequence[Event], status: str) -> None:
        if self.store is None or recording.ended:
            return
        recording.ended = True
        self._open.discard(recording)
        # Its events still waiting need no writing: the full record replaces them. Those
        # being written now are written first (the store's thread keeps the order).
        self._pending = [p for p in self._pending if p[0] is not recording]
        self._count = sum(len(p[3]) for p in self._pending)
        kept = status != "aborted" or self.keep_aborted
        log_copy = list(events) if kept else []  # no events: finish drops the row

        def finish(store: MatchDatabase, rec: Recording) -> None:
            if rec.id is None:  # its row could not be written: write it now
                if not log_copy:
                    return
                rec.id = store.begin(rec.table_name, rec.started, rec.players, rec.rules)
            store.finish(rec.id, log_copy, status)
            if log_copy:
                log.info("saved match %d (%s)", rec.id, status)

        self._call(recording, finish)

    async def flush(self) -> None:
        """Wait until every event handed in so far is committed."""
        while self._pending or self._writing is not None:
            if self._writing is None:
                self._write()
            if self._writing is not None:
                await asyncio.wait({self._writing})

    async def close(self) -> None:
        """Write what is waiting, and wait for every write (the server is stopping).

        A match that is still open now (its task was cancelled before it began to
        play) is settled as aborted with what was stored of it."""
        await self.flush()
        for recording in list(self._open):
            recording.ended = True
            self._call(recording, _settle if self.keep_aborted else _drop)
        self._open.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._calls:
            await asyncio.wait(set(self._calls))

    # -- handing batches to the store's thread ----------------------------------------

    def _write(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._writing is not None:
            self._due = True
            return
        if not self._pending or self.store is None:
            return
        taken, self._pending, self._count = self._pending, [], 0
        self._due = False

        def append(store: MatchDatabase) -> int:
            # ids are read here, on the thread that set them
            batches: list[Batch] = [
                (rec.id, seq, at, events) for rec, seq, at, events in taken if rec.id is not None
            ]
            return store.append(batches)

        self._writing = asyncio.ensure_future(self.store.run(append))
        self._writing.add_done_callback(self._written)

    def _written(self, future: asyncio.Future[int]) -> None:
        self._writing = None
        if future.cancelled():
            return
        error = future.exception()
        if error is not None:
            log.error("could not store a match's events: %s", error)
        else:
            self.written += future.result()
        if not self._pending:
            return
        if self._due or self._count >= self.batch:
            self._write()
        elif self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.interval, self._write)

    def _call(self, recording: Recording, call: _StoreCall) -> None:
        assert self.store is not None
        future = asyncio.ensure_future(self.store.run(lambda store: call(store, recording)))
        self._calls.add(future)

        def done(f: asyncio.Future[None]) -> None:
            self._calls.discard(f)
            if not f.cancelled() and f.exception() is not None:
                log.error("could not save a match: %s", f.exception())

        future.add_done_callback(done)


def _settle(store: MatchDatabase, recording: Recording) -> None:
    if recording.id is not None:
        store.settle(recording.id, "aborted")


def _drop(store: MatchDatabase, recording: Recording) -> None:
    if recording.id is not None:
        store.finish(recording.id, [], "aborted")


def _begin(store: MatchDatabase, recording: Recording) -> None:
    recording.id = store.begin(
        recording.table_name, recording.started, recording.players, recording.rules
    )
