"""A contest in stages: Swiss rounds and cuts, resumed where it stopped, the same every time."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from leastscore.tournament.pure.config import Stage

from ..support.contest import tournament

FIELD = [f"--bot=g{i}=builtin:greedy" for i in range(12)] + [
    f"--bot=r{i}=builtin:random" for i in range(12)
]
# A timeout would change the results compared: the move time is far past any move.
ROOMY = "--move-time=600"
STAGES = [
    "--stage=swiss:rounds=2,deals=1,keep=6",  # a heads-up round robin of 6 next: 30 matches
    "--stage=round_robin:deals=1,seats=2,keep=4",
    "--stage=round_robin:deals=1",
]


def contest(*extra: str) -> dict:
    done = tournament(
        *FIELD,
        *STAGES,
        ROOMY,
        "--seats=4",
        "--threshold=50",
        "--seed=5",
        "--quiet",
        *extra,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done


def test_a_three_stage_contest_of_24_cuts_resumes_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "contest"
    done = contest("--format=json", "--workers=1", f"--out={out}")
    document = json.loads(done.stdout)
    one, two, three = document["stages"]
    assert (one["kind"], len(one["entrants"]), one["rounds"]) == ("swiss", 24, 2)
    assert one["matches"] == 2 * 6 * 4  # two rounds of six full tables, four rotations each
    assert len(one["kept"]) == 6 and len(one["cut"]) == 18
    assert all("the best 6 go on" in c["why"] for c in one["cut"])
    assert two["entrants"] == one["kept"] and len(two["kept"]) == 4
    assert three["entrants"] == two["kept"] and three["cut"] == []
    assert [s["bot"] for s in document["standings"]] == sorted(
        three["entrants"], key=[s["bot"] for s in three["standings"]].index
    )
    # greedy bots are far stronger than random ones: the cuts keep greedy bots only
    assert all(name.startswith("g") for name in two["kept"])
    assert "cut:" in done.stderr
    html = (out / "report.html").read_text()
    assert "<h2>Stages</h2>" in html and "the best 6 go on" in html
    assert html.count("<th>mean place</th>") == 1 + 3  # the standings, and each stage's
    # the contest's seed, not the last stage's derived one; round 1 seated by lot
    assert document["seed"] == 5 and "Seed <b>5</b>" in html
    first_table = json.loads((out / "stage-1" / "round-1" / "tournament.json").read_text())
    assert first_table["config"]["groups"][0] != ["g0", "g1", "g2", "g3"]

    # stopped half way through stage 2: the contest resumes there, to the same end
    (out / "standings.json").unlink()
    results = out / "stage-2" / "results.jsonl"
    lines = results.read_bytes().splitlines(keepends=True)
    results.write_bytes(b"".join(lines[: len(lines) // 2]))
    shutil.rmtree(out / "stage-3")
    resumed = tournament(
        "--resume", str(out), "--quiet", "--format=json", "--workers=2", timeout=300
    )
    assert resumed.returncode == 0, resumed.stderr
    # the same seed and stages give the same contest, whatever the number of workers
    assert json.loads(resumed.stdout) == document


def test_the_table_says_each_stage_rule_and_whom_it_cut() -> None:
    field = [*FIELD[:3], *FIELD[12:15]]  # six: 15 tables of four, not 70
    done = contest_of(
        field, "--stage=round_robin:deals=1,below=0.01", "--stage=gauntlet:gauntlet=g0,deals=1"
    )
    first = next(line for line in done.stdout.splitlines() if line.startswith("stage 1"))
    assert first.endswith("cut nobody"), first


def contest_of(field: list[str], *stages: str) -> subprocess.CompletedProcess[str]:
    done = tournament(
        *field, *stages, ROOMY, "--seats=4", "--threshold=20", "--seed=5", "--quiet", timeout=300
    )
    assert done.returncode == 0, done.stderr
    return done


def test_stages_that_cannot_be_played_are_refused() -> None:
    with pytest.raises(ValueError, match="not both"):
        Stage(keep=2, below=0.2)
    with pytest.raises(ValueError, match="KEY=VALUE"):
        Stage.parse("swiss:rounds")
    done = tournament(*FIELD[:6], "--seats=4", "--stage=swiss:rounds=1")
    assert done.returncode != 0 and "multiple of 4" in done.stderr
    done = tournament(*FIELD[:8], "--seats=4", "--stage=round_robin:below=0.2", "--stage=swiss")
    assert done.returncode != 0 and "keep=" in done.stderr
