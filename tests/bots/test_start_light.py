"""A built-in level started as a program (``leastscore bot run builtin:LEVEL --stdio``,
as the arena starts one for every match) loads what it plays with, not the program
host, the check or the searching levels."""

from __future__ import annotations

import subprocess
import sys

HEAVY = {
    "leastscore.bots.check",
    "leastscore.bots.ladder.counter",
    "leastscore.bots.ladder.expert",
    "leastscore.seats.program",
    "leastscore.seats.driver",
    "leastscore.seats.sandbox",
}


def loaded(level: str) -> set[str]:
    """The project's modules a program of ``level`` imported, given no input (it says
    hello and ends at the end of its input)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "leastscore", "bot", "run",
         f"builtin:{level}", "--stdio"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, timeout=60,
    )  # fmt: skip
    names = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    return {name for name in names if name.startswith("leastscore")}


def test_a_program_loads_neither_the_host_nor_the_searching_levels() -> None:
    """Until its first match the level is not even loaded; then only its own module."""
    mine = loaded("greedy")
    assert {"leastscore.bots.stdio", "leastscore.bots.runner"} <= mine
    assert not mine & HEAVY, sorted(mine & HEAVY)
