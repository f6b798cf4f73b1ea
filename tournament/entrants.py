"""Entrants: a name and where its moves come from.

    builtin:LEVEL          a built-in bot (``greedy``, ``random``, ...), in-process
    python:PATH[:CLASS]    a ``bots.Bot`` subclass from a Python file, in-process
    cmd:"COMMAND"          an external program speaking protocol v1 on stdin/stdout
    remote                 a bot that connects to the runner's server over TCP

In-process bots are created afresh for every match with a seed from the
schedule, which is what makes a tournament of them repeatable.
"""

from __future__ import annotations

import importlib.util
import inspect
import os
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import msgspec

from bots import BUILTIN, Bot

Kind = Literal["builtin", "python", "cmd", "remote"]
KINDS: tuple[Kind, ...] = ("builtin", "python", "cmd", "remote")
MAX_NAME = 40


class Entrant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: str
    spec: str
    """As written: ``builtin:greedy``, ``python:bots/mine.py:Mine``, ``cmd:"./bot -q"``."""
    base: str = "."
    """The directory a ``python:`` path is relative to and a ``cmd:`` program runs in."""

    @property
    def kind(self) -> Kind:
        return parse_spec(self.spec)[0]

    @property
    def target(self) -> str:
        """The level, the path, or the command (without its quotes)."""
        return parse_spec(self.spec)[1]

    @property
    def in_process(self) -> bool:
        return self.kind in ("builtin", "python")

    def argv(self) -> list[str]:
        """A ``cmd:`` entrant's command line."""
        argv = shlex.split(self.target)
        if not argv:
            raise ValueError(f"{self.name}: the command is empty")
        return argv


def parse_spec(spec: str) -> tuple[Kind, str]:
    """``cmd:"./x -q"`` -> ``("cmd", "./x -q")``; a ``ValueError`` says what is wrong."""
    kind, colon, target = spec.strip().partition(":")
    if kind == "remote" and not colon:
        return "remote", ""
    if kind not in KINDS or not colon:
        raise ValueError(
            f"{spec!r} is not an entrant: write builtin:LEVEL, python:PATH[:CLASS], "
            'cmd:"COMMAND" or remote'
        )
    if kind == "remote":
        raise ValueError("a remote entrant is written just 'remote' (its token is made for it)")
    target = target.strip()
    if kind == "cmd" and len(target) >= 2 and target[0] == target[-1] and target[0] in "\"'":
        target = target[1:-1]
    if not target:
        raise ValueError(f"{spec!r}: nothing after '{kind}:'")
    if kind == "builtin" and target not in BUILTIN:
        raise ValueError(f"no built-in bot {target!r}; choose from {', '.join(BUILTIN)}")
    return kind, target


def parse_entrant(text: str, base: str = ".") -> Entrant:
    """``NAME=SPEC`` (the ``--bot`` option)."""
    name, eq, spec = text.partition("=")
    if not eq:
        raise ValueError(f"{text!r}: write NAME=SPEC, for example greedy=builtin:greedy")
    return make_entrant(name, spec, base)


def make_entrant(name: str, spec: str, base: str = ".") -> Entrant:
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"{name!r}: an entrant's name is 1 to {MAX_NAME} printable characters")
    parse_spec(spec)
    return Entrant(name, spec.strip(), os.path.abspath(base))


# -- in-process bots ----------------------------------------------------------------


def python_source(entrant: Entrant) -> tuple[Path, str | None]:
    """The file and (maybe) class name of a ``python:`` entrant."""
    target = entrant.target
    path, colon, cls = target.rpartition(":")
    if not colon or not cls.isidentifier() or not path:
        path, cls = target, ""
    full = Path(entrant.base, path)
    return full, cls or None


def load_bot_class(entrant: Entrant) -> type[Bot]:
    """Import the entrant's file and find its bot class (the one ``Bot`` subclass
    the file defines, unless the spec names one)."""
    path, cls_name = python_source(entrant)
    if not path.is_file():
        raise ValueError(f"{entrant.name}: no Python file at {path}")
    module_name = f"_leastscore_entrant_{abs(hash(str(path))):x}"
    module = sys.modules.get(module_name)
    if module is None:
        spec = importlib.util.spec_from_file_location(module_name, path)
        if spec is None or spec.loader is None:
            raise ValueError(f"{entrant.name}: cannot import {path}")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            del sys.modules[module_name]
            raise ValueError(f"{entrant.name}: {path} failed to import: {e!r}") from e
    if cls_name is not None:
        found = getattr(module, cls_name, None)
        if not (isinstance(found, type) and issubclass(found, Bot)):
            raise ValueError(f"{entrant.name}: {path} has no Bot subclass {cls_name!r}")
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
        raise ValueError(
            f"{entrant.name}: {path} defines {len(defined)} Bot subclasses ({names}): "
            "name one with python:PATH:CLASS"
        )
    return defined[0]


def bot_factory(entrant: Entrant) -> Callable[[int], Bot]:
    """Makes a fresh bot for one match from a seed."""
    if entrant.kind == "builtin":
        level = BUILTIN[entrant.target]
        return lambda seed: level(seed)
    if entrant.kind != "python":
        raise ValueError(f"{entrant.name} is not an in-process bot")
    cls = load_bot_class(entrant)
    takes_seed = _accepts_seed(cls)
    return lambda seed: cls(seed=seed) if takes_seed else cls()  # type: ignore[call-arg]


def _accepts_seed(cls: type) -> bool:
    try:
        params = inspect.signature(cls).parameters
    except (TypeError, ValueError):
        return False
    return "seed" in params or any(p.kind is p.VAR_KEYWORD for p in params.values())
