"""``cmd:`` programs: how they are written in a definition, and where their stderr goes."""

from __future__ import annotations

import sys
from pathlib import Path

from leastscore.tournament.pure.entrants import parse_entrant, parse_spec

from ..support.contest import PLAYER, bots, tournament


def test_quotes_around_a_command_are_optional() -> None:
    assert parse_spec("cmd:./mybot --fast") == parse_spec('cmd:"./mybot --fast"')
    assert parse_spec("cmd:'./mybot --fast'") == ("cmd", "./mybot --fast")
    plain = parse_entrant(f"me=cmd:{sys.executable} {PLAYER} good")
    quoted = parse_entrant(f'me=cmd:"{sys.executable}" {PLAYER} good')
    assert plain.argv() == quoted.argv() == [sys.executable, str(PLAYER), "good"]
    # Quotes inside the command quote words, as in a shell, also at its ends.
    words = parse_entrant("me=cmd:'./my bot' '--name x'").argv()
    assert words == ["./my bot", "--name x"]
    assert parse_entrant("me=cmd:\"'./my bot' --fast\"").argv() == ["./my bot", "--fast"]


def test_each_copy_of_a_program_writes_its_own_stderr_file(tmp_path: Path) -> None:
    """Two workers each start their own copy of the program: two files, one process each."""
    out = tmp_path / "run"
    done = tournament(
        *bots(raw=f"cmd:{sys.executable} {PLAYER} good", g="builtin:greedy"),
        "--seats=2",
        "--deals=6",
        "--threshold=15",
        "--workers=2",
        "--no-affinity",
        f"--out={out}",
    )
    assert done.returncode == 0, done.stderr
    files = sorted((out / "programs").iterdir())
    assert [f.name for f in files] == ["raw.worker-1.stderr", "raw.worker-2.stderr"]
    for f in files:
        lines = f.read_text().splitlines()
        pids = {line.split(":")[0] for line in lines}
        assert len(pids) == 1 and lines[0].endswith("started"), f"{f.name}: {pids}"
