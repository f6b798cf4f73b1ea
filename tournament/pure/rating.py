"""Ratings fitted on all the results at once, so that they do not depend on the order
of play.

A rating updated match by match (Elo, openskill) depends on the order the matches
were played in: the same results in another order give other standings, and in a
contest the order is the schedule's accident. Here every match is broken into the
pairs at its table (``a`` finished ahead of ``b``: a win for ``a`` over ``b``; level:
half a win each), the pairs of all matches are added up, and a Bradley-Terry model
is fitted to the sums by maximum likelihood (``bradley_terry``), with one virtual draw
between every two entrants so that an entrant that never won (or never lost) still
gets a finite rating. Sums do not care about order, so neither does the fit.

In a balanced round-robin (every two entrants meet equally often) the fitted order
is the order of pairwise wins, which is the order of mean place: the standings agree
with the play. The scale is Elo's (400 points: ten to one odds of finishing ahead),
centred on the entrants' mean.

The interval is a bootstrap over the units the matches come in (a deal, all its
rotations: they share cards), with a fixed seed: the same results give the same
interval.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

ELO = 400 / math.log(10)
"""Elo points per unit of the Bradley-Terry log-strength."""
PRIOR = 0.5
"""Virtual wins each way between every two entrants (one virtual draw)."""
DRAWS = 200
"""Bootstrap resamples for the intervals."""
BOOTSTRAP_SEED = 20240
"""The intervals' own seed: fixed, so that the same results give the same intervals."""
THREADS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""What tells numpy's linear algebra how many threads to use, read when it loads."""

Pairs = dict[tuple[int, int], int]
"""Half-wins of entrant ``i`` over entrant ``j``, by ``(i, j)``: whole numbers, so that
adding them up is exact in any order."""


def add_match(pairs: Pairs, places: Sequence[tuple[int, int]]) -> None:
    """Add one match's ``(entrant, place)`` seats to ``pairs``."""
    for a, place_a in places:
        for b, place_b in places:
            if a == b:
                continue
            if place_a < place_b:
                pairs[a, b] = pairs.get((a, b), 0) + 2
            elif place_a == place_b:
                pairs[a, b] = pairs.get((a, b), 0) + 1


def total(parts: Iterable[Mapping[tuple[int, int], int]]) -> Pairs:
    summed: Pairs = {}
    for part in parts:
        for key, count in part.items():
            summed[key] = summed.get(key, 0) + count
    return summed


def fit(n: int, pairs: Mapping[tuple[int, int], int], near: Sequence[float] = ()) -> list[float]:
    """The Elo ratings of ``n`` entrants from their pairs, centred on 0. ``near``: the
    ratings of a fit of fewer results (the first entrants'; any after them start at 0),
    to start from: the same ratings, in fewer steps when the results changed little."""
    if n < 2:
        return [0.0] * n
    wins = _matrix(n, pairs)
    return [float(s) * ELO for s in _likeliest(wins, _start(n, near))]


def intervals(
    n: int,
    units: Sequence[Mapping[tuple[int, int], int]],
    draws: int = DRAWS,
    near: Sequence[float] = (),
) -> list[tuple[float, float]] | None:
    """95 % bootstrap intervals of each rating: ``units`` (each a deal's pairs, in a
    fixed order) resampled with replacement ``draws`` times, refitted each time; None
    with fewer than two units (nothing to resample).

    Why the pairs are kept in one list and not as a matrix a unit: a unit holds the
    few pairs of its tables (12 a four-seat table), and as ``n`` by ``n`` matrices a
    resample added up ``n * n`` numbers a unit (the matrices took 8 GB for 1,000
    entrants and 1,000 units). Each resample weighs each pair by how often its unit
    was drawn, and each refit starts from the ratings of all the results, near its own
    (themselves fitted from ``near``, as ``fit`` takes it: a caller that has just fitted
    them passes its ratings).
    The list is made a unit at a time: numpy holds the interpreter while it reads a
    Python list, and a bootstrap in a thread must not hold up the rest for long."""
    _load_numpy()
    import numpy as np

    if n < 2 or len(units) < 2:
        return None
    cells = [np.array([a * n + b for a, b in unit], dtype=np.intp) for unit in units]
    halves = [np.fromiter(unit.values(), dtype=float, count=len(unit)) for unit in units]
    unit_of = np.repeat(np.arange(len(units)), [len(unit) for unit in units])
    cell, wins_of = np.concatenate(cells), np.concatenate(halves) / 2
    everything = np.bincount(cell, weights=wins_of, minlength=n * n).reshape(n, n)
    start = np.exp(_likeliest(everything, _start(n, near)))
    random = np.random.default_rng(BOOTSTRAP_SEED)
    table = []
    for _ in range(draws):
        drawn = np.bincount(random.integers(0, len(units), len(units)), minlength=len(units))
        wins = np.bincount(cell, weights=drawn[unit_of] * wins_of, minlength=n * n)
        table.append(_likeliest(wins.reshape(n, n), start) * ELO)
    low, high = np.percentile(np.array(table), [2.5, 97.5], axis=0)
    return [(float(a), float(b)) for a, b in zip(low, high, strict=True)]


def _load_numpy() -> None:
    """numpy, loaded (if nothing has yet) with its linear algebra on one thread, and the
    environment then put back as it was, so that no program started later inherits it.
    Why: these fits are small, a tournament's workers each keep to one core, and on a
    busy machine OpenBLAS's own threads cost thirty times the work of a fit of 100
    entrants (29.8 ms against 0.9 ms of CPU)."""
    if "numpy" in sys.modules:
        return
    unset = [name for name in THREADS if name not in os.environ]
    os.environ.update(dict.fromkeys(unset, "1"))
    try:
        import numpy  # noqa: F401
    finally:
        for name in unset:
            del os.environ[name]


def _start(n: int, near: Sequence[float]) -> np.ndarray:
    """Strengths to start a fit of ``n`` from: ``near``'s (Elo), 1 for the rest."""
    import numpy as np

    start = np.ones(n)
    start[: len(near)] = np.exp(np.asarray(near[:n], dtype=float) / ELO)
    return start


def _matrix(n: int, pairs: Mapping[tuple[int, int], int]) -> np.ndarray:
    _load_numpy()  # the first numpy a fit needs
    import numpy as np

    matrix = np.zeros((n, n))
    for (a, b), half_wins in pairs.items():
        matrix[a, b] = half_wins / 2
    return matrix


def _likeliest(wins: np.ndarray, start: np.ndarray | None = None) -> np.ndarray:
    """The log-strengths of ``wins`` with the prior's virtual draw between every two."""
    import numpy as np

    return bradley_terry(wins + PRIOR * (1 - np.eye(len(wins))), start=start)


def bradley_terry(
    wins: np.ndarray, tol: float = 1e-10, max_iter: int = 1000, start: np.ndarray | None = None
) -> np.ndarray:
    """The Bradley-Terry log-strengths, centred on 0, that make ``wins`` (``wins[i, j]``:
    how often ``i`` beat ``j``) likeliest, by iterated Luce spectral ranking (Maystre
    and Grossglauser, 2015): each step's strengths are the stationary distribution of
    a Markov chain that moves from a loser to its winner at the rate of their wins over
    the sum of their strengths, and its fixed point is the maximum-likelihood estimate.
    Why not a library's: choix's is this algorithm, but importing it loads all of
    ``scipy.stats`` (a second of CPU time for every tournament); numpy alone does it.

    The comparisons must join every entrant to every other both ways (the prior's
    virtual draws see to that), or the estimate does not exist. ``start``: strengths
    (not logs) to begin from, all equal by default; a start near the answer saves
    steps and ends at the same estimate."""
    _load_numpy()
    import numpy as np

    n = len(wins)
    weights: np.ndarray = np.ones(n) if start is None else start * (n / start.sum())
    previous: np.ndarray = np.log(weights) - np.log(weights).mean()  # a settled start: one step
    target = np.zeros(n)
    target[-1] = n  # the weights w with w @ chain = 0, summing to n
    for _ in range(max_iter):
        chain = wins.T / (weights[np.newaxis, :] + weights[:, np.newaxis])
        chain -= np.diag(chain.sum(axis=1))
        balance = chain.T.copy()
        balance[-1, :] = 1.0
        weights = np.linalg.solve(balance, target)
        if not np.all(weights > 0):
            raise ArithmeticError("no ratings: some entrant was never beaten, or never won")
        logs = np.log(weights)
        strengths: np.ndarray = logs - logs.mean()
        if np.abs(strengths - previous).sum() <= tol * n:
            return strengths
        previous = strengths
    raise ArithmeticError(f"the ratings did not settle in {max_iter} steps")
