"""The one seat interface: anything that, given a view, returns a move in time.

A table (server) or a match (tournament) drives seats through ``MatchDriver``
and never cares what is behind one: a built-in bot in this process, a person or
a bot on a TCP connection, or an external program on stdio.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import ClassVar, Protocol

from leastscore.game import Event, IllegalMove, Move, View
from leastscore.protocol.peer import SeatTurn


class SeatFailed(Exception):
    """The player behind a seat is gone or broken (a crash, garbage, a closed pipe).

    Every failure costs the same (the automatic move, counted as a crash); its
    class says how it came about, and ``kind`` names that in the records (a
    tournament's results count each seat's failures by kind), so an organiser
    tells a program that never starts from one that breaks the protocol.
    """

    kind: ClassVar[str] = "crash"


class DidNotStart(SeatFailed):
    """It could not be started, said no hello in time, or speaks another protocol."""

    kind = "start"


class Crashed(SeatFailed):
    """It exited, closed its output or stopped reading its input while playing."""

    kind = "crash"


class GarbledOutput(SeatFailed):
    """It wrote what is no frame: bytes that do not frame, or a frame over the limit."""

    kind = "garbled"


class ProtocolViolation(SeatFailed):
    """It wrote a frame that breaks the protocol (a fatal error, or a move that is none)."""

    kind = "protocol"


class OverLimit(SeatFailed):
    """It went over one of its limits (memory, CPU time, processes, files, output)."""

    kind = "limit"


class Gone(SeatFailed):
    """The player behind a connection is not there (disconnected, never connected)."""

    kind = "gone"


class Seat(Protocol):
    """A player in a match, whatever it is: a bot object, a person or program over TCP
    or a WebSocket, a program on stdio.

    Why one interface: the referee (``MatchCore``, run by ``MatchDriver``) treats every
    player the same, so a timeout, an illegal move or a crash costs the same
    whoever made it, and a new kind of player only writes these few methods."""

    name: str

    def send(self, events: Sequence[Event]) -> None:
        """This seat's own copies of new events, in order."""

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        """Someone is to move (maybe this seat). ``view()`` builds the mover's own view
        for the mover, and for every other seat a spectator's (``seat`` None, no hand):
        what everyone sees of the turn."""

    def choose(self, view: View, time_limit: float) -> Awaitable[Move]:
        """This seat's move (a coroutine or a future); may raise ``SeatFailed``."""

    def verdict(self, error: IllegalMove | None) -> None:
        """The move just chosen was accepted (None) or refused (``TooLate``: it came
        after its deadline, and the automatic move was played)."""


class AnswersNow(Protocol):
    """What a seat that can answer at once adds to ``Seat`` (a built-in bot in this
    process, with no delay and no thinking elsewhere).

    The driver then asks it with ``choose_now`` and judges the move in the same
    pass: no task, no future, no trip round the event loop per move, which is most
    of the cost of a tournament match of built-in bots.

    Such a seat has nobody to tell at once, so the driver saves it the calls: it
    hears its events in one ``send`` just before it is asked, when it leaves its
    seat and when the match is over (every event, its own copy, in order; all but
    the plays if it says it needs none, ``hears_plays``), and is not called with
    ``send_turn`` or ``verdict``.
    """

    immediate: bool
    """True when ``choose_now`` may be called instead of ``choose``; fixed for the
    seat's life (the driver reads it when the seat is seated)."""

    hears_plays: bool
    """False when its player needs no ``Played`` event, as it reads the plays from
    its views (``View.history``): the driver then keeps none for it, and it hears
    only the other events. Optional (True when missing); fixed for the seat's life."""

    def choose_now(self, view: View, time_limit: float) -> Move:
        """The move, chosen now; may raise ``SeatFailed``. It cannot be interrupted:
        a move that comes after its deadline counts as a timeout."""


class AnswersLater(Protocol):
    """What a seat whose move arrives from elsewhere (over a connection) may add to
    ``Seat``: instead of a future to await, the driver hands it what to call when the
    move comes, and the move is judged in the same pass as it arrives.

    Why: a future per move costs its making, a callback scheduled on the loop and a
    whole pass of the loop before the move is judged; on a server that is a good part
    of what a move costs.
    """

    def listen(
        self,
        view: View,
        time_limit: float,
        moved: Callable[[Move], None],
        failed: Callable[[SeatFailed], None],
    ) -> None:
        """Ask for the move from ``view``: call ``moved`` with it when it comes (at once
        if it came early) or ``failed`` with why the player is gone, once, unless
        ``unlisten`` is called first; may raise ``SeatFailed``."""

    def unlisten(self) -> None:
        """The ask is over (withdrawn, or the match ended): call nothing more."""


class MoveSlot(SeatTurn):
    """Where a remote player's move waits until the driver asks for it, on the turn
    its seat was told of (``SeatTurn``).

    The ``turn`` message goes out before the driver starts waiting, and a
    fast client can answer in between; the slot keeps such an early move.
    """

    def __init__(self) -> None:
        super().__init__()
        self._early: Move | None = None
        self._waiting: asyncio.Future[Move] | None = None
        self._listener: tuple[Callable[[Move], None], Callable[[SeatFailed], None]] | None = None
        """Whom to call with the move, or when the player is gone (``listen``)."""
        self.move_id: int | None = None
        """The request id of the move being judged, for the reply."""

    def open(self, stamp: tuple[int, int] | None = None) -> None:
        """A turn for this seat was announced; ``stamp`` is its (round, turn)."""
        self._open = True
        self._stamp = stamp
        self._early = None

    def close(self) -> None:
        """The turn is over (the move was accepted, or another seat is to move)."""
        self._open = False
        self._early = None

    def offer(self, move: Move, move_id: int | None, stamp: tuple[int, int] | None = None) -> bool:
        """A move arrived; False when this seat is not to move, already answered, or the
        move says it answers another turn (a late answer must not land on a later turn)."""
        if self.names_another(stamp):
            return False
        listener = self._listener
        if listener is not None:
            self.move_id = move_id
            self._listener = None
            listener[0](move)
            return True
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            self.move_id = move_id
            self._waiting = None
            waiting.set_result(move)
            return True
        if self._open and self._early is None:
            self.move_id = move_id
            self._early = move
            return True
        return False

    def fail(self, error: SeatFailed) -> bool:
        """Make the waiting ``take`` raise, or call the listener's ``failed``; False
        when nobody is waiting."""
        listener = self._listener
        if listener is not None:
            self._listener = None
            listener[1](error)
            return True
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            self._waiting = None
            waiting.set_exception(error)
            return True
        return False

    def listen(self, moved: Callable[[Move], None], failed: Callable[[SeatFailed], None]) -> None:
        """Call ``moved`` with the move now (if it came early) or when it comes, or
        ``failed`` when ``fail`` is called first (see ``AnswersLater``)."""
        early = self._early
        if early is not None:
            self._early = None
            moved(early)
        else:
            self._listener = (moved, failed)

    def unlisten(self) -> None:
        self._listener = None

    def take(self) -> asyncio.Future[Move]:
        """The move, now (if it came early) or when it comes."""
        future: asyncio.Future[Move] = asyncio.get_running_loop().create_future()
        if self._early is not None:
            future.set_result(self._early)
            self._early = None
        else:
            self._waiting = future
        return future
