"""What an entrant's page is made of, read from a hand-built book: the history of each
version's rating (and its bound), its matches filtered by opponent and result, and its
head-to-head record against each opponent met."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import msgspec
import pytest
from leastscore.arena import service, standings
from leastscore.arena.book import Book
from leastscore.arena.config import ArenaConfig
from leastscore.arena.service import Arena
from leastscore.tournament.pure.rating import Pairs, fit, intervals

from ..support.arena import playing


def test_a_version_s_history_keeps_one_point_a_period(tmp_path: Path) -> None:
    book = playing(tmp_path, "ann", "bo")
    assert book.note_ratings(1000.0, [(1, 10.0, 5.0, 15.0, 4), (2, -10.0, -15.0, -5.0, 4)]) == 2
    assert book.note_ratings(1030.0, [(1, 11.0, 6.0, 16.0, 8)], every=60) == 0  # too soon
    assert book.note_ratings(1060.0, [(1, 12.0, 8.0, 16.0, 12)], every=60) == 1
    history = book.rating_history("ann")
    assert [(p.at, p.version, p.rating, p.low, p.high, p.matches) for p in history] == [
        (1000.0, 1, 10.0, 5.0, 15.0, 4),
        (1060.0, 1, 12.0, 8.0, 16.0, 12),
    ]
    assert [p.rating for p in book.rating_history("bo")] == [-10.0]
    assert book.rating_history("nobody") == []


def test_a_history_past_its_bound_is_thinned_keeping_its_ends(tmp_path: Path) -> None:
    """A weeks-long contest: a version's history never holds more than ``keep`` points,
    and still reaches from its first fit to its newest."""
    book = playing(tmp_path, "ann")
    for minute in range(1000):
        book.note_ratings(60.0 * minute, [(1, float(minute), None, None, minute + 1)], keep=50)
        assert len(book.rating_history("ann")) <= 50
    at = [p.at for p in book.rating_history("ann")]
    assert at[0] == 0.0 and at[-1] == 60.0 * 999
    assert at == sorted(at) and len(at) > 25


def test_a_second_version_has_a_history_of_its_own(tmp_path: Path) -> None:
    book = playing(tmp_path, "ann")
    book.note_ratings(0.0, [(1, 1.0, 0.0, 2.0, 3)])
    book.judged(book.submit("ann").id, True, "ok", "./bot")
    book.note_ratings(10.0, [(2, 5.0, 4.0, 6.0, 3)])  # v2's first: v1's clock is not its
    assert [(p.version, p.rating) for p in book.rating_history("ann")] == [(1, 1.0), (2, 5.0)]


def seat(place: int, bot: str, score: int = 0, timeouts: int = 0) -> dict[str, object]:
    return {"place": place, "bot": bot, "score": score, "timeouts": timeouts}


def table(book: Book, seated: list[tuple[int, str]], matches: list[list[dict[str, object]]]) -> int:
    """A finished table of ``seated`` (submission, author), one match for each list of
    seats (in seat order, seated as given), as the arena writes one."""
    ids = [s for s, _ in seated]
    table_id = book.begin_table(0, ids)
    stderr = {author: ("stderr", 0, 0) for _, author in seated}
    played = [(tuple(ids), msgspec.json.encode({"fixture": 0, "seats": m})) for m in matches]
    book.end_table(table_id, played, stderr)
    return table_id


def two_playing(tmp_path: Path, firsts: str) -> Arena:
    """An arena where ann and bo played a table a letter of ``firsts``, the winner's."""
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    for name in ("ann", "bo"):
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    for first in firsts:
        ann, bo = (1, 2) if first == "a" else (2, 1)
        table(arena.book, [(1, "ann"), (2, "bo")], [[seat(ann, "ann"), seat(bo, "bo")]])
    return arena


async def test_the_arena_notes_each_bootstrap_in_the_history(tmp_path: Path) -> None:
    arena = two_playing(tmp_path, "aaba")
    assert [r.low for r in arena.board()] == [None, None]  # nothing bootstrapped yet
    await arena.bootstrap()
    rows = {r.author: r for r in arena.board()}
    (point,) = arena.book.rating_history("ann")
    assert (point.rating, point.low, point.high) == (rows["ann"].rating, rows["ann"].low,
                                                     rows["ann"].high)  # fmt: skip
    assert point.low is not None and point.low <= point.rating <= (point.high or 0)
    assert point.matches == 4


async def test_the_board_is_served_while_the_intervals_are_bootstrapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bootstrap (minutes, with a thousand entrants) works in a thread on a copy of
    the ledger: meanwhile the event loop fits each new table and serves the board."""
    arena = two_playing(tmp_path, "aaba")
    begun, go_on = threading.Event(), threading.Event()

    def held(
        n: int, units: list[Pairs], near: Sequence[float] = ()
    ) -> list[tuple[float, float]] | None:
        begun.set()
        go_on.wait(60)
        return intervals(n, units, near=near)

    monkeypatch.setattr(standings, "intervals", held)
    bootstrap = asyncio.create_task(arena.bootstrap())
    try:
        assert await asyncio.to_thread(begun.wait, 60)
        table(arena.book, [(1, "ann"), (2, "bo")], [[seat(1, "ann"), seat(2, "bo")]])
        arena.poke()
        assert [(r.matches, r.low) for r in arena.board()] == [(5, None), (5, None)]
    finally:
        go_on.set()
    await bootstrap
    ann = next(r for r in arena.board() if r.author == "ann")
    assert ann.matches == 5  # the bootstrap's copy had four
    assert ann.low is not None and ann.low <= ann.rating <= (ann.high or 0)
    (point,) = arena.book.rating_history("ann")
    assert (point.rating, point.matches) == (ann.rating, 5)


async def test_a_bootstrap_that_fails_is_logged_and_the_arena_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A fit that does not settle: the loop logs it and bootstraps again after the next
    table (it does not end, which would end the tables and the pages with it)."""
    arena = two_playing(tmp_path, "aaba")
    tried = [threading.Event(), threading.Event()]

    def failing(
        n: int, units: list[Pairs], near: Sequence[float] = ()
    ) -> list[tuple[float, float]] | None:
        next(e for e in tried if not e.is_set()).set()
        raise ArithmeticError("the ratings did not settle in 1000 steps")

    monkeypatch.setattr(standings, "intervals", failing)
    monkeypatch.setattr(service, "INTERVALS_EVERY", 0.0)
    looping = asyncio.create_task(arena.intervals())
    try:
        assert await asyncio.to_thread(tried[0].wait, 60)
        table(arena.book, [(1, "ann"), (2, "bo")], [[seat(1, "ann"), seat(2, "bo")]])
        arena.poke()  # a new table: the loop bootstraps again, if it still runs
        again = asyncio.ensure_future(asyncio.to_thread(tried[1].wait, 60))
        await asyncio.wait({again, looping}, return_when=asyncio.FIRST_COMPLETED)
        assert not looping.done(), looping.exception()
        assert again.result()
    finally:
        tried[1].set()  # no thread is left waiting
        looping.cancel()
    assert "the intervals could not be bootstrapped" in caplog.text
    assert [(r.matches, r.low) for r in arena.board()] == [(5, None), (5, None)]


def ratings_of(arena: Arena) -> dict[str, float]:
    return {r.author: r.rating for r in arena.board()}


async def until_changed(arena: Arena, ok: Callable[[], bool]) -> None:
    """Wait until ``ok()`` holds, looking again each time the arena says something
    changed (a fit landing pokes it); at most 60 s."""
    async with asyncio.timeout(60):
        while True:
            arena.changed.clear()
            if ok():
                return
            await arena.changed.wait()


async def test_the_board_is_served_while_the_ratings_are_fitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the arena runs, each fit (0.2 s after every table with a thousand entrants)
    is made in a thread, never on the event loop: while one is held there, the board
    counts a new table's matches at once, with the ratings of the fit before, and once
    the fits land it has the ratings of every match."""
    arena = two_playing(tmp_path, "aaba")
    begun, go_on = threading.Event(), threading.Event()
    on_the_loop: list[bool] = []

    def held(n: int, pairs: Pairs, near: Sequence[float] = ()) -> list[float]:
        on_the_loop.append(threading.current_thread() is threading.main_thread())
        begun.set()
        go_on.wait(60)
        return fit(n, pairs, near)

    monkeypatch.setattr(standings, "fit", held)
    fitting = arena.fit_in_background()  # from now on the board leaves the fits to it
    try:
        assert [(r.matches, r.rating) for r in arena.board()] == [(4, 0.0), (4, 0.0)]
        assert await asyncio.to_thread(begun.wait, 60)
        table(arena.book, [(1, "ann"), (2, "bo")], [[seat(1, "ann"), seat(2, "bo")]])
        arena.poke()
        assert [(r.matches, r.rating) for r in arena.board()] == [(5, 0.0), (5, 0.0)]
        go_on.set()
        with monkeypatch.context() as plain:  # the same book read afresh, fitted here
            plain.setattr(standings, "fit", fit)
            fresh = Arena(tmp_path, ArenaConfig(seats=2))
            everything = ratings_of(fresh)
        await until_changed(
            arena, lambda: {r.author: r.rating for r in arena.board()} == everything
        )
    finally:
        go_on.set()
        fitting.cancel()
    assert everything["ann"] > everything["bo"]  # ann was first four times of five
    assert on_the_loop and not any(on_the_loop)


async def test_a_fit_that_fails_is_logged_and_the_next_table_is_fitted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    arena = two_playing(tmp_path, "aaba")
    tries: list[int] = []

    def once_failing(n: int, pairs: Pairs, near: Sequence[float] = ()) -> list[float]:
        tries.append(n)
        if len(tries) == 1:
            raise ArithmeticError("the ratings did not settle in 1000 steps")
        return fit(n, pairs, near)

    monkeypatch.setattr(standings, "fit", once_failing)
    fitting = arena.fit_in_background()
    try:
        arena.board()
        await until_changed(arena, lambda: bool(caplog.text))
        assert "the ratings could not be fitted" in caplog.text and not fitting.done()
        table(arena.book, [(1, "ann"), (2, "bo")], [[seat(1, "ann"), seat(2, "bo")]])
        arena.poke()
        await until_changed(arena, lambda: arena.board()[0].rating != 0.0)
    finally:
        fitting.cancel()
    assert [r.matches for r in arena.board()] == [5, 5] and len(tries) == 2


def three_tables(tmp_path: Path) -> Book:
    """ann (1), bo (2), cy (3), dee (4):

    - table 1, ann and bo: ann first (score 10 to 30), then level (20 and 20);
    - table 2, ann, bo and cy: ann second (bo first), then ann first, cy last both times;
    - table 3, bo and cy, without ann; and one aborted match of ann's against dee.
    """
    book = playing(tmp_path, "ann", "bo", "cy", "dee")
    table(
        book,
        [(1, "ann"), (2, "bo")],
        [[seat(1, "ann", 10), seat(2, "bo", 30)], [seat(1, "ann", 20), seat(1, "bo", 20)]],
    )
    table(
        book,
        [(1, "ann"), (2, "bo"), (3, "cy")],
        [
            [seat(2, "ann", 40, timeouts=1), seat(1, "bo", 20), seat(3, "cy", 90)],
            [seat(1, "ann", 0), seat(2, "bo", 50), seat(3, "cy", 70)],
        ],
    )
    table(book, [(2, "bo"), (3, "cy")], [[seat(1, "bo"), seat(2, "cy")]])
    table(book, [(1, "ann"), (4, "dee")], [[]])  # aborted: no places
    return book  # fmt: skip


def test_an_entrant_s_matches_filtered_by_opponent_and_result(tmp_path: Path) -> None:
    book = three_tables(tmp_path)
    every = book.matches_of("ann")
    assert [m.match for m in every] == [6, 4, 3, 2, 1]  # newest first, not bo against cy
    assert [m.place for m in every] == [None, 1, 2, 1, 1]
    assert every[2].faults == 1 and every[2].of == 3 and every[2].table == 2
    assert set(every[2].opponents) == {"bo", "cy"} and every[0].opponents == ("dee",)
    assert [m.match for m in book.matches_of("ann", result="won")] == [4, 2, 1]
    assert [m.match for m in book.matches_of("ann", result="lost")] == [3]
    assert [m.match for m in book.matches_of("ann", opponent="cy")] == [4, 3]
    assert [m.match for m in book.matches_of("ann", "bo", "won")] == [4, 2, 1]
    assert [m.match for m in book.matches_of("ann", "cy", "lost")] == [3]
    assert [m.match for m in book.matches_of("ann", limit=2)] == [6, 4]
    assert book.matches_of("ann", opponent="nobody") == []
    assert [m.match for m in book.matches_of("cy", result="lost")] == [5, 4, 3]


def test_a_result_filter_is_one_of_three(tmp_path: Path) -> None:
    book = three_tables(tmp_path)
    with pytest.raises(ValueError, match="one of all, won, lost"):
        book.matches_of("ann", result="drawn")


def test_head_to_head_counts_ahead_behind_and_level(tmp_path: Path) -> None:
    book = three_tables(tmp_path)
    ann = {m.opponent: m for m in book.head_to_head("ann")}
    assert list(ann) == ["bo", "cy"]  # most matches together first; dee's was aborted
    bo, cy = ann["bo"], ann["cy"]
    assert (bo.matches, bo.ahead, bo.behind, bo.tied) == (4, 2, 1, 1)
    assert bo.score_difference == (10 - 30 + 0 + 40 - 20 + 0 - 50) / 4
    assert (cy.matches, cy.ahead, cy.behind, cy.tied) == (2, 2, 0, 0)
    assert cy.score_difference == (40 - 90 + 0 - 70) / 2
    cy_side = {m.opponent: m for m in book.head_to_head("cy")}
    assert (cy_side["ann"].ahead, cy_side["ann"].behind) == (0, 2)
    assert (cy_side["bo"].matches, cy_side["bo"].behind) == (3, 3)
    assert book.head_to_head("dee") == []


async def test_the_entrant_api_gives_the_history_filters_and_head_to_head(tmp_path: Path) -> None:
    from aiohttp.test_utils import TestClient, TestServer
    from leastscore.arena.web import make_app

    three_tables(tmp_path).close()
    (tmp_path / "a.sqlite").rename(tmp_path / "arena.sqlite")
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    arena.book.note_ratings(0.0, [(1, 10.0, 0.0, 20.0, 3)])
    async with TestClient(TestServer(make_app(arena), host="127.0.0.1")) as client:
        data = await (await client.get("/api/entrant/ann?opponent=cy&result=won")).json()
        bad = await client.get("/api/entrant/ann?result=drawn")
        page = await (await client.get("/entrant/ann?result=lost")).text()
    assert data["history"][0] == {
        "at": 0.0, "version": 1, "rating": 10.0, "interval": [0.0, 20.0], "matches": 3
    }  # fmt: skip
    assert data["filters"] == {"opponent": "cy", "result": "won"}
    assert [m["match"] for m in data["recent"]] == [4]
    assert data["recent"][0]["place"] == 1 and sorted(data["recent"][0]["opponents"]) == [
        "bo",
        "cy",
    ]
    assert [(m["opponent"], m["matches"], m["ahead"]) for m in data["head_to_head"]] == [
        ("bo", 4, 2),
        ("cy", 2, 2),
    ]
    assert bad.status == 400
    assert '<a href="/replay/3">replay</a>, <a href="/watch/3">board</a>' in page
    assert "/replay/4" not in page  # won: filtered out
    assert "<option selected>lost</option>" in page


def test_a_book_from_before_placings_has_its_matches_placed_when_opened(tmp_path: Path) -> None:
    book = three_tables(tmp_path)
    before = book.head_to_head("ann"), book.matches_of("ann")
    book.db.execute("DROP TABLE placings")
    book.close()
    again = Book.open(tmp_path / "a.sqlite")
    assert (again.head_to_head("ann"), again.matches_of("ann")) == before
    assert before[0] and before[1]


def test_a_table_forgotten_leaves_no_placing(tmp_path: Path) -> None:
    book = three_tables(tmp_path)
    (held,) = book.db.execute("SELECT COUNT(*) FROM placings").fetchone()
    book.forget_table(2)
    (left,) = book.db.execute("SELECT COUNT(*) FROM placings").fetchone()
    assert held - left == 6  # two matches of three seats
    assert [m.opponent for m in book.head_to_head("ann")] == ["bo"]
