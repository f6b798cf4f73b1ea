"""Players that are programs: the built-in ladder and the SDK bot authors use."""

from __future__ import annotations

from collections.abc import Callable

from .base import Bot
from .counter import CounterBot
from .expert import ExpertBot
from .greedy import GreedyBot
from .random_bot import RandomBot

BUILTIN: dict[str, Callable[[int | None], Bot]] = {
    "random": RandomBot,
    "greedy": GreedyBot,
    "counter": CounterBot,
    "expert": ExpertBot,
}


def make_bot(level: str, seed: int | None = None) -> Bot:
    """A fresh built-in bot by name (``random``, ``greedy``, ...)."""
    try:
        factory = BUILTIN[level]
    except KeyError:
        raise ValueError(f"no built-in bot {level!r}; choose from {', '.join(BUILTIN)}") from None
    return factory(seed)


__all__ = ["BUILTIN", "Bot", "CounterBot", "ExpertBot", "GreedyBot", "RandomBot", "make_bot"]
