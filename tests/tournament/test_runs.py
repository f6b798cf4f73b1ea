"""Determinism and resume: the same tournament gives the same standings, however it ran."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from leastscore.game import read_log, replay

from ..support.cli import started
from ..support.contest import bots, gauntlet, program, tournament
from ..support.once import made_once

DEFINITION = [
    *bots(g1="builtin:greedy", g2="builtin:greedy", r1="builtin:random", r2="builtin:random"),
    "--seats=3",
    "--deals=8",
    "--threshold=50",
    "--move-time=600",  # a timeout would change the standings compared
    "--seed=77",
]
MATCHES = 4 * 3 * 8


def _uninterrupted(folder: Path) -> None:
    out = folder / "run"
    done = tournament(*DEFINITION, "--workers=1", "--format=json", f"--out={out}")
    assert done.returncode == 0, done.stderr
    assert done.stdout.encode() == (out / "standings.json").read_bytes()


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The standings of an uninterrupted run with one worker (one run for the suite)."""
    folder = made_once(tmp_path_factory, "runs-reference", _uninterrupted)
    standings = (folder / "run" / "standings.json").read_bytes()
    document = json.loads(standings)
    assert document["complete"] and document["matches_played"] == MATCHES
    assert document["seed"] == 77
    return standings


def test_one_and_two_workers_agree(reference: bytes, tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = tournament(*DEFINITION, "--workers=2", "--format=csv", f"--out={out}")
    assert done.returncode == 0, done.stderr
    assert (out / "standings.json").read_bytes() == reference
    assert done.stdout.splitlines()[0].startswith("rank,bot,matches,wins,win_rate")


def test_two_matches_on_two_workers_are_played_one_on_each(tmp_path: Path) -> None:
    """A worker takes a second match to have at hand only while one is left for every
    worker: two matches were both dealt to the first worker, one after the other, and
    the second worker sat idle (a run's tail waited the same way)."""
    out = tmp_path / "run"
    entrants = {"hero": "builtin:greedy", "p": program()}
    document = gauntlet(out, entrants, "--sandbox=none", "--workers=2")
    assert document["matches_played"] == 2
    stderr = sorted(p.name for p in (out / "programs").iterdir())
    assert stderr == ["p.worker-1.stderr", "p.worker-2.stderr"]


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_a_killed_run_resumes_to_the_same_standings(reference: bytes, tmp_path: Path) -> None:
    out = tmp_path / "run"
    process = started(
        "tournament", *DEFINITION, "--workers=2", "--format=json", f"--out={out}",
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while _lines(out / "results.jsonl") < 20 and time.monotonic() < deadline:
            assert process.poll() is None, "the run ended before it could be killed"
            time.sleep(0.01)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    stored = _lines(out / "results.jsonl")
    assert 20 <= stored < MATCHES
    assert not (out / "standings.json").exists()
    with open(out / "results.jsonl", "ab") as f:
        f.write(b'{"fixture": 95, "status": "pla')  # a line cut short, as a kill can leave
    again = tournament("--resume", str(out), "--workers=1", "--format=json")
    assert again.returncode == 0, again.stderr
    assert "already played" in again.stderr
    assert (out / "standings.json").read_bytes() == reference
    assert again.stdout.encode() == reference
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["fixture"] for r in results) == list(range(MATCHES))
    for name in ("000000.jsonl", f"{MATCHES - 1:06d}.jsonl"):
        log = read_log((out / "logs" / name).read_bytes().splitlines())
        assert replay(log) == log
    # A finished tournament resumes to the same standings, playing nothing.
    once_more = tournament("--resume", str(out), "--format=json")
    assert once_more.returncode == 0 and once_more.stdout.encode() == reference


def test_resume_refuses_a_new_definition_and_out_refuses_a_used_directory(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    first = tournament(*bots(a="builtin:greedy", b="builtin:random"), "--deals=1", f"--out={out}")
    assert first.returncode == 0, first.stderr
    again = tournament(*bots(a="builtin:greedy", b="builtin:random"), f"--out={out}")
    assert again.returncode != 0 and "already holds a tournament" in again.stderr
    changed = tournament("--resume", str(out), "--seats=3")
    assert changed.returncode != 0 and "drop --seats" in changed.stderr
    nothing = tournament("--resume", str(tmp_path))
    assert nothing.returncode != 0 and "holds no tournament" in nothing.stderr


@pytest.mark.skipif(
    not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
    reason="needs a choice of cores",
)
def test_each_worker_keeps_to_a_core_of_its_own_unless_told_not_to(tmp_path: Path) -> None:
    where = Path(__file__).parent / "where.py"
    seen: dict[str, set[str]] = {}
    for flag in ("--affinity", "--no-affinity"):
        notes = tmp_path / flag.strip("-")
        notes.mkdir()
        done = tournament(
            *bots(me=f"python:{where}:CoreNoter", g="builtin:greedy"),
            "--seats=2",
            "--deals=2",  # four matches: two workers, each with one to play at once
            "--seed=5",
            "--workers=2",
            "--move-time=120",  # the noter waits for the other worker to be up
            flag,
            "--format=json",
            env={"WHERE_DIR": str(notes), "WHERE_PROCESSES": "2"},
        )
        assert done.returncode == 0, done.stderr
        seen[flag] = {p.read_text() for p in notes.iterdir()}
    everywhere = ",".join(map(str, sorted(os.sched_getaffinity(0))))
    assert seen["--no-affinity"] == {everywhere}
    pinned = seen["--affinity"]
    assert len(pinned) == 2 and all("," not in cores for cores in pinned)  # one core each
