"""Before the first match: every entrant is there and every program answers its greeting.

One check for every way a tournament is played. The runner makes it before it
starts its worker processes; on a Dask cluster every worker makes it before
anything is played there (``cluster_worker.check_worker``). Each ``cmd:``
program is started under the run's containment, greeted (its ``hello``
answered with ``welcome``, as PROTOCOL.md's stdio section says) and sent
``bye``. One that cannot start or does not answer stops the tournament here,
with its last lines on stderr: a missing dependency must not turn into a
crash in every match. A program that passes and fails later is a fault like
any other, counted, and the tournament goes on.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Collection
from pathlib import Path

from leastscore.seats.program import greet
from leastscore.seats.sandbox import Containment

from ..pure.config import TournamentConfig
from ..pure.entrants import Entrant, load_bot_class


class NotReady(RuntimeError):
    """An entrant that cannot play: the tournament stops before its first match."""

    when = "its first match"
    """Before what it stopped (a later stage of a contest says which)."""


async def unready(
    config: TournamentConfig, containment: Containment, names: Collection[str] | None = None
) -> list[str]:
    """What stops the tournament: a line for each entrant (of ``names``, else all) that
    cannot play, with a program's last lines on stderr below it; empty when all can."""
    found = await problems(config, containment, names)
    return [f"{name}: {why}" for name, why in found.items()]


async def problems(
    config: TournamentConfig, containment: Containment, names: Collection[str] | None = None
) -> dict[str, str]:
    """Why each entrant (of ``names``, else all) that cannot play cannot, by name."""
    entrants = [e for e in config.entrants if names is None or e.name in names]
    found = await asyncio.gather(*(_problem(e, config, containment) for e in entrants))
    return {e.name: why for e, why in zip(entrants, found, strict=True) if why}


async def check(
    config: TournamentConfig, containment: Containment, names: Collection[str] | None = None
) -> None:
    """``unready``, raised as ``NotReady`` when there is anything."""
    problems = await unready(config, containment, names)
    if problems:
        raise NotReady("\n".join(problems))


async def _problem(
    entrant: Entrant, config: TournamentConfig, containment: Containment
) -> str | None:
    why = lacks(entrant)
    if why is None and entrant.kind == "cmd":
        placed = entrant.placed()
        why = await greet(
            placed.argv,
            cwd=placed.folder,
            startup_time=config.startup_time,
            containment=containment.with_limits(entrant.limits),
        )
        if why is not None:
            why = f"could not start ({entrant.spec}): {why}"
    return why


def lacks(entrant: Entrant) -> str | None:
    """What is missing for the entrant to play here (a folder, a file, a program)."""
    if entrant.kind in ("builtin", "remote"):
        return None
    if not Path(entrant.base).is_dir():
        return f"no directory {entrant.base}"
    if entrant.dir is not None and not Path(entrant.dir).is_dir():
        return f"no directory {entrant.dir} (its dir)"
    if entrant.kind == "python":
        try:
            load_bot_class(entrant)
        except ValueError as e:
            return str(e).removeprefix(f"{entrant.name}: ")
        return None
    program = entrant.argv()[0]
    if os.sep in program:
        path = Path(entrant.base, program)
        if not path.is_file():
            return f"no program {path}"
        if not os.access(path, os.X_OK):
            return f"{path} is not executable"
        return None
    if shutil.which(program) is None:
        return f"no program {program!r} on the PATH"
    return None
