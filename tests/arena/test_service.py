"""The arena's loops survive what goes wrong inside a table."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any, Literal

import pytest
from leastscore.arena import service
from leastscore.arena.book import Submission
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
    tried: list[Path] = []
    both = asyncio.Event()

    async def broken(folder: Path, config: ArenaConfig) -> None:
        tried.append(folder)
        if len(tried) == 2:
            both.set()
        raise OSError("the disk is full")

    monkeypatch.setattr(service, "judge", broken)
    arena = Arena(tmp_path, ArenaConfig())
    arena.book.invite("ann")
    first, second = arena.book.submit("ann"), arena.book.submit("ann")
    intake = asyncio.ensure_future(arena.intake())
    try:
        await asyncio.wait_for(both.wait(), 30)  # the intake writes the verdict before
        # it next waits, and only then does this test run again
    finally:
        intake.cancel()
    judged = arena.book.submission(second.id)
    assert judged.state == "rejected" and "could not judge it: the disk is full" in judged.log
    assert arena.book.submission(first.id).state == "rejected"


async def test_nothing_is_built_before_its_files_are_all_unpacked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The unpacking waits until the intake has looked at the book three times: a
    version still being unpacked must not be built by any of those looks."""
    unpacked = threading.Event()
    looked = asyncio.Event()
    judged = asyncio.Event()
    seen: list[bool] = []

    def slow_unpack(archive: bytes, folder: Path, config: ArenaConfig) -> None:
        folder.mkdir(parents=True)
        assert unpacked.wait(30)  # a large archive, until the test says it is done
        (folder / "bot.toml").write_text('run = "./bot"\n')

    async def judge(folder: Path, config: ArenaConfig) -> Verdict:
        seen.append((folder / "bot.toml").exists())
        judged.set()
        return Verdict(True, "accepted\n", "./bot")

    monkeypatch.setattr(service, "IDLE", 0.001)
    monkeypatch.setattr(service, "receive", slow_unpack)
    monkeypatch.setattr(service, "judge", judge)
    arena = Arena(tmp_path, ArenaConfig())
    arena.book.invite("ann")
    looks = 0
    submissions = arena.book.submissions

    def counted(*args: Any, **kwargs: Any) -> list[Submission]:
        nonlocal looks
        looks += 1
        if looks >= 3 and unpacked_started.is_set():
            looked.set()
        return submissions(*args, **kwargs)

    unpacked_started = asyncio.Event()
    monkeypatch.setattr(arena.book, "submissions", counted)
    intake = asyncio.ensure_future(arena.intake())
    try:
        receiving = asyncio.ensure_future(arena.receive("ann", b"an archive"))
        unpacked_started.set()
        await asyncio.wait_for(looked.wait(), 30)
        assert not seen  # three looks, nothing built
        unpacked.set()
        await receiving
        await asyncio.wait_for(judged.wait(), 30)
    finally:
        unpacked.set()
        intake.cancel()
    assert seen == [True]


def test_the_book_and_the_logs_are_the_organiser_s_alone(tmp_path: Path) -> None:
    """The book and the tables' logs hold every hand dealt; they were readable by
    every user of the machine (0644)."""
    arena = Arena(tmp_path, ArenaConfig())
    arena.book.invite("ann")
    for name in ("arena.sqlite", "arena.sqlite-wal"):
        assert (tmp_path / name).stat().st_mode & 0o077 == 0, name
    for room in ("submissions", "programs", "tables"):
        assert (tmp_path / room).stat().st_mode & 0o777 == 0o700, room


async def test_builds_run_side_by_side_but_one_author_s_in_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One build at a time kept an author waiting a minute behind another's. Now
    ``builds_at_once`` run side by side, but never two of one author's: a newer
    version's verdict must not be overtaken by an older one's."""
    started: list[str] = []
    release = asyncio.Event()
    two_at_once = asyncio.Event()

    async def slow(folder: Path, config: ArenaConfig) -> Verdict:
        started.append(f"{folder.parent.name} {folder.name}")
        if len(started) == 2:
            two_at_once.set()
        await release.wait()
        return Verdict(True, "ok\n", "./bot")

    monkeypatch.setattr(service, "judge", slow)
    monkeypatch.setattr(service, "IDLE", 0.01)
    arena = Arena(tmp_path, ArenaConfig(builds_at_once=2))
    for name in ("ann", "bo"):
        arena.book.invite(name)
    for name in ("ann", "ann", "bo"):
        arena.book.submit(name)
    intake = asyncio.ensure_future(arena.intake())
    try:
        await asyncio.wait_for(two_at_once.wait(), 30)
        assert started == ["ann v1", "bo v1"]  # not ann v2, though it waited before bo's
        for _ in range(20):
            await asyncio.sleep(0.01)
        assert len(started) == 2  # at most two at once
        release.set()
        for _ in range(1000):
            if arena.book.playing().get("ann") and arena.book.playing()["ann"].version == 2:
                break
            await asyncio.sleep(0.01)
    finally:
        intake.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await intake
    assert started == ["ann v1", "bo v1", "ann v2"]
    assert arena.book.playing()["ann"].version == 2 and arena.book.playing()["bo"].version == 1


async def test_a_built_in_level_entered_as_a_reference_is_checked_and_plays(
    tmp_path: Path,
) -> None:
    """``arena reference FOLDER greedy``: no archive to make, no token to hold; it goes
    through the same intake as any version."""
    from click.testing import CliRunner
    from leastscore.arena.cli import arena as command
    from leastscore.seats.sandbox import seal_problem

    done = CliRunner().invoke(command, ["reference", str(tmp_path), "greedy"])
    assert done.exit_code == 0, done.output
    assert "greedy entered as greedy-ref" in done.output
    again = CliRunner().invoke(command, ["reference", str(tmp_path), "greedy"])
    assert again.exit_code == 2 and "already an author" in again.output
    sandbox = "bwrap" if seal_problem() is None else "limits"
    arena = Arena(tmp_path, ArenaConfig(seats=2, check_matches=1, sandbox=sandbox))
    intake = asyncio.ensure_future(arena.intake())
    try:
        for _ in range(600):
            judged = arena.book.submissions(author="greedy-ref")[0]
            if judged.state in ("accepted", "rejected"):
                break
            await asyncio.sleep(0.1)
    finally:
        intake.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await intake
    assert judged.state == "accepted", judged.log
    assert arena.book.playing()["greedy-ref"].version == 1


class Watched(asyncio.Event):
    """An event that says when someone waits on it."""

    def __init__(self) -> None:
        super().__init__()
        self.waited = asyncio.Event()

    async def wait(self) -> Literal[True]:
        self.waited.set()
        return await super().wait()


async def test_the_intake_ends_when_cancelled_as_it_is_woken(tmp_path: Path) -> None:
    """A poke and a cancel in the same turn of the loop (a verdict written as the arena
    stops): the intake ends. ``asyncio.wait_for`` of Python 3.11 returned the wake-up
    and dropped the cancel, and the intake idled on for ever."""
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    arena.changed = watched = Watched()
    intake = asyncio.ensure_future(arena.intake())
    await watched.waited.wait()  # the intake is in its idle wait
    arena.poke()
    intake.cancel()
    with pytest.raises(asyncio.CancelledError):
        async with asyncio.timeout(5):
            await intake
