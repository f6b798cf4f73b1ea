"""``FILE[:CLASS]`` -> a bot: how the command line finds a bot author's class.

The rule is the tournament's for ``python:`` entrants: the one ``Bot``
subclass the file defines, unless ``CLASS`` names one; a constructor that
takes ``seed`` gets one. ``builtin:LEVEL`` names a built-in bot.
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
from collections.abc import Callable
from pathlib import Path

from . import builtin
from .base import Bot


class BadBotSpec(ValueError):
    """The spec names no file, no class, or a file that fails to import."""


def split_spec(spec: str) -> tuple[Path, str | None]:
    """``bots/mine.py:Mine`` -> (path, "Mine"); ``bots/mine.py`` -> (path, None)."""
    path, colon, cls = spec.rpartition(":")
    if not colon or not cls.isidentifier() or not path:
        return Path(spec), None
    return Path(path), cls


def load_bot_class(spec: str) -> type[Bot]:
    path, cls_name = split_spec(spec)
    if not path.is_file():
        raise BadBotSpec(f"no Python file at {path}")
    path = path.resolve()
    module_name = f"_leastscore_bot_{path.stem}_{abs(hash(str(path))):x}"
    module = sys.modules.get(module_name)
    if module is None:
        import_spec = importlib.util.spec_from_file_location(module_name, path)
        if import_spec is None or import_spec.loader is None:
            raise BadBotSpec(f"cannot import {path}")
        module = importlib.util.module_from_spec(import_spec)
        sys.modules[module_name] = module
        if str(path.parent) not in sys.path:  # the bot may import files next to it, but
            sys.path.append(str(path.parent))  # never in place of anything installed
        try:
            import_spec.loader.exec_module(module)
        except Exception as e:
            del sys.modules[module_name]
            raise BadBotSpec(f"{path} failed to import: {type(e).__name__}: {e}") from e
    if cls_name is not None:
        found = getattr(module, cls_name, None)
        if not (isinstance(found, type) and issubclass(found, Bot)):
            raise BadBotSpec(f"{path} has no Bot subclass {cls_name!r}")
        return found
    defined = [
        obj
        for obj in vars(module).values()
        if isinstance(obj, type)
        and issubclass(obj, Bot)
        and obj is not Bot
        and obj.__module__ == module_name
    ]
    if len(defined) != 1:
        names = ", ".join(c.__name__ for c in defined) or "none"
        raise BadBotSpec(
            f"{path} defines {len(defined)} Bot subclasses ({names}): name one as FILE:CLASS"
        )
    return defined[0]


def bot_factory(spec: str) -> Callable[[int | None], Bot]:
    """Makes fresh bots from ``FILE[:CLASS]`` or ``builtin:LEVEL``, each from a seed
    (passed on when the class takes one)."""
    if spec.startswith("builtin:"):
        try:
            return builtin(spec.partition(":")[2])
        except ValueError as e:
            raise BadBotSpec(str(e)) from None
    cls = load_bot_class(spec)
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    if "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return lambda seed: cls(seed=seed)  # type: ignore[call-arg]
    return lambda seed: cls()


def load_bot(spec: str, seed: int | None = None) -> Bot:
    """A fresh bot from ``FILE[:CLASS]`` or ``builtin:LEVEL``."""
    return bot_factory(spec)(seed)
