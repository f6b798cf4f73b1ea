"""Standings from results: counts, rates with intervals, ratings, head-to-head.

Results may arrive in any order (several workers, a resumed run). Counts are
kept exactly (whole numbers and fractions), and the ratings are fitted on all of
them at once (``rating``), so the order does not matter: the standings of a
finished tournament are the same however it was run, and the same had its
matches been played in any other order. Only the chart of ratings over the
tournament follows the schedule: its points are fits on the first fixtures.

A win is first place. When k players share first place (possible when a match
ends on points, with ``first_out_ends`` or at ``max_rounds``) each gets 1/k of
a win, so a match always gives out exactly one win.

The interval of a win rate counts deals, not matches, when the tally is told
which deal each fixture belongs to (``unit_of``): the rotations of one deal
share its cards, so they are one unit (see ``per_deal``). Without it, each
match is a unit and the interval is Wilson's.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

import msgspec

from . import rating
from .per_deal import mean_interval
from .results import MatchResult

Z95 = 1.959963984540054
HISTORY_POINTS = 200
"""Rating snapshots kept for the chart of ratings over the tournament."""


def wilson(wins: float, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a proportion: sound at 0 and 1 and for small n."""
    if n <= 0:
        return 0.0, 1.0
    p = wins / n
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denominator
    low = 0.0 if wins <= 0 else max(0.0, centre - half)
    high = 1.0 if wins >= n else min(1.0, centre + half)
    return low, high


class Rating(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    elo: float
    """The Bradley-Terry rating fitted on every result (see ``rating``), on Elo's
    scale, centred on the entrants' mean: what the standings are sorted by."""
    elo_ci: tuple[float, float] | None
    """Its 95 % bootstrap interval over deals (None before there are two)."""


class EntrantStanding(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    rank: int
    bot: str
    matches: int
    wins: float
    win_rate: float
    win_rate_ci: tuple[float, float]
    mean_place: float | None
    mean_round_score: float | None
    declarations: int
    declaration_rate: float | None
    """Declarations that held (the declarer was lowest), of those made."""
    rating: Rating
    timeouts: int
    illegal: int
    crashes: int
    lost_on_time: int
    """Matches it lost on time (its time-control bank ran out); each is a forfeit too."""
    forfeits: int
    failures: dict[str, int] = msgspec.field(default_factory=dict)
    """Its ``crashes`` by how they came about (``start``, ``crash``, ``garbled``,
    ``protocol``, ``limit``, ``gone``)."""
    faults: dict[str, int] = msgspec.field(default_factory=dict)
    """Limits its program went over, by kind (``memory``, ``cpu``, ``processes``, ...)."""
    cpu_seconds: float = 0.0
    """CPU time its program used in the matches counted (0 for in-process bots)."""


class HeadToHead(msgspec.Struct, frozen=True):
    """Matches two entrants played together, and who finished ahead."""

    matches: int
    ahead: int
    level: int
    behind: int

    @property
    def score(self) -> float:
        return (self.ahead + self.level / 2) / self.matches if self.matches else 0.0


@dataclass
class _Record:
    matches: int = 0
    wins: Fraction = field(default_factory=Fraction)
    places: int = 0
    rounds: int = 0
    points: int = 0
    declared: int = 0
    held: int = 0
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    lost_on_time: int = 0
    forfeits: int = 0
    failures: dict[str, int] = field(default_factory=dict)
    faults: dict[str, int] = field(default_factory=dict)
    cpu_seconds: float = 0.0


class Tally:
    """Standings so far; ``add`` every result once, in any order."""

    def __init__(
        self,
        names: Sequence[str],
        scheduled: int,
        unit_of: Callable[[int], tuple[int, int]] | None = None,
    ) -> None:
        """``unit_of``: the unit a fixture counts in for intervals (its deal and group)."""
        self.names = tuple(names)
        self.unit_of = unit_of
        self._units: dict[str, dict[tuple[int, int], list[Fraction]]] = {n: {} for n in names}
        """By entrant and unit: [win shares, matches]."""
        self.scheduled = scheduled
        self.played = 0
        self.aborted = 0
        self.problems: dict[str, list[str]] = {}
        self._records = {name: _Record() for name in names}
        self._pairs: dict[tuple[str, str], list[int]] = {}
        self._index = {name: i for i, name in enumerate(names)}
        self._rated: dict[tuple[int, int] | int, rating.Pairs] = {}
        """Each unit's pairs (see ``rating``): by deal and group, else by fixture."""
        self._ratings: tuple[int, dict[str, Rating]] | None = None
        """(results counted, ratings) as last fitted."""
        self._seen: set[int] = set()
        self._waiting: dict[int, MatchResult] = {}
        self._next = 0
        """The first fixture not yet in the chart's running pairs."""
        self._running: rating.Pairs = {}
        self._step = max(1, math.ceil(scheduled / HISTORY_POINTS))
        self._history: list[tuple[int, rating.Pairs]] = [(0, {})]
        """(fixtures in schedule order, their pairs), every so many fixtures."""

    @property
    def counted(self) -> int:
        return len(self._seen)

    def has(self, fixture: int) -> bool:
        return fixture in self._seen

    @property
    def complete(self) -> bool:
        return self.counted == self.scheduled

    def add(self, result: MatchResult) -> bool:
        """Count a result; False (and nothing changes) when its fixture was counted before."""
        if result.fixture in self._seen:
            return False
        self._seen.add(result.fixture)
        if result.status != "played":
            self.aborted += 1
        else:
            self._count(result)
        self._waiting[result.fixture] = result
        while self._next in self._waiting:
            self._chart(self._waiting.pop(self._next))
            self._next += 1
        return True

    def add_all(self, results: Iterable[MatchResult]) -> None:
        for result in results:
            self.add(result)

    def finish(self) -> None:
        """Chart results still waiting for an earlier fixture that never came (a stopped run)."""
        for index in sorted(self._waiting):
            self._chart(self._waiting.pop(index))
            self._next = index + 1

    def _count(self, result: MatchResult) -> None:
        self.played += 1
        seats = result.seats
        firsts = sum(1 for s in seats if s.place == 1)
        for s in seats:
            r = self._records[s.bot]
            r.matches += 1
            share = Fraction(1, firsts) if s.place == 1 else Fraction(0)
            r.wins += share
            if self.unit_of is not None:
                unit = self._units[s.bot].setdefault(
                    self.unit_of(result.fixture), [Fraction(0), Fraction(0)]
                )
                unit[0] += share
                unit[1] += 1
            r.places += s.place
            r.rounds += s.rounds
            r.points += s.points
            r.declared += s.declared
            r.held += s.held
            r.timeouts += s.timeouts
            r.illegal += s.illegal
            r.crashes += s.crashes
            r.lost_on_time += s.lost_on_time
            r.forfeits += s.forfeit
            for kind, count in s.faults.items():
                r.faults[kind] = r.faults.get(kind, 0) + count
            for kind, count in s.failures.items():
                r.failures[kind] = r.failures.get(kind, 0) + count
            r.cpu_seconds += s.cpu_seconds
        for a in seats:
            for b in seats:
                if a is b:
                    continue
                pair = self._pairs.setdefault((a.bot, b.bot), [0, 0, 0])
                pair[0 if a.place < b.place else 1 if a.place == b.place else 2] += 1
        key = result.fixture if self.unit_of is None else self.unit_of(result.fixture)
        rating.add_match(self._rated.setdefault(key, {}), self._places(result))
        for problem in result.problems:
            bot, _, text = problem.partition(": ")
            kept = self.problems.setdefault(bot if bot in self._records else "", [])
            if len(kept) < 20:
                kept.append(f"match {result.fixture}: {text if bot in self._records else problem}")

    def _places(self, result: MatchResult) -> list[tuple[int, int]]:
        return [(self._index[s.bot], s.place) for s in result.seats]

    def _chart(self, result: MatchResult) -> None:
        if result.status == "played":
            rating.add_match(self._running, self._places(result))
        done = result.fixture + 1
        if done % self._step == 0 or done == self.scheduled:
            self._history.append((done, dict(self._running)))

    # -- reading ------------------------------------------------------------------------

    @property
    def history(self) -> list[tuple[int, tuple[float, ...]]]:
        """(fixtures, each entrant's rating fitted on those first fixtures of the schedule)."""
        n = len(self.names)
        return [(done, tuple(rating.fit(n, pairs))) for done, pairs in self._history]

    def ratings(self) -> dict[str, Rating]:
        """Every entrant's rating and interval, fitted on all results counted so far.

        Fitted again when more results are in; the intervals (200 fits) only when
        there are a tenth more than at their last fit, or all of them, so that a live
        display costs little while the final standings are exact."""
        counted = self.counted
        if self._ratings is not None and self._ratings[0] == counted:
            return self._ratings[1]
        n = len(self.names)
        # in an order of their own, not of play: the bootstrap draws the same units
        units = sorted(self._rated.values(), key=lambda unit: sorted(unit.items()))
        elos = rating.fit(n, rating.total(units))
        last = self._ratings
        spans: Sequence[tuple[float, float] | None]
        if last is None or self.complete or counted >= 1.1 * last[0] or counted < last[0]:
            spans = rating.intervals(n, units) or [None] * n
        else:
            spans = [last[1][name].elo_ci for name in self.names]
        fitted = {
            name: Rating(round(elo, 3), None if span is None else _rounded(span))
            for name, elo, span in zip(self.names, elos, spans, strict=True)
        }
        self._ratings = (counted, fitted)
        return fitted

    def rating(self, name: str) -> Rating:
        return self.ratings()[name]

    def standings(self) -> list[EntrantStanding]:
        """Best first: by rating, then mean place, then wins (``ORDER``)."""
        rows = []
        for name in self.names:
            r = self._records[name]
            n = r.matches
            low, high = self.win_rate_interval(name)
            rows.append(
                EntrantStanding(
                    rank=0,
                    bot=name,
                    matches=n,
                    wins=_number(r.wins),
                    win_rate=round(float(r.wins) / n, 4) if n else 0.0,
                    win_rate_ci=(round(low, 4), round(high, 4)),
                    mean_place=round(r.places / n, 3) if n else None,
                    mean_round_score=round(r.points / r.rounds, 3) if r.rounds else None,
                    declarations=r.declared,
                    declaration_rate=round(r.held / r.declared, 4) if r.declared else None,
                    rating=self.rating(name),
                    timeouts=r.timeouts,
                    illegal=r.illegal,
                    crashes=r.crashes,
                    lost_on_time=r.lost_on_time,
                    forfeits=r.forfeits,
                    failures=dict(sorted(r.failures.items())),
                    faults=dict(sorted(r.faults.items())),
                    cpu_seconds=round(r.cpu_seconds, 3),
                )
            )
        rows.sort(key=order)
        return [msgspec.structs.replace(s, rank=i) for i, s in enumerate(rows, 1)]

    @property
    def interval_unit(self) -> Literal["deal", "match"]:
        """What one unit of the intervals is: ``deal`` or ``match``."""
        return "match" if self.unit_of is None else "deal"

    def win_rate_interval(self, name: str) -> tuple[float, float]:
        """95 % interval of ``name``'s win rate: over deals (t) or matches (Wilson)."""
        if self.unit_of is None:
            r = self._records[name]
            return wilson(float(r.wins), r.matches)
        units = self._units[name].values()
        return mean_interval([float(wins / matches) for wins, matches in units])

    def head_to_head(self, a: str, b: str) -> HeadToHead:
        ahead, level, behind = self._pairs.get((a, b), (0, 0, 0))
        return HeadToHead(ahead + level + behind, ahead, level, behind)

    def crosstable(self) -> dict[str, dict[str, HeadToHead]]:
        """Row entrant against column entrant, for every pair that met."""
        return {
            a: {b: self.head_to_head(a, b) for b in self.names if (a, b) in self._pairs}
            for a in self.names
        }


ORDER = "rating (Bradley-Terry, fitted on all results), then mean place, then wins"
"""How the standings are ordered, in words for every report."""


def order(s: EntrantStanding) -> tuple[float, float, float, str]:
    """The standings' sort key (``ORDER``): an entrant with no match comes last."""
    place = s.mean_place if s.mean_place is not None else math.inf
    return (-s.rating.elo, place, -s.wins, s.bot)


def _rounded(span: tuple[float, float]) -> tuple[float, float]:
    return round(span[0], 3), round(span[1], 3)


def _number(value: Fraction) -> float:
    """A whole number as an int (so JSON shows ``12``), otherwise rounded."""
    if value.denominator == 1:
        return int(value)
    return round(float(value), 4)
