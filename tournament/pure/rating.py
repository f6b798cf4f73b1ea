"""Ratings fitted on all the results at once, so that they do not depend on the order
of play.

A rating updated match by match (Elo, openskill) depends on the order the matches
were played in: the same results in another order give other standings, and in a
contest the order is the schedule's accident. Here every match is broken into the
pairs at its table (``a`` finished ahead of ``b``: a win for ``a`` over ``b``; level:
half a win each), the pairs of all matches are added up, and a Bradley-Terry model
is fitted to the sums by maximum likelihood (``choix``), with one virtual draw
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


def fit(n: int, pairs: Mapping[tuple[int, int], int]) -> list[float]:
    """The Elo ratings of ``n`` entrants from their pairs, centred on 0."""
    if n < 2:
        return [0.0] * n
    return _fit(_matrix(n, pairs))


def intervals(
    n: int, units: Sequence[Mapping[tuple[int, int], int]], draws: int = DRAWS
) -> list[tuple[float, float]] | None:
    """95 % bootstrap intervals of each rating: ``units`` (each a deal's pairs, in a
    fixed order) resampled with replacement ``draws`` times, refitted each time; None
    with fewer than two units (nothing to resample)."""
    import numpy as np

    if n < 2 or len(units) < 2:
        return None
    stack = np.stack([_matrix(n, unit) for unit in units])
    random = np.random.default_rng(BOOTSTRAP_SEED)
    picks = (random.integers(0, len(units), len(units)) for _ in range(draws))
    table = np.array([_fit(stack[pick].sum(axis=0)) for pick in picks])
    low, high = np.percentile(table, [2.5, 97.5], axis=0)
    return [(float(a), float(b)) for a, b in zip(low, high, strict=True)]


def _matrix(n: int, pairs: Mapping[tuple[int, int], int]) -> np.ndarray:
    import numpy as np

    matrix = np.zeros((n, n))
    for (a, b), half_wins in pairs.items():
        matrix[a, b] = half_wins / 2
    return matrix


def _fit(matrix: np.ndarray) -> list[float]:
    import choix
    import numpy as np

    with_prior = matrix + PRIOR * (1 - np.eye(len(matrix)))
    strengths = choix.ilsr_pairwise_dense(with_prior, max_iter=1000, tol=1e-10)
    strengths = strengths - strengths.mean()
    return [float(s) * ELO for s in strengths]
