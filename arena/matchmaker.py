"""Which table the arena plays next: chosen to learn the most from it. Pure.

The first seat goes to the entrant the arena knows least about: the fewest matches
(so a new version is placed within its first tables), then the widest interval.
The other seats go to entrants close to it in rating: a table of near equals says
more about their order than one it could have called in advance. They are drawn
from the nearest twice as many as there are seats to fill, so that the same few
do not always meet. A random number generator is handed in: a seeded one gives the
same tables again.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Standing:
    """What the matchmaker knows of one entrant."""

    entrant: int
    rating: float = 0.0
    width: float = float("inf")
    """Its interval's width (infinite until there are enough results to have one)."""
    matches: int = 0


def next_table(standings: Sequence[Standing], seats: int, rng: random.Random) -> tuple[int, ...]:
    """The entrants of the next table (``seats`` of them), or ``()`` when there are too
    few to fill one."""
    if len(standings) < seats:
        return ()
    first = min(standings, key=lambda s: (s.matches, -s.width, rng.random()))
    others = sorted(
        (s for s in standings if s is not first),
        key=lambda s: (abs(s.rating - first.rating), s.matches, rng.random()),
    )
    pool = others[: 2 * (seats - 1)]
    chosen = rng.sample(pool, seats - 1)
    return (first.entrant, *(s.entrant for s in chosen))
