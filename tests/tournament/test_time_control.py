"""``--time-control BASE+INC``: a chess clock per match, and a loss on time as a fault."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from leastscore.game import Resigned, read_log
from leastscore.seats.core import LOST_ON_TIME, TimeControl
from leastscore.tournament.pure.config import build, dump, load, read_toml
from leastscore.tournament.pure.entrants import parse_entrant

from ..support.contest import bots, by_bot, program, tournament

TWO = [parse_entrant("a=builtin:greedy"), parse_entrant("b=builtin:random")]


def test_a_time_control_in_the_toml_file_is_read_checked_and_stored(tmp_path: Path):
    path = tmp_path / "cup.toml"
    path.write_text('seed = 1\ntime_control = " 60 + 0.50 "\n[bots]\na = "builtin:greedy"\n')
    settings, entrants, rules = read_toml(path)
    config = build(settings, [*entrants, TWO[1]], rules)
    assert config.time_control == "60+0.5"  # written the one way
    assert config.clock == TimeControl(60.0, 0.5)
    assert config.describe()["time_control"] == "60+0.5"
    assert config.describe()["move_time"] is None
    assert load(dump(config)) == config
    assert build({"seed": 1}, TWO, {}).clock is None  # by default: the per-move limit


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        ({"time_control": "5+"}, "time_control '5+': the increment is missing"),
        ({"time_control": "0+1"}, "the base must be more than 0"),
        ({"time_control": 60}, 'time_control must be a string like "60+0.5"'),
        ({"time_control": "60+1", "move_time": 2.0}, "time_control replaces move_time"),
    ],
)
def test_a_bad_time_control_setting_is_refused(settings: dict[str, object], words: str):
    with pytest.raises(ValueError, match="time_control") as caught:
        build({"seed": 1, **settings}, TWO, {})
    assert words in str(caught.value)


def test_a_bad_time_control_flag_is_one_line_that_names_it(tmp_path: Path):
    done = tournament(*bots(a="builtin:greedy", b="builtin:random"), "--time-control=5+")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("Error: --time-control '5+': the increment is missing"), line
    both = tournament(
        *bots(a="builtin:greedy", b="builtin:random"), "--time-control=5+1", "--move-time=2"
    )
    assert both.returncode != 0 and "time_control replaces move_time" in both.stderr
    resumed = tournament(f"--resume={tmp_path}", "--time-control=5+1")
    assert resumed.returncode != 0 and "drop --time-control" in resumed.stderr


def test_a_slow_program_loses_on_time_and_one_in_time_never_does(tmp_path: Path):
    # 1 s in the bank and 0.25 s more after each move. "slow" thinks 0.8 s a move:
    # 0.45 s are left for its second, and it loses on time at its second move at the
    # latest. "steady" thinks 0.02 s: its bank grows by 0.23 s a move, and greedy's
    # by nearly 0.25 s.
    out = tmp_path / "run"
    done = tournament(
        *bots(greedy="builtin:greedy", slow=program("slow", 800), steady=program("slow", 20)),
        "--gauntlet=greedy",
        "--seats=2",
        "--deals=1",
        "--threshold=15",
        "--seed=3",
        "--time-control=1+0.25",
        "--startup-time=30",
        "--workers=1",
        "--format=json",
        f"--out={out}",
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["complete"] and document["matches_played"] == 4
    assert document["format"]["time_control"] == "1+0.25"
    assert document["format"]["move_time"] is None  # no per-move limit was in force
    rows = by_bot(document)
    slow, steady, greedy = rows["slow"], rows["steady"], rows["greedy"]
    assert slow["lost_on_time"] == 2 and slow["forfeits"] == 2 and slow["wins"] == 0
    assert slow["timeouts"] == 0  # no per-move limit: out of time is a loss, not a timeout
    assert slow["crashes"] == 0  # started afresh after its loss: the runner stopped it
    for row in (steady, greedy):
        assert row["lost_on_time"] == row["timeouts"] == row["forfeits"] == 0, row
        assert row["illegal"] == row["crashes"] == 0, row
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    for result in results:
        for seat in result["seats"]:
            assert seat["lost_on_time"] == (seat["bot"] == "slow"), result
        log = read_log((out / "logs" / f"{result['fixture']:06d}.jsonl").read_bytes().splitlines())
        reasons = [(e.seat, e.reason) for e in log if isinstance(e, Resigned)]
        names = [s["bot"] for s in result["seats"]]
        assert reasons == ([(names.index("slow"), LOST_ON_TIME)] if "slow" in names else [])
    # What the programs were told: turn.time_ms is the bank (1 s at the start).
    told = " ".join(f.read_text() for f in (out / "programs").iterdir())
    assert "time_ms 1000" in told
    html = (out / "report.html").read_text()
    assert "time control 1+0.25" in html
    table = list(csv.DictReader(io.StringIO((out / "standings.csv").read_text())))
    assert {row["bot"]: row["lost_on_time"] for row in table}["slow"] == "2"
