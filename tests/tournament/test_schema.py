"""The JSON standings match their documented schema."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from leastscore.tournament.pure.report import Format, StandingsDocument, json_schema
from leastscore.tournament.pure.stats import EntrantStanding, Rating

from ..support.contest import bots, program, tournament

DOC = Path(__file__).parents[2] / "TOURNAMENTS.md"


def documented() -> tuple[list[str], list[str]]:
    """The field names in TOURNAMENTS.md's two tables of the JSON standings."""
    text = DOC.read_text()
    section = text.split("## The JSON standings", 1)[1].split("\n## ", 1)[0]
    top, per_entrant = section.split("Each object of `standings`", 1)
    pattern = re.compile(r"^\| `([a-z_]+)` \|", re.MULTILINE)
    return pattern.findall(top), pattern.findall(per_entrant)


def test_the_documentation_names_every_field():
    top, per_entrant = documented()
    assert top == list(StandingsDocument.__struct_fields__)
    assert per_entrant == list(EntrantStanding.__struct_fields__)
    text = DOC.read_text()
    for name in Format.__struct_fields__ + Rating.__struct_fields__:
        assert f"`{name}`" in text, name


def test_the_json_output_matches_the_schema(tmp_path):
    done = tournament(
        *bots(a="builtin:greedy", b="builtin:random", c=program("good"), d="builtin:greedy"),
        "--seats=3",
        "--deals=1",
        "--threshold=30",
        "--rule=tie_loses=true",
        "--seed=8",
        "--workers=1",
        "--format=json",
        f"--out={tmp_path / 'run'}",
    )
    assert done.returncode == 0, done.stderr
    document = msgspec.json.decode(done.stdout, type=StandingsDocument, strict=True)
    assert document.schema == "leastscore.standings/2"
    assert document.seed == 8 and document.complete and "Bradley-Terry" in document.order
    assert sum(row.rating.elo for row in document.standings) == pytest.approx(0, abs=0.01)
    assert document.format.kind == "round_robin" and document.format.seats == 3
    assert document.format.house_rules == {"tie_loses": True}
    assert [s.rank for s in document.standings] == [1, 2, 3, 4]
    assert document.matches_played == 4 * 3 == sum(s.matches for s in document.standings) / 3
    for row in document.standings:
        low, high = row.win_rate_ci
        assert 0 <= low <= row.win_rate <= high <= 1
        assert row.rating.elo_ci is not None  # a deal for each of the four groups
        assert row.rating.elo_ci[0] <= row.rating.elo <= row.rating.elo_ci[1]
    raw = json.loads(done.stdout)
    for key in ("seed", "matches_played", "standings"):
        assert key in raw
    for row in raw["standings"]:
        assert {"bot", "matches", "wins", "win_rate", "win_rate_ci", "mean_place"} <= set(row)
        assert set(row["rating"]) == {"elo", "elo_ci"}
        assert {"timeouts", "illegal", "crashes"} <= set(row)
    assert set(raw["crosstable"]["a"]) == {"b", "c", "d"}
    meeting = raw["crosstable"]["a"]["b"]
    assert meeting["ahead"] + meeting["level"] + meeting["behind"] == meeting["matches"]
    html = (tmp_path / "run" / "report.html").read_text()
    assert "<svg" in html and "Seed <b>8</b>" in html
    csv = (tmp_path / "run" / "standings.csv").read_text().splitlines()
    assert len(csv) == 5 and csv[0].startswith("rank,bot,")


def test_the_schema_command_prints_the_json_schema():
    done = tournament("--schema")
    assert done.returncode == 0
    assert json.loads(done.stdout) == json_schema()
