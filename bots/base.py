"""The one thing every player implements: given a view, choose a move."""

from __future__ import annotations

from leastscore.game import Event, Move

from .view import BotView


class Bot:
    """Base class for bots. Override ``choose``; the hooks are optional.

    ``choose`` may be a plain method or a coroutine (``async def``). Every way a
    bot plays (in-process, over TCP, over stdio) calls ``reset`` before each
    match, ``on_event`` with every event the seat sees, in order, and ``choose``
    when it is the seat's turn; never two of these at once.
    """

    name = "bot"
    heavy = False
    """True when ``choose`` may take milliseconds: a server runs it off its event loop."""

    def choose(self, view: BotView) -> Move:
        raise NotImplementedError

    def on_event(self, event: Event) -> None:
        """Called with every event this seat sees, in order (its own copy)."""

    def reset(self) -> None:
        """Called before a new match: forget everything learned in the last one."""


def watches(bot: Bot) -> bool:
    """Whether ``bot`` has an ``on_event`` of its own (the base one does nothing): one
    that does not is spared the call for every event."""
    return getattr(bot.on_event, "__func__", None) is not Bot.on_event
