"""Who plays whom, in which seats, with which cards.

A tournament is a list of fixtures, each computed from its index, so every
process (and every resumed run) agrees on fixture ``i`` without sharing a list.

Round-robin: every group of ``seats`` entrants (every K-combination) plays
every deal in every seat rotation. All the tables of one deal get the same
cards (duplicate format), so luck of the deal cancels out: in a group, each
entrant holds each seat's cards exactly once per deal. Gauntlet: the same with
one entrant in every group.

Order: deal by deal, rotation by rotation, and within those the groups in a
scattered order (a stride through the list), so the matches finished at any
moment are spread evenly over the entrants.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import overload

from leastscore.game import MAX_SEATS, MIN_SEATS

from .deals import deal_seed, derive

MAX_FIXTURES = 10_000_000
GOLDEN = (math.sqrt(5) - 1) / 2


@dataclass(frozen=True, slots=True)
class Fixture:
    index: int
    """Position in the schedule; results are counted in this order."""
    deal: int
    rotation: int
    group: int
    """Which group of entrants (an index into ``Schedule.groups``)."""
    seats: tuple[str, ...]
    """Entrant names in seat order (seat 0 deals the first round)."""
    deal_seed: int
    bot_seeds: tuple[int, ...]
    """Seeds for the in-process bots, by seat."""


class Schedule(Sequence[Fixture]):
    """The fixtures of a tournament, each computed from its index (``schedule[i]``),
    so that every worker and every resumed run agrees on fixture ``i`` without a list
    being stored or sent."""

    def __init__(
        self,
        entrants: Sequence[str],
        seats: int,
        deals: int,
        seed: int,
        gauntlet: str | None = None,
        groups: Sequence[Sequence[str]] | None = None,
    ) -> None:
        """``groups``: the tables to play, named (a Swiss round pairs them by standing);
        without it, every combination (or every one with the ``gauntlet`` entrant)."""
        names = list(entrants)
        if len(set(names)) != len(names):
            raise ValueError("entrant names must be unique")
        if not MIN_SEATS <= seats <= MAX_SEATS:
            raise ValueError(f"seats must be {MIN_SEATS} to {MAX_SEATS}, not {seats}")
        if len(names) < seats:
            raise ValueError(f"{seats} seats need at least {seats} entrants, not {len(names)}")
        if deals < 1:
            raise ValueError(f"deals must be at least 1, not {deals}")
        if gauntlet is not None and gauntlet not in names:
            raise ValueError(f"the gauntlet entrant {gauntlet!r} is not an entrant")
        n = len(names)
        if groups is not None:
            count = len(groups)
        elif gauntlet is None:
            count = math.comb(n, seats)
        else:
            count = math.comb(n - 1, seats - 1)
        if count * seats * deals > MAX_FIXTURES:
            raise ValueError(
                f"{count * seats * deals:,} matches is over the limit of {MAX_FIXTURES:,}: "
                "use fewer entrants, more seats or fewer deals"
            )
        if groups is not None:
            index = {name: i for i, name in enumerate(names)}
            try:
                self.groups: list[tuple[int, ...]] = [tuple(index[x] for x in g) for g in groups]
            except KeyError as e:
                raise ValueError(f"a table names {e.args[0]!r}, who is not an entrant") from None
            if not self.groups or any(len(g) != seats or len(set(g)) != seats for g in self.groups):
                raise ValueError(f"every table must seat {seats} different entrants")
        elif gauntlet is None:
            self.groups = list(combinations(range(n), seats))
        else:
            hero = names.index(gauntlet)
            others = [i for i in range(n) if i != hero]
            self.groups = [(hero, *rest) for rest in combinations(others, seats - 1)]
        self.entrants = tuple(names)
        self.seats = seats
        self.deals = deals
        self.seed = seed
        self.gauntlet = gauntlet
        self._stride = _stride(len(self.groups))

    def __len__(self) -> int:
        return self.deals * self.seats * len(self.groups)

    @overload
    def __getitem__(self, index: int) -> Fixture: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Fixture]: ...

    def __getitem__(self, index: int | slice) -> Fixture | Sequence[Fixture]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(f"fixture {index} is not in a schedule of {len(self)}")
        count = len(self.groups)
        block, position = divmod(index, count)
        deal, rotation = divmod(block, self.seats)
        group = (position * self._stride + block) % count
        base = self.groups[group]
        if deal % 2:
            # Odd deals seat the group the other way round, so that who plays
            # after whom is not the same in every deal.
            base = base[::-1]
        k = self.seats
        seats = tuple(self.entrants[base[(j + rotation) % k]] for j in range(k))
        return Fixture(
            index=index,
            deal=deal,
            rotation=rotation,
            group=group,
            seats=seats,
            deal_seed=deal_seed(self.seed, deal),
            bot_seeds=tuple(derive(self.seed, "bot", index, j) for j in range(k)),
        )

    def __iter__(self) -> Iterator[Fixture]:
        for i in range(len(self)):
            yield self[i]


def _stride(count: int) -> int:
    """A step through ``count`` groups that visits each once and jumps far each time."""
    step = max(1, round(count * GOLDEN))
    while math.gcd(step, count) != 1:
        step += 1
    return step
