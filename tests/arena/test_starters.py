"""The starters ``bot new`` writes go into an arena as they are: each has a ``bot.toml``;
the Python one runs on the arena's own leastscore, the C one is built by the arena in
its sandbox (no network), the JavaScript one brings its ``node_modules``."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from leastscore.bots.scaffold import new_bot

from ..support.arena import Served, contest
from ..support.cli import leastscore
from ..support.tools import NO_C, NODE, npm_ci

LANGUAGES = [
    pytest.param("python", id="python"),
    pytest.param(
        "c", marks=pytest.mark.skipif(NO_C is not None, reason=f"no C starter here: {NO_C}")
    ),
    pytest.param("js", marks=pytest.mark.skipif(NODE is None, reason="Node.js is not installed")),
]


@pytest.mark.timeout(600)
def test_the_starters_are_accepted_and_play(tmp_path: Path) -> None:
    folder = contest(tmp_path, "seats = 2\nthreshold = 30\ncheck_matches = 1\n")
    wanted = [p.values[0] for p in LANGUAGES if not any(m.args[0] for m in p.marks)]
    tokens = {}
    for lang in wanted:
        made = leastscore("arena", "invite", str(folder), f"{lang}-starter")
        tokens[lang] = made.stdout.strip()
    plain = {**os.environ, "PATH": "/usr/bin:/bin"}  # leastscore is not on it: the arena adds it
    served = Served(folder, env=plain)
    try:
        for lang in wanted:
            project = new_bot(f"{lang}-starter", lang, tmp_path)  # type: ignore[arg-type]
            if lang == "js":
                npm_ci(project)
            sent = subprocess.run(
                [sys.executable, "-m", "leastscore", "arena", "submit", served.url, str(project),
                 "--token", tokens[lang]],
                capture_output=True, text=True, timeout=400,
            )  # fmt: skip
            assert sent.returncode == 0, sent.stdout + sent.stderr
            if lang == "c":
                assert "$ make c-starter" in sent.stdout
        names = {f"{lang}-starter" for lang in wanted}
        served.wait_for(
            lambda b: (
                len(b) == len(names) and min(r["matches"] for r in b.values()) > 1
                if len(names) > 1
                else set(b) == names
            )
        )
    finally:
        served.stop()
    assert shutil.which("leastscore", path=plain["PATH"]) is None
