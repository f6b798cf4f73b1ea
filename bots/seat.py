"""A bot object in this process, seated in a match through the one seat interface."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable, Sequence

from leastscore.game import Event, IllegalMove, MatchStarted, Move, Played, View
from leastscore.seats.seat import SeatFailed

from .base import Bot, watches
from .view import BotView, DealMemory

Thinker = Callable[[Bot, View], Awaitable[tuple[Move, Bot]]]
"""Has a bot choose elsewhere (another process): the move, and the bot after choosing."""


class BotSeat:
    """A bot object held in this process. A slow bot can be given a ``thinker`` that
    has it choose in another process, so that the event loop (other tables, other
    connections) is never blocked by it.

    The bot gets what it would get over TCP or stdio: ``reset()`` before each
    match, every event, and a ``BotView`` to choose from.

    Whatever the bot does wrong is the seat's failure, never its table's or its
    tournament's: an exception as it chooses, or an attempt to exit, is a crash
    (``SeatFailed``); an exception while it watches the match breaks it for the rest
    of the match, and each of its moves is then a crash.
    """

    broken: str | None = None
    """Why the bot can play no more in this match (it raised while watching)."""

    def __init__(
        self, bot: Bot, name: str = "", *, thinker: Thinker | None = None, delay: float = 0.0
    ) -> None:
        self.bot = bot
        self.name = name or bot.name
        self.broken = None
        self.thinker = thinker
        self.delay = delay
        """Seconds to wait before moving, so that people can follow a bot's play."""
        self._is_async = inspect.iscoroutinefunction(bot.choose)
        self._listens = watches(bot)
        """False when the bot does not look at events (only the seat's deal memory does)."""
        self._deal = DealMemory()
        self._thinking: list[Event] | None = None
        """Events that came while the bot was away choosing: the bot that comes back
        has not seen them."""

    def send(self, events: Sequence[Event]) -> None:
        if self.broken is not None:
            return
        try:
            self._hear(events)
        except Exception as e:
            self.broken = f"raised {type(e).__name__} while watching: {e}"

    def _hear(self, events: Sequence[Event]) -> None:
        deal, bot, thinking = self._deal, self.bot, self._thinking
        if thinking is None and not self._listens:
            for event in events:
                if type(event) is not Played:  # a play changes nothing for the deal
                    deal.on_event(event)
                    if isinstance(event, MatchStarted):
                        bot.reset()
            return
        for event in events:
            if type(event) is not Played:  # most events: nothing for the deal or a reset
                deal.on_event(event)
                if isinstance(event, MatchStarted):
                    bot.reset()
            if thinking is not None:
                thinking.append(event)
            bot.on_event(event)

    @staticmethod
    def _tell(bot: Bot, event: Event) -> None:
        if isinstance(event, MatchStarted):
            bot.reset()
        bot.on_event(event)

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        pass

    @property
    def hears_plays(self) -> bool:
        """Only a bot that looks at events needs each play: neither a reset nor the
        deal memory depends on one, and the bot's views carry the plays."""
        return self._listens

    @property
    def immediate(self) -> bool:
        """It answers at once (no delay, no thinking elsewhere, a plain ``choose``):
        the driver asks it with ``choose_now``, with no trip round the event loop."""
        return not self.delay and self.thinker is None and not self._is_async

    def choose_now(self, view: View, time_limit: float) -> Move:
        """The bot's move, chosen in this thread now."""
        if self.broken is not None:
            raise SeatFailed(f"{self.name} {self.broken}")
        try:
            if type(view) is not BotView or view.turned_up is None:  # not the match's own
                view = self._deal.view(view)
            move: Move = self.bot.choose(view)
        except SystemExit as e:
            raise SeatFailed(f"{self.name} tried to exit (code {e.code})") from None
        except Exception as e:
            raise SeatFailed(f"{self.name} raised {type(e).__name__}: {e}") from e
        return move

    async def choose(self, view: View, time_limit: float) -> Move:
        if self.broken is not None:
            raise SeatFailed(f"{self.name} {self.broken}")
        if self.delay:
            await asyncio.sleep(min(self.delay, time_limit / 2))
        if not self._is_async and self.thinker is None:
            return self.choose_now(view, time_limit)
        view = self._deal.view(view)
        try:
            if self._is_async:
                move: Move = await self.bot.choose(view)  # type: ignore[misc]
            else:
                assert self.thinker is not None
                move = await self._think_elsewhere(self.thinker, view)
        except asyncio.CancelledError:
            raise
        except SystemExit as e:
            raise SeatFailed(f"{self.name} tried to exit (code {e.code})") from None
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
