"""How often the server checks a table's password: too seldom for trying them all to pay."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass


@dataclass
class _Misses:
    count: int
    last: float


class Guesses:
    """Decides whether a password guess is checked now, or how long it must wait.

    Two limits, each needed. A table's password is checked at most ``per_table``
    times in any ``window`` seconds, however many connections or addresses guess:
    a four-digit PIN then takes minutes to find, not a few seconds. And an address
    that keeps guessing wrong waits longer after each miss (``backoff`` seconds,
    doubling up to ``max_backoff``, once it has had ``free_misses``), so one machine
    neither finds a password nor takes a table's whole budget from its people. A
    mistyped password or two costs nothing; misses are forgotten ``forget`` seconds
    after the last one.

    A guess refused here must not be checked at all, so its answer tells nothing,
    not even by its timing. Sans-I/O: every call is told the time.
    """

    def __init__(
        self,
        per_table: int = 20,
        window: float = 1.0,
        free_misses: int = 10,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        forget: float = 600.0,
    ) -> None:
        self.per_table = per_table
        self.window = window
        self.free_misses = free_misses
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.forget = max(forget, max_backoff)
        self._checks: dict[str, deque[float]] = {}
        """Per table: when its latest ``per_table`` guesses were checked."""
        self._misses: dict[str, _Misses] = {}
        """Per address: its wrong guesses, and the time of the last one."""
        self._swept = 0.0

    def wait(self, table: str, peer: str, now: float) -> float:
        """0 when a guess at ``table``'s password from ``peer`` may be checked now (it is
        then counted against the table); otherwise the seconds until it may."""
        self._sweep(now)
        checks = self._checks.get(table)
        wait = 0.0
        if checks is not None and len(checks) >= self.per_table:
            wait = checks[0] + self.window - now
        misses = self._misses.get(peer)
        if misses is not None and misses.count >= self.free_misses:
            wait = max(wait, misses.last + self._delay(misses.count) - now)
        if wait > 0:
            return wait
        if checks is None:
            checks = self._checks[table] = deque(maxlen=max(1, self.per_table))
        checks.append(now)
        return 0.0

    def missed(self, peer: str, now: float) -> None:
        """A guess from ``peer`` was checked and was wrong."""
        misses = self._misses.get(peer)
        if misses is None or now - misses.last >= self.forget:
            misses = self._misses[peer] = _Misses(0, now)
        misses.count += 1
        misses.last = now

    def _delay(self, count: int) -> float:
        """How long after its last miss an address with ``count`` misses must wait."""
        doublings = min(count - self.free_misses, 40)
        return min(self.max_backoff, self.backoff * 2.0**doublings)

    def _sweep(self, now: float) -> None:
        """Drop what no longer limits anyone, now and then, so that memory stays small."""
        if now - self._swept < self.forget:
            return
        self._swept = now
        self._checks = {t: c for t, c in self._checks.items() if c and now - c[-1] < self.window}
        self._misses = {p: m for p, m in self._misses.items() if now - m.last < self.forget}
