"""``tournament --web``: once the run is over its final report stays served, at the
same address, until Ctrl-C (a page on the wall does not go blank the moment it is
complete)."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

from ..support.cli import started
from ..support.contest import bots


def read_until(proc: subprocess.Popen[str], pattern: str) -> re.Match[str]:
    """Read standard error line by line until ``pattern`` is found (the run ends the
    wait: a process that exits first fails the test)."""
    assert proc.stderr is not None
    said = []
    while line := proc.stderr.readline():
        said.append(line)
        found = re.search(pattern, line)
        if found:
            return found
    raise AssertionError(f"{pattern!r} never came; it said:\n{''.join(said)}")


def test_the_final_report_stays_served_until_ctrl_c(tmp_path: Path) -> None:
    out = tmp_path / "run"
    proc = started(
        "tournament", *bots(a="builtin:greedy", b="builtin:random"),
        "--seats=2", "--deals=2", "--seed=3", "--workers=1", "--web=127.0.0.1:0",
        "--quiet", f"--out={out}",
        stdout=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        live = read_until(proc, r"the tournament live at (http://127\.0\.0\.1:\d+/)").group(1)
        final = read_until(proc, r"the final standings stay at (\S+) until Ctrl-C").group(1)
        assert final == live
        with urllib.request.urlopen(final, timeout=30) as page:
            assert page.status == 200 and "<progress" not in page.read().decode()
        with urllib.request.urlopen(final + "standings.json", timeout=30) as served:
            assert json.load(served) == json.loads((out / "standings.json").read_text())
        assert proc.poll() is None
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
