"""The one asyncio driver of a match: it carries out what the ``MatchCore`` decides,
through seats, and feeds the core the seats' answers and the time.

Used by the server's tables, tournaments, ``leastscore demo``, ``bot check``,
``bots.local`` and the benchmarks alike; all but the tables (which pause, resume and
watch their match) play through ``play_to_the_end``. It decides nothing about the
game: every rule about deadlines and faults is in ``seats.core``.
"""

from __future__ import annotations

import asyncio
import math
from collections import deque
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, cast

from leastscore.game import Event, Match, Move, Played, View

from .core import Action, Ask, Faults, MatchCore, Over, Policy, Tell, Verdict, Withdraw
from .seat import AnswersLater, AnswersNow, Seat, SeatFailed

SLICE = 0.01
"""Seconds of moves answered at once (``Seat.immediate``) after which the event loop
gets a turn: a match of built-in bots never stalls the other tables or connections."""

ChooseNow = Callable[[View, float], Move]


def _same(view: View) -> View:
    return view


class _PublicView:
    """What a seat that is not to move is given with a turn: a spectator's view of it
    (no hand), built the first time a seat asks for it and shared by all.

    Why not each seat's own view: a turn that is not its own tells a seat only what
    everyone sees (the ``turn`` message of PROTOCOL.md), and building every seat's
    whole view for it was most of what announcing a turn cost.
    """

    __slots__ = ("match", "view")

    def __init__(self, match: Match) -> None:
        self.match = match
        self.view: View | None = None

    def __call__(self) -> View:
        view = self.view
        if view is None:
            view = self.view = self.match.view(None)
        return view


def _answers_now(seat: Seat) -> ChooseNow | None:
    if getattr(seat, "immediate", False):
        return cast(AnswersNow, seat).choose_now
    return None


class MatchDriver:
    """Plays one match through its seats by running a ``MatchCore``.

    Why a thin shell around a pure core: the core can then be tested with plain
    numbers for a clock, and every kind of seat gets the same judgement. The driver
    only moves things in and out: events and turns out to the seats, moves,
    failures and the time back into the core. It keeps one timer for the mover's
    deadline, and none at all for seats that answer at once: a built-in bot in this
    process (``Seat.immediate``) is asked with ``choose_now`` and its move judged
    in the same pass, with no task, future or loop round trip per move, and hears
    its events in one call when it is next asked (see ``AnswersNow``). While such
    seats' moves are accepted one after the other, one loop (``_ask``) asks them,
    with no queue between.

    Actions are carried out in order, from one queue: an input that arrives while
    actions are being carried out (a seat that resigns as it is told an event, a
    bot whose answer is ready at once) adds its actions after them.
    """

    def __init__(
        self,
        match: Match,
        seats: Sequence[Seat],
        *,
        time_limit: float | Callable[[int], float],
        policy: Policy | None = None,
        on_events: Callable[[Tell], None] | None = None,
        on_turn: Callable[[int, float, View], None] | None = None,
    ) -> None:
        if len(seats) != match.seat_count:
            raise ValueError(f"{len(seats)} seats for a match of {match.seat_count}")
        self.match = match
        self.core = MatchCore(match, time_limit=time_limit, policy=policy)
        self.seats = list(seats)
        self._now: list[ChooseNow | None] = [_answers_now(s) for s in seats]
        self._told_now: list[int] = []
        """The seats told at once (not ``immediate``): of events, turns and verdicts."""
        self._unheard: list[list[Event] | None] = [None for _ in seats]
        """Events not yet told to each ``immediate`` seat: it hears them when it is next
        asked, when it leaves its seat and when the match is over, in one call."""
        self._hearers: list[tuple[list[Event], int]] = []
        """The ``immediate`` seats' lists of ``_unheard`` events, with their seats."""
        self._hearers_but_plays: list[tuple[list[Event], int]] = []
        """The same, of the ``immediate`` seats that need no plays (``hears_plays``)."""
        self._on_events = on_events
        self._on_turn = on_turn
        self._announcing = False
        """Whether anyone is told of a turn (a seat told at once, or ``on_turn``)."""
        self._quiet = False
        self._seated()
        self._todo: deque[Action] = deque()
        self._busy = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._done: asyncio.Future[None] | None = None
        self._stopped = False
        self._waiting: asyncio.Future[Move] | None = None
        self._listening: AnswersLater | None = None
        """The seat asked to call back with its move (``AnswersLater``), if one is."""
        self._waiting_for: Ask | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = 0.0
        self._slice_end = 0.0
        self._resumed: Ask | None = None
        """The ask that waited for the loop's turn (asked when it comes back)."""

    @property
    def faults(self) -> list[Faults]:
        return self.core.faults

    @property
    def deadline(self) -> float | None:
        """Loop time by which the mover must have moved."""
        return self.core.deadline

    # -- running ------------------------------------------------------------------------

    async def run(self) -> Match:
        """Play the match to its end; returns it (its ``log`` is the full record)."""
        loop = self._loop = asyncio.get_running_loop()
        done = self._done = loop.create_future()
        now = loop.time()
        self._slice_end = now + SLICE
        try:
            self._do(self.core.start(now))
            if self.core.over and not done.done():
                done.set_result(None)
            await done
        finally:
            self._stop()
        return self.match

    def _stop(self) -> None:
        self._stopped = True
        self._todo.clear()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._stop_waiting()

    def _stop_waiting(self) -> None:
        """Stop waiting for the open ask's answer (a future, or a seat's call)."""
        waiting, listening = self._waiting, self._listening
        self._waiting = self._waiting_for = self._listening = None
        if waiting is not None:
            waiting.cancel()
        if listening is not None:
            listening.unlisten()

    def _time(self) -> float:
        return (self._loop or asyncio.get_running_loop()).time()

    def _do(self, actions: list[Action]) -> None:
        """Carry out ``actions`` after those already queued."""
        if not actions or self._stopped:
            return
        todo = self._todo
        todo.extend(actions)
        if self._busy:
            return
        self._busy = True
        perform = _PERFORMERS
        try:
            while todo:
                action = todo.popleft()
                perform[type(action)](self, action)
        except Exception as e:
            todo.clear()
            done = self._done
            if done is None:
                raise
            if not done.done():
                done.set_exception(e)
        finally:
            self._busy = False

    def _verdict(self, verdict: Verdict) -> None:
        if self._now[verdict.seat] is None:
            self.seats[verdict.seat].verdict(verdict.error)

    def _withdraw(self, withdraw: Withdraw) -> None:
        if self._waiting_for is withdraw.ask:
            self._stop_waiting()

    def _over(self, over: Over) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        for i, unheard in enumerate(self._unheard):
            if unheard:
                self._catch_up(i)
        done = self._done
        if done is not None and not done.done():
            done.set_result(None)

    def _tell(self, tell: Tell) -> None:
        told, hearers = self._told_now, self._hearers
        if told or hearers:
            seats = self.seats
            for i in told:
                seats[i].send(tell.for_seat(i))
            for copy in tell.copies():
                for later, i in hearers:
                    later.append(copy[i])
        skimmers = self._hearers_but_plays
        if skimmers:
            events = tell.events
            if len(events) != 1 or type(events[0]) is not Played:  # most moves: a play
                for event, copy in zip(events, tell.copies(), strict=True):
                    if type(event) is not Played:
                        for later, i in skimmers:
                            later.append(copy[i])
        if self._on_events is not None:
            self._on_events(tell)

    def _catch_up(self, index: int) -> None:
        """Tell an ``immediate`` seat the events it has not heard yet."""
        unheard = self._unheard[index]
        if unheard:
            events = unheard.copy()
            unheard.clear()  # the same list: ``_hearers`` holds it
            self.seats[index].send(events)

    def _announce(self, turn: Ask) -> None:
        """Tell everyone whose turn it is, and how long it has."""
        mover, limit, mover_view = turn.seat, turn.time_limit, turn.view
        if self._on_turn is not None:
            self._on_turn(mover, limit, mover_view)
        seats, public = self.seats, _PublicView(self.match)
        for i in self._told_now:
            seats[i].send_turn(mover, limit, partial(_same, mover_view) if i == mover else public)

    def _ask(self, ask: Ask) -> None:
        """Ask the mover of ``ask``; a seat that answers at once is asked and judged
        here, and so is the next one as long as the usual happens (below)."""
        core, todo, loop = self.core, self._todo, self._loop
        assert loop is not None
        while True:
            if self._announcing and ask.turn:
                self._announce(ask)
            if ask is not core.asking:
                return  # overtaken (a resignation, a replacement) before its turn came
            index = ask.seat
            choose_now = self._now[index]
            if choose_now is None:
                self._wait_for(ask)
                return
            if loop.time() > self._slice_end and self._resumed is not ask:
                self._resumed = ask
                loop.call_soon(self._resume, ask)  # the loop's turn first
                return
            if self._unheard[index]:
                self._catch_up(index)
                if ask is not core.asking:
                    return  # it resigned as it heard them
            try:
                move = choose_now(ask.view, ask.time_limit)
            except SeatFailed as e:
                todo += core.failed(index, loop.time(), e.kind)
                return
            actions = core.moved(index, move, loop.time())
            if todo or len(actions) != 3:
                todo += actions  # carried out next, in order
                return
            # The usual: the mover's verdict (a seat that answers at once is not told
            # it), the move's events, the next ask, carried out here with no queue.
            # One play is news to nobody when no seat hears plays (a tournament's
            # built-in bots): it is only in the log.
            _, tell, after = actions
            if type(after) is not Ask:  # the match is over
                todo += actions
                return
            events: list[Event] = tell.events  # type: ignore[union-attr]
            if len(events) != 1 or not self._quiet or type(events[0]) is not Played:
                self._tell(tell)  # type: ignore[arg-type]
            ask = after

    def _wait_for(self, ask: Ask) -> None:
        """Ask a seat that cannot answer at once, and wait for its answer."""
        index = ask.seat
        later = self._later[index]
        if later is not None:  # answers by calling back (``AnswersLater``)
            self._waiting_for, self._listening = ask, later
            try:
                moved, lost = partial(self._moved, ask), partial(self._lost, ask)
                later.listen(ask.view, ask.time_limit, moved, lost)
            except SeatFailed as e:
                self._lost(ask, e)
                return
            if self._waiting_for is ask:  # not answered at once (an early move)
                self._arm(ask.deadline)
            return
        try:
            waiting = asyncio.ensure_future(self.seats[index].choose(ask.view, ask.time_limit))
        except SeatFailed as e:
            self._do(self.core.failed(index, self._time(), e.kind))
            return
        self._waiting, self._waiting_for = waiting, ask
        waiting.add_done_callback(self._answered)
        self._arm(ask.deadline)

    def _moved(self, ask: Ask, move: Move) -> None:
        """A seat that answers by calling back answered ``ask`` with ``move``."""
        if ask is not self._waiting_for:
            return  # withdrawn: its answer counts for nothing
        self._waiting_for = self._listening = None
        now = self._time()
        self._slice_end = now + SLICE
        self._do(self.core.moved(ask.seat, move, now))

    def _lost(self, ask: Ask, error: SeatFailed) -> None:
        """The player of a seat that answers by calling back is gone, while asked."""
        if ask is not self._waiting_for:
            return
        self._waiting_for = self._listening = None
        self._do(self.core.failed(ask.seat, self._time(), error.kind))

    def _resume(self, ask: Ask) -> None:
        self._slice_end = self._time() + SLICE
        self._do([ask])

    def _answered(self, waiting: asyncio.Future[Move]) -> None:
        error = None if waiting.cancelled() else waiting.exception()
        if waiting is not self._waiting:
            return  # withdrawn: its answer, or its failure, counts for nothing
        ask = self._waiting_for
        assert ask is not None
        self._waiting = self._waiting_for = None
        now = self._time()
        self._slice_end = now + SLICE
        if isinstance(error, SeatFailed):
            self._do(self.core.failed(ask.seat, now, error.kind))
        elif waiting.cancelled():
            self._do(self.core.failed(ask.seat, now))
        elif error is not None:
            done = self._done
            if done is not None and not done.done():
                done.set_exception(error)
        else:
            self._do(self.core.moved(ask.seat, waiting.result(), now))

    def _arm(self, deadline: float) -> None:
        """See that the timer goes off by ``deadline``.

        One timer serves every move: it is left running when a move comes in,
        and as each move's deadline is later than the last one's, most moves
        need no timer of their own. When it goes off before the deadline of
        the move now awaited, it is set again for that deadline.
        """
        if deadline == math.inf:
            return  # no time limit (the demo, the ladder)
        if self._timer is None or self._timer_at > deadline:
            if self._timer is not None:
                self._timer.cancel()
            assert self._loop is not None
            self._timer = self._loop.call_at(deadline, self._time_up)
            self._timer_at = deadline

    def _time_up(self) -> None:
        self._timer = None
        self._do(self.core.time_is(self._time()))
        ask = self._waiting_for
        if ask is not None and not self._stopped:
            self._arm(ask.deadline)

    def _seated(self) -> None:
        """Note which seats answer at once (after the seats are seated, or one changes)."""
        now = self._now = [_answers_now(s) for s in self.seats]
        self._later = [
            cast(AnswersLater, s) if hasattr(s, "listen") and c is None else None
            for s, c in zip(self.seats, now, strict=True)
        ]
        """The seats that answer by calling back (``AnswersLater``)."""
        self._told_now = [i for i, c in enumerate(now) if c is None]
        self._announcing = bool(self._told_now) or self._on_turn is not None
        self._unheard = [
            (unheard or []) if c is not None else None
            for unheard, c in zip(self._unheard, now, strict=True)
        ]
        self._hearers, self._hearers_but_plays = [], []
        for i, later in enumerate(self._unheard):
            if later is not None:
                plays = getattr(self.seats[i], "hears_plays", True)
                (self._hearers if plays else self._hearers_but_plays).append((later, i))
        self._quiet = not self._told_now and not self._hearers and self._on_events is None
        """Nobody needs a play: no seat told at once, none that hears plays, no ``on_events``."""

    # -- changes from outside -----------------------------------------------------------

    def replace(self, index: int, seat: Seat) -> None:
        """Hand a seat to another player (a bot for a vanished person, or back)."""
        self._catch_up(index)
        self.seats[index] = seat
        self._seated()
        if not self._stopped:
            self._do(self.core.replaced(index, self._time()))

    def pause(self) -> None:
        """Ask nothing, and run no clock, until ``resume`` (see ``MatchCore.pause``)."""
        if not self._stopped:
            self._do(self.core.pause(self._time()))

    def resume(self) -> None:
        """Play on after ``pause``: the mover is asked again with the time it had left."""
        if not self._stopped:
            self._do(self.core.resume(self._time()))

    @property
    def paused(self) -> bool:
        return self.core.paused

    def resign(self, index: int, reason: str) -> None:
        """Take a seat out of the match now (before the deal: right after it)."""
        if not self._stopped:
            self._do(self.core.resigned(index, reason, self._time()))


_PERFORMERS: dict[type, Callable[[MatchDriver, Any], None]] = {
    Tell: MatchDriver._tell,
    Ask: MatchDriver._ask,
    Verdict: MatchDriver._verdict,
    Withdraw: MatchDriver._withdraw,
    Over: MatchDriver._over,
}
"""How the driver carries out each kind of action: plain functions, not a table of
bound methods per driver, which would make every driver a reference cycle that only
the cyclic garbage collector frees (with its match, its log and its seats)."""


OFFLINE = Policy(retry_illegal=False)
"""A match played to its end at once (a demo, a check, a tournament): an illegal move
gets the automatic move and is counted, as is a timeout or a crash."""


async def play_to_the_end(
    match: Match,
    seats: Sequence[Seat],
    *,
    time_limit: float | Callable[[int], float] = math.inf,
    policy: Policy = OFFLINE,
    ready: Callable[[MatchDriver], None] | None = None,
) -> list[Faults]:
    """Play ``match`` to its end through ``seats`` (one per seat, in order); each seat's
    faults. ``ready`` is handed the driver before the first move (a tournament's absent
    seats resign through it). A table that pauses, resumes and watches its match (the
    server's) keeps a ``MatchDriver`` of its own instead."""
    driver = MatchDriver(match, seats, time_limit=time_limit, policy=policy)
    if ready is not None:
        ready(driver)
    await driver.run()
    return driver.faults
