"""A hint: the move a built-in bot would make in a player's place."""

from __future__ import annotations

from collections.abc import Iterable

from leastscore.game import Event

from . import make_bot
from .base import Bot

HINT_LEVELS = ("expert", "counter", "greedy")
"""The strongest built-in level present gives the hints; the next if it fails."""


def primed(bot: Bot, events: Iterable[Event]) -> Bot:
    """``bot``, reset and told the events a player has seen of this match (its own
    copies, in order): ready to choose in that player's place."""
    bot.reset()
    for event in events:
        bot.on_event(event)
    return bot


def hint_bot(level: str, events: Iterable[Event]) -> Bot:
    """A fresh bot of ``level`` primed with ``events`` (see ``primed``)."""
    return primed(make_bot(level), events)
