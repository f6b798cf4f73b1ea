"""An arena table played in this process with real programs on stdio: whatever folder
the arena was started from, and with no memory carried from one seating of a deal to
the next."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from leastscore.arena.config import ArenaConfig
from leastscore.arena.tables import Seated, Tables, compress_logs, open_log
from leastscore.game import read_log
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


REMEMBERING = """import sys
from leastscore.bots import Bot, make_bot
from leastscore.bots.stdio import run_stdio
from leastscore.game import MatchStarted

class Remembering(Bot):
    def __init__(self):
        self.greedy, self.matches = make_bot("greedy"), 0
    def choose(self, view):
        return self.greedy.choose(view)
    def on_event(self, event):
        if isinstance(event, MatchStarted):
            self.matches += 1
            print("matches this process has seen:", self.matches, file=sys.stderr, flush=True)

sys.exit(run_stdio(Remembering()))
"""


async def test_no_program_remembers_one_seating_of_a_deal_at_the_next(tmp_path: Path) -> None:
    """A table plays one deal from every seat. A program that lived on from one seating
    to the next knew, by the last, every hand it had been dealt before: the hostile bot
    of a trial knew all three opponents' starting hands. Each seating now meets a
    program started afresh."""
    folders = [tmp_path / name for name in ("ann", "bo", "cy")]
    for folder in folders:
        folder.mkdir()
        (folder / "bot.py").write_text(REMEMBERING)
    run = f"{sys.executable} bot.py"
    seated = [Seated(i + 1, f.name, f, run) for i, f in enumerate(folders)]
    stderr_dir = tmp_path / "programs"
    tables = Tables(ArenaConfig(seats=3, threshold=30, move_time=5.0), stderr_dir)
    try:
        played = await tables.play(seated, seated, 11, tmp_path / "table")
    finally:
        await tables.close()
    assert len(played.matches) == 3  # the deal from each of three seats
    for folder in folders:
        said = (stderr_dir / f"{folder.name}.main.stderr").read_text().splitlines()
        seen = [line for line in said if line.startswith("matches")]
        assert seen == ["matches this process has seen: 1"] * 3, said


async def test_a_table_s_logs_are_gzipped_once_it_is_over_and_read_back_whole(
    tmp_path: Path,
) -> None:
    """Table logs reached 1.3 GB for 29k matches: each is gzipped once its table is
    over, and a replay reads it back as it was (or as it is, before that)."""
    seated = [entrant(tmp_path / "ann", 1, "ann"), entrant(tmp_path / "bo", 2, "bo")]
    tables = Tables(ArenaConfig(seats=2, threshold=30, move_time=5.0), tmp_path / "programs")
    table = tmp_path / "tables" / "1"
    try:
        await tables.play(seated, seated, 3, table)
    finally:
        await tables.close()
    before = {}
    for fixture in (0, 1):
        log = open_log(table, fixture)
        assert log is not None
        with log:
            before[fixture] = read_log(log)
    size = sum(p.stat().st_size for p in (table / "logs").iterdir())
    compress_logs(table)
    assert sorted(p.name for p in (table / "logs").iterdir()) == [
        "000000.jsonl.gz",
        "000001.jsonl.gz",
    ]
    assert sum(p.stat().st_size for p in (table / "logs").iterdir()) < size / 3
    for fixture in (0, 1):
        log = open_log(table, fixture)
        assert log is not None
        with log:
            assert read_log(log) == before[fixture]
    assert open_log(table, 2) is None


CRASHES_ONCE = """import os, sys
from leastscore.bots import Bot, make_bot
from leastscore.bots.stdio import run_stdio

class CrashesEarly(Bot):
    def __init__(self):
        self.greedy = make_bot("greedy")
    def choose(self, view):
        if view.round == 1 and view.turn < 2:
            os._exit(1)  # a crash in its first turn; started again, it plays on
        return self.greedy.choose(view)

sys.exit(run_stdio(CrashesEarly()))
"""


async def test_a_program_that_crashes_forfeits_the_match(tmp_path: Path) -> None:
    """A crash was forgiven up to five times a match, the seat playing on with automatic
    moves, and a bot that crashed rated above clean ones. In the arena one fault
    forfeits the match (``max_faults = 0``): it is placed last."""
    seated = [entrant(tmp_path / "ann", 1, "ann"), entrant(tmp_path / "bo", 2, "bo", "")]
    (tmp_path / "bo" / "bot.py").write_text(CRASHES_ONCE)
    seated[1] = Seated(2, "bo", tmp_path / "bo", f"{sys.executable} bot.py")
    tables = Tables(ArenaConfig(seats=2, threshold=50, move_time=5.0), tmp_path / "programs")
    try:
        played = await tables.play(seated, seated, 5, tmp_path / "table")
    finally:
        await tables.close()
    for _, line in played.matches:
        result = decode_result(line)
        by_bot = {seat.bot: seat for seat in result.seats}
        assert by_bot["bo"].forfeit and by_bot["bo"].place == 2, result
        assert not by_bot["ann"].forfeit and by_bot["ann"].place == 1, result
