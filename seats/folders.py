"""Where an external program runs, and which folders of the machine it may see.

A contest's entrants are strangers: each one's files are its own. Every program
gets one folder, its own, that it runs in and the only part of the contest it
sees; under bubblewrap the rest of the machine is shown by an allowlist (the
system, the runtime the program runs on), never by hiding what should not be
seen, so a rival's folder or the results that nobody thought to hide stay out of
view, names included.

Which folder is a program's own: the one it is given (an entrant's ``dir``),
else the folder of the program file its command names (``node entrants/a/bot.js``
-> ``entrants/a``; ``./bot`` -> the base), else the base (the runner's working
directory, or the config file's folder). Paths in the command are made absolute,
so that the command means the same run from its own folder. All of it is pure.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from collections.abc import Sequence
from dataclasses import dataclass

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
"""What every program sees of the machine, read-only: the system and its settings."""

_INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|deno|bun|java|ruby|perl|php|lua|luajit|Rscript|julia|dotnet"
    r"|mono|sh|bash|dash|zsh|env|racket|guile|sbcl|escript|elixir|swipl|tclsh|ocaml)[0-9.]*"
)
"""Commands that run a program file named after them: never the program file themselves."""


@dataclass(frozen=True)
class Placed:
    """A command ready to run from its own folder."""

    argv: list[str]
    """The command, with the paths in it made absolute."""
    folder: str
    """Its own folder: where it runs, and all it sees of the contest."""
    named: bool
    """Whether the folder came from the command (or was given), rather than the base."""


def place(argv: Sequence[str], base: str, folder: str | None = None) -> Placed:
    """``argv`` as run from its own folder: ``folder`` when given (relative to
    ``base``), else the folder of the program file it names, else ``base``."""
    base = os.path.abspath(base)
    absolute = [_absolute(arg, base) for arg in argv]
    if folder is not None:
        return Placed(absolute, os.path.normpath(os.path.join(base, folder)), True)
    program = program_file(absolute)
    if program is None:
        return Placed(absolute, base, False)
    return Placed(absolute, os.path.dirname(program), True)


def _absolute(arg: str, base: str) -> str:
    """An argument that is a path to a file or folder relative to ``base`` (it has a
    ``/``: ``./bot``, ``entrants/a/bot.js``), made absolute; any other word stays as
    written (``node``, a module after ``-m``, ``bot.js`` in the base itself)."""
    if "/" not in arg or arg.startswith("-") or os.path.isabs(arg):
        return arg
    path = os.path.join(base, arg)
    return os.path.normpath(path) if os.path.exists(path) else arg


def program_file(argv: Sequence[str]) -> str | None:
    """The program file a command runs: itself when it is a path to one (``./bot``),
    else the first existing file among its arguments (``node bot.js``); None for a
    command that names none (``python3 -m mybot``, ``sh -c '...'``)."""
    if not argv:
        return None
    first = argv[0]
    if "/" in first and os.path.isfile(first) and not is_interpreter(first):
        return first
    for arg in argv[1:]:
        if not arg.startswith("-") and os.path.isabs(arg) and os.path.isfile(arg):
            return arg
    return None


def is_interpreter(path: str) -> bool:
    return _INTERPRETER.fullmatch(os.path.basename(path)) is not None


def runtime_of(command: str) -> str | None:
    """The folder a command needs besides the system and this runtime, when it lives
    elsewhere (``/opt/node/bin/node`` -> ``/opt/node``; a pyenv shim -> ``~/.pyenv``):
    the folder holding its ``bin``, or its own folder; never a home folder or ``/``."""
    found = command if "/" in command else shutil.which(command)
    if found is None:
        return None
    found = os.path.abspath(found)
    if any(under(found, path) for path in (*SYSTEM, *runtime())):
        return None
    where = os.path.dirname(found)
    parent = os.path.dirname(where)
    if os.path.basename(where) in ("bin", "sbin", "shims") and not _too_wide(parent):
        return parent
    return None if _too_wide(where) else where


def _too_wide(path: str) -> bool:
    """``/``, a home folder, or a folder of homes: never shown whole."""
    path = os.path.abspath(path)
    homes = {os.path.expanduser("~"), "/root", "/home"}
    return path == "/" or path in homes or os.path.dirname(path) == "/home"


def under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


@functools.cache
def runtime() -> tuple[str, ...]:
    """The folders a program needs from the runner's installation: its Python
    environment and the SDK's packages (separate folders in an editable install)."""
    import importlib.util
    import sys

    found = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    for name in ("leastscore", "leastscore.game", "leastscore.protocol", "leastscore.words",
                 "leastscore.seats", "leastscore.bots"):  # fmt: skip
        spec = importlib.util.find_spec(name)
        for where in (spec.submodule_search_locations or []) if spec is not None else []:
            found.add(os.path.realpath(where))
    return tuple(sorted(found))
