"""The arena's book: authors, submissions and every table played, in SQLite.

One file, ``DIR/arena.sqlite``, written in WAL mode with every change committed at
once, so that a killed arena loses nothing but the tables being played; ``open``
puts those back (a table in play is forgotten and played again later; a build in
progress is built again). Tokens are kept only as their SHA-256: a token is 32
random bytes, so a hash of it is as safe to keep as a password hash is slow.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import msgspec

from leastscore.about import private_file

SCHEMA = """
CREATE TABLE IF NOT EXISTS authors (
    name TEXT PRIMARY KEY,
    token_hash TEXT UNIQUE NOT NULL,
    joined REAL NOT NULL,
    disqualified TEXT
);
CREATE TABLE IF NOT EXISTS submissions (
    id INTEGER PRIMARY KEY,
    author TEXT NOT NULL REFERENCES authors(name),
    version INTEGER NOT NULL,
    state TEXT NOT NULL,          -- receiving, waiting, building, accepted, rejected
    submitted REAL NOT NULL,
    log TEXT NOT NULL DEFAULT '',
    run TEXT,
    UNIQUE (author, version)
);
CREATE TABLE IF NOT EXISTS playing (
    author TEXT PRIMARY KEY REFERENCES authors(name),
    submission INTEGER NOT NULL REFERENCES submissions(id)
);
CREATE TABLE IF NOT EXISTS tables_played (
    id INTEGER PRIMARY KEY,
    seed INTEGER NOT NULL,
    entrants TEXT NOT NULL,       -- JSON: the submissions at the table
    state TEXT NOT NULL,          -- playing, done
    started REAL NOT NULL,
    finished REAL,
    worker TEXT                   -- the cluster's worker that played it (NULL: here)
);
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES tables_played(id),
    seats TEXT NOT NULL,          -- JSON: submission ids in seat order
    result TEXT NOT NULL          -- JSON: tournament.pure.results.MatchResult
);
CREATE TABLE IF NOT EXISTS stderr (
    table_id INTEGER NOT NULL REFERENCES tables_played(id),
    author TEXT NOT NULL,
    path TEXT NOT NULL,           -- the program's standard error file
    start INTEGER NOT NULL,       -- the table's part of it: bytes start to end
    end INTEGER NOT NULL,
    PRIMARY KEY (table_id, author)
);
CREATE INDEX IF NOT EXISTS stderr_by_author ON stderr (author, table_id);
CREATE INDEX IF NOT EXISTS matches_by_table ON matches (table_id);
CREATE INDEX IF NOT EXISTS tables_in_play ON tables_played (id) WHERE state = 'playing';
CREATE TABLE IF NOT EXISTS settings (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS placings (  -- each seat of each match, for an entrant's pages
    match_id INTEGER NOT NULL REFERENCES matches(id),
    seat INTEGER NOT NULL,
    submission INTEGER NOT NULL,
    place INTEGER,                -- NULL: the match was aborted
    score INTEGER,
    PRIMARY KEY (match_id, seat)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS placings_by_submission ON placings (submission, match_id);
CREATE TABLE IF NOT EXISTS ratings (
    submission INTEGER NOT NULL REFERENCES submissions(id),
    at REAL NOT NULL,             -- when the leaderboard was fitted (seconds since 1970)
    rating REAL NOT NULL,
    low REAL,                     -- its 95 % interval then (NULL: none yet)
    high REAL,
    matches INTEGER NOT NULL,
    PRIMARY KEY (submission, at)
) WITHOUT ROWID;
"""


FAULTS = ("timeouts", "illegal", "crashes")
"""What a seat's result counts as its faults on the leaderboard."""


SUBMISSION = "id, author, version, state, submitted, log, run"
"""A submission's columns, in ``Submission``'s order."""


HISTORY_EVERY = 60.0
"""Seconds a version's rating history waits between two points: the leaderboard is
fitted with intervals every few seconds, and a chart needs far fewer."""
HISTORY_POINTS = 240
"""The most points a version's history keeps: one more, and every second point but the
first and the newest is dropped, so that a weeks-long contest keeps a version's whole
life in a bounded history, its older stretches more thinly than its recent one."""
RESULTS = ("all", "won", "lost")
"""The results an entrant's matches are filtered by: ``won`` is placed first (a first
place shared counts), ``lost`` any other place; an aborted match is only in ``all``."""


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


@dataclass(frozen=True)
class Submission:
    """One version of an author's bot, as the book keeps it."""

    id: int
    author: str
    version: int
    state: str
    submitted: float
    log: str
    run: str | None


@dataclass(frozen=True)
class PlayedMatch:
    """A finished match: its table, its seats (submission ids) and places by seat."""

    id: int
    table_id: int
    seats: tuple[int, ...]
    places: tuple[int, ...]
    """By seat; empty for an aborted match."""
    faults: tuple[int, ...]
    """By seat: timeouts, illegal moves and crashes."""
    result: bytes


@dataclass(frozen=True)
class RatingPoint:
    """A version's rating and its interval at one fit of the leaderboard."""

    at: float
    submission: int
    version: int
    rating: float
    low: float | None
    high: float | None
    matches: int


@dataclass(frozen=True)
class EntrantMatch:
    """One of an entrant's finished matches, as its page lists it: its place (None for
    an aborted match), the seats, its faults there and who else sat at the table."""

    match: int
    table: int
    place: int | None
    of: int
    faults: int
    opponents: tuple[str, ...]


@dataclass(frozen=True)
class Meeting:
    """An entrant against one opponent, over every match they played together: how
    often it finished ahead, behind or level, and its mean score minus theirs (a
    lower score is the better one; None when the results keep no scores)."""

    opponent: str
    matches: int
    ahead: int
    behind: int
    tied: int
    score_difference: float | None


class Book:
    """The arena's one store of record. Why SQLite: one file the organiser can copy,
    query and export, transactions that a kill -9 cannot tear, and no server to run."""

    def __init__(self, path: Path) -> None:
        private_file(path)  # every hand is in it; SQLite gives its -wal and -shm the same mode
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")  # a killed process loses nothing in WAL
        self.db.execute("PRAGMA foreign_keys=ON")
        had = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master")}
        self.db.executescript(SCHEMA)
        if "placings" not in had:  # a book from before: its matches' seats placed once
            with self.transaction():
                self.place_matches()
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(tables_played)")}
        if "worker" not in columns:  # a book from before tables were played on clusters
            self.db.execute("ALTER TABLE tables_played ADD COLUMN worker TEXT")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """What is written inside, written whole or not at all. Why not ``with self.db``:
        in autocommit mode (``isolation_level=None``) it begins nothing, and each
        statement was its own transaction (a table's end, one commit per row)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @classmethod
    def open(cls, path: Path) -> Book:
        """The book, with what a kill interrupted put back: tables in play forgotten
        (they are played again), submissions being built built again."""
        book = cls(path)
        book.recover()
        return book

    def recover(self) -> None:
        """Put back what a kill interrupted. The tables in play are found by an index of
        their own (``tables_in_play``), not by reading every table ever played."""
        with self.transaction():
            self._forget("SELECT id FROM tables_played WHERE state = 'playing'")
            self.db.execute("UPDATE submissions SET state = 'waiting' WHERE state = 'building'")
            self.db.execute(
                "UPDATE submissions SET state = 'rejected', log = 'rejected: the upload was cut "
                "short (the arena stopped); send it again\n' WHERE state = 'receiving'"
            )

    def _forget(self, tables: str, values: tuple[object, ...] = ()) -> None:
        self.db.execute(
            "DELETE FROM placings WHERE match_id IN "
            f"(SELECT id FROM matches WHERE table_id IN ({tables}))",
            values,
        )
        for child in ("matches", "stderr"):
            self.db.execute(f"DELETE FROM {child} WHERE table_id IN ({tables})", values)
        self.db.execute(f"DELETE FROM tables_played WHERE id IN ({tables})", values)

    def forget_table(self, table_id: int) -> None:
        """A table that could not be played: as if it had never begun."""
        with self.transaction():
            self._forget("SELECT ?", (table_id,))

    def close(self) -> None:
        self.db.close()

    # -- authors ----------------------------------------------------------------------

    def invite(self, name: str) -> str:
        """A new author's secret token (shown once; the book keeps its hash)."""
        token = secrets.token_urlsafe(32)
        try:
            self.db.execute(
                "INSERT INTO authors (name, token_hash, joined) VALUES (?, ?, ?)",
                (name, token_hash(token), time.time()),
            )
        except sqlite3.IntegrityError:
            raise ValueError(f"{name} is already an author") from None
        return token

    def author_of(self, token: str) -> str | None:
        row = self.db.execute(
            "SELECT name FROM authors WHERE token_hash = ? AND disqualified IS NULL",
            (token_hash(token),),
        ).fetchone()
        return None if row is None else str(row[0])

    def authors(self) -> list[tuple[str, str | None]]:
        """Every author and why they were disqualified (None: they play)."""
        return list(self.db.execute("SELECT name, disqualified FROM authors ORDER BY name"))

    def disqualify(self, name: str, why: str) -> None:
        with self.transaction():
            found = self.db.execute(
                "UPDATE authors SET disqualified = ? WHERE name = ?", (why, name)
            ).rowcount
            self.db.execute("DELETE FROM playing WHERE author = ?", (name,))
        if not found:
            raise ValueError(f"no author {name}")

    # -- submissions ------------------------------------------------------------------

    def submit(self, author: str, state: str = "waiting") -> Submission:
        """A new version of ``author``'s bot, waiting to be built (``receiving``: its
        files are still being unpacked, and nothing builds it until ``received``)."""
        with self.transaction():
            (last,) = self.db.execute(
                "SELECT COALESCE(MAX(version), 0) FROM submissions WHERE author = ?", (author,)
            ).fetchone()
            cursor = self.db.execute(
                "INSERT INTO submissions (author, version, state, submitted) VALUES (?, ?, ?, ?)",
                (author, last + 1, state, time.time()),
            )
        assert cursor.lastrowid is not None
        return self.submission(cursor.lastrowid)

    def submission(self, id: int) -> Submission:
        row = self.db.execute(
            f"SELECT {SUBMISSION} FROM submissions WHERE id = ?", (id,)
        ).fetchone()
        if row is None:
            raise KeyError(id)
        return Submission(*row)

    def submissions(self, author: str | None = None, state: str | None = None) -> list[Submission]:
        """Every version (of ``author``, in ``state``), oldest first. The conditions are
        left out rather than made always true: ``? IS NULL OR author = ?`` would read
        every version's row, logs and all, where the author's index finds theirs."""
        where = [f"{column} = ?" for column, value in (("author", author), ("state", state))
                 if value is not None]  # fmt: skip
        rows = self.db.execute(
            f"SELECT {SUBMISSION} FROM submissions WHERE {' AND '.join(where) or 'TRUE'} "
            "ORDER BY id",
            tuple(value for value in (author, state) if value is not None),
        )
        return [Submission(*row) for row in rows]

    def authors_of(self, after: int = 0) -> dict[int, str]:
        """The author of every version after the ``after``-th (ids only: no logs read)."""
        rows = self.db.execute("SELECT id, author FROM submissions WHERE id > ?", (after,))
        return dict(rows.fetchall())

    def received(self, id: int) -> None:
        """Its files are in place: it waits for its build."""
        self.db.execute("UPDATE submissions SET state = 'waiting' WHERE id = ?", (id,))

    def start_building(self, id: int) -> None:
        self.db.execute("UPDATE submissions SET state = 'building' WHERE id = ?", (id,))

    def judged(self, id: int, accepted: bool, log: str, run: str | None) -> None:
        """The build and check are over: an accepted version plays from now on."""
        state = "accepted" if accepted else "rejected"
        with self.transaction():
            self.db.execute(
                "UPDATE submissions SET state = ?, log = ?, run = ? WHERE id = ?",
                (state, log, run, id),
            )
            if accepted:
                self.db.execute(
                    "INSERT INTO playing (author, submission) SELECT author, id FROM "
                    "submissions WHERE id = ? AND author IN "
                    "(SELECT name FROM authors WHERE disqualified IS NULL) "
                    "ON CONFLICT (author) DO UPDATE SET submission = excluded.submission",
                    (id,),
                )

    def roll_back(self, author: str, version: int) -> None:
        """Play an earlier accepted version of ``author``'s bot again."""
        row = self.db.execute(
            "SELECT id FROM submissions WHERE author = ? AND version = ? AND state = 'accepted'",
            (author, version),
        ).fetchone()
        if row is None:
            raise ValueError(f"{author} has no accepted version {version}")
        self.db.execute(
            "INSERT INTO playing (author, submission) VALUES (?, ?) "
            "ON CONFLICT (author) DO UPDATE SET submission = excluded.submission",
            (author, row[0]),
        )

    def playing(self) -> dict[str, Submission]:
        """Each author's version that plays now (one query, not one for each author)."""
        rows = self.db.execute(
            f"SELECT {', '.join('s.' + c for c in SUBMISSION.split(', '))} FROM playing p "
            "JOIN submissions s ON s.id = p.submission ORDER BY p.author"
        )
        return {sub.author: sub for sub in (Submission(*row) for row in rows)}

    # -- tables -----------------------------------------------------------------------

    def begin_table(self, seed: int, entrants: list[int]) -> int:
        cursor = self.db.execute(
            "INSERT INTO tables_played (seed, entrants, state, started) "
            "VALUES (?, ?, 'playing', ?)",
            (seed, msgspec.json.encode(entrants).decode(), time.time()),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def end_table(
        self,
        table_id: int,
        matches: list[tuple[tuple[int, ...], bytes]],
        stderr: dict[str, tuple[str, int, int]] | None = None,
        worker: str | None = None,
    ) -> None:
        """A table's matches (and where each author's standard error for it lies, and
        the cluster's worker that played it), written with the table's end in one
        transaction."""
        with self.transaction():
            for author, (path, start, end) in (stderr or {}).items():
                self.db.execute(
                    "INSERT INTO stderr (table_id, author, path, start, end) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (table_id, author, path, start, end),
                )
            (last,) = self.db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()
            for seats, result in matches:
                self.db.execute(
                    "INSERT INTO matches (table_id, seats, result) VALUES (?, ?, ?)",
                    (table_id, msgspec.json.encode(seats).decode(), result.decode()),
                )
            self.place_matches(last)
            self.db.execute(
                "UPDATE tables_played SET state = 'done', finished = ?, worker = ? WHERE id = ?",
                (time.time(), worker, table_id),
            )

    def place_matches(self, after: int = 0) -> None:
        """Each seat of every match after the ``after``-th into ``placings`` (its
        submission, place and score, from the match's result), as a table's end does.
        Why a table of its own: an entrant's page pairs its seats with its opponents',
        and reading them out of every result's JSON took seconds in a large book."""
        self.db.execute(
            "INSERT INTO placings (match_id, seat, submission, place, score) "
            "SELECT m.id, s.key, s.value, "
            "json_extract(m.result, '$.seats[' || s.key || '].place'), "
            "json_extract(m.result, '$.seats[' || s.key || '].score') "
            "FROM matches m, json_each(m.seats) s WHERE m.id > ?",
            (after,),
        )

    def played(self, where: str = "TRUE", values: tuple[object, ...] = ()) -> list[PlayedMatch]:
        """Every finished match (those ``where`` holds for), in the order they were written."""
        out = []
        rows = self.db.execute(
            "SELECT m.id, m.table_id, m.seats, m.result FROM matches m JOIN tables_played t "
            f"ON t.id = m.table_id WHERE t.state = 'done' AND ({where}) ORDER BY m.id",
            values,
        )
        for id, table_id, seats, result in rows:
            decoded = msgspec.json.decode(result)
            by_seat = decoded.get("seats", ())
            places = tuple(int(s["place"]) for s in by_seat)
            faults = tuple(sum(int(s.get(k, 0)) for k in FAULTS) for s in by_seat)
            seated = tuple(msgspec.json.decode(seats))
            out.append(PlayedMatch(id, table_id, seated, places, faults, result.encode()))
        return out

    def played_by(self, author: str, tables: int = 200) -> list[PlayedMatch]:
        """The matches of ``author``'s last ``tables`` tables."""
        return self.played(
            "m.table_id IN (SELECT table_id FROM stderr WHERE author = ? "
            "ORDER BY table_id DESC LIMIT ?)",
            (author, tables),
        )

    def stderr(self, table_id: int, author: str) -> tuple[str, int, int] | None:
        """Where ``author``'s standard error at a table lies (file, start, end), if they
        played there."""
        row = self.db.execute(
            "SELECT path, start, end FROM stderr WHERE table_id = ? AND author = ?",
            (table_id, author),
        ).fetchone()
        return None if row is None else (str(row[0]), int(row[1]), int(row[2]))

    def match(self, id: int) -> PlayedMatch | None:
        """One finished match, or None."""
        found = self.played("m.id = ?", (id,))
        return found[0] if found else None

    # -- an entrant's matches -----------------------------------------------------------

    def matches_of(
        self, author: str, opponent: str | None = None, result: str = "all", limit: int = 20
    ) -> list[EntrantMatch]:
        """``author``'s last ``limit`` finished matches, newest first: those against
        ``opponent`` (in the same match), of that ``result`` (``RESULTS``). One query
        over ``placings``, the filters and the limit in it."""
        if result not in RESULTS:
            raise ValueError(f"a result is one of {', '.join(RESULTS)}, not {result!r}")
        where = ["me.submission IN (SELECT id FROM submissions WHERE author = :me)"]
        if opponent is not None:
            where.append(
                "me.match_id IN (SELECT p.match_id FROM placings p JOIN submissions s "
                "ON s.id = p.submission WHERE s.author = :them)"
            )
        if result != "all":
            where.append("me.place = 1" if result == "won" else "me.place > 1")
        rows = self.db.execute(
            "SELECT m.id, m.table_id, m.result, x.seat, x.place, (SELECT group_concat("
            "o.author, char(31)) FROM placings it JOIN submissions o ON o.id = it.submission "
            "WHERE it.match_id = x.match_id AND it.seat != x.seat) FROM (SELECT me.match_id, "
            f"me.seat, me.place FROM placings me WHERE {' AND '.join(where)} "
            "ORDER BY me.match_id DESC LIMIT :limit) x JOIN matches m ON m.id = x.match_id "
            "ORDER BY x.match_id DESC",
            {"me": author, "them": opponent, "limit": limit},
        )
        return [self._entrant_match(*row) for row in rows]

    @staticmethod
    def _entrant_match(
        match: int, table: int, result: str, seat: int, place: int | None, others: str | None
    ) -> EntrantMatch:
        seats = msgspec.json.decode(result).get("seats", [])
        mine = seats[seat] if seat < len(seats) else {}
        return EntrantMatch(
            match=match,
            table=table,
            place=place,
            of=len(seats),
            faults=sum(int(mine.get(k, 0)) for k in FAULTS),
            opponents=tuple(others.split("\x1f")) if others else (),
        )

    def head_to_head(self, author: str) -> list[Meeting]:
        """``author`` against each opponent it met, most matches together first: one
        query, each of its seats in ``placings`` paired with every other seat of the
        same match (aborted matches left out), counted by the other's version first
        (a quarter faster than looking up each pair's author) and then by its author."""
        rows = self.db.execute(
            "SELECT o.author, SUM(n), SUM(ahead), SUM(behind), SUM(level), "
            "1.0 * SUM(difference) / SUM(scored) FROM (SELECT it.submission AS them, "
            "COUNT(*) AS n, SUM(me.place < it.place) AS ahead, "
            "SUM(me.place > it.place) AS behind, SUM(me.place = it.place) AS level, "
            "SUM(me.score - it.score) AS difference, COUNT(me.score - it.score) AS scored "
            "FROM placings me JOIN placings it ON it.match_id = me.match_id "
            "AND it.seat != me.seat "
            "WHERE me.submission IN (SELECT id FROM submissions WHERE author = :me) "
            "AND me.place IS NOT NULL AND it.place IS NOT NULL GROUP BY it.submission) "
            "JOIN submissions o ON o.id = them WHERE o.author != :me "
            "GROUP BY o.author ORDER BY SUM(n) DESC, o.author",
            {"me": author},
        )
        return [Meeting(*row) for row in rows]

    # -- ratings over time --------------------------------------------------------------

    def note_ratings(
        self,
        at: float,
        points: Sequence[tuple[int, float, float | None, float | None, int]],
        every: float = HISTORY_EVERY,
        keep: int = HISTORY_POINTS,
    ) -> int:
        """Each ``(submission, rating, low, high, matches)`` fitted at ``at`` added to its
        version's history, unless its last point is less than ``every`` seconds old; a
        history grown past ``keep`` points loses every second one (not its first nor its
        newest). The points added."""
        added = 0
        with self.transaction():
            for submission, rating, low, high, matches in points:
                (last,) = self.db.execute(
                    "SELECT MAX(at) FROM ratings WHERE submission = ?", (submission,)
                ).fetchone()
                if last is not None and at - last < every:
                    continue
                self.db.execute(
                    "INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?)",
                    (submission, at, rating, low, high, matches),
                )
                added += 1
                self._thin(submission, keep)
        return added

    def _thin(self, submission: int, keep: int) -> None:
        (held,) = self.db.execute(
            "SELECT COUNT(*) FROM ratings WHERE submission = ?", (submission,)
        ).fetchone()
        if held <= keep:
            return
        self.db.execute(
            "DELETE FROM ratings WHERE submission = ? AND at IN (SELECT at FROM (SELECT at, "
            "ROW_NUMBER() OVER (ORDER BY at) AS k FROM ratings WHERE submission = ?) "
            "WHERE k % 2 = 0 AND k < ?)",
            (submission, submission, held),
        )

    def rating_history(self, author: str) -> list[RatingPoint]:
        """Every point of every version of ``author``'s, oldest first."""
        rows = self.db.execute(
            "SELECT r.at, r.submission, s.version, r.rating, r.low, r.high, r.matches "
            "FROM submissions s JOIN ratings r ON r.submission = s.id WHERE s.author = ? "
            "ORDER BY r.at, s.version",
            (author,),
        )
        return [RatingPoint(*row) for row in rows]

    # -- settings ---------------------------------------------------------------------

    def setting(self, key: str, default: str = "") -> str:
        row = self.db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return default if row is None else str(row[0])

    def set(self, key: str, value: str) -> None:
        self.db.execute(
            "INSERT INTO settings (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, value),
        )
