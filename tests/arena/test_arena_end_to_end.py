"""An arena run as an organiser runs it: real processes, real sockets on loopback, the
sandbox the machine has. Authors submit with ``arena submit``; the leaderboard finds
the built-in levels' order; a broken version is rejected with its build log; a nosy
one sees no other submission and only its author reads what it wrote; a kill -9
loses nothing but the tables in play."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from leastscore.arena.book import Book
from leastscore.seats.sandbox import bwrap_path

from ..support.arena import Served, bot, contest, get, reference, status
from ..support.cli import leastscore

SETTINGS = "seats = 2\nthreshold = 30\nmove_time = 5.0\ntables_at_once = 2\ncheck_matches = 1\n"
NOSY = """import os, sys
here = os.getcwd()
print("neighbours:", sorted(os.listdir(os.path.dirname(here))), file=sys.stderr)
for path in ("../../greedy-ref/v1/bot.toml", "../../../arena.sqlite"):
    try:
        open(os.path.join(here, path)).read()
        print("read", path, file=sys.stderr)
    except OSError as e:
        print("could not read", path, type(e).__name__, file=sys.stderr)
try:
    open("mine.txt", "w").write("x")
    print("wrote in its folder", file=sys.stderr)
except OSError:
    print("its folder is read-only", file=sys.stderr)
sys.stderr.flush()
from leastscore.bots import make_bot
from leastscore.bots.stdio import run_stdio
sys.exit(run_stdio(make_bot("greedy")))  # and then it plays, as greedy
"""


@pytest.fixture
def arena(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    folder = tmp_path / "contest"
    folder.mkdir()
    (folder / "arena.toml").write_text(SETTINGS)
    tokens = {}
    for name in ("greedy-ref", "random-ref", "broken", "nosy"):
        made = leastscore("arena", "invite", str(folder), name)
        assert made.returncode == 0, made.stderr
        tokens[name] = made.stdout.strip()
    yield folder, tokens


@pytest.mark.timeout(600)
def test_an_arena_from_invitations_to_a_restart(
    arena: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, tokens = arena
    served = Served(folder)
    try:
        for name, level in (("greedy-ref", "greedy"), ("random-ref", "random")):
            sent = leastscore(
                "arena",
                "submit",
                served.url,
                str(reference(tmp_path / name, level)),
                "--token",
                tokens[name],
            )
            assert sent.returncode == 0, sent.stdout + sent.stderr
            assert "accepted: it plays from now on" in sent.stdout
        broken = reference(tmp_path / "broken", "greedy", "echo compiling; exit 3")
        sent = leastscore("arena", "submit", served.url, str(broken), "--token", tokens["broken"])
        assert sent.returncode == 1
        assert "compiling" in sent.stdout and "rejected: the build failed" in sent.stdout
        sent = leastscore(
            "arena",
            "submit",
            served.url,
            str(bot(tmp_path / "nosy", NOSY)),
            "--token",
            tokens["nosy"],
        )
        assert sent.returncode == 0, sent.stdout + sent.stderr
        board = served.wait_for(
            lambda b: len(b) == 3 and min(r["matches"] for r in b.values()) >= 8
        )
        assert "broken" not in board
        assert board["greedy-ref"]["rating"] > board["random-ref"]["rating"]
        assert board["nosy"]["rating"] > board["random-ref"]["rating"]
        check_the_logs(served, folder, tokens)
        again = reference(tmp_path / "random-v2", "random")
        sent = leastscore(
            "arena", "submit", served.url, str(again), "--token", tokens["random-ref"]
        )
        assert sent.returncode == 0
        served.wait_for(
            lambda b: b["random-ref"]["version"] == 2 and b["random-ref"]["matches"] >= 2
        )
        back = ("arena", "roll-back", served.url)
        refused = leastscore(*back, "3", "--token", tokens["random-ref"])
        assert refused.returncode == 1 and "no accepted version 3" in refused.stderr
        assert leastscore(*back, "1", "--token", "not-a-token").returncode == 1
        assert leastscore(*back, "1", "--token", tokens["random-ref"]).returncode == 0
        served.wait_for(lambda b: b["random-ref"]["version"] == 1)
    finally:
        served.stop()
    before = json.loads(leastscore("arena", "export", str(folder)).stdout)
    served = Served(folder)
    try:
        after = served.wait_for(
            lambda b: (
                sum(r["matches"] for r in b.values())
                > sum(r["matches"] for r in before["leaderboard"]) + 4
            )
        )
        assert set(after) == {"greedy-ref", "random-ref", "nosy"}
        kept = json.loads(leastscore("arena", "export", str(folder)).stdout)["matches"]
        assert kept[: len(before["matches"])] == before["matches"]
        out = leastscore("arena", "disqualify", str(folder), "nosy", "--why", "it peeked")
        assert out.returncode == 0, out.stderr
        served.wait_for(lambda b: set(b) == {"greedy-ref", "random-ref"})
        assert status(served.url + "/api/mine", tokens["nosy"]) == 401  # its token is void
    finally:
        served.stop()


def check_the_logs(served: Served, folder: Path, tokens: dict[str, str]) -> None:
    mine = get(served.url + "/api/mine", tokens["broken"])
    assert mine[0]["state"] == "rejected" and "exited with status 3" in mine[0]["log"]
    assert status(served.url + "/api/mine") == 401
    assert status(served.url + "/api/mine", "not-a-token") == 401
    book = Book(folder / "arena.sqlite")
    seated = dict(book.db.execute("SELECT author, MIN(table_id) FROM stderr GROUP BY author"))
    table = seated["nosy"]  # its first table: what its program said as it started
    said = get(f"{served.url}/api/stderr/{table}", tokens["nosy"]).decode()
    assert status(f"{served.url}/api/stderr/{table}") == 401
    at_table = {
        a for (a,) in book.db.execute("SELECT author FROM stderr WHERE table_id = ?", (table,))
    }
    others = [n for n in ("greedy-ref", "random-ref") if n not in at_table]
    assert others
    for name in others:  # their token opens their own logs only: nothing of theirs here
        assert status(f"{served.url}/api/stderr/{table}", tokens[name]) == 404
    if bwrap_path() is not None:
        assert "neighbours: ['v1']" in said, said
        assert "could not read ../../greedy-ref/v1/bot.toml" in said, said
        assert "could not read ../../../arena.sqlite" in said, said
        assert "its folder is read-only" in said, said
    page = get(served.url + "/").decode()
    assert "greedy-ref" in page and "nosy" in page
    assert status(served.url + "/entrant/nobody") == 404
    entrant = get(served.url + "/api/entrant/nosy")
    assert entrant["versions"] == [{"version": 1, "state": "accepted"}] and entrant["recent"]
    replay = get(f"{served.url}/api/replay/{entrant['recent'][0]['match']}")
    kinds = {step["event"]["type"] for step in replay["steps"]}
    assert {"match_start", "round_start", "played", "match_end"} <= kinds
    for step in replay["steps"]:  # a spectator's copy: no hand at the deal, no card drawn
        event = step["event"]
        assert event["type"] != "round_start" or not any(event["hands"]), event
        assert "drawn" not in event, event
    assert status(served.url + "/api/replay/999999") == 404


def test_an_arena_that_cannot_seal_programs_refuses_to_start(tmp_path: Path) -> None:
    """Without bubblewrap the arena once fell back to resource limits with a line in its
    log, and a nosy bot read a rival's files. Now it does not start, and says how to
    mend that; said knowingly, ``--sandbox limits`` starts it unsealed."""
    folder = contest(tmp_path, SETTINGS)
    no_bwrap = {**os.environ, "PATH": str(Path(sys.executable).parent)}  # nor setpriv
    done = subprocess.run(
        [sys.executable, "-m", "leastscore", "arena", "serve", str(folder), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=120,
        env=no_bwrap,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "programs cannot be sealed here: bubblewrap not found" in line, line
    assert "apt-get install bubblewrap" in line and "--sandbox limits" in line, line
    assert not (folder / "submissions").exists()
    served = Served(folder, "--sandbox", "limits", env=no_bwrap)
    try:
        assert served.said and "sandbox: limits: programs can read" in served.said[0]
        assert served.board() == {}
    finally:
        served.stop()
