"""The matchmaker seats the entrant it knows least about with others close in rating."""

from __future__ import annotations

import random

from leastscore.arena.matchmaker import Standing, next_table


def test_too_few_entrants_make_no_table() -> None:
    assert next_table([Standing(1), Standing(2)], 3, random.Random(1)) == ()


def test_a_new_version_is_seated_first_and_meets_its_neighbours() -> None:
    board = [Standing(i, rating=100.0 * i, width=50.0, matches=40) for i in range(10)]
    board.append(Standing(99, rating=420.0, width=float("inf"), matches=0))
    for seed in range(20):
        table = next_table(board, 3, random.Random(seed))
        assert table[0] == 99
        assert set(table[1:]) <= {3, 4, 5, 6}  # the four nearest to 420


def test_the_widest_interval_goes_first_among_equals() -> None:
    board = [Standing(1, width=10.0, matches=5), Standing(2, width=90.0, matches=5)]
    board += [Standing(3, width=20.0, matches=5)]
    assert next_table(board, 2, random.Random(0))[0] == 2


def test_the_same_seed_gives_the_same_tables() -> None:
    board = [Standing(i, rating=float(i), width=1.0, matches=3) for i in range(12)]
    a = [next_table(board, 4, random.Random(7)) for _ in range(3)]
    b = [next_table(board, 4, random.Random(7)) for _ in range(3)]
    assert a == b
    assert len({t for seed in range(30) for t in [next_table(board, 4, random.Random(seed))]}) > 3
