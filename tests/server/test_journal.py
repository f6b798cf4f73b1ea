"""The journal: a match's events reach the database in batches while it is played."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from leastscore.game import Event, Match, Rules, replay
from leastscore.server.records.journal import Journal
from leastscore.server.records.store import VERSION, AsyncStore, MatchDatabase, StoreError

from ..support.cli import leastscore
from ..support.server import wait_for

RULES = Rules(threshold=30)


def batches(seed: int = 3) -> list[list[Event]]:
    """A whole match by greedy bots, cut as a referee publishes it: one move's events
    at a time."""
    from leastscore.bots import make_bot
    from leastscore.bots.view import BotView

    match = Match(["ann", "bo", "cy"], RULES, seed=seed)
    bots = [make_bot("greedy", seed + i) for i in range(3)]
    out = [match.start()]
    while not match.over:
        seat = match.to_move
        out.append(match.apply(seat, bots[seat].choose(BotView.of(match.view(seat)))))
    return out


def flat(parts: list[list[Event]]) -> list[Event]:
    return [e for part in parts for e in part]


def events_rows(path: Path) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute("SELECT count(*) FROM events").fetchone()[0])


async def test_events_are_written_in_batches_and_the_end_replaces_them(tmp_path: Path):
    path = tmp_path / "m.sqlite3"
    store = AsyncStore(str(path))
    journal = Journal(store, interval=3600, batch=20)  # only the batch size sets a write off
    parts = batches()
    recording = journal.begin("t", 1.0, ["ann", "bo", "cy"], RULES)
    sent = 0
    for part in parts[:40]:
        recording.add(part)
        sent += len(part)
    assert sent > 40
    reader = MatchDatabase(str(path))
    # at least every full batch is written without anyone asking
    await wait_for(lambda: len(reader.log(1) or []) >= sent - 20 and reader.log(1))
    await journal.flush()  # and the rest on demand
    assert reader.log(1) == flat(parts[:40]) and journal.written == sent
    assert reader.matches()[0].status == "running"
    assert replay(flat(parts[:40])) == flat(parts[:40])  # a stored prefix replays
    # the end: the full log is the record, and the rows written on the way are gone
    for part in parts[40:]:
        recording.add(part)
    recording.end(flat(parts), "finished")
    recording.add(parts[-1])  # too late: ignored
    await journal.close()
    record = reader.matches()[0]
    assert record.status == "finished" and record.standings and record.rounds >= 1
    assert reader.log(1) == flat(parts) and events_rows(path) == 0
    reader.close()
    store.close()


async def test_a_running_match_is_marked_interrupted_by_the_next_server(tmp_path: Path):
    path = tmp_path / "m.sqlite3"
    store = AsyncStore(str(path))
    journal = Journal(store)
    parts = batches(seed=8)
    done = journal.begin("done", 1.0, ["ann", "bo", "cy"], RULES)
    for part in parts:
        done.add(part)
    done.end(flat(parts), "finished")
    cut = journal.begin("cut", 2.0, ["ann", "bo", "cy"], RULES)
    for part in parts[:25]:
        cut.add(part)
    await journal.flush()  # (the store's thread keeps order: the finished one is written)
    store.close()  # and the server dies: nobody ends the match, its row stays running

    again = AsyncStore(str(path))
    assert again.interrupted == [2]
    again.close()
    reader = MatchDatabase(str(path))
    by_id = {r.id: r for r in reader.matches()}
    assert by_id[2].status == "interrupted" and by_id[2].table_name == "cut"
    assert by_id[2].ended >= by_id[2].started and by_id[2].rounds >= 1
    assert reader.log(2) == flat(parts[:25]) and events_rows(path) == 0
    assert by_id[1].status == "finished" and reader.log(1) == flat(parts)
    reader.close()
    assert AsyncStore(str(path)).interrupted == []  # marked once


async def test_without_a_database_a_recording_does_nothing():
    journal = Journal(None)
    recording = journal.begin("t", 1.0, ["ann", "bo"], RULES)
    recording.add(batches()[0])
    recording.end(batches()[0], "aborted")
    await journal.close()
    assert journal.written == 0


def test_the_database_is_made_readable_by_its_owner_alone(tmp_path: Path):
    """Every hand ever dealt is in it: the file 0600 (its -wal and -shm files too), each
    folder made for it 0700; a folder that was there keeps its mode."""
    tmp_path.chmod(0o755)
    path = tmp_path / "data" / "leastscore" / "matches.sqlite3"
    store = MatchDatabase(str(path))
    try:
        store.begin("t", 0.0, ["ann", "bo"], RULES)
        made = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
        assert {p.name: p.stat().st_mode & 0o777 for p in made} == {p.name: 0o600 for p in made}
    finally:
        store.close()
    for folder in (path.parent, path.parent.parent):
        assert folder.stat().st_mode & 0o777 == 0o700
    assert tmp_path.stat().st_mode & 0o777 == 0o755


def test_a_database_from_a_newer_version_is_refused_clearly(tmp_path: Path):
    path = tmp_path / "m.sqlite3"
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {VERSION + 1}")
    db.close()
    with pytest.raises(StoreError, match="newer leastscore"):
        MatchDatabase(str(path))
    for command in (["history"], ["replay", "1"], ["serve", "--port", "0"]):
        result = leastscore(*command, "--db", str(path))
        assert result.returncode != 0 and "newer leastscore" in result.stderr
        assert "Traceback" not in result.stderr


async def test_a_match_still_open_when_the_server_stops_is_aborted_and_one_never_dealt_is_dropped(
    tmp_path: Path,
):
    path = tmp_path / "m.sqlite3"
    store = AsyncStore(str(path))
    journal = Journal(store)
    parts = batches()
    cancelled = journal.begin("cancelled early", 1.0, ["ann", "bo", "cy"], RULES)
    for part in parts[:5]:
        cancelled.add(part)
    journal.begin("never dealt", 2.0, ["ann", "bo", "cy"], RULES)
    empty = journal.begin("failed at once", 3.0, ["ann", "bo", "cy"], RULES)
    empty.end([], "aborted")
    await journal.close()  # nobody ended the first two
    store.close()
    reader = MatchDatabase(str(path))
    (record,) = reader.matches()
    assert record.table_name == "cancelled early" and record.status == "aborted"
    assert reader.log(record.id) == flat(parts[:5]) and events_rows(path) == 0
    reader.close()


async def test_a_journal_that_keeps_no_aborted_match_keeps_the_finished_ones(tmp_path: Path):
    """``play --local``'s: a practice game the player quit leaves nothing in ``history``."""
    path = tmp_path / "m.sqlite3"
    store = AsyncStore(str(path))
    journal = Journal(store, keep_aborted=False)
    parts = batches()
    finished = journal.begin("played out", 1.0, ["ann", "bo", "cy"], RULES)
    quit_ = journal.begin("quit", 2.0, ["ann", "bo", "cy"], RULES)
    open_ = journal.begin("open at the end", 3.0, ["ann", "bo", "cy"], RULES)
    for part in parts[:5]:
        quit_.add(part)
        open_.add(part)
    await journal.flush()
    finished.end(flat(parts), "finished")
    quit_.end(flat(parts[:5]), "aborted")
    await journal.close()  # nobody ended the third
    store.close()
    reader = MatchDatabase(str(path))
    (record,) = reader.matches()
    assert record.table_name == "played out" and record.status == "finished"
    assert events_rows(path) == 0
    reader.close()
