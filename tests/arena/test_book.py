"""The book keeps authors, versions and tables; a kill loses only the tables in play."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import msgspec
import pytest
from leastscore.arena import standings
from leastscore.arena.book import Book, token_hash
from leastscore.arena.standings import Ledger, leaderboard

from ..support.arena import playing


def result(places: list[int], timeouts: int = 0) -> bytes:
    seats = [{"place": p, "timeouts": timeouts} for p in places]
    return msgspec.json.encode({"seats": seats})


def test_tokens_are_kept_only_hashed(tmp_path: Path) -> None:
    book = Book.open(tmp_path / "a.sqlite")
    token = book.invite("ann")
    assert book.author_of(token) == "ann" and book.author_of(token + "x") is None
    with pytest.raises(ValueError, match="already"):
        book.invite("ann")
    dump = "\n".join(sqlite3.connect(tmp_path / "a.sqlite").iterdump())
    assert token not in dump and token_hash(token) in dump
    book.disqualify("ann", "copied a bot")
    assert book.author_of(token) is None


def test_the_newest_accepted_version_plays_and_may_be_rolled_back(tmp_path: Path) -> None:
    book = Book.open(tmp_path / "a.sqlite")
    book.invite("ann")
    one, two, three = book.submit("ann"), book.submit("ann"), book.submit("ann")
    assert [s.version for s in (one, two, three)] == [1, 2, 3]
    book.judged(one.id, True, "ok", "./bot")
    book.judged(two.id, True, "ok", "./bot")
    book.judged(three.id, False, "the build failed", None)
    assert book.playing()["ann"].version == 2
    book.roll_back("ann", 1)
    assert book.playing()["ann"].version == 1
    with pytest.raises(ValueError, match="no accepted version 3"):
        book.roll_back("ann", 3)


def test_a_kill_loses_only_the_tables_in_play(tmp_path: Path) -> None:
    book = playing(tmp_path, *("ann", "bo"))
    done = book.begin_table(1, [1, 2])
    book.end_table(done, [((1, 2), result([1, 2])), ((2, 1), result([2, 1]))])
    book.begin_table(2, [1, 2])  # in play when the arena is killed
    book.start_building(book.submit("ann").id)
    book.close()
    again = Book.open(tmp_path / "a.sqlite")
    assert [m.table_id for m in again.played()] == [done, done]
    assert again.db.execute("SELECT COUNT(*) FROM tables_played").fetchone() == (1,)
    assert [s.state for s in again.submissions(author="ann")] == ["accepted", "waiting"]


def test_ratings_do_not_depend_on_the_order_tables_finished(tmp_path: Path) -> None:
    book = playing(tmp_path, *("ann", "bo", "cy"))
    tables = [[1, 2, 3], [1, 3, 2], [2, 1, 3], [1, 2, 3], [3, 1, 2]]
    for i, places in enumerate(tables):
        t = book.begin_table(i, [1, 2, 3])
        book.end_table(t, [((1, 2, 3), result(places, timeouts=1 if i == 0 else 0))])
    played = book.played()
    authors = {1: "ann", 2: "bo", 3: "cy"}
    board = leaderboard(played, book.playing(), authors)
    assert [r.author for r in board] == ["ann", "bo", "cy"]
    assert board[0].matches == 5 and board[0].faults == 1 and board[0].low is not None
    again = leaderboard(list(reversed(played)), book.playing(), authors)
    assert [(r.author, round(r.rating, 6)) for r in again] == [
        (r.author, round(r.rating, 6)) for r in board
    ]


def test_a_new_version_starts_fresh_or_inherits(tmp_path: Path) -> None:
    book = playing(tmp_path, *("ann", "bo"))
    for i in range(4):
        t = book.begin_table(i, [1, 2])
        book.end_table(t, [((1, 2), result([1, 2]))])
    book.judged(book.submit("ann").id, True, "ok", "./bot")  # ann v2: no match yet
    authors = {s.id: s.author for s in book.submissions()}
    fresh = {r.author: r for r in leaderboard(book.played(), book.playing(), authors)}
    assert fresh["ann"].version == 2 and fresh["ann"].matches == 0
    inherit = {r.author: r for r in leaderboard(book.played(), book.playing(), authors, "inherit")}
    assert inherit["ann"].matches == 4 and inherit["ann"].rating > inherit["bo"].rating


def test_the_ledger_added_to_table_by_table_agrees_with_a_fresh_count(tmp_path: Path) -> None:
    book = playing(tmp_path, *("ann", "bo", "cy"))
    ledger = Ledger()
    authors = {1: "ann", 2: "bo", 3: "cy"}
    orders = [[1, 2, 3], [2, 1, 3], [1, 3, 2], [3, 2, 1], [1, 2, 3], [2, 3, 1]]
    for i, places in enumerate(orders):
        t = book.begin_table(i, [1, 2, 3])
        book.end_table(
            t, [((1, 2, 3), result(places)), ((2, 3, 1), result(places[1:] + places[:1]))]
        )
        ledger.add(book.played("t.id = ?", (t,)), authors)
    counted = ledger.rows(book.playing(), authors)
    fresh = leaderboard(book.played(), book.playing(), authors)
    assert [(r.author, r.matches, round(r.rating, 6)) for r in counted] == [
        (r.author, r.matches, round(r.rating, 6)) for r in fresh
    ]


def test_a_long_running_arena_bootstraps_a_bounded_number_of_units(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(standings, "UNITS", 4)
    book = playing(tmp_path, *("ann", "bo"))
    for i in range(30):
        t = book.begin_table(i, [1, 2])
        book.end_table(t, [((1, 2), result([1, 2] if i % 3 else [2, 1]))])
    ledger = Ledger()
    ledger.add(book.played(), {1: "ann", 2: "bo"})
    assert len(ledger.units) == 4 and sum(ledger.matches) == 60
    ann, _ = ledger.rows(book.playing(), {1: "ann", 2: "bo"})
    assert ann.author == "ann" and ann.low is not None and ann.low < ann.rating < (ann.high or 0)
