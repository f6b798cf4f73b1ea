"""Standings: intervals, shared wins, head to head, and independence from arrival order."""

from __future__ import annotations

import random

import msgspec
import pytest
from leastscore.tournament.pure.results import MatchResult, SeatResult, aborted
from leastscore.tournament.pure.stats import Tally, wilson


def result(fixture: int, *places: tuple[str, int], **kw: object) -> MatchResult:
    seats = tuple(
        SeatResult(
            bot=bot,
            place=place,
            score=10 * place,
            rounds=2,
            points=7 * place,
            declared=1,
            held=place == 1,
        )
        for bot, place in places
    )
    return MatchResult(fixture=fixture, status="played", seats=seats, end="winner", **kw)


def test_wilson_interval():
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 and high == pytest.approx(0.2775, abs=1e-4)
    low, high = wilson(5, 10)
    assert (low, high) == (pytest.approx(0.2366, abs=1e-4), pytest.approx(0.7634, abs=1e-4))
    low, high = wilson(10, 10)
    assert low == pytest.approx(0.7225, abs=1e-4) and high == 1.0


def test_counts_rates_and_a_shared_first_place():
    tally = Tally(["a", "b", "c"], 3)
    tally.add(result(0, ("a", 1), ("b", 2), ("c", 3)))
    tally.add(result(1, ("b", 1), ("c", 1), ("a", 3)))  # b and c share first: half a win each
    tally.add(aborted(2, "its worker process died"))
    assert tally.complete and tally.played == 2 and tally.aborted == 1
    rows = {s.bot: s for s in tally.standings()}
    assert rows["a"].wins == 1 and rows["b"].wins == 0.5 and rows["c"].wins == 0.5
    assert sum(s.wins for s in rows.values()) == tally.played
    assert rows["a"].matches == 2 and rows["a"].win_rate == 0.5
    assert rows["a"].mean_place == 2.0
    assert rows["a"].mean_round_score == pytest.approx((7 + 21) / 4)
    assert rows["a"].declarations == 2 and rows["a"].declaration_rate == 0.5
    assert [s.rank for s in tally.standings()] == [1, 2, 3]
    h = tally.head_to_head("b", "c")
    assert (h.matches, h.ahead, h.level, h.behind) == (2, 1, 1, 0) and h.score == 0.75
    assert tally.head_to_head("c", "b").behind == 1


def test_the_order_results_arrive_in_does_not_matter():
    rng = random.Random(1)
    names = ["a", "b", "c", "d"]
    results = []
    for i in range(60):
        order = rng.sample(names, 3)
        places = [1, 2, 2] if i % 7 == 0 else [1, 2, 3]
        results.append(result(i, *zip(order, places, strict=True)))
    encode = msgspec.json.encode

    def standings(ordered: list[MatchResult]) -> bytes:
        tally = Tally(names, len(ordered))
        for r in ordered:
            assert tally.add(r)
        assert not tally.add(ordered[0])  # counted once only
        return encode([tally.standings(), tally.crosstable(), tally.history])

    in_order = standings(results)
    for _ in range(3):
        shuffled = results[:]
        rng.shuffle(shuffled)
        assert standings(shuffled) == in_order


def test_the_chart_waits_for_earlier_fixtures_and_the_ratings_do_not():
    tally = Tally(["a", "b"], 3)
    tally.add(result(1, ("a", 1), ("b", 2)))
    assert tally.rating("a").elo > 0 > tally.rating("b").elo  # fitted on what is in
    assert tally.history == [(0, (0.0, 0.0))]  # fixture 0 is not in yet
    tally.add(result(0, ("a", 1), ("b", 2)))
    assert tally.history[-1][0] == 2 and tally.history[-1][1][0] > 0
    before = tally.rating("a")
    tally.finish()  # nothing waits: no change
    assert tally.rating("a") == before
    stopped = Tally(["a", "b"], 5)
    stopped.add(result(3, ("b", 1), ("a", 2)))
    stopped.finish()  # a stopped run still charts what it has
    assert stopped.history[-1][1][1] > stopped.history[-1][1][0]


def balanced_round_robin(strength: dict[str, float], deals: int, seed: int) -> list[MatchResult]:
    """Every three of the entrants meet in ``deals`` deals of three rotations each, the
    places drawn with each entrant's ``strength`` (a Plackett-Luce draw)."""
    import itertools

    rng = random.Random(seed)
    results: list[MatchResult] = []
    for group in itertools.combinations(sorted(strength), 3):
        for _ in range(deals * 3):
            left, order = list(group), []
            while left:
                pick = rng.choices(left, [strength[b] for b in left])[0]
                left.remove(pick)
                order.append(pick)
            results.append(result(len(results), *((b, i + 1) for i, b in enumerate(order))))
    return results


def test_shuffling_the_order_of_play_leaves_the_standings_unchanged():
    """The same results played in another order: the same standings, ratings and
    intervals to the last digit (a rating updated match by match would differ)."""
    names = ["a", "b", "c", "d", "e"]
    results = balanced_round_robin(dict(zip(names, (1, 1.2, 1.5, 2, 3), strict=True)), 8, seed=4)
    encode = msgspec.json.encode

    def rated(ordered: list[MatchResult]) -> bytes:
        # each result renumbered: the order of play itself is another
        tally = Tally(names, len(ordered), unit_of=lambda f: (f // 3, 0))
        for i, r in enumerate(ordered):
            tally.add(msgspec.structs.replace(r, fixture=i))
        return encode(tally.standings())

    first = rated(results)
    rng = random.Random(9)
    for _ in range(3):
        deals = [results[i : i + 3] for i in range(0, len(results), 3)]
        rng.shuffle(deals)
        assert rated([r for deal in deals for r in deal]) == first


def test_in_a_balanced_round_robin_the_order_follows_mean_place():
    """The contest's shape (eight entrants, three of them close: greedy had the most
    wins and the best mean place, yet was ranked seventh by a rating updated in schedule
    order): ranked by the fit, the order is the order of mean place."""
    strength = {"random": 0.3, "hostile": 0.5, "yaniv": 1.0, "pybot": 1.1, "jsbot": 1.1}
    strength |= {"greedy": 1.3, "counter": 1.8, "expert": 2.2}
    results = balanced_round_robin(strength, 2, seed=11)
    tally = Tally(list(strength), len(results), unit_of=lambda f: (f // 3, 0))
    for r in results:
        tally.add(r)
    rows = tally.standings()
    places = [s.mean_place for s in rows]
    assert places == sorted(places), [(s.bot, s.mean_place, s.rating.elo) for s in rows]
    for s in rows:
        low, high = s.rating.elo_ci
        assert low <= s.rating.elo <= high
