"""Players that are programs: the built-in ladder and the SDK bot authors use."""

from __future__ import annotations

import functools
import inspect
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


def builtin(spec: str) -> Callable[[int | None], Bot]:
    """What makes the built-in bot ``spec`` from a seed, or ``ValueError`` saying why not.

    ``spec`` is a level (``expert``), or a level with options of its class:
    ``expert:samples=96,time_budget=0.05`` (numbers, ``true``/``false``, ``none``).
    """
    level, colon, text = spec.strip().partition(":")
    factory = BUILTIN.get(level)
    if factory is None:
        raise ValueError(f"no built-in bot {level!r}; choose from {', '.join(BUILTIN)}")
    if not colon:
        return factory
    allowed = _options(factory)
    options: dict[str, object] = {}
    for item in text.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if key not in allowed:
            named = ", ".join(allowed) or "none"
            raise ValueError(f"{level} has no option {key!r}; its options: {named}")
        if not eq:
            raise ValueError(f"{level}'s option {key} needs a value: {key}=...")
        options[key] = _value(key, value)
    made = functools.partial(factory, **options)
    try:
        made(None)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{spec}: {e}") from None
    return made


def _options(factory: Callable[..., Bot]) -> list[str]:
    """The keyword options of a built-in's class: numbers and switches, never the seed."""
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    return [
        name
        for name, p in inspect.signature(factory).parameters.items()
        if p.kind in kinds and name != "seed" and _SIMPLE & set(str(p.annotation).split(" | "))
    ]


_SIMPLE = {"int", "float", "bool"}


def _value(key: str, text: str) -> object:
    lowered = text.lower()
    if lowered in ("true", "false"):
        return lowered == "true"
    if lowered == "none":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    raise ValueError(f"option {key} takes a number, true, false or none, not {text!r}")


def make_bot(spec: str, seed: int | None = None) -> Bot:
    """A fresh built-in bot: ``make_bot("greedy")``, ``make_bot("expert:samples=24", 7)``."""
    return builtin(spec)(seed)


__all__ = [
    "BUILTIN",
    "Bot",
    "CounterBot",
    "ExpertBot",
    "GreedyBot",
    "RandomBot",
    "builtin",
    "make_bot",
]
