"""A program entrant that cannot start stops the tournament before its first match,
with the program's last words (not 60 "crashed" matches and a stderr file)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path


def test_a_program_that_cannot_start_stops_the_tournament_with_its_stderr(tmp_path: Path):
    broken = tmp_path / "broken.py"
    broken.write_text(
        "import sys\nprint('Error: Cannot find package @msgpack/msgpack', file=sys.stderr)\n"
        "sys.exit(1)\n"
    )
    command = shlex.join([sys.executable, str(broken)])
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "leastscore",
            "tournament",
            "--bot",
            "random=builtin:random",
            "--bot",
            f"broken=cmd:{command}",
            "--seats",
            "2",
            "--deals",
            "1",
            "--seed",
            "1",
            "--out",
            str(tmp_path / "run"),
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode != 0
    assert "entrant broken" in out.stderr and "did not start" in out.stderr, out.stderr
    assert "Cannot find package @msgpack/msgpack" in out.stderr
    assert not (tmp_path / "run").exists()  # nothing was played or stored


def test_programs_that_start_are_greeted_and_the_tournament_runs(tmp_path: Path):
    bot = Path(__file__).resolve().parents[1] / "programs" / "sdk_bots.py"
    command = shlex.join([sys.executable, "-m", "leastscore", "bot", "run", f"{bot}:Watcher"])
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "leastscore",
            "tournament",
            "--bot",
            "random=builtin:random",
            "--bot",
            f"watcher=cmd:{command} --stdio",
            "--seats",
            "2",
            "--deals",
            "1",
            "--threshold",
            "20",
            "--seed",
            "1",
            "-q",
            "--workers",
            "1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert out.returncode == 0, out.stderr
    assert "2/2 matches" in out.stdout
