"""Matches in SQLite: a row from the first deal, its events as they happen, the full
record at the end.

``MatchDatabase`` is plain synchronous sqlite3 (used by the ``history``/``replay`` commands,
and by the server on a thread of its own: see ``AsyncStore`` and ``journal``).

A match's row is written when it starts (status ``running``); its events go to the
``events`` table in batches while it is played; when it ends, the row gets its
status (``finished`` or ``aborted``), standings and full log, and its events rows
go. A row still ``running`` when a server starts belonged to a server that died
without a word: ``recover`` marks it ``interrupted`` and gives it the log of its
stored events.
"""

from __future__ import annotations

import asyncio
import io
import json
import sqlite3
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from leastscore.game import Event, MatchEnded, RoundStarted, Rules, write_log
from leastscore.game.log import decode_event, encode_event

from leastscore.about import private_file

VERSION = 2
"""The schema this code writes (``pragma user_version``). Files written before the
schema had a number (user_version 0) hold version 1: the ``matches`` table alone."""

MATCHES = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    table_name TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL NOT NULL,           -- while running: started; interrupted: its last event
    status TEXT NOT NULL,          -- running | finished | aborted | interrupted
    players TEXT NOT NULL,         -- JSON list of names, by seat
    rules TEXT NOT NULL,           -- JSON object of house rules that differ
    standings TEXT NOT NULL,       -- JSON list of {seat, place, score}; [] unless finished
    rounds INTEGER NOT NULL,       -- rounds dealt; 0 while running
    log TEXT NOT NULL              -- JSON Lines, one full event a line; '' while running
)
"""

EVENTS = """
CREATE TABLE IF NOT EXISTS events (  -- the events of running matches, as they happen
    match INTEGER NOT NULL REFERENCES matches (id),
    seq INTEGER NOT NULL,          -- 0, 1, 2, ... within the match
    at REAL NOT NULL,              -- when it was handed to the store
    event TEXT NOT NULL,           -- one full event, JSON
    PRIMARY KEY (match, seq)
) WITHOUT ROWID
"""

MIGRATIONS: dict[int, tuple[str, ...]] = {1: (MATCHES,), 2: (EVENTS,)}
"""What brings a file up to each version from the one before."""

Batch = tuple[int, int, float, Sequence[Event]]
"""Events of one match for ``MatchDatabase.append``: (match id, seq of the first, time, events)."""


class StoreError(Exception):
    """The file cannot be used as a match database (it is newer than this program)."""


@dataclass(frozen=True)
class MatchRecord:
    id: int
    table_name: str
    started: float
    ended: float
    status: str
    players: list[str]
    rules: dict[str, Any]
    standings: list[dict[str, int]]
    rounds: int


class MatchDatabase:
    """The server's record of every match, in one SQLite file: a row per match (who,
    when, how it ended, its standings and full log), and, while a match is played,
    its events as they happen, so that a crash leaves it interrupted, not lost. Used
    from one thread at a time (``AsyncStore`` gives it one of its own)."""

    def __init__(self, path: str) -> None:
        private_file(Path(path))  # SQLite gives its -wal and -shm files the same mode
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        # In WAL mode a committed transaction survives the process being killed (it is
        # in the operating system's hands); NORMAL only risks the last ones on power loss.
        self._db.execute("PRAGMA synchronous=NORMAL")
        try:
            self._migrate()
        except BaseException:
            self._db.close()
            raise

    def _migrate(self) -> None:
        with self._transaction():
            version = int(self._db.execute("PRAGMA user_version").fetchone()[0])
            if version > VERSION:
                raise StoreError(
                    f"{self.path} was written by a newer leastscore (schema {version};"
                    f" this one knows up to {VERSION})"
                )
            for step in range(version + 1, VERSION + 1):
                for statement in MIGRATIONS[step]:
                    self._db.execute(statement)
            if version < VERSION:
                self._db.execute(f"PRAGMA user_version = {VERSION}")

    def _transaction(self, kind: str = "IMMEDIATE") -> _Transaction:
        return _Transaction(self._db, kind)

    # -- writing a match as it is played -------------------------------------------

    def begin(self, table_name: str, started: float, players: Sequence[str], rules: Rules) -> int:
        """A row for a match that has just started; its id."""
        with self._transaction():
            cur = self._db.execute(
                "INSERT INTO matches (table_name, started, ended, status, players, rules,"
                " standings, rounds, log) VALUES (?, ?, ?, 'running', ?, ?, '[]', 0, '')",
                (
                    table_name,
                    started,
                    started,
                    json.dumps(list(players)),
                    json.dumps(rules.changes()),
                ),
            )
        return int(cur.lastrowid or 0)

    def append(self, batches: Sequence[Batch]) -> int:
        """MatchDatabase events of running matches, all in one transaction; how many."""
        rows = [
            (match_id, seq + i, at, encode_event(event).decode())
            for match_id, seq, at, events in batches
            for i, event in enumerate(events)
        ]
        with self._transaction():
            self._db.executemany(
                "INSERT INTO events (match, seq, at, event) VALUES (?, ?, ?, ?)", rows
            )
        return len(rows)

    def finish(
        self, match_id: int, events: Sequence[Event], status: str, ended: float | None = None
    ) -> None:
        """The match is over (``finished``) or stopped (``aborted``, ``interrupted``): its
        full record replaces the events written on the way. A match that never dealt
        (no events) leaves no row, as nothing of it can be shown or replayed."""
        end = events[-1] if events else None
        standings = (
            [{"seat": s.seat, "place": s.place, "score": s.score} for s in end.standings]
            if isinstance(end, MatchEnded)
            else []
        )
        with self._transaction():
            self._db.execute("DELETE FROM events WHERE match = ?", (match_id,))
            if not events:
                self._db.execute("DELETE FROM matches WHERE id = ?", (match_id,))
                return
            self._db.execute(
                "UPDATE matches SET ended = ?, status = ?, standings = ?, rounds = ?, log = ?"
                " WHERE id = ?",
                (
                    time.time() if ended is None else ended,
                    status,
                    json.dumps(standings),
                    _rounds(events),
                    _log(events),
                    match_id,
                ),
            )

    def settle(self, match_id: int, status: str) -> None:
        """End a match with the events stored so far (``finish`` for a match whose
        own log is out of reach): it ended at its last stored event."""
        with self._transaction("DEFERRED"):
            events = self._journal(match_id)
            last = self._db.execute(
                "SELECT max(at) FROM events WHERE match = ?", (match_id,)
            ).fetchone()[0]
        self.finish(match_id, events, status, last)

    def recover(self) -> list[int]:
        """Settle the matches a dead server left ``running`` as ``interrupted``; their
        ids. Only a server starting calls this."""
        running = self._db.execute("SELECT id FROM matches WHERE status = 'running'")
        ids = [int(r[0]) for r in running.fetchall()]
        for match_id in ids:
            self.settle(match_id, "interrupted")
        return ids

    # -- reading -------------------------------------------------------------------

    def matches(self, limit: int = 50) -> list[MatchRecord]:
        return self._records("ORDER BY id DESC LIMIT ?", limit)

    def match(self, match_id: int) -> MatchRecord | None:
        found = self._records("WHERE id = ?", match_id)
        return found[0] if found else None

    def _records(self, where: str, arg: int) -> list[MatchRecord]:
        rows = self._db.execute(
            "SELECT id, table_name, started, ended, status, players, rules, standings, rounds"
            f" FROM matches {where}",
            (arg,),
        ).fetchall()
        return [
            MatchRecord(
                r[0],
                r[1],
                r[2],
                r[3],
                r[4],
                json.loads(r[5]),
                json.loads(r[6]),
                json.loads(r[7]),
                r[8],
            )
            for r in rows
        ]

    def log(self, match_id: int) -> list[Event] | None:
        """A match's full log; for one being played, its events stored so far."""
        with self._transaction("DEFERRED"):  # one snapshot: the row and its events agree
            row = self._db.execute(
                "SELECT status, log FROM matches WHERE id = ?", (match_id,)
            ).fetchone()
            if row is None:
                return None
            if row[0] == "running":
                return self._journal(match_id)
        return [decode_event(line) for line in row[1].splitlines() if line.strip()]

    def _journal(self, match_id: int) -> list[Event]:
        rows = self._db.execute(
            "SELECT event FROM events WHERE match = ? ORDER BY seq", (match_id,)
        )
        return [decode_event(r[0]) for r in rows]

    def close(self) -> None:
        self._db.close()


class _Transaction:
    """``BEGIN`` ... ``COMMIT`` (or ``ROLLBACK`` on an exception); IMMEDIATE to write."""

    def __init__(self, db: sqlite3.Connection, kind: str) -> None:
        self._db = db
        self._kind = kind

    def __enter__(self) -> None:
        self._db.execute(f"BEGIN {self._kind}")

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        self._db.execute("COMMIT" if kind is None else "ROLLBACK")


def _log(events: Sequence[Event]) -> str:
    buf = io.BytesIO()
    write_log(events, buf)
    return buf.getvalue().decode()


def _rounds(events: Sequence[Event]) -> int:
    return sum(1 for e in events if isinstance(e, RoundStarted))


T = TypeVar("T")


class AsyncStore:
    """A ``MatchDatabase`` on its own thread, so that disk writes never stall a table.

    The thread runs one call at a time, in the order they were made: a match's
    row is written before its events, and its events before its record."""

    def __init__(self, path: str, recover: bool = True) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        try:
            self._store = self._pool.submit(MatchDatabase, path).result()
        except BaseException:
            self._pool.shutdown()
            raise
        self.interrupted = self._pool.submit(self._store.recover).result() if recover else []
        """Matches a server that died left running, now marked interrupted."""

    async def run(self, call: Callable[[MatchDatabase], T]) -> T:
        """``call(store)`` on the store's thread."""
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self._pool, call, self._store)

    def close(self) -> None:
        self._pool.submit(self._store.close)
        self._pool.shutdown(wait=True)
