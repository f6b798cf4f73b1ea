"""Finished matches in SQLite: full event logs and standings, off the event loop.

``Store`` is plain synchronous sqlite3 (used by the ``history``/``replay``
commands); ``AsyncStore`` runs it on one dedicated thread for the server.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from leastscore.game import Event, MatchEnded, MatchStarted, write_log
from leastscore.game.log import decode_event

SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    table_name TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL NOT NULL,
    status TEXT NOT NULL,          -- finished | aborted
    players TEXT NOT NULL,         -- JSON list of names, by seat
    rules TEXT NOT NULL,           -- JSON object of house rules that differ
    standings TEXT NOT NULL,       -- JSON list of {seat, place, score}; [] when aborted
    rounds INTEGER NOT NULL,
    log TEXT NOT NULL              -- JSON Lines, one full event a line
);
"""


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


class Store:
    def __init__(self, path: str) -> None:
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)

    def save(self, table_name: str, started: float, events: Sequence[Event], status: str) -> int:
        head = events[0]
        assert isinstance(head, MatchStarted)
        end = events[-1]
        standings = (
            [{"seat": s.seat, "place": s.place, "score": s.score} for s in end.standings]
            if isinstance(end, MatchEnded)
            else []
        )
        import io

        buf = io.BytesIO()
        write_log(events, buf)
        rounds = sum(1 for e in events if type(e).__name__ == "RoundStarted")
        with self._db:
            cur = self._db.execute(
                "INSERT INTO matches (table_name, started, ended, status, players, rules,"
                " standings, rounds, log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    table_name,
                    started,
                    time.time(),
                    status,
                    json.dumps(list(head.seats)),
                    json.dumps(head.rules.changes()),
                    json.dumps(standings),
                    rounds,
                    buf.getvalue().decode(),
                ),
            )
        return int(cur.lastrowid or 0)

    def matches(self, limit: int = 50) -> list[MatchRecord]:
        rows = self._db.execute(
            "SELECT id, table_name, started, ended, status, players, rules, standings, rounds"
            " FROM matches ORDER BY id DESC LIMIT ?",
            (limit,),
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
        row = self._db.execute("SELECT log FROM matches WHERE id = ?", (match_id,)).fetchone()
        if row is None:
            return None
        return [decode_event(line) for line in row[0].splitlines() if line.strip()]

    def close(self) -> None:
        self._db.close()


class AsyncStore:
    """A ``Store`` on its own thread, so that disk writes never stall a table."""

    def __init__(self, path: str) -> None:
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="store")
        self._store = self._pool.submit(Store, path).result()

    async def save(
        self, table_name: str, started: float, events: Sequence[Event], status: str
    ) -> int:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool, self._store.save, table_name, started, list(events), status
        )

    def save_now(
        self, table_name: str, started: float, events: Sequence[Event], status: str
    ) -> None:
        """Queue a save without waiting (used while shutting down); ``close`` waits for it."""
        self._pool.submit(self._store.save, table_name, started, list(events), status)

    def close(self) -> None:
        self._pool.submit(self._store.close)
        self._pool.shutdown(wait=True)
