"""Running ``leastscore tournament`` as a user would, in a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PLAYER = HERE.parent / "programs" / "stdio_player.py"
MISBEHAVING = HERE / "misbehaving.py"


def program(mode: str = "good", n: int = 2) -> str:
    """A ``cmd:`` spec for the raw-frame test program in one of its fault modes."""
    return f'cmd:"{sys.executable}" {PLAYER} {mode} {n}'


def tournament(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "leastscore", "tournament", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=None if env is None else {**os.environ, **env},
    )


NO_BWRAP = "sandbox: bubblewrap not found"
"""How the notice begins that a run without bubblewrap prints first on standard error."""


def stderr_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What a run said on standard error, line by line, but the sandbox's notice that
    bubblewrap is missing (a machine without it gets that line first)."""
    return [line for line in done.stderr.strip().splitlines() if not line.startswith(NO_BWRAP)]


def bots(**specs: str) -> list[str]:
    return [f"--bot={name}={spec}" for name, spec in specs.items()]


def by_bot(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {row["bot"]: row for row in document["standings"]}


def load(path: Path) -> Any:
    return json.loads(path.read_text())
