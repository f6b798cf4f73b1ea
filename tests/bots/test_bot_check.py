"""``bot check`` passes a good bot and finds each fault planted in a broken one."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest
from leastscore.bots.check import CheckSettings, check_program

from ..support.cli import leastscore

PROGRAMS = Path(__file__).parent.parent / "programs"
SDK_BOTS = str(PROGRAMS / "sdk_bots.py")
RAW = str(PROGRAMS / "stdio_player.py")
# Limits the checked program must keep are 20 times more than a good move needs, even
# with every core busy: a fault is only what the program was made to do.
QUICK = CheckSettings(matches=1, seats=2, threshold=15, move_time=30.0, max_faults=3)
ROOMY = {"move_time": 60.0, "budget": 20.0, "startup_time": 60.0, "exit_time": 30.0}


def sdk(cls: str) -> str:
    return shlex.join(
        [sys.executable, "-m", "leastscore", "bot", "run", f"{SDK_BOTS}:{cls}", "--stdio"]
    )


def raw(mode: str, n: int = 2) -> str:
    return shlex.join([sys.executable, RAW, mode, str(n)])


async def test_a_good_bot_is_compliant() -> None:
    settings = CheckSettings(matches=2, seats=3, threshold=15, **ROOMY)
    report = await check_program(sdk("Watcher"), settings)
    assert report.compliant, report.text()
    text = report.text()
    assert text.count("PASS") == 3 and 'name "watcher"' in text
    assert "protocol [1]" in text and text.endswith("Result: compliant.")
    assert [m.seat for m in report.matches] == [0, 1]
    assert report.move_times and not report.warnings


async def test_a_raw_frame_program_is_compliant_too() -> None:
    report = await check_program(raw("good"), QUICK)
    assert report.compliant, report.text()


async def test_a_program_that_stays_on_after_bye_is_killed_and_warned_about() -> None:
    settings = CheckSettings(matches=1, seats=2, threshold=15, move_time=30.0, exit_time=0.2)
    report = await check_program(raw("stubborn"), settings)
    assert report.compliant, report.text()  # a warning, not a problem
    assert report.warnings == [
        "it did not exit within 0.2 s of bye and a closed stdin: it was killed"
    ]
    assert "Warnings (1):" in report.text()


PLANTED = [
    # (what is planted, the command, settings, words the report must say)
    ("raises", sdk("Raiser"), QUICK, ["crashed and was restarted", "ZeroDivisionError: planted"]),
    ("hangs", sdk("Hanger"), CheckSettings(matches=1, seats=2, threshold=15, move_time=0.5),
     ["got no answer within the 0.5 s limit"]),
    ("slow", sdk("Slowpoke"), CheckSettings(matches=1, seats=2, threshold=10, budget=0.1),
     ["slower than the 0.1 s budget"]),
    ("illegal", sdk("Cheater"), QUICK, ["1 illegal move", "is not in your hand"]),
    ("not a move", sdk("Liar"), QUICK, ["crashed", "return a Play or a Declare"]),
    ("garbage", raw("garbage"), QUICK, ["not a protocol frame", "bad_frame"]),
    ("crash", raw("crash"), QUICK, ["crashed and was restarted", "exited with code 3"]),
    ("bad card", raw("illegal"), QUICK, ["illegal move"]),
    ("no hello", raw("silent"), CheckSettings(startup_time=0.5),
     ["no hello within 0.5 s", "must be a hello frame"]),
    ("wrong version", raw("old"), QUICK, ["speaks protocol [99], not 1", "list 1 in hello"]),
    ("cannot start", "/nonexistent/bot --fast", QUICK, ["cannot start /nonexistent/bot"]),
]  # fmt: skip


@pytest.mark.parametrize(
    ("planted", "command", "settings", "words"), PLANTED, ids=[p[0] for p in PLANTED]
)
async def test_each_planted_fault_is_found_and_told_plainly(
    planted: str, command: str, settings: CheckSettings, words: list[str]
) -> None:
    report = await check_program(command, settings)
    text = report.text()
    assert not report.compliant, text
    for w in words:
        assert w in text, f"{planted}: {w!r} missing from\n{text}"
    assert "Result: NOT compliant" in text


def test_the_command_line_exit_status_says_compliant_or_not() -> None:
    roomy = ["--move-time", "60", "--budget", "20", "--startup-time", "60"]
    good = leastscore("bot", "check", sdk("Watcher"), "--matches", "1", "--threshold", "15", *roomy)
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stdout.startswith("Checking ") and "Result: compliant." in good.stdout
    bad = leastscore(
        "bot",
        "check",
        sdk("Cheater"),
        "--matches",
        "1",
        "--threshold",
        "15",
        "--against",
        "random",
        *roomy,
    )
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "illegal move" in bad.stdout and "against random" in bad.stdout
