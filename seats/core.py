"""The referee's judgement as a state machine: given the time and what happened,
it says what to do. No asyncio, no futures, no timers, no seats.

``MatchCore`` owns a ``Match`` and decides everything about how it is played:
whom to ask for a move and by when, what a timeout, a refused move, a crash or
a late answer costs (the automatic move, a fault, a retry), when faults add up
to a forfeit, how each seat's time bank runs under a time control (and that a
seat whose bank runs out loses on time), what a seat handed to another player
or a resignation from outside changes, that a paused match asks nothing and
runs no clock, and that nothing more is asked once the match is over. The
caller (``seats.driver.MatchDriver`` for live play, a test with plain numbers
for a clock) feeds it inputs and carries out the
``Action``\\ s they return, in order.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Callable
from dataclasses import dataclass, field

import msgspec
from leastscore.game import Event, IllegalMove, Match, Move, NotYourTurn, View


@dataclass
class Faults:
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    lost_on_time: int = 0
    """Faults of kind ``time``: 1 when the seat's time bank ran out (a loss on time)."""
    failures: dict[str, int] = field(default_factory=dict)
    """The crashes by how they came about (``SeatFailed.kind``: ``start``, ``crash``,
    ``garbled``, ``protocol``, ``limit``, ``gone``)."""

    @property
    def total(self) -> int:
        return self.timeouts + self.illegal + self.crashes + self.lost_on_time


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A chess clock for a match: each seat has a bank of ``base`` seconds that runs
    while it is asked for a move, and gets ``increment`` seconds more after each of
    its turns (a Fischer increment). A seat whose bank runs out loses on time: it is
    out of the match, as a forfeit.

    Why a bank instead of a limit per move: a program may spend its time where it
    matters (a hard choice, the end of a round) and answer easy moves at once, and
    the whole match takes at most a known time per seat.
    """

    base: float
    increment: float = 0.0

    def __post_init__(self) -> None:
        if not (math.isfinite(self.base) and self.base > 0):
            raise ValueError(f"the base must be more than 0 seconds, not {self.base:g}")
        if not (math.isfinite(self.increment) and self.increment >= 0):
            raise ValueError(f"the increment must be 0 seconds or more, not {self.increment:g}")

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """``BASE+INC`` in seconds (``60+0.5``; ``60+0``: no increment); ``ValueError``."""
        base, plus, increment = (part.strip() for part in str(text).partition("+"))
        if not plus:
            raise ValueError(f"{text!r}: write BASE+INC in seconds, e.g. 60+0.5 (60+0: none)")
        try:
            return cls(_seconds(base, "base"), _seconds(increment, "increment"))
        except ValueError as e:
            raise ValueError(f"{text!r}: {e} (write BASE+INC in seconds, e.g. 60+0.5)") from None

    def __str__(self) -> str:
        return f"{self.base:g}+{self.increment:g}"


def _seconds(text: str, what: str) -> float:
    if not text:
        raise ValueError(f"the {what} is missing")
    try:
        seconds = float(text)
    except ValueError:
        raise ValueError(f"the {what} {text!r} is not a number of seconds") from None
    if not math.isfinite(seconds):
        raise ValueError(f"the {what} must be a finite number of seconds, not {text!r}")
    return seconds


@dataclass(frozen=True)
class Policy:
    """How a table treats its players' mistakes, and their time."""

    retry_illegal: bool = True
    """True: an illegal move is refused and the player tries again until the deadline
    (people, and bots on the server). False: it is replaced by the automatic move
    and counted (tournaments)."""
    max_faults: int | None = None
    """Faults (timeouts, illegal moves, crashes) after which a seat forfeits the match."""
    time_control: TimeControl | None = None
    """A time bank per seat for the whole match instead of a limit per move: the
    core's ``time_limit`` is then not used, and a seat whose bank runs out loses on
    time instead of getting the automatic move."""


class TooLate(NotYourTurn):
    """The answer came after its deadline: the automatic move was played instead."""

    def __init__(self) -> None:
        super().__init__("the time for that move ran out: the automatic move was played")


class OutOfTime(TooLate):
    """The answer came after the seat's time bank ran out: it lost on time."""

    def __init__(self) -> None:
        NotYourTurn.__init__(self, "your time ran out: you lost the match on time")


LOST_ON_TIME = "lost on time"
"""The reason of the ``resigned`` event of a seat whose time bank ran out."""


# -- what to do --------------------------------------------------------------------------
# Structs rather than frozen dataclasses: two of them (a ``Tell`` and an ``Ask``) are
# made for every move, and a frozen dataclass takes several times as long to build.
# Those that can hold no cycle are left out of the garbage collector's sight
# (gc=False): fewer collections. A ``Verdict`` may hold a raised error, whose
# traceback can lead back to it: it stays in.


class Tell(msgspec.Struct, gc=False):
    """Send new events: seat ``i`` gets ``copies()[k][i]`` of event ``k``, a spectator
    ``copies()[k][-1]`` (cut by ``Event.seen_by_all``: no copy shows a card its receiver
    may not see); ``events`` are the full ones, for the record.

    The copies are cut the first time someone asks for them, not before: in a match
    whose seats read only their views (a tournament's built-in bots) most events are
    never told to anyone one by one, and cutting them would be work for nobody.
    """

    events: list[Event]
    seats: int
    """How many seats the match has (each gets a copy, and so does a spectator)."""
    _copies: list[list[Event]] | None = None

    def copies(self) -> list[list[Event]]:
        copies = self._copies
        if copies is None:
            events, seats = self.events, self.seats
            if len(events) == 1:  # most moves: no comprehension (it costs more than the rest)
                copies = [events[0].seen_by_all(seats)]
            else:
                copies = [e.seen_by_all(seats) for e in events]
            self._copies = copies
        return copies

    def for_seat(self, seat: int) -> list[Event]:
        copies = self.copies()
        if len(copies) == 1:
            return [copies[0][seat]]
        return [c[seat] for c in copies]


class Ask(msgspec.Struct, frozen=True, eq=False, gc=False):
    """Ask ``seat`` for a move from ``view``; it has ``time_limit`` seconds, until
    ``deadline``. Each ask is a new object: an answer belongs to the ask it answers.

    The ask of a new turn (``turn``) is also the news of it: everyone is told whose
    turn it is, and how long it has, before the mover is asked. One object for the
    two, as there is one of them for every move.
    """

    seat: int
    view: View
    """The mover's view."""
    time_limit: float
    deadline: float
    turn: bool = False
    """A new turn (everyone is told); False when the same turn is asked again (a
    refused move, a new player for the seat)."""


class Withdraw(msgspec.Struct, frozen=True, gc=False):
    """Stop waiting for the answer to ``ask``: it will be ignored if it comes."""

    ask: Ask


class Verdict(msgspec.Struct, frozen=True):
    """Tell ``seat`` its move was accepted (``error`` None) or refused, and why."""

    seat: int
    error: IllegalMove | None


class Over(msgspec.Struct, frozen=True):
    """The match is over: nothing more will be asked."""


Action = Tell | Ask | Withdraw | Verdict | Over


class Phase(enum.Enum):
    DEALING = "dealing"
    """Not started: resignations wait for the deal."""
    PLAYING = "playing"
    OVER = "over"


# -- the core ------------------------------------------------------------------------------


class MatchCore:
    """The referee of one match, for every kind of seat, on the server and in
    tournaments alike: timeouts, refusals, crashes and forfeits are decided here and
    nowhere else.

    It is handed the time with every input instead of reading a clock, and returns
    what to do instead of doing it, so that every rule about time and faults can be
    tested with plain numbers, and so that one thin driver can run it over any
    seats (in this process, over TCP, on stdio). The times it is given only have to
    come from one clock.

    At most one ask is open at a time: ``asking``. Every input about a move names
    the seat it comes from; one from a seat that is not being asked changes nothing.

    With a time control (``Policy.time_control``) each seat's deadline is the time
    it is asked plus what is left in its bank; when its turn ends in time, the time
    it took is taken off its bank and the increment added. A bank that runs out is
    a loss on time, never an automatic move.
    """

    def __init__(
        self,
        match: Match,
        *,
        time_limit: float | Callable[[int], float],
        policy: Policy | None = None,
    ) -> None:
        self.match = match
        self.seat_count = match.seat_count
        self.time_limit = time_limit if callable(time_limit) else float(time_limit)
        """Seconds a seat has for a move: the same for every seat, or by seat."""
        self.policy = policy or Policy()
        self.faults = [Faults() for _ in range(match.seat_count)]
        clock = self.policy.time_control
        self.banks: list[float] | None = None if clock is None else [clock.base] * match.seat_count
        """Seconds left in each seat's bank with a time control (the mover's as it was
        when asked: its deadline says when it runs out); None without one."""
        self.phase = Phase.OVER if match.over else Phase.DEALING
        self._accepted = [Verdict(seat, None) for seat in range(match.seat_count)]
        """Each seat's verdict on a move accepted (the same every time: made once)."""
        self.asking: Ask | None = None
        """The open ask: whom the core waits for, and until when."""
        self._resigning: list[tuple[int, str]] = []
        """Resignations that came before the deal, applied right after it."""
        self.paused = False
        """Between ``pause`` and ``resume``: nobody is asked, and no clock runs."""
        self._held: Ask | None = None
        """While paused, the ask to make on ``resume``: its ``time_limit`` is the time
        the mover has left, its ``turn`` whether the turn is news to everyone."""

    @property
    def deadline(self) -> float | None:
        """When the mover's time runs out (on the clock the core is given), if asked."""
        return self.asking.deadline if self.asking is not None else None

    @property
    def over(self) -> bool:
        return self.phase is Phase.OVER

    # -- inputs ----------------------------------------------------------------------

    def start(self, now: float) -> list[Action]:
        """Deal (unless the match was dealt already) and ask the first mover."""
        if self.phase is not Phase.DEALING:
            return []
        self.phase = Phase.PLAYING
        match = self.match
        out: list[Action] = []
        if not match.started:
            out.append(self._tell(match.start()))
        for seat, reason in self._resigning:
            if not match.over and match.active[seat]:
                out.append(self._tell(match.resign(seat, reason)))
        self._resigning.clear()
        return self._next_turn(out, now)

    def moved(self, seat: int, move: Move, now: float) -> list[Action]:
        """``seat`` answered its ask with ``move`` at ``now``."""
        ask = self.asking
        if ask is None or ask.seat != seat:
            return []
        self.asking = None
        if now > ask.deadline:
            if self.banks is not None:
                return self._lost_on_time(seat, [Verdict(seat, OutOfTime())], now)
            self.faults[seat].timeouts += 1  # in time or not at all: a late move is never played
            return self._auto(seat, [Verdict(seat, TooLate())], now)
        try:
            events = self.match.apply(seat, move)
        except IllegalMove as error:
            self.faults[seat].illegal += 1
            out: list[Action] = [Verdict(seat, error)]
            if self.policy.retry_illegal:
                return self._ask_again(ask, out, now)
            self._stop_clock(ask, now)
            return self._auto(seat, out, now)
        out = [self._accepted[seat], Tell(events, self.seat_count)]
        match = self.match
        if self.banks is not None or match.over:
            self._stop_clock(ask, now)
            return self._next_turn(out, now)  # no new fault: no forfeit to weigh
        # The usual move: the next mover is asked here, as ``_next_turn`` would, since
        # that call would cost a tenth of what the core spends on the move.
        mover = match.to_move
        each = self.time_limit
        limit = each(mover) if callable(each) else each
        nxt = Ask(mover, match.view(mover), limit, now + limit, True)
        self.asking = nxt
        out.append(nxt)
        return out

    def failed(self, seat: int, now: float, kind: str = "crash") -> list[Action]:
        """``seat`` crashed or went away while it was asked; ``kind`` says how (a
        ``SeatFailed.kind``)."""
        ask = self.asking
        if ask is None or ask.seat != seat:
            return []
        self.asking = None
        if self.banks is not None and now >= ask.deadline:
            return self._lost_on_time(seat, [], now)  # its time ran out first
        faults = self.faults[seat]
        faults.crashes += 1
        faults.failures[kind] = faults.failures.get(kind, 0) + 1
        self._stop_clock(ask, now)
        return self._auto(seat, [], now)

    def time_is(self, now: float) -> list[Action]:
        """The time is ``now``: the mover's time may have run out."""
        ask = self.asking
        if ask is None or now < ask.deadline:
            return []
        self.asking = None
        if self.banks is not None:
            return self._lost_on_time(ask.seat, [Withdraw(ask)], now)
        self.faults[ask.seat].timeouts += 1
        return self._auto(ask.seat, [Withdraw(ask)], now)

    def replaced(self, seat: int, now: float) -> list[Action]:
        """``seat`` is now played by someone else (a bot for a vanished person, or the
        person back): if it was being asked, the newcomer is asked, by the same deadline."""
        ask = self.asking
        if ask is None or ask.seat != seat:
            return []
        self.asking = None
        return self._ask_again(ask, [Withdraw(ask)], now)

    def resigned(self, seat: int, reason: str, now: float) -> list[Action]:
        """Take ``seat`` out of the match now (it left, or it is not there); before the
        deal, it is taken out right after it."""
        match = self.match
        if not 0 <= seat < match.seat_count:
            return []
        if self.phase is Phase.DEALING:
            if all(s != seat for s, _ in self._resigning):
                self._resigning.append((seat, reason))
            return []
        if self.phase is Phase.OVER or not match.active[seat]:
            return []
        events = match.resign(seat, reason)
        out: list[Action] = []
        ask = self.asking
        if ask is not None and (ask.seat == seat or match.over):
            self.asking = None
            out.append(Withdraw(ask))
        out.append(self._tell(events))
        if match.over or self.asking is None:
            return self._next_turn(out, now)
        return out  # another seat left: the mover keeps its turn and its time

    def pause(self, now: float) -> list[Action]:
        """Wait: nobody the match is played for is there to see it. The mover's ask is
        withdrawn and its clock stopped, with what it had left kept for ``resume``;
        moves and timeouts change nothing until then, and a turn that comes up (a
        resignation) waits too."""
        if self.paused or self.phase is Phase.OVER:
            return []
        self.paused = True
        ask = self.asking
        if ask is None:
            return []
        self.asking = None
        self._held = Ask(ask.seat, ask.view, max(0.0, ask.deadline - now), math.inf, turn=False)
        return [Withdraw(ask)]

    def resume(self, now: float) -> list[Action]:
        """Play on: the mover waited for is asked again, with the time it had left
        when the match paused (a new turn, with its whole time)."""
        if not self.paused:
            return []
        self.paused = False
        held, self._held = self._held, None
        if held is None or self.phase is not Phase.PLAYING:
            return []
        ask = Ask(held.seat, held.view, held.time_limit, now + held.time_limit, held.turn)
        self.asking = ask
        return [ask]

    # -- what follows --------------------------------------------------------------------

    def _tell(self, events: list[Event]) -> Tell:
        return Tell(events, self.seat_count)

    def _stop_clock(self, ask: Ask, now: float) -> None:
        """``ask``'s turn ended in time at ``now``: its bank keeps what was left, and
        gets the increment."""
        banks, clock = self.banks, self.policy.time_control
        if banks is not None and clock is not None:
            banks[ask.seat] = max(0.0, ask.deadline - now) + clock.increment

    def _lost_on_time(self, seat: int, out: list[Action], now: float) -> list[Action]:
        """``seat``'s bank ran out: it is out of the match (a forfeit), and play goes on."""
        assert self.banks is not None
        self.banks[seat] = 0.0
        self.faults[seat].lost_on_time += 1
        out.append(self._tell(self.match.resign(seat, LOST_ON_TIME)))
        return self._next_turn(out, now)

    def _auto(self, seat: int, out: list[Action], now: float) -> list[Action]:
        match = self.match
        events = match.apply(seat, match.auto_move(seat), auto=True)
        return self._played(seat, events, out, now)

    def _played(
        self, seat: int, events: list[Event], out: list[Action], now: float
    ) -> list[Action]:
        out.append(self._tell(events))
        limit = self.policy.max_faults
        match = self.match
        if limit is not None and not match.over and match.active[seat]:
            count = self.faults[seat].total
            if count > limit:
                out.append(self._tell(match.resign(seat, f"forfeit after {count} faults")))
        return self._next_turn(out, now)

    def _next_turn(self, out: list[Action], now: float) -> list[Action]:
        match = self.match
        if match.over:
            self.phase = Phase.OVER
            out.append(Over())
            return out
        mover = match.to_move
        each = self.time_limit
        if self.banks is not None:
            limit = self.banks[mover]
        else:
            limit = each(mover) if callable(each) else each
        view = match.view(mover)
        if self.paused:  # asked when the match resumes
            self._held = Ask(mover, view, limit, math.inf, True)
            return out
        ask = Ask(mover, view, limit, now + limit, True)
        self.asking = ask
        out.append(ask)
        return out

    def _ask_again(self, ask: Ask, out: list[Action], now: float) -> list[Action]:
        """The same seat, the same turn, the same deadline: a timeout (with a time
        control, a loss on time) if none is left."""
        remaining = ask.deadline - now
        if remaining <= 0:
            if self.banks is not None:
                return self._lost_on_time(ask.seat, out, now)
            self.faults[ask.seat].timeouts += 1
            return self._auto(ask.seat, out, now)
        again = Ask(ask.seat, ask.view, remaining, ask.deadline)
        self.asking = again
        out.append(again)
        return out
