"""A server killed outright (kill -9) loses at most its last batch of events.

The match in progress is recorded as it is played, so a restarted server lists
it as interrupted, with its log up to the last stored event, and it replays.
"""

from __future__ import annotations

import io
import json
import signal
import sqlite3
import time
from pathlib import Path

import msgspec
from leastscore.game import Event, Match, Played, Rules, write_log
from leastscore.server.records.store import MatchDatabase

from ..support.cli import leastscore
from ..support.server import Raw, ServerProcess, raw_player, wait_for


def stored_match(db: Path, status: str) -> tuple[int, list[Event]] | None:
    """The newest match with ``status`` and its stored log so far, if there is one."""
    store = MatchDatabase(str(db))
    try:
        for record in store.matches():
            if record.status == status:
                log = store.log(record.id)
                return (record.id, log) if log is not None else None
        return None
    finally:
        store.close()


def played(log: list[Event]) -> int:
    return sum(isinstance(e, Played) for e in log)


async def play_a_short_match(port: int) -> None:
    client = await Raw.connect(port)
    await client.hello("bo", bot=True)
    client.send({"type": "create", "seats": 2, "rules": {"threshold": 15}, "id": 1})
    await client.until("ok", id=1)
    client.send({"type": "add_bot", "level": "random", "id": 2})
    end = await raw_player(client)
    assert end["type"] == "match_end"
    client.close()


async def sit_and_stall(port: int, moves: int) -> tuple[Raw, str, int]:
    """ann sits with two bots, plays ``moves`` of her turns, then stops answering: the
    match waits for her (a minute), every event before her turn already sent out.
    Returns her client, her token and the number of ``played`` events she saw."""
    ann = await Raw.connect(port)
    token = (await ann.hello("ann"))["token"]
    ann.send({"type": "create", "seats": 3, "name": "doomed", "id": 1})
    await ann.until("ok", id=1)
    for i in range(2):
        ann.send({"type": "add_bot", "level": "greedy", "id": 2 + i})
    turns = 0
    while True:
        turn = await ann.until("turn", timeout=30)
        if "hand" not in turn:
            continue
        if turns == moves:
            break
        turns += 1
        take = "deck" if turn["can_draw"] else turn["open"][0]
        ann.send({"type": "play", "discard": turn["legal"][-1], "take": take, "id": 10 + turns})
    seen = sum(msgspec.msgpack.decode(body)["type"] == "played" for body in ann.received)
    return ann, token, seen


async def test_a_killed_server_leaves_the_match_in_progress_interrupted_and_replayable(
    tmp_path: Path,
):
    db = tmp_path / "matches.sqlite3"
    served = ServerProcess("--bot-delay", "0.05", db=db)
    proc, port = served.proc, served.port
    try:
        await play_a_short_match(port)
        finished = await wait_for(lambda: stored_match(db, "finished"))
        ann, token, seen = await sit_and_stall(port, moves=4)
        assert seen >= 4
        # the events are stored as they happen: wait until all she saw is in the database
        running = await wait_for(
            lambda: (m := stored_match(db, "running")) and played(m[1]) == seen and m
        )
        proc.kill()  # SIGKILL: no handler runs, nothing is saved on the way out
        proc.wait(timeout=60)
        assert await ann.closed()
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == -signal.SIGKILL

    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA integrity_check").fetchone()[0] == "ok"

    served = ServerProcess("--bot-delay", "0.05", db=db)
    proc, port = served.proc, served.port
    try:
        # the restarted server marked the match as interrupted, its log as far as stored
        match_id, log = running
        again = stored_match(db, "interrupted")
        assert again is not None and again[0] == match_id and again[1] == log
        assert stored_match(db, "running") is None
        # its players' tokens died with the server: the match cannot be resumed
        back = await Raw.connect(port)
        back.send({"type": "hello", "protocol": [1], "name": "ann", "token": token})
        assert (await back.until("error"))["code"] == "bad_token"
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0

    history = leastscore("history", "--db", str(db))
    assert history.returncode == 0, history.stderr
    row = next(line for line in history.stdout.splitlines() if line.split()[:1] == [str(match_id)])
    assert "interrupted" in row and "doomed" in row and "ann" in row
    assert "finished" in history.stdout
    checked = leastscore("replay", str(match_id), "--db", str(db), "--check")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "Round 1" in checked.stdout and "replay check: identical" in checked.stdout
    # the finished match is as it was
    whole = leastscore("replay", str(finished[0]), "--db", str(db), "--check")
    assert whole.returncode == 0 and "replay check: identical" in whole.stdout
    assert stored_match(db, "finished") == finished


OLD_SCHEMA = """
CREATE TABLE IF NOT EXISTS matches (
    id INTEGER PRIMARY KEY,
    table_name TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL NOT NULL,
    status TEXT NOT NULL,          -- finished | aborted
    players TEXT NOT NULL,         -- JSON list of names, by seat
    rules TEXT NOT NULL,           -- JSON object of house rules that differ
    standings TEXT NOT NULL,       -- JSON list of {seat, place, score}; [] when aborted
    rounds INTEGER NOT NULL,
    log TEXT NOT NULL              -- JSON Lines, one full event a line
);
"""
"""The only table of a database written before the schema had a version number."""


def old_database(path: Path) -> list[Event]:
    """A database as the previous release wrote it, holding one finished match."""
    from leastscore.bots import make_bot
    from leastscore.bots.view import BotView

    match = Match(["old ann", "old bo"], Rules(threshold=30), seed=5)
    bots = [make_bot("greedy", 5), make_bot("greedy", 6)]
    match.start()
    while not match.over:
        seat = match.to_move
        match.apply(seat, bots[seat].choose(BotView.of(match.view(seat))))
    log = io.BytesIO()
    write_log(match.log, log)
    standings = [{"seat": s.seat, "place": s.place, "score": s.score} for s in match.standings]
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
        db.execute(
            "INSERT INTO matches (table_name, started, ended, status, players, rules,"
            " standings, rounds, log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                "before",
                time.time() - 60,
                time.time() - 30,
                "finished",
                json.dumps(["old ann", "old bo"]),
                json.dumps({"threshold": 30}),
                json.dumps(standings),
                match.round,
                log.getvalue().decode(),
            ),
        )
    db.close()
    return match.log


async def test_a_database_of_the_old_schema_is_migrated_and_keeps_its_history(tmp_path: Path):
    db = tmp_path / "matches.sqlite3"
    old_log = old_database(db)
    served = ServerProcess("--bot-delay", "0.05", db=db)
    proc, port = served.proc, served.port
    try:
        ann, _, _ = await sit_and_stall(port, moves=2)
        await wait_for(lambda: (m := stored_match(db, "running")) and played(m[1]) >= 2)
        ann.close()
    finally:
        proc.kill()
        proc.wait(timeout=60)
    with sqlite3.connect(db) as check:
        assert check.execute("PRAGMA user_version").fetchone()[0] >= 1
    history = leastscore("history", "--db", str(db))
    assert history.returncode == 0, history.stderr
    assert "old ann" in history.stdout and "1. old" in history.stdout
    assert "running" in history.stdout  # nobody has restarted the server yet
    secret = leastscore("replay", "2", "--db", str(db))  # every hand is in its log
    assert secret.returncode != 0 and "being played" in secret.stderr
    assert "Round 1" not in secret.stdout
    kept = MatchDatabase(str(db))
    assert kept.log(1) == old_log
    kept.close()
    checked = leastscore("replay", "1", "--db", str(db), "--check")
    assert checked.returncode == 0 and "replay check: identical" in checked.stdout
