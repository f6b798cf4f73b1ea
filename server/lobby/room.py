"""What a room is given by its server (``Host``), and a seat played over a player's
line (``ConnectedSeat``).

A lobby ``Table`` is one kind of room; a host may bring its own (a tournament's
hall seats its remote entrants for the whole tournament). The lobby hands a
player's requests to the room the player is in through ``players.Room`` and
nothing else, so a room never has to look like a table it is not.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import msgspec
from leastscore.game import Event, IllegalMove, Move, View
from leastscore.protocol import encode, errors
from leastscore.protocol.messages import Error, Ok
from leastscore.seats.seat import MoveSlot, SeatFailed

if TYPE_CHECKING:
    from ..config import ServerConfig
    from ..house.bots import HouseBots
    from ..records.journal import Journal
    from .players import Cancellable, Line, Player, Room


class Clock(Protocol):
    """The time, and callbacks at a time: an asyncio loop, or a test's fake clock."""

    def time(self) -> float: ...

    def call_later(
        self, delay: float, callback: Callable[..., object], *args: Any
    ) -> Cancellable: ...


class Host(Protocol):
    """What the lobby and its tables are given by the server they belong to: its
    settings, its built-in bots, its journal, the time, and a way to play a match
    in the background. A test gives them a host of its own, with a fake clock and
    no sockets."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def bots(self) -> HouseBots: ...

    @property
    def journal(self) -> Journal: ...

    @property
    def loop(self) -> Clock: ...

    @property
    def serving(self) -> bool:
        """Not shutting down: a table may start another match by itself."""
        ...

    def play(self, match: Coroutine[None, None, None]) -> Cancellable:
        """Run ``match`` in the background until it ends or the server stops."""
        ...


class ConnectedSeat:
    """A match seat played over a connection, by a person or a remote bot: the move
    arrives when it arrives and waits in a ``MoveSlot`` until the match asks for it."""

    def __init__(self, room: Room, index: int, player: Player) -> None:
        self.room = room
        self.index = index
        self.player = player
        self.name = player.name
        self.slot = MoveSlot()

    @property
    def listening(self) -> bool:
        return self._listener() is not None

    def _listener(self) -> Line | None:
        """The player's connection while it is open and the player still plays this seat."""
        conn = self.player.conn
        if conn is None or conn.closed or not self.room.holds(self.player, self.index):
            return None
        return conn

    def send(self, events: Sequence[Event]) -> None:
        conn = self._listener()
        if conn is not None:
            send = conn.send_bytes
            for event in events:
                send(encoded(event))

    def choose(self, view: View, time_limit: float) -> asyncio.Future[Move]:
        self.slot.expect((view.round, view.turn))
        return self.slot.take()

    def listen(
        self,
        view: View,
        time_limit: float,
        moved: Callable[[Move], None],
        failed: Callable[[SeatFailed], None],
    ) -> None:
        self.slot.expect((view.round, view.turn))
        self.slot.listen(moved, failed)

    def unlisten(self) -> None:
        self.slot.unlisten()

    def receive(self, move: Move, msg_id: int | None, stamp: tuple[int, int] | None) -> None:
        """A move arrived from the player."""
        if not self.slot.offer(move, msg_id, stamp):
            self.player.send(Error(errors.NOT_YOUR_TURN, _not_now(stamp), msg_id))

    def verdict(self, error: IllegalMove | None) -> None:
        if error is None:
            self.slot.close()
            if self.player.conn is not None:
                self.player.conn.refund()  # accepted moves are paced by the game itself
            self.player.send(Ok(id=self.slot.move_id))
        else:
            self.player.send(Error(error.code, error.reason, self.slot.move_id))


def _not_now(stamp: tuple[int, int] | None) -> str:
    if stamp is None:
        return "it is not your turn"
    return f"it is not your turn (round {stamp[0]}, turn {stamp[1]} is not the one being played)"


_memo: dict[int, tuple[object, bytes]] = {}


def encoded(message: msgspec.Struct) -> bytes:
    """Encode once per message object: public events go to every seat as they are."""
    hit = _memo.get(id(message))
    if hit is not None and hit[0] is message:
        return hit[1]
    data = encode(message)
    if len(_memo) > 256:
        _memo.clear()
    _memo[id(message)] = (message, data)
    return data
