"""The Bradley-Terry fit behind every rating: the maximum-likelihood estimate, checked
by the equations that define it, and loaded without what it does not need."""

from __future__ import annotations

import math
import os
import subprocess
import sys

import numpy as np
import pytest
from leastscore.tournament.pure.rating import ELO, PRIOR, bradley_terry, fit

RECORDED = [(-68.721538, 253.267865), (-152.025571, 124.705216), (-224.429167, 68.775016)]
"""Three entrants' intervals from six deals, as choix's fit and a matrix a unit gave them."""


def unexplained(wins: np.ndarray, strengths: np.ndarray) -> np.ndarray:
    """How far each entrant is from the likelihood's top: its wins, less the wins the
    strengths expect of it (all zero at the maximum-likelihood estimate)."""
    p = np.exp(strengths)
    games = wins + wins.T
    expected = games * p[:, np.newaxis] / (p[:, np.newaxis] + p[np.newaxis, :])
    return wins.sum(axis=1) - expected.sum(axis=1)


@pytest.mark.parametrize("n", [2, 3, 4, 9, 40])
def test_the_fit_is_the_likeliest_strengths(n: int) -> None:
    random = np.random.default_rng(n)
    for _ in range(10):
        wins = random.integers(0, 60, (n, n)) * random.random((n, n)) ** 3
        np.fill_diagonal(wins, 0)
        wins = wins + PRIOR * (1 - np.eye(n))  # as ``fit`` adds it
        strengths = bradley_terry(wins)
        assert abs(strengths.mean()) < 1e-12
        assert np.abs(unexplained(wins, strengths)).max() < 1e-6 * wins.sum()


def test_two_entrants_have_the_log_odds_of_their_wins() -> None:
    """Ahead 7 times and behind 3 (14 and 6 half-wins): 7.5 to 3.5 with the virtual
    draw, so the gap is log(7.5 / 3.5) in strength, 400 log10 of it in Elo."""
    low, high = fit(2, {(0, 1): 6, (1, 0): 14})
    assert high - low == pytest.approx(ELO * math.log(7.5 / 3.5), abs=1e-9)
    assert low + high == pytest.approx(0.0, abs=1e-9)


def test_a_fit_started_from_an_earlier_one_ends_at_the_same_ratings() -> None:
    """The arena fits again after each table from the last fit (``near``), and a
    newcomer starts at 0: the same ratings as a fit from nothing."""
    random = np.random.default_rng(7)
    pairs = {(a, b): int(random.integers(0, 30)) for a in range(12) for b in range(12) if a != b}
    earlier = fit(10, {(a, b): w for (a, b), w in pairs.items() if a < 10 and b < 10})
    assert fit(12, pairs, near=earlier) == pytest.approx(fit(12, pairs), abs=1e-6)


def test_a_disconnected_field_is_refused_not_guessed() -> None:
    """Without the prior, one entrant that never lost has no finite strength."""
    with pytest.raises(ArithmeticError, match="never beaten"):
        bradley_terry(np.array([[0.0, 3.0], [0.0, 0.0]]), max_iter=50)


def test_a_fit_loads_neither_scipy_nor_threads_for_numpy() -> None:
    """``scipy.stats`` (through a library's fit) cost a second of CPU per tournament;
    and numpy's linear algebra runs on one thread, with the environment put back."""
    script = (
        "import os, sys\n"
        "from leastscore.tournament.pure.rating import THREADS, fit, intervals\n"
        "fit(3, {(0, 1): 2, (1, 2): 2}); intervals(2, [{(0, 1): 2}, {(1, 0): 2}])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scipy', 'choix')))\n"
        "print([name for name in THREADS if name in os.environ])\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.splitlines() == ["[]", "[]"]


def test_the_bootstrap_holds_the_pairs_not_a_matrix_a_unit() -> None:
    """1,000 units of 300 entrants: as matrices they took 720 MB; as pairs a few MB."""
    import random
    import tracemalloc

    from leastscore.tournament.pure.rating import add_match, intervals

    rng = random.Random(3)
    units = []
    for _ in range(1000):
        pairs: dict[tuple[int, int], int] = {}
        add_match(pairs, list(zip(rng.sample(range(300), 4), (1, 2, 3, 4), strict=True)))
        units.append(pairs)
    tracemalloc.start()
    try:
        spans = intervals(300, units, draws=3)  # each draw is a fit: the peak is per draw
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert spans is not None and all(low <= high for low, high in spans)
    assert peak < 50e6, f"{peak / 1e6:.0f} MB"


def test_a_resample_gives_the_intervals_it_gave_before() -> None:
    """The same units give the same intervals, to a millionth of a point: those the
    bootstrap gave when it added up a matrix a unit (recorded once)."""
    from leastscore.tournament.pure.rating import add_match, intervals

    units = []
    for places in ((1, 2, 3), (3, 1, 2), (2, 3, 1), (1, 3, 2), (1, 2, 3), (2, 1, 3)):
        pairs: dict[tuple[int, int], int] = {}
        add_match(pairs, list(zip((0, 1, 2), places, strict=True)))
        units.append(pairs)
    spans = intervals(3, units)
    assert spans is not None
    assert [x for span in spans for x in span] == pytest.approx(
        [x for span in RECORDED for x in span], abs=1e-6
    )
