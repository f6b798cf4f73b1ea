"""The leaderboard from the book: ratings fitted on every finished match at once. Pure.

Each match adds its pairs (who finished ahead of whom) to its table's; the tables
are the units the intervals resample (a table is one deal from every seat, so its
matches share cards). Ratings come from ``tournament.pure.rating``, the contests'
order-free fit, so the order in which tables finished changes nothing.

Who a rating belongs to is the organiser's choice (``new_version``): ``fresh``
rates every version on its own results; ``inherit`` rates the author, every
version's results together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from leastscore.tournament.pure.rating import Pairs, add_match, fit, intervals

from .book import PlayedMatch, Submission


@dataclass(frozen=True)
class Row:
    """One line of the leaderboard."""

    author: str
    version: int
    rating: float
    low: float | None
    high: float | None
    matches: int
    faults: int

    def as_json(self) -> dict[str, Any]:
        """The row as the API and ``arena export`` give it (to a tenth of a point)."""
        span = None if self.low is None or self.high is None else [self.low, self.high]
        return {
            "author": self.author,
            "version": self.version,
            "rating": round(self.rating, 1),
            "interval": None if span is None else [round(x, 1) for x in span],
            "matches": self.matches,
            "faults": self.faults,
        }

    @property
    def width(self) -> float:
        return float("inf") if self.low is None or self.high is None else self.high - self.low


def spread(row: Row) -> tuple[float, float] | None:
    """How far a row's interval reaches below and above its rating (None: no interval);
    a bootstrap's percentiles may miss the fit's own rating, and then the interval is
    stretched to it."""
    if row.low is None or row.high is None:
        return None
    return max(0.0, row.rating - row.low), max(0.0, row.high - row.rating)


def around(row: Row, reach: tuple[float, float] | None) -> Row:
    """``row`` with the interval that reaches ``reach`` below and above its rating."""
    if reach is None:
        return replace(row, low=None, high=None)
    return replace(row, low=row.rating - reach[0], high=row.rating + reach[1])


UNITS = 1000
"""The most units the intervals resample: past that, tables share units (table ``t`` in
unit ``t % UNITS``), so that an arena running for weeks bootstraps in bounded time and
memory. A unit is then a sum of independent tables, as a table is of its matches."""


class Ledger:
    """Every finished match, added up as it comes: the pairs by table, the matches and
    faults by entrant. Why kept: summing every match again after each table costs
    more, as the arena grows, than the table itself; added once, a new table costs
    only its own matches, and the fit starts from the sums."""

    def __init__(self, new_version: Literal["fresh", "inherit"] = "fresh") -> None:
        self.new_version = new_version
        self.index: dict[str | int, int] = {}
        self.units: dict[int, Pairs] = {}
        self.totals: Pairs = {}
        self.matches: list[int] = []
        self.faults: list[int] = []
        self.ratings: list[float] = []
        """The last fit's ratings, by index (an entrant made since: 0): the next fit
        starts from them."""
        self.fitted = True
        """Whether ``ratings`` were fitted on every result added so far."""

    def who(self, submission: int, authors_of: Mapping[int, str]) -> int:
        """The entrant a submission's results count for (its index, made on first sight)."""
        key = authors_of[submission] if self.new_version == "inherit" else submission
        if key not in self.index:
            self.index[key] = len(self.index)
            self.matches.append(0)
            self.faults.append(0)
            self.fitted = False  # one more to centre the ratings on
        return self.index[key]

    def add(self, played: Sequence[PlayedMatch], authors_of: Mapping[int, str]) -> None:
        for m in played:
            if len(m.places) != len(m.seats):
                continue  # aborted: no places to count
            seated = [(self.who(s, authors_of), p) for s, p in zip(m.seats, m.places, strict=True)]
            one: Pairs = {}
            add_match(one, seated)
            unit = self.units.setdefault(m.table_id % UNITS, {})
            for key, count in one.items():
                unit[key] = unit.get(key, 0) + count
                self.totals[key] = self.totals.get(key, 0) + count
            for (i, _), faults in zip(seated, m.faults, strict=True):
                self.matches[i] += 1
                self.faults[i] += faults
            self.fitted = False

    def fit(self) -> None:
        """The ratings fitted again on every result so far, here (``rows`` does it when
        it is asked to and they are not)."""
        self.ratings = self.fitting()()

    def fitting(self) -> Callable[[], list[float]]:
        """The fit of the results so far, on a copy of them, to run in another thread
        while this one goes on adding tables (its ratings are then put in ``ratings``).
        The ledger counts as fitted from now; an ``add`` after it makes it not."""
        n, totals, near = len(self.index), dict(self.totals), list(self.ratings)
        self.fitted = True
        return lambda: fit(n, totals, near)

    def frozen(self) -> Ledger:
        """A copy of the ledger as it is now, for a bootstrap in another thread while
        this one goes on adding tables."""
        copy = Ledger(self.new_version)
        copy.index = dict(self.index)
        copy.units = {t: dict(unit) for t, unit in self.units.items()}
        copy.totals = dict(self.totals)
        copy.matches, copy.faults = list(self.matches), list(self.faults)
        copy.ratings, copy.fitted = list(self.ratings), self.fitted
        return copy

    def rows(
        self,
        playing: Mapping[str, Submission],
        authors_of: Mapping[int, str],
        *,
        with_intervals: bool = True,
        refit: bool = True,
    ) -> list[Row]:
        """The authors who play now, best first. Without intervals (``low`` and ``high``
        None) it is the fit alone, a hundred times cheaper than the bootstrap; with
        ``refit`` False not even that: the last fit's ratings, as they are."""
        at = {author: self.who(sub.id, authors_of) for author, sub in playing.items()}
        n = len(self.index)
        if refit and not self.fitted:
            self.fit()
        ratings = self.ratings + [0.0] * (n - len(self.ratings))
        tables = [self.units[t] for t in sorted(self.units)]
        spans = intervals(n, tables, near=ratings) if with_intervals else None
        rows = []
        for author, sub in playing.items():
            i = at[author]
            low, high = spans[i] if spans is not None and self.matches[i] else (None, None)
            rows.append(
                Row(author, sub.version, ratings[i], low, high, self.matches[i], self.faults[i])
            )
        return sorted(rows, key=lambda r: (-r.rating if r.matches else float("inf"), r.author))


def leaderboard(
    played: Sequence[PlayedMatch],
    playing: Mapping[str, Submission],
    authors_of: Mapping[int, str],
    new_version: Literal["fresh", "inherit"] = "fresh",
) -> list[Row]:
    """The leaderboard of these matches, worked out from nothing (entrants numbered in a
    fixed order, so the same matches in any order give the same figures)."""
    ledger = Ledger(new_version)
    for submission in sorted({s for m in played for s in m.seats} | set(authors_of)):
        ledger.who(submission, authors_of)
    ledger.add(played, authors_of)
    return ledger.rows(playing, authors_of)
