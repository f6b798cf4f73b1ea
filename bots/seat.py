"""The one seat interface: anything that, given a view, returns a move in time.

A table (server) or a match (tournament) drives seats through ``Referee`` and
never cares what is behind one: a built-in bot in this process, a person or a
bot on a TCP connection, or an external program on stdio.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Sequence
from typing import Protocol

from game import Event, IllegalMove, MatchStarted, Move, View

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

    async def choose(self, view: View, time_limit: float) -> Move:
        """This seat's move; may raise ``SeatFailed``."""

    def verdict(self, error: IllegalMove | None) -> None:
        """The move just chosen was accepted (None) or refused."""


class BotSeat:
    """A bot object in this process. Slow bots can think in a worker thread so the
    event loop (other tables, other connections) is never blocked by them.

    The bot gets what it would get over TCP or stdio: ``reset()`` before each
    match, every event, and a ``BotView`` to choose from.
    """

    def __init__(
        self, bot: Bot, name: str = "", *, threaded: bool = False, delay: float = 0.0
    ) -> None:
        self.bot = bot
        self.name = name or bot.name
        self.threaded = threaded
        self.delay = delay
        """Seconds to wait before moving, so that people can follow a bot's play."""
        self._is_async = inspect.iscoroutinefunction(bot.choose)
        self._deal = DealMemory()

    def send(self, events: Sequence[Event]) -> None:
        for event in events:
            self._deal.on_event(event)
            if isinstance(event, MatchStarted):
                self.bot.reset()
            self.bot.on_event(event)

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        pass

    async def choose(self, view: View, time_limit: float) -> Move:
        if self.delay:
            await asyncio.sleep(min(self.delay, time_limit / 2))
        view = self._deal.view(view)
        try:
            if self._is_async:
                move: Move = await self.bot.choose(view)  # type: ignore[misc]
            elif self.threaded:
                move = await asyncio.get_running_loop().run_in_executor(None, self.bot.choose, view)
            else:
                move = self.bot.choose(view)
        except asyncio.CancelledError:
            raise
        except Exception as e:
            raise SeatFailed(f"{self.name} raised {type(e).__name__}: {e}") from e
        return move

    def verdict(self, error: IllegalMove | None) -> None:
        pass
