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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec
from leastscore.tournament.pure.rating import Pairs, add_match, fit, intervals, total

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

    @property
    def width(self) -> float:
        return float("inf") if self.low is None or self.high is None else self.high - self.low


def leaderboard(
    played: Sequence[PlayedMatch],
    playing: Mapping[str, Submission],
    authors_of: Mapping[int, str],
    new_version: Literal["fresh", "inherit"] = "fresh",
) -> list[Row]:
    """The authors who play now, best first. ``authors_of``: every submission's author."""

    def who(submission: int) -> str | int:
        return authors_of[submission] if new_version == "inherit" else submission

    keys = sorted({who(s) for m in played for s in m.seats}, key=str)
    for sub in playing.values():
        if who(sub.id) not in keys:
            keys.append(who(sub.id))
    index = {k: i for i, k in enumerate(keys)}
    units: dict[int, Pairs] = {}
    matches = [0] * len(keys)
    faults = [0] * len(keys)
    for m in played:
        if len(m.places) != len(m.seats):
            continue  # aborted: no places to count
        seated = [(index[who(s)], place) for s, place in zip(m.seats, m.places, strict=True)]
        add_match(units.setdefault(m.table_id, {}), seated)
        for (i, _), seat in zip(seated, _seat_faults(m.result), strict=True):
            matches[i] += 1
            faults[i] += seat
    tables = [units[t] for t in sorted(units)]
    ratings = fit(len(keys), total(tables))
    spans = intervals(len(keys), tables)
    rows = []
    for author, sub in playing.items():
        i = index[who(sub.id)]
        low, high = spans[i] if spans is not None and matches[i] else (None, None)
        rows.append(Row(author, sub.version, ratings[i], low, high, matches[i], faults[i]))
    return sorted(rows, key=lambda r: (-r.rating if r.matches else float("inf"), r.author))


def _seat_faults(result: bytes) -> list[int]:
    seats = msgspec.json.decode(result).get("seats", ())
    return [
        int(s.get("timeouts", 0)) + int(s.get("illegal", 0)) + int(s.get("crashes", 0))
        for s in seats
    ]
