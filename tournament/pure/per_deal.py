"""Statistics whose unit is a deal: every seat rotation of one group on the same cards.

In the duplicate format the rotations of a deal are not independent matches:
the same cards come round to every entrant, so a lucky deal lifts nobody and
an unlucky one sinks nobody. Counting them as independent overstates how much
a tournament knows. So intervals and the SPRT count deals, the way paired
games are one unit in engine testing: an entrant's value for a deal is the
mean over the matches it played in that deal (its win share, or its score
against the other seats), and the interval is a Student t interval over those
per-deal values.

``SprtSettings``/``Sprt``: the sequential probability ratio test for a
gauntlet of one candidate against a baseline. Each deal gives the candidate a
score in [0, 1] (against every other seat: ahead 1, level 1/2, behind 0,
averaged over the rotations); the log-likelihood ratio of Elo ``elo1``
against ``elo0`` is the generalized SPRT's normal approximation, as engine
testers use it: ``N (s1 - s0) (2 x - s0 - s1) / (2 v)``, with ``x`` and ``v``
the mean and (regularized) variance of the per-deal scores and ``s`` the
expected score of an Elo difference. The test stops when it crosses ``log(beta / (1 - alpha))``
(H0 accepted) or ``log((1 - beta) / alpha)`` (H1 accepted).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .results import MatchResult
    from .schedule import Schedule


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (scipy's,
    imported here: a report that gives no interval does not wait for scipy)."""
    if df < 1:
        raise ValueError("df must be at least 1")
    from scipy.special import stdtrit

    return float(stdtrit(df, p))


PRIOR_DEALS = 2
PRIOR_VARIANCE = 0.25
"""The variance of the per-deal scores is estimated as if two more deals had shown
the largest variance a score in [0, 1] can have: a few deals that happen to agree
(two wins out of two) must not look like certainty, and the SPRT stays at or
below its error rates (checked by simulation in the tests)."""


def spread(values: Sequence[float]) -> tuple[float, float]:
    """The mean of ``values`` and their variance, regularized as said above."""
    n = len(values)
    mean = math.fsum(values) / n
    squares = math.fsum((v - mean) ** 2 for v in values)
    return mean, (squares + PRIOR_DEALS * PRIOR_VARIANCE) / (n - 1 + PRIOR_DEALS)


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float]:
    """A t interval for the mean of ``values`` (one per deal), kept within [0, 1].

    Fewer than two values say nothing: (0, 1). The variance is regularized, so that
    deals that all agree still leave room for doubt.
    """
    n = len(values)
    if n < 2:
        return 0.0, 1.0
    mean, variance = spread(values)
    half = t_quantile(0.5 + confidence / 2, n - 1) * math.sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def expected_score(elo: float) -> float:
    """The score (1 a win, 1/2 a draw) that an Elo advantage of ``elo`` expects."""
    return 1 / (1 + 10 ** (-elo / 400))


@dataclass(frozen=True)
class SprtSettings:
    """The bounds and error rates of a sequential test (``--sprt``): stop as soon as
    the results say the rating difference is at least ``elo1`` or at most ``elo0``."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    beta: float = 0.05

    @classmethod
    def parse(cls, text: str) -> SprtSettings:
        """``elo0=0,elo1=10[,alpha=0.05,beta=0.05]``; ``ValueError`` saying why not."""
        values: dict[str, float] = {}
        for item in text.split(","):
            key, eq, value = (part.strip() for part in item.partition("="))
            if key not in ("elo0", "elo1", "alpha", "beta") or not eq:
                raise ValueError(f"--sprt takes elo0=A,elo1=B[,alpha=P,beta=P], not {text!r}")
            try:
                values[key] = float(value)
            except ValueError:
                raise ValueError(f"--sprt: {key} must be a number, not {value!r}") from None
        if "elo0" not in values or "elo1" not in values:
            raise ValueError("--sprt needs elo0 and elo1")
        settings = cls(**values)
        if not settings.elo0 < settings.elo1:
            raise ValueError("--sprt: elo0 must be below elo1")
        for name in ("alpha", "beta"):
            if not 0 < getattr(settings, name) < 0.5:
                raise ValueError(f"--sprt: {name} must be between 0 and 0.5")
        return settings

    @property
    def lower(self) -> float:
        """At or below this log-likelihood ratio, H0 (Elo ``elo0``) is accepted."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """At or above this, H1 (Elo ``elo1``) is accepted."""
        return math.log((1 - self.beta) / self.alpha)

    def text(self) -> str:
        return f"elo0={self.elo0:g},elo1={self.elo1:g},alpha={self.alpha:g},beta={self.beta:g}"


@dataclass
class Sprt:
    """The test so far: add one score per deal, in deal order, until ``verdict``."""

    settings: SprtSettings
    scores: list[float] = field(default_factory=list)
    verdict: Literal["H0", "H1"] | None = None
    """``"H0"`` or ``"H1"`` once a bound is crossed; then nothing more is added."""

    def add(self, score: float) -> None:
        if self.verdict is not None:
            return
        self.scores.append(score)
        llr = self.llr
        if llr >= self.settings.upper:
            self.verdict = "H1"
        elif llr <= self.settings.lower:
            self.verdict = "H0"

    @property
    def llr(self) -> float:
        n = len(self.scores)
        if n < 2:
            return 0.0
        mean, variance = spread(self.scores)
        s0 = expected_score(self.settings.elo0)
        s1 = expected_score(self.settings.elo1)
        return n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * variance)


def score_against(places: Sequence[int], seat: int) -> float:
    """One seat's score against the others at a table: ahead 1, level 1/2, behind 0."""
    others = [p for i, p in enumerate(places) if i != seat]
    mine = places[seat]
    return sum(1.0 if mine < p else 0.5 if mine == p else 0.0 for p in others) / len(others)


class SprtRun:
    """An SPRT fed with a tournament's results as they come, in any order.

    Deals are taken in schedule order, each once all its matches are in, so the
    verdict (and where it came) is the same however many workers played and in
    whatever order their results arrived. ``cut`` is then the number of fixtures
    the tournament counts: every match of the deals up to the decision.
    """

    def __init__(self, settings: SprtSettings, candidate: str, schedule: Schedule) -> None:
        self.test = Sprt(settings)
        self.candidate = candidate
        self.schedule = schedule
        self.per_deal = len(schedule) // schedule.deals
        self.deals_taken = 0
        self._pending: dict[int, list[MatchResult]] = {}

    @property
    def cut(self) -> int | None:
        if self.test.verdict is None:
            return None
        return self.deals_taken * self.per_deal

    def add(self, result: MatchResult) -> bool:
        """Take a result; True when the test has decided (now or before)."""
        if self.test.verdict is not None:
            return True
        deal = result.fixture // self.per_deal
        self._pending.setdefault(deal, []).append(result)
        while len(self._pending.get(self.deals_taken, ())) == self.per_deal:
            self._take(self._pending.pop(self.deals_taken))
            self.deals_taken += 1
            if self.test.verdict is not None:
                return True
        return False

    def _take(self, results: list[MatchResult]) -> None:
        by_group: dict[int, list[float]] = {}
        for result in sorted(results, key=lambda r: r.fixture):
            if result.status != "played":
                continue
            fixture = self.schedule[result.fixture]
            places = [s.place for s in result.seats]
            for seat, name in enumerate(fixture.seats):
                if name == self.candidate:
                    by_group.setdefault(fixture.group, []).append(score_against(places, seat))
        for group in sorted(by_group):
            scores = by_group[group]
            self.test.add(math.fsum(scores) / len(scores))
