"""Before the first match: every program entrant is started once and says hello.

A ``cmd:`` entrant that cannot start (a missing ``npm ci``, a typo in its command)
would otherwise "crash" in every one of its matches, and only a stderr file would
say why; here the tournament stops at once, with the program's last words.
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Sequence

from leastscore.seats.program import ProgramSeat
from leastscore.seats.seat import SeatFailed

from .entrants import Entrant

TAIL = 8
"""Lines of the program's stderr shown when it cannot start."""


class EntrantWontStart(ValueError):
    """A program entrant that did not start and say hello."""


def greet_programs(entrants: Sequence[Entrant], startup_time: float) -> None:
    """Start and greet each ``cmd:`` entrant in turn; raise ``EntrantWontStart`` for the
    first that fails, naming it, why, and the end of what it wrote to stderr."""
    for entrant in entrants:
        if entrant.kind == "cmd":
            asyncio.run(_greet(entrant, startup_time))


async def _greet(entrant: Entrant, startup_time: float) -> None:
    with tempfile.TemporaryFile() as stderr:
        seat = ProgramSeat(
            entrant.argv(), entrant.name, startup_time=startup_time, stderr=stderr, cwd=entrant.base
        )
        try:
            await seat.start()
        except SeatFailed as e:
            await seat.close(quick=True)
            stderr.seek(0)
            lines = stderr.read().decode("utf-8", "replace").rstrip().splitlines()[-TAIL:]
            said = "".join(f"\n  {line}" for line in lines) or "\n  (nothing on stderr)"
            raise EntrantWontStart(
                f"entrant {entrant.name} ({entrant.spec}) did not start: {e}; "
                f"its last words on stderr:{said}"
            ) from None
        await seat.close()
