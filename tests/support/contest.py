"""Tournaments for tests: ``leastscore tournament`` in a real subprocess, where the
command, its worker processes or its programs are the point; or played in this
process, fixture after fixture, for tests of what only reads the results (the
standings, the reports, the cuts of a stage).

A tournament played here goes through the same code as in a worker (the lineup,
``play``, the store and the tally), without the processes around it: its results
are those the command gets for the same definition.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from leastscore.game import read_log, replay
from leastscore.tournament.edges.live import Counted, LiveRun, write_reports
from leastscore.tournament.pure.config import TournamentConfig, build
from leastscore.tournament.pure.entrants import parse_entrant
from leastscore.tournament.pure.results import encode_result
from leastscore.tournament.running.lineup import Lineup, contain
from leastscore.tournament.running.play import play_safely
from leastscore.tournament.running.store import Store

from .cli import PROGRAMS, ROOT, leastscore

PLAYER = PROGRAMS / "stdio_player.py"
"""The raw-frame test program, with a fault mode for each way a program can fail."""
MISBEHAVING = ROOT / "tests" / "tournament" / "misbehaving.py"
"""Python bots that raise, loop and exit."""


def tournament(
    *args: str, timeout: float = 300, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """``leastscore tournament ARGS`` to its end."""
    return leastscore("tournament", *args, timeout=timeout, env=env)


def program(mode: str = "good", n: int = 2) -> str:
    """A ``cmd:`` spec for the raw-frame test program in one of its fault modes."""
    return f'cmd:"{sys.executable}" {PLAYER} {mode} {n}'


def bots(**specs: str) -> list[str]:
    """``--bot=NAME=SPEC`` flags."""
    return [f"--bot={name}={spec}" for name, spec in specs.items()]


def by_bot(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The rows of JSON standings by entrant."""
    return {row["bot"]: row for row in document["standings"]}


def load(path: Path) -> Any:
    return json.loads(path.read_text())


ROOMY = 60.0
"""Seconds a move may take where no bot is meant to run out of time."""


def gauntlet(
    out: Path,
    entrants: dict[str, str],
    *args: str,
    move_time: float = ROOMY,
    max_faults: int = 2,
    env: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``hero`` against each other entrant over one deal, two seats, to 25 points, as
    JSON: the standings checked against what the run wrote (each fixture once, every
    played match replays), with each entrant's ``failures`` by kind, the matches'
    ``problems`` and why each ``aborted`` one ended added."""
    done = tournament(
        *bots(**entrants),
        "--gauntlet=hero",
        "--seats=2",
        "--deals=1",
        "--threshold=25",
        "--seed=4",
        f"--move-time={move_time:g}",
        "--startup-time=60",
        f"--max-faults={max_faults}",
        "--format=json",
        f"--out={out}",
        *args,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document == load(out / "standings.json")
    results = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert sorted(r["fixture"] for r in results) == list(range(document["matches_scheduled"]))
    failures: dict[str, dict[str, int]] = {}
    document["failures"] = failures  # each entrant's crashes by kind, over its matches
    for r in results:
        for seat in r["seats"]:
            kinds = failures.setdefault(seat["bot"], {})
            for kind, count in seat.get("failures", {}).items():
                kinds[kind] = kinds.get(kind, 0) + count
            assert sum(seat.get("failures", {}).values()) == seat["crashes"], seat
    for r in results:  # matches with faults replay like any other
        if r["status"] == "played":
            log = read_log((out / "logs" / f"{r['fixture']:06d}.jsonl").read_bytes().splitlines())
            assert replay(log) == log
    document["problems"] = " ".join(p for r in results for p in r["problems"])
    document["aborted"] = [r["end"] for r in results if r["status"] == "aborted"]
    return document


NO_BWRAP = "sandbox: bubblewrap not found"
"""How the notice begins that a run without bubblewrap prints first on standard error."""


def stderr_lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    """What a run said on standard error, line by line, but the sandbox's notice that
    bubblewrap is missing (a machine without it gets that line first)."""
    return [line for line in done.stderr.strip().splitlines() if not line.startswith(NO_BWRAP)]


def defined(
    entrants: Mapping[str, str], *, rules: Mapping[str, Any] | None = None, **settings: Any
) -> TournamentConfig:
    """A tournament as the command defines it from ``--bot NAME=SPEC`` and its flags
    (``seats=3``, ``deals=2``, ``stage=[...]``; the seed is 1 unless given)."""
    field = [parse_entrant(f"{name}={spec}") for name, spec in entrants.items()]
    return build({"seed": 1, **settings}, field, dict(rules or {}))


def played(config: TournamentConfig, out: Path | None = None) -> LiveRun:
    """Play every fixture of ``config`` in this process, in order, as a worker plays
    them (a sequential test stops where it decides). With ``out`` the tournament is
    stored there as the command stores it: its results, logs and reports."""
    store = Store.create(out, config) if out is not None else None
    counted = Counted(config, store, keep=True)
    results = asyncio.run(_play_all(config, store, counted))
    if store is not None:
        store.close()
    run = counted.finished(results, 0.0, False, [])
    if store is not None:
        write_reports(config, store, run)
    return run


async def _play_all(config: TournamentConfig, store: Store | None, counted: Counted) -> list[Any]:
    out = None if store is None else str(store.path)
    lineup = Lineup(
        config,
        stderr_dir=None if store is None else store.path / "programs",
        containment=contain(config, [out]),
    )
    schedule = config.schedule()
    results = []
    try:
        for index in counted.todo():
            if counted.decided():
                break
            result = await play_safely(schedule[index], config, lineup, store)
            if store is not None:
                store.append(encode_result(result))
            results.append(result)
            counted.add(result)
    finally:
        await lineup.close()
    return results
