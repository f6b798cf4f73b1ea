"""Players that are programs: the built-in ladder and the SDK bot authors use."""

from __future__ import annotations

import functools
import importlib
import inspect
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from .base import Bot

if TYPE_CHECKING:
    from .ladder.counter import CounterBot
    from .ladder.expert import ExpertBot
    from .ladder.greedy import GreedyBot
    from .ladder.random_bot import RandomBot

_LADDER = {
    "random": ("random_bot", "RandomBot"),
    "greedy": ("greedy", "GreedyBot"),
    "counter": ("counter", "CounterBot"),
    "expert": ("expert", "ExpertBot"),
}
"""Each built-in level's module in ``bots.ladder`` and its class, weakest first."""


class Levels(Mapping[str, Callable[[int | None], Bot]]):
    """The built-in levels by name, each class imported when it is first asked for.

    Why: a program started as ``leastscore bot run builtin:greedy --stdio`` (the
    arena starts one for every match) should not pay for loading the searching
    levels it does not play.
    """

    def __getitem__(self, level: str) -> Callable[[int | None], Bot]:
        module, name = _LADDER[level]
        made: Callable[[int | None], Bot] = getattr(
            importlib.import_module(f".ladder.{module}", __name__), name
        )
        return made

    def __iter__(self) -> Iterator[str]:
        return iter(_LADDER)

    def __len__(self) -> int:
        return len(_LADDER)


BUILTIN = Levels()
"""The built-in levels: ``BUILTIN["greedy"]`` is the class, called with a seed."""


def __getattr__(name: str) -> Any:
    """``CounterBot`` and the other level classes, imported on first use."""
    for level, (_, cls) in _LADDER.items():
        if cls == name:
            return BUILTIN[level]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def builtin(spec: str) -> Callable[[int | None], Bot]:
    """What makes the built-in bot ``spec`` from a seed, or ``ValueError`` saying why not.

    ``spec`` is a level (``expert``), or a level with options of its class:
    ``expert:samples=96,time_budget=0.05`` (numbers, ``true``/``false``, ``none``).
    """
    return build(*parse_spec(spec))


def build(level: str, options: dict[str, object]) -> Callable[[int | None], Bot]:
    """What makes a bot of ``level`` with ``options`` (as ``parse_spec`` reads them)."""
    factory = BUILTIN[level]
    if not options:
        return factory
    made = functools.partial(factory, **options)
    try:
        made(None)
    except (TypeError, ValueError) as e:
        named = ",".join(f"{k}={v}" for k, v in options.items())
        raise ValueError(f"{level}:{named}: {e}") from None
    return made


def parse_spec(spec: str) -> tuple[str, dict[str, object]]:
    """A built-in's level and options, read from ``spec``; ``ValueError`` saying why not."""
    level, colon, text = spec.strip().partition(":")
    factory = BUILTIN.get(level)
    if factory is None:
        raise ValueError(f"no built-in bot {level!r}; choose from {', '.join(BUILTIN)}")
    options: dict[str, object] = {}
    if not colon:
        return level, options
    allowed = bot_options(level)
    for item in text.split(","):
        key, eq, value = (part.strip() for part in item.partition("="))
        if key not in allowed:
            named = ", ".join(allowed) or "none"
            raise ValueError(f"{level} has no option {key!r}; its options: {named}")
        if not eq:
            raise ValueError(f"{level}'s option {key} needs a value: {key}=...")
        options[key] = _value(key, value)
    return level, options


def bot_options(level: str) -> list[str]:
    """The options a built-in level takes (``expert``: samples, time_budget, ...)."""
    return _options(BUILTIN[level])


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
    "bot_options",
    "build",
    "builtin",
    "make_bot",
    "parse_spec",
]
