"""The one seat interface: anything that, given a view, returns a move in time.

A table (server) or a match (tournament) drives seats through ``Referee`` and
never cares what is behind one: a built-in bot in this process, a person or a
bot on a TCP connection, or an external program on stdio.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence
from typing import Protocol

from leastscore.game import Event, IllegalMove, MatchStarted, Move, View

from .base import Bot
from .view import DealMemory


class SeatFailed(Exception):
    """The player behind a seat is gone or broken (a crash, garbage, a closed pipe)."""


class Seat(Protocol):
    name: str

    def send(self, events: Sequence[Event]) -> None:
        """This seat's own copies of new events, in order."""

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        """Someone is to move (maybe this seat); ``view()`` builds this seat's view."""

    def choose(self, view: View, time_limit: float) -> Awaitable[Move]:
        """This seat's move (a coroutine or a future); may raise ``SeatFailed``."""

    def verdict(self, error: IllegalMove | None) -> None:
        """The move just chosen was accepted (None) or refused."""


Thinker = Callable[[Bot, View], Awaitable[tuple[Move, Bot]]]
"""Has a bot choose elsewhere (another process): the move, and the bot after choosing."""


class BotSeat:
    """A bot object held in this process. A slow bot can be given a ``thinker`` that
    has it choose in another process, so that the event loop (other tables, other
    connections) is never blocked by it.

    The bot gets what it would get over TCP or stdio: ``reset()`` before each
    match, every event, and a ``BotView`` to choose from.
    """

    def __init__(
        self, bot: Bot, name: str = "", *, thinker: Thinker | None = None, delay: float = 0.0
    ) -> None:
        self.bot = bot
        self.name = name or bot.name
        self.thinker = thinker
        self.delay = delay
        """Seconds to wait before moving, so that people can follow a bot's play."""
        self._is_async = inspect.iscoroutinefunction(bot.choose)
        self._deal = DealMemory()
        self._thinking: list[Event] | None = None
        """Events that came while the bot was away choosing: the bot that comes back
        has not seen them."""

    def send(self, events: Sequence[Event]) -> None:
        for event in events:
            self._deal.on_event(event)
            if self._thinking is not None:
                self._thinking.append(event)
            self._tell(self.bot, event)

    @staticmethod
    def _tell(bot: Bot, event: Event) -> None:
        if isinstance(event, MatchStarted):
            bot.reset()
        bot.on_event(event)

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        pass

    async def choose(self, view: View, time_limit: float) -> Move:
        if self.delay:
            await asyncio.sleep(min(self.delay, time_limit / 2))
        view = self._deal.view(view)
        try:
            if self._is_async:
                move: Move = await self.bot.choose(view)  # type: ignore[misc]
            elif self.thinker is not None:
                move = await self._think_elsewhere(self.thinker, view)
            else:
                move = self.bot.choose(view)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            raise SeatFailed(f"{self.name} raised {type(e).__name__}: {e}") from e
        return move

    async def _think_elsewhere(self, thinker: Thinker, view: View) -> Move:
        self._thinking = []
        try:
            move, bot = await thinker(self.bot, view)
            for event in self._thinking:
                self._tell(bot, event)
            self.bot = bot
        finally:
            self._thinking = None
        return move

    def verdict(self, error: IllegalMove | None) -> None:
        pass


class MoveSlot:
    """Where a remote player's move waits until the referee asks for it.

    The ``turn`` message goes out before the referee starts waiting, and a
    fast client can answer in between; the slot keeps such an early move.
    """

    def __init__(self) -> None:
        self._open = False
        self._stamp: tuple[int, int] | None = None
        self._early: Move | None = None
        self._waiting: asyncio.Future[Move] | None = None
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
        if stamp is not None and stamp != self._stamp:
            return False
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

    def fail(self, error: BaseException) -> bool:
        """Make the waiting ``take`` raise; False when nobody is waiting."""
        waiting = self._waiting
        if waiting is not None and not waiting.done():
            self._waiting = None
            waiting.set_exception(error)
            return True
        return False

    def take(self) -> asyncio.Future[Move]:
        """The move, now (if it came early) or when it comes."""
        future: asyncio.Future[Move] = asyncio.get_running_loop().create_future()
        if self._early is not None:
            future.set_result(self._early)
            self._early = None
        else:
            self._waiting = future
        return future
