"""Drives one match through its seats: deadlines, refusals, faults, forfeits.

Timeouts, illegal moves and crashes are handled here and nowhere else, for
every kind of seat, on the server and in tournaments alike.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial

from leastscore.game import Event, IllegalMove, Match, Move, View

from .seat import Seat, SeatFailed


@dataclass
class Faults:
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0

    @property
    def total(self) -> int:
        return self.timeouts + self.illegal + self.crashes


@dataclass(frozen=True)
class Policy:
    """How a table treats its players' mistakes."""

    retry_illegal: bool = True
    """True: an illegal move is refused and the player tries again until the deadline
    (people, and bots on the server). False: it is replaced by the automatic move
    and counted (tournaments)."""
    max_faults: int | None = None
    """Faults (timeouts, illegal moves, crashes) after which a seat forfeits the match."""


def _same(view: View) -> View:
    return view


class Referee:
    def __init__(
        self,
        match: Match,
        seats: Sequence[Seat],
        *,
        time_limit: Callable[[int], float],
        policy: Policy | None = None,
        on_events: Callable[[list[Event]], None] | None = None,
        on_turn: Callable[[int, float, View], None] | None = None,
    ) -> None:
        if len(seats) != match.seat_count:
            raise ValueError(f"{len(seats)} seats for a match of {match.seat_count}")
        self.match = match
        self.seats = list(seats)
        self.time_limit = time_limit
        self.policy = policy or Policy()
        self.faults = [Faults() for _ in seats]
        self.deadline: float | None = None
        """Loop time by which the mover must have moved."""
        self._on_events = on_events
        self._on_turn = on_turn
        self._waiting: asyncio.Future[Move] | None = None
        self._waiting_for: int | None = None
        self._interrupt: str | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0

    # -- running ----------------------------------------------------------------

    async def run(self) -> Match:
        """Play the match to its end; returns it (its ``log`` is the full record)."""
        match = self.match
        if not match.started:
            self._publish(match.start())
        loop = asyncio.get_running_loop()
        try:
            while not match.over:
                mover = match.to_move
                limit = self.time_limit(mover)
                self.deadline = loop.time() + limit
                view = match.view(mover)
                self._announce(mover, limit, view)
                events = await self._get_move(mover, view)
                if events:
                    self._publish(events)
                    self._check_forfeit(mover)
        finally:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        self.deadline = None
        return match

    def _announce(self, mover: int, limit: float, mover_view: View) -> None:
        if self._on_turn:
            self._on_turn(mover, limit, mover_view)
        view = self.match.view
        for i, seat in enumerate(self.seats):
            seat.send_turn(
                mover, limit, partial(_same, mover_view) if i == mover else partial(view, i)
            )

    def _publish(self, events: list[Event]) -> None:
        copies = [e.seen_by_all(len(self.seats)) for e in events]
        for i, seat in enumerate(self.seats):
            seat.send([c[i] for c in copies])
        if self._on_events:
            self._on_events(events)

    async def _get_move(self, mover: int, view: View) -> list[Event]:
        """Apply the mover's move, or the automatic move (and count the fault).

        Returns no events when the mover left the match while it was asked.
        """
        loop = asyncio.get_running_loop()
        faults = self.faults[mover]
        match = self.match
        deadline = self.deadline
        assert deadline is not None
        while True:
            seat = self.seats[mover]
            remaining = deadline - loop.time()
            if remaining <= 0:
                faults.timeouts += 1
                return match.apply(mover, match.auto_move(mover), auto=True)
            started = loop.time()
            waiting = asyncio.ensure_future(seat.choose(view, remaining))
            self._waiting = waiting
            self._waiting_for = mover
            self._interrupt = None
            self._arm(loop, deadline)
            try:
                move = await waiting
            except SeatFailed:
                faults.crashes += 1
                return match.apply(mover, match.auto_move(mover), auto=True)
            except asyncio.CancelledError:
                if self._interrupt == "timeout":
                    faults.timeouts += 1
                    return match.apply(mover, match.auto_move(mover), auto=True)
                if self._interrupt == "replaced":
                    continue  # the seat was handed to someone else: ask them
                if self._interrupt == "resigned":
                    return []
                waiting.cancel()
                raise
            finally:
                self._waiting = None
                self._waiting_for = None
            if loop.time() - started > remaining:
                faults.timeouts += 1  # an in-process bot cannot be interrupted
                seat.verdict(None)
                return match.apply(mover, match.auto_move(mover), auto=True)
            try:
                events = match.apply(mover, move)
            except IllegalMove as error:
                seat.verdict(error)
                faults.illegal += 1
                if not self.policy.retry_illegal:
                    return match.apply(mover, match.auto_move(mover), auto=True)
                continue
            seat.verdict(None)
            return events

    def _arm(self, loop: asyncio.AbstractEventLoop, deadline: float) -> None:
        """See that the timer goes off by ``deadline``.

        One timer serves every move: it is left running when a move comes in,
        and as each move's deadline is later than the last one's, most moves
        need no timer of their own. When it goes off before the deadline of
        the move now awaited, it is set again for that deadline.
        """
        if self._timer is None or self._timer_at > deadline:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = loop.call_at(deadline, self._time_up)
            self._timer_at = deadline

    def _time_up(self) -> None:
        self._timer = None
        waiting = self._waiting
        if waiting is None or waiting.done() or self.deadline is None:
            return
        if self.deadline > self._timer_at:  # set for an earlier move: this one has time left
            self._arm(asyncio.get_running_loop(), self.deadline)
            return
        self._interrupt = "timeout"
        waiting.cancel()

    def _check_forfeit(self, seat: int) -> None:
        limit = self.policy.max_faults
        if limit is None or self.match.over or not self.match.active[seat]:
            return
        count = self.faults[seat].total
        if count > limit:
            self._publish(self.match.resign(seat, f"forfeit after {count} faults"))

    # -- changes from outside ---------------------------------------------------

    def replace(self, index: int, seat: Seat) -> None:
        """Hand a seat to another player (a bot for a vanished person, or back)."""
        self.seats[index] = seat
        if self._waiting_for == index and self._waiting is not None:
            self._interrupt = "replaced"
            self._waiting.cancel()

    def resign(self, index: int, reason: str) -> None:
        """Take a seat out of the match now."""
        if self.match.over or not self.match.active[index]:
            return
        self._publish(self.match.resign(index, reason))
        if self._waiting_for == index and self._waiting is not None:
            self._interrupt = "resigned"
            self._waiting.cancel()
