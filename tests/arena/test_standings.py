"""A rating shown with its interval: never outside it."""

from __future__ import annotations

from leastscore.arena.standings import Row, around, spread


def row(rating: float, low: float | None, high: float | None) -> Row:
    return Row("ann", 1, rating, low, high, matches=10, faults=0)


def test_an_interval_from_an_earlier_bootstrap_is_shown_around_the_rating_of_now() -> None:
    """Intervals are bootstrapped at most every few seconds, ratings fitted after every
    table: the leaderboard once showed a rating of 323 with the interval 246 to 320."""
    then = row(300.0, 250.0, 320.0)
    now = around(row(323.0, None, None), spread(then))
    assert (now.low, now.high) == (273.0, 343.0)
    assert now.low <= now.rating <= now.high


def test_percentiles_that_miss_the_rating_are_stretched_to_it() -> None:
    assert spread(row(100.0, 110.0, 150.0)) == (0.0, 50.0)
    assert spread(row(100.0, 40.0, 90.0)) == (60.0, 0.0)
    assert spread(row(100.0, None, None)) is None
    shown = around(row(7.0, 1.0, 9.0), None)
    assert shown.low is None and shown.high is None
