"""The arena's loops survive what goes wrong inside a table."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from leastscore.arena import service
from leastscore.arena.config import ArenaConfig
from leastscore.arena.intake import Verdict
from leastscore.arena.service import Arena
from leastscore.arena.tables import PlayedTable, Seated


class Failing:
    """A table slot whose table breaks (a lost worker, a fault of the arena's own)."""

    async def play(self, *args: object) -> PlayedTable:
        raise RuntimeError("the worker went away")

    async def close(self) -> None:
        return None


async def test_a_table_that_fails_is_forgotten_and_the_loop_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(service, "IDLE", 0.01)
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    seated = [Seated(1, "ann", tmp_path, "./bot"), Seated(2, "bo", tmp_path, "./bot")]
    await arena._play(Failing(), seated, seated)  # type: ignore[arg-type]
    assert arena.book.db.execute("SELECT COUNT(*) FROM tables_played").fetchone() == (0,)
    assert "table 1 failed; it is forgotten" in caplog.text


async def test_a_submission_the_arena_cannot_judge_is_rejected_and_intake_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def broken(folder: Path, config: ArenaConfig) -> None:
        raise OSError("the disk is full")

    monkeypatch.setattr(service, "judge", broken)
    arena = Arena(tmp_path, ArenaConfig())
    arena.book.invite("ann")
    first, second = arena.book.submit("ann"), arena.book.submit("ann")
    intake = asyncio.ensure_future(arena.intake())
    try:
        for _ in range(200):
            states = [s.state for s in arena.book.submissions(author="ann")]
            if states == ["rejected", "rejected"]:
                break
            await asyncio.sleep(0.01)
    finally:
        intake.cancel()
    judged = arena.book.submission(second.id)
    assert judged.state == "rejected" and "could not judge it: the disk is full" in judged.log
    assert arena.book.submission(first.id).state == "rejected"


async def test_nothing_is_built_before_its_files_are_all_unpacked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(service, "IDLE", 0.01)  # the intake looks at the book all the time

    def slow_unpack(archive: bytes, folder: Path, config: ArenaConfig) -> None:
        folder.mkdir(parents=True)
        time.sleep(0.3)  # a large archive
        (folder / "bot.toml").write_text('run = "./bot"\n')

    seen: list[bool] = []

    async def judge(folder: Path, config: ArenaConfig) -> Verdict:
        seen.append((folder / "bot.toml").exists())
        return Verdict(True, "accepted\n", "./bot")

    monkeypatch.setattr(service, "receive", slow_unpack)
    monkeypatch.setattr(service, "judge", judge)
    arena = Arena(tmp_path, ArenaConfig())
    arena.book.invite("ann")
    intake = asyncio.ensure_future(arena.intake())
    try:
        await arena.receive("ann", b"an archive")
        for _ in range(200):
            if seen:
                break
            await asyncio.sleep(0.01)
    finally:
        intake.cancel()
    assert seen == [True]
