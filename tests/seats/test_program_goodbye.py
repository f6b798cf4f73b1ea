"""A program that leaves when it is told ``bye`` did nothing wrong."""

from __future__ import annotations

import sys
from pathlib import Path

from leastscore.seats.program import ProgramSeat

PLAYER = Path(__file__).parent.parent / "programs" / "stdio_player.py"


async def test_a_program_that_exits_at_bye_has_no_problem() -> None:
    seat = ProgramSeat([sys.executable, str(PLAYER)], "player")
    await seat.start()
    await seat.close()
    assert seat.problems == []
    assert seat.failure is None
    assert not seat.lingered
