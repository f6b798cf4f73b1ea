"""``bot replay``: the recorded transcript passes good programs and tells each fault."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from leastscore.bots.replay import replay

from ..support.cli import leastscore

PROGRAMS = Path(__file__).parent.parent / "programs"
RAW = [sys.executable, str(PROGRAMS / "stdio_player.py")]
SDK = [sys.executable, "-m", "leastscore", "bot", "run"]


@pytest.mark.parametrize(
    "command",
    [
        [*RAW, "good"],
        [*SDK, f"{PROGRAMS / 'sdk_bots.py'}:Watcher", "--stdio"],
        [*SDK, "builtin:counter", "--stdio"],
    ],
    ids=["raw frames", "an SDK bot", "a built-in"],
)
async def test_good_programs_pass(command: list[str]) -> None:
    report = await replay(command)
    assert report.passed, report.text()
    assert report.lines[0].startswith("PASS  session 1") and len(report.lines) == 2


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("twice", "session 2: round 1, turn 9: its answer says round 1, turn 7 (answered"),
        ("illegal", "session 1: round 1, turn 1: it discarded ['A"),
        ("crash", "session 1: it exited before answering round 1, turn 1"),
        ("old", "session 1: its hello lists protocol [99], without 1"),
        ("garbage", "session 1: it wrote a frame the host refuses: bad_frame"),
    ],
)
async def test_each_fault_is_told(mode: str, words: str) -> None:
    report = await replay([*RAW, mode, "1"])
    assert not report.passed
    assert words in "\n".join(report.problems), report.text()


async def test_a_program_that_never_says_hello() -> None:
    report = await replay([*RAW, "silent"], timeout=0.5)
    assert report.problems[0].startswith("session 1: no hello within 0.5 s")


def test_the_command_line() -> None:
    good = leastscore("bot", "replay", shlex.join([*RAW, "good"]))
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.rstrip().endswith("Result: passed.")
    bad = leastscore("bot", "replay", shlex.join([*RAW, "illegal", "2"]))
    assert bad.returncode == 1 and "Result: FAILED." in bad.stdout
    assert "not one of the legal groups" in bad.stderr
