"""A submission judged: its build's log as its author reads it."""

from __future__ import annotations

from pathlib import Path

from leastscore.arena.config import ArenaConfig
from leastscore.arena.intake import judge


async def test_a_failed_build_is_rejected_with_its_log_said_once(tmp_path: Path) -> None:
    """The log's first line says what holds the programs, once (it said ``sandbox:
    sandbox: ...``); then the build's command and output, then the verdict."""
    (tmp_path / "bot.toml").write_text('build = "echo compiling; exit 3"\nrun = "./bot"\n')
    verdict = await judge(tmp_path, ArenaConfig(sandbox="limits"))
    lines = verdict.log.splitlines()
    assert not verdict.accepted and verdict.run is None
    assert lines[0].startswith("sandbox: limits only") and "sandbox: sandbox" not in verdict.log
    assert lines[1:3] == ["$ echo compiling; exit 3", "compiling"], lines
    assert lines[-2:] == ["the build exited with status 3", "rejected: the build failed"]
