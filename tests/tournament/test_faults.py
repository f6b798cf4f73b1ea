"""Nothing a bot does stops the tournament: every fault is counted and play goes on.

The move time is the real thing here, so it stays real, but wide: where no bot is
meant to time out it is a minute, and where one is (a program that hangs, a bot that
loops) two seconds, a thousand times what a good move takes."""

from __future__ import annotations

import os
import sys
import time

from ..support.contest import MISBEHAVING, PLAYER, by_bot, gauntlet, program

TIMING_OUT = 2.0
"""Seconds a move may take where a bot is meant to run out of time (each one costs this)."""


STARTS_TWICE = """
import os, sys
count = sys.argv[1]
starts = os.path.getsize(count) if os.path.exists(count) else 0
with open(count, "a") as f:
    f.write("x")
if starts >= 2:
    sys.exit("cannot start again: the licence ran out")
os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
"""


def test_crashing_illegal_and_garbled_programs_are_counted_and_play_goes_on(tmp_path):
    """A program that answered its greeting and then fails, even to start again, costs
    only its own matches (one that cannot start at all stops the run: see test_ready)."""
    once = tmp_path / "starts_twice.py"
    once.write_text(STARTS_TWICE)
    entrants = {
        "hero": "builtin:greedy",
        "crash": program("crash"),
        "illegal": program("illegal"),
        "garbage": program("garbage"),
        # the greeting and one more start: later starts fail
        "later": f'cmd:"{sys.executable}" {once} {tmp_path / "starts"} {PLAYER} crash 1',
    }
    # bubblewrap would give "later" a private /tmp, without its script and count
    document = gauntlet(tmp_path / "run", entrants, "--workers=2", "--sandbox=limits")
    assert document["complete"] and document["matches_played"] == 8
    rows = by_bot(document)
    assert rows["hero"]["matches"] == 8
    assert rows["hero"]["timeouts"] == rows["hero"]["illegal"] == rows["hero"]["crashes"] == 0
    assert rows["crash"]["crashes"] >= 2  # it crashed in each match, and was started again
    assert rows["garbage"]["crashes"] >= 2
    assert rows["illegal"]["illegal"] >= 2 and rows["illegal"]["timeouts"] == 0
    assert rows["later"]["crashes"] >= 2 and rows["later"]["matches"] == 2
    for words in ("crash: exited with code 3", "garbage: broke the protocol", "later: could"):
        assert words in document["problems"]
    kinds = document["failures"]  # how each one failed, not only how often
    assert set(kinds["crash"]) == {"crash"} and set(kinds["garbage"]) == {"garbled"}
    assert kinds["later"].get("start", 0) >= 1 and kinds["hero"] == {}


def test_a_hanging_program_times_out_until_it_forfeits_and_play_goes_on(tmp_path):
    entrants = {"hero": "builtin:greedy", "hang": program("hang")}
    document = gauntlet(
        tmp_path / "run", entrants, "--workers=2", move_time=TIMING_OUT, max_faults=1
    )
    assert document["complete"] and document["matches_played"] == 2
    rows = by_bot(document)
    assert rows["hero"]["matches"] == 2
    assert rows["hero"]["timeouts"] == rows["hero"]["illegal"] == rows["hero"]["crashes"] == 0
    assert rows["hang"]["timeouts"] >= 2 and rows["hang"]["forfeits"] == 2


def test_python_bots_that_raise_loop_or_exit_cost_only_their_own_matches(tmp_path):
    entrants = {
        "hero": "builtin:greedy",
        "raiser": f"python:{MISBEHAVING}:Raiser",
        "looper": f"python:{MISBEHAVING}:Looper",
        "exiter": f"python:{MISBEHAVING}:Exiter",
    }
    document = gauntlet(tmp_path / "run", entrants, "--workers=1", move_time=TIMING_OUT)
    assert document["complete"] and document["matches_scheduled"] == 6
    # The bot that took its process down cost its two matches, and only those.
    assert document["matches_aborted"] == 2 and document["matches_played"] == 4
    assert all("worker process died" in why for why in document["aborted"])
    rows = by_bot(document)
    assert rows["exiter"]["matches"] == 0 and rows["hero"]["matches"] == 4
    assert rows["raiser"]["crashes"] >= 2
    assert rows["looper"]["timeouts"] == 2  # interrupted once in each match


def test_a_worker_that_dies_takes_its_hung_programs_with_it(tmp_path):
    """A program hung on its turn does not read its stdin, so it would not notice that
    the worker that started it is gone: the runner ends it."""
    pids = tmp_path / "pids"
    pids.mkdir()
    entrants = {
        "hero": "builtin:greedy",
        "hang": program("hang", 1),
        "exiter": f"python:{MISBEHAVING}:Exiter",
    }
    document = gauntlet(
        tmp_path / "run",
        entrants,
        "--workers=1",
        "--seats=3",
        "--sandbox=limits",  # bubblewrap would keep its pid files in a private /tmp
        move_time=0.5,  # nothing here hangs on who runs out of time: it only paces the run
        env={"PLAYER_PIDS": str(pids)},
    )
    assert document["matches_aborted"] == document["matches_scheduled"] == 3
    started = [int(p.name) for p in pids.iterdir()]
    assert len(started) >= 3  # one per worker, each killed by the exiter
    deadline = time.monotonic() + 60
    while (alive := [pid for pid in started if _alive(pid)]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not alive, f"programs left running: {alive}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True
