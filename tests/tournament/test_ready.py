"""Every program is started and greeted before the first match: one that cannot play
stops the tournament at once, saying why in one line and showing its last words."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ..support.contest import bots, by_bot, program, stderr_lines, tournament

FAILS = (
    "import sys\n"
    "sys.stderr.write('loading the strategy\\n')\n"
    "sys.stderr.write(\"Error: Cannot find package '@msgpack/msgpack'\\n\")\n"
    "sys.exit(1)\n"
)


def contest(out: Path, spec: str, *args: str) -> tuple[int, list[str]]:
    done = tournament(
        *bots(hero="builtin:greedy", other="builtin:random", p=spec),
        "--seats=2",
        "--deals=1",
        "--seed=1",
        "--workers=1",
        "--startup-time=2",
        f"--out={out}",
        *args,
    )
    return done.returncode, stderr_lines(done)


def test_a_program_that_dies_at_once_stops_the_run_with_its_last_words(tmp_path: Path) -> None:
    script = tmp_path / "fails.py"
    script.write_text(FAILS)
    out = tmp_path / "run"
    code, lines = contest(out, f'cmd:"{sys.executable}" {script}', "--sandbox=limits")
    assert code == 1
    first, *rest = lines
    assert first.startswith("Error: the tournament stopped before its first match: p: ")
    assert "could not start" in first and "exited with code 1" in first
    assert rest == ["  loading the strategy", "  Error: Cannot find package '@msgpack/msgpack'"]
    assert not out.exists()  # nothing was played: the folder it made is gone


def test_once_fixed_the_same_command_runs(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text(FAILS)
    out = tmp_path / "run"
    spec = f'cmd:"{sys.executable}" {script}'
    assert contest(out, spec, "--sandbox=limits")[0] == 1
    script.write_text(Path(program().split()[1]).read_text())  # the good test player
    code, lines = contest(out, spec, "--sandbox=limits", "--format=json")
    assert code == 0, lines
    assert (out / "results.jsonl").read_text().count("\n") == 6


def test_a_missing_program_stops_the_run_in_one_line(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, lines = contest(out, "cmd:/nonexistent/bot --fast")
    assert code == 1
    assert lines == [
        "Error: the tournament stopped before its first match: p: no program /nonexistent/bot"
    ]
    assert not out.exists()


@pytest.mark.parametrize(
    ("mode", "words"),
    [("silent", "no hello within 2 s of starting"), ("old", "speaks protocol [99], not 1")],
)
def test_a_program_that_does_not_answer_the_greeting_stops_the_run(
    tmp_path: Path, mode: str, words: str
) -> None:
    out = tmp_path / "run"
    code, lines = contest(out, program(mode))
    assert code == 1
    assert lines[0].startswith("Error: the tournament stopped before its first match: p: ")
    assert words in lines[0]
    assert len(lines) == 2 and lines[1].startswith("  pid ") and lines[1].endswith(": started")
    assert not out.exists()


def test_a_resumed_run_is_refused_too_and_keeps_its_folder(tmp_path: Path) -> None:
    script = tmp_path / "bot.py"
    script.write_text(Path(program().split()[1]).read_text())
    out = tmp_path / "run"
    assert contest(out, f'cmd:"{sys.executable}" {script}', "--sandbox=limits")[0] == 0
    results = out / "results.jsonl"
    kept = results.read_text().splitlines(keepends=True)[:2]
    results.write_text("".join(kept))  # as if stopped after two matches
    script.write_text(FAILS)  # and the program broke since
    again = tournament("--resume", str(out))
    assert again.returncode == 1
    assert "stopped before its first match: p: could not start" in again.stderr
    assert (out / "tournament.json").exists() and results.read_text() == "".join(kept)


def test_a_contest_in_stages_is_refused_before_its_first_stage(tmp_path: Path) -> None:
    out = tmp_path / "run"
    code, lines = contest(
        out, "cmd:/nonexistent/bot", "--stage=round_robin:deals=1,keep=2", "--stage=round_robin"
    )
    assert code == 1
    assert lines[-1] == (
        "Error: the tournament stopped before its first match: p: no program /nonexistent/bot"
    )
    assert not out.exists()


def test_programs_that_answer_play_as_before(tmp_path: Path) -> None:
    code, lines = contest(tmp_path / "run", program(), "--format=json")
    assert code == 0, lines
    document = json.loads((tmp_path / "run" / "standings.json").read_text())
    assert by_bot(document)["p"]["crashes"] == 0


def test_with_unready_drop_a_broken_entrant_is_dropped_named_and_the_rest_play(
    tmp_path: Path,
) -> None:
    """An open contest: one submission dies before its hello, one never says it; both
    are dropped with their reasons, in every report, and the others play the contest."""
    dies = tmp_path / "entrants" / "dies.py"  # a folder open to the programs' user
    dies.parent.mkdir()
    dies.write_text(FAILS)
    out = tmp_path / "run"
    done = tournament(
        *bots(
            a="builtin:greedy",
            b="builtin:random",
            c=program("good"),
            dies=f'cmd:"{sys.executable}" {dies}',
            mute=program("silent"),
        ),
        "--seats=2",
        "--deals=1",
        "--seed=1",
        "--workers=1",
        "--startup-time=2",
        "--unready=drop",
        f"--out={out}",
        "--format=json",
    )
    assert done.returncode == 0, done.stderr
    said = "\n".join(stderr_lines(done))
    assert "dropped dies: could not start" in said and "dropped mute: " in said
    document = json.loads(done.stdout)
    assert sorted(by_bot(document)) == ["a", "b", "c"]
    assert document["matches_played"] == 3 * 2  # the three pairs, two rotations each
    dropped = {d["bot"]: d["why"] for d in document["dropped"]}
    assert sorted(dropped) == ["dies", "mute"]
    assert "Cannot find package" in dropped["dies"] and "hello" in dropped["mute"]
    assert json.loads((out / "standings.json").read_text())["dropped"] == document["dropped"]
    assert "Dropped before the first match" in (out / "report.html").read_text()
    stopped = tournament(
        *bots(a="builtin:greedy", dies=f'cmd:"{sys.executable}" {dies}'), "--deals=1"
    )
    assert stopped.returncode == 1 and "stopped before its first match" in stopped.stderr
    candidate = tournament(
        *bots(a="builtin:greedy", b="builtin:random", dies=f'cmd:"{sys.executable}" {dies}'),
        "--deals=1", "--gauntlet=dies", "--unready=drop",
    )  # fmt: skip
    assert candidate.returncode == 1 and "candidate dies cannot play" in candidate.stderr
