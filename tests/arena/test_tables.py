"""An arena table played in this process with real programs on stdio: whatever folder
the arena was started from, and with no memory carried from one seating of a deal to
the next."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from leastscore.arena.config import ArenaConfig
from leastscore.arena.tables import Seated, Tables
from leastscore.tournament.pure.results import decode_result

GREEDY = f"{sys.executable} -m leastscore bot run builtin:greedy --stdio"


def entrant(folder: Path, submission: int, author: str, run: str = GREEDY) -> Seated:
    folder.mkdir(parents=True)
    return Seated(submission, author, folder, run)


async def test_a_table_plays_from_a_folder_named_relative_to_where_it_started(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``arena serve contest/``: each version's folder is ``contest/submissions/...``,
    relative; it once was joined onto itself, no program started and every seat was
    charged a fault in matches with no moves."""
    monkeypatch.chdir(tmp_path)
    seated = [
        entrant(Path("contest/submissions/ann/v1"), 1, "ann"),
        entrant(Path("contest/submissions/bo/v1"), 2, "bo"),
    ]
    tables = Tables(ArenaConfig(seats=2, threshold=30, move_time=5.0), Path("contest/programs/0"))
    try:
        played = await tables.play(seated, seated, 7, Path("contest/tables/1"))
    finally:
        await tables.close()
    assert len(played.matches) == 2  # the deal from both seats
    for _, line in played.matches:
        result = decode_result(line)
        assert result.moves > 0 and not result.problems, result
        assert all(not seat.faults and not seat.crashes for seat in result.seats), result
