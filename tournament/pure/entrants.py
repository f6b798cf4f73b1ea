"""Entrants: a name and where its moves come from.

    builtin:LEVEL[:OPTS]   a built-in bot (``greedy``, ``expert:samples=96``, ...), in-process
    python:PATH[:CLASS]    a ``bots.Bot`` subclass from a Python file, in-process
    cmd:"COMMAND"          an external program speaking protocol v1 on stdin/stdout
    remote                 a bot that connects to the runner's server over TCP

In-process bots are created afresh for every match with a seed from the
schedule, which is what makes a tournament of them repeatable.
"""

from __future__ import annotations

import os
import shlex
import string
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import msgspec
from leastscore.bots import Bot, builtin, loader
from leastscore.seats.folders import Placed, place
from leastscore.seats.limits import Limits

Kind = Literal["builtin", "python", "cmd", "remote"]
KINDS: tuple[Kind, ...] = ("builtin", "python", "cmd", "remote")
MAX_NAME = 40
MIN_TOKEN = 16
"""The shortest token an organizer may choose for a remote entrant."""
_TOKEN_CHARS = frozenset(string.ascii_letters + string.digits + "-_")


class Entrant(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One entrant as the organiser wrote it: its name, where its moves come from
    (``spec``) and the folder it may see; what a worker process needs to seat it."""

    name: str
    spec: str
    """As written: ``builtin:greedy``, ``python:bots/mine.py:Mine``, ``cmd:"./bot -q"``."""
    base: str = "."
    """The directory a ``python:`` path and a ``cmd:`` command's paths are relative to."""
    dir: str | None = None
    """A ``cmd:`` program's own folder (``[bots.NAME]``'s ``dir``), when given: where it
    runs, and all it sees of the contest. Without it, the folder of the program file
    its command names, else ``base`` (see ``seats.folders``)."""
    limits: tuple[str, ...] = ()
    """Its own limits (``NAME=VALUE``), over the tournament's."""

    @property
    def kind(self) -> Kind:
        return parse_spec(self.spec)[0]

    @property
    def target(self) -> str:
        """The level, the path, or the command (without its quotes)."""
        return parse_spec(self.spec)[1]

    @property
    def token(self) -> str | None:
        """A remote entrant's token, when the organizer chose it (``remote:TOKEN``)."""
        return (self.target or None) if self.kind == "remote" else None

    @property
    def public_spec(self) -> str:
        """The spec as reports show it: a remote entrant's token stays secret."""
        return "remote" if self.kind == "remote" else self.spec

    @property
    def in_process(self) -> bool:
        return self.kind in ("builtin", "python")

    def argv(self) -> list[str]:
        """A ``cmd:`` entrant's command line, as written."""
        argv = shlex.split(self.target)
        if not argv:
            raise ValueError(f"{self.name}: the command is empty")
        return argv

    def placed(self) -> Placed:
        """A ``cmd:`` entrant's command as it runs: from its own folder, paths absolute."""
        return place(self.argv(), self.base, self.dir)


def _quoted_whole(command: str) -> bool:
    """``"./x -q"``: quotes around the whole command (not ``'./x' '-q'``)."""
    quote = command[:1]
    return (
        quote in ("'", '"')
        and len(command) >= 2
        and command[-1] == quote
        and (quote not in command[1:-1])
    )


def parse_spec(spec: str) -> tuple[Kind, str]:
    """``cmd:"./x -q"`` -> ``("cmd", "./x -q")``; a ``ValueError`` says what is wrong."""
    kind, colon, target = spec.strip().partition(":")
    if kind == "remote" and not colon:
        return "remote", ""
    if kind not in KINDS or not colon:
        raise ValueError(
            f"{spec!r} is not an entrant: write builtin:LEVEL, python:PATH[:CLASS], "
            'cmd:"COMMAND" or remote[:TOKEN]'
        )
    target = target.strip()
    if kind == "remote":
        if len(target) < MIN_TOKEN or not set(target) <= _TOKEN_CHARS:
            raise ValueError(
                f"a remote entrant's own token is at least {MIN_TOKEN} letters, digits, "
                "'-' or '_' (or write just 'remote' and the runner makes one)"
            )
        return kind, target
    if kind == "cmd" and _quoted_whole(target):
        target = target[1:-1]
    if not target:
        raise ValueError(f"{spec!r}: nothing after '{kind}:'")
    if kind == "builtin":
        builtin(target)  # a ValueError says what is wrong
    return kind, target


def parse_entrant(text: str, base: str = ".") -> Entrant:
    """``NAME=SPEC`` (the ``--bot`` option)."""
    name, eq, spec = text.partition("=")
    if not eq:
        raise ValueError(f"{text!r}: write NAME=SPEC, for example greedy=builtin:greedy")
    return make_entrant(name, spec, base)


def make_entrant(
    name: str,
    spec: str,
    base: str = ".",
    *,
    folder: str | None = None,
    limits: Sequence[str] = (),
) -> Entrant:
    """An entrant, checked; ``folder`` (its ``dir``) and ``limits`` only for a program."""
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable():
        raise ValueError(f"{name!r}: an entrant's name is 1 to {MAX_NAME} printable characters")
    kind, _ = parse_spec(spec)
    if (folder is not None or limits) and kind != "cmd":
        raise ValueError(f"{name}: only a cmd: entrant has a dir and limits of its own")
    try:
        Limits().with_text(limits)
    except ValueError as e:
        raise ValueError(f"{name}: limits: {e}") from None
    base = os.path.abspath(base)
    where = None if folder is None else os.path.normpath(os.path.join(base, folder))
    return Entrant(name, spec.strip(), base, where, tuple(limits))


# -- in-process bots ----------------------------------------------------------------


def python_spec(entrant: Entrant) -> str:
    """The ``FILE[:CLASS]`` of a ``python:`` entrant, its file found from the entrant's base."""
    path, colon, cls = entrant.target.rpartition(":")
    if not colon or not cls.isidentifier() or not path:
        return str(Path(entrant.base, entrant.target))
    return f"{Path(entrant.base, path)}:{cls}"


def load_bot_class(entrant: Entrant) -> type[Bot]:
    """Import the entrant's file and find its bot class (the one ``Bot`` subclass
    the file defines, unless the spec names one)."""
    try:
        return loader.load_bot_class(python_spec(entrant))
    except loader.BadBotSpec as e:
        raise ValueError(f"{entrant.name}: {e}") from e


def bot_factory(entrant: Entrant) -> Callable[[int], Bot]:
    """Makes a fresh bot for one match from a seed."""
    if entrant.kind == "builtin":
        return loader.bot_factory(f"builtin:{entrant.target}")
    if entrant.kind != "python":
        raise ValueError(f"{entrant.name} is not an in-process bot")
    load_bot_class(entrant)  # its errors name the entrant
    return loader.bot_factory(python_spec(entrant))
