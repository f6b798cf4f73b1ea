"""What the arena's work costs stays bounded as its book grows: counted, never timed.

Work is counted in SQLite's virtual-machine steps (a progress handler called every
``STEP`` instructions), in statements and commits (the trace callback), in rows
handed out at once, in fits, and in bytes (tracemalloc, which numpy reports to).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest
from leastscore.arena.book import Book
from leastscore.arena.config import ArenaConfig
from leastscore.arena.service import Arena

STEP = 100
"""SQLite instructions between two calls of the progress handler."""


def result(places: list[int], timeouts: int = 0) -> bytes:
    seats = [{"place": p, "timeouts": timeouts, "cpu_seconds": 0.01} for p in places]
    return msgspec.json.encode({"fixture": 0, "seats": seats})


def arena_with(tmp_path: Path, names: list[str]) -> Arena:
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    for name in names:
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    return arena


def play(book: Book, tables: int, seats: tuple[int, int] = (1, 2), seed: int = 0) -> None:
    """``tables`` tables of two, one deal from both seats, through the book's own calls,
    with each author's note of their standard error, as the arena ends a table."""
    rng = random.Random(seed)
    names = dict(book.db.execute("SELECT id, author FROM submissions"))
    a, b = seats
    stderr = {names[s]: (f"programs/0/{names[s]}.main.stderr", 0, 0) for s in seats}
    for _ in range(tables):
        t = book.begin_table(rng.getrandbits(32), list(seats))
        first = rng.choice([[1, 2], [2, 1], [1, 1]])
        book.end_table(t, [((a, b), result(first)), ((b, a), result(first[::-1]))], stderr)


@contextmanager
def counting(book: Book) -> Iterator[dict[str, Any]]:
    """SQLite's steps (in ``STEP``s) and the statements run inside the block."""
    counts: dict[str, Any] = {"steps": 0, "statements": []}

    def tick() -> int:
        counts["steps"] += 1
        return 0

    book.db.set_progress_handler(tick, STEP)
    book.db.set_trace_callback(counts["statements"].append)
    try:
        yield counts
    finally:
        book.db.set_progress_handler(None, STEP)
        book.db.set_trace_callback(None)


def test_a_table_s_end_is_one_transaction(tmp_path: Path) -> None:
    """``with db`` begins nothing on a connection in autocommit mode: each of a table's
    rows was committed on its own, and a failure half-way left half a table."""
    arena = arena_with(tmp_path, ["ann", "bo"])
    book = arena.book
    t = book.begin_table(1, [1, 2])
    stderr = {"ann": ("a", 0, 0), "bo": ("b", 0, 0)}
    with counting(book) as counts:
        book.end_table(t, [((1, 2), result([1, 2])), ((2, 1), result([2, 1]))], stderr)
    assert [s for s in counts["statements"] if s in ("BEGIN IMMEDIATE", "COMMIT")] == [
        "BEGIN IMMEDIATE",
        "COMMIT",
    ]
    broken = book.begin_table(2, [1, 2])
    with pytest.raises(AttributeError):  # the second result is no bytes: the end fails
        book.end_table(broken, [((1, 2), result([1, 2])), ((2, 1), None)], stderr)  # type: ignore[list-item]
    assert book.db.execute(
        "SELECT COUNT(*) FROM stderr WHERE table_id = ?", (broken,)
    ).fetchone() == (0,)
    assert book.db.execute(
        "SELECT COUNT(*) FROM matches WHERE table_id = ?", (broken,)
    ).fetchone() == (0,)


def test_opening_the_book_reads_only_the_tables_in_play(tmp_path: Path) -> None:
    arena = arena_with(tmp_path, ["ann", "bo"])
    play(arena.book, 20)
    with counting(arena.book) as few:
        arena.book.recover()
    play(arena.book, 2000)
    with counting(arena.book) as many:
        arena.book.recover()
    assert many["steps"] <= few["steps"] + 2


def test_who_plays_is_one_query(tmp_path: Path) -> None:
    arena = arena_with(tmp_path, [f"e{i}" for i in range(30)])
    with counting(arena.book) as counts:
        assert len(arena.book.playing()) == 30
    assert len(counts["statements"]) == 1


def test_an_author_s_versions_are_found_by_the_author_s_index(tmp_path: Path) -> None:
    """``? IS NULL OR author = ?`` read every version's row, logs and all."""
    arena = arena_with(tmp_path, ["ann"])
    costs = []
    for others in (30, 300):
        for i in range(others):
            arena.book.invite(f"x{others}-{i}")
            arena.book.judged(arena.book.submit(f"x{others}-{i}").id, True, "ok", "./bot")
        with counting(arena.book) as counts:
            assert [s.author for s in arena.book.submissions(author="ann")] == ["ann"]
        costs.append(counts["steps"])
    assert costs[1] <= costs[0] + 1


def test_arena_serve_bounds_the_engine_s_caches_for_weeks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before it plays, ``arena serve`` bounds the hand cache and holds every legal group,
    so that its memory does not creep for days as rare groups are met."""
    from click.testing import CliRunner
    from leastscore.arena import cli
    from leastscore.game import groups
    from leastscore.seats import loop

    from ..support.arena import contest

    seen: list[tuple[int, int]] = []

    def running(main: Any) -> None:  # what serve would run, with the bounds it set
        main.close()
        seen.append((groups.HAND_CACHE_SIZE, groups.groups_held()))

    before = groups.HAND_CACHE_SIZE
    monkeypatch.setattr(loop, "run", running)
    try:
        folder = contest(tmp_path, "seats = 2\n")
        ran = CliRunner().invoke(cli.arena, ["serve", str(folder), "--sandbox", "limits"])
        assert ran.exit_code == 0, ran.output
    finally:
        groups.set_hand_cache_size(before)
    assert seen == [(cli.ARENA_HAND_CACHE, 16_259)]
