"""How many events a second the match database takes, and what batching buys.

    python -m bench.store [--tables 50] [--events 60000]

The events are real: 4-seat matches of greedy bots, cut the way a referee
publishes them (one move's events at a time), from ``--tables`` matches played
side by side. Three ways to write them to a fresh SQLite file (WAL, as the
server opens it):

- ``per_move``: one transaction per move, the way a journal without batching
  would write;
- ``batched``: the store's thread alone, one transaction per 0.1 s worth of
  moves from every table (``--batch`` events);
- ``journal``: the server's path end to end: an asyncio loop hands every move to
  ``Journal`` (interval 0.1 s, one write at a time, on the store's thread) as
  fast as it can, and each match that ends to ``Recording.end`` (its full
  record; the rows written on the way are deleted), then waits for the last
  write. ``loop_us_per_event`` is the loop's own time in ``add`` and ``end``;
  ``cpu_us_per_event`` the whole process's CPU (both threads) per event.

Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import click
from leastscore.bots import make_bot
from leastscore.game import Event, Match, Rules
from leastscore.server.records.journal import Journal
from leastscore.server.records.store import AsyncStore, Batch, MatchDatabase

RULES = Rules()
NAMES = ["ann", "bo", "cy", "di"]


Move = tuple[int, list[Event], list[Event] | None]
"""(table, one move's events, the match's full log when this move ended it)."""


def moves(tables: int, events: int) -> list[Move]:
    """The tables' moves interleaved, ``events`` in all; a table whose match ends
    starts another."""
    streams = [_match(seed) for seed in range(tables)]
    out: list[Move] = []
    count = 0
    next_seed = tables
    while count < events:
        for table, stream in enumerate(streams):
            part, log = next(stream, (None, None))
            if part is None:
                streams[table] = stream = _match(next_seed)
                next_seed += 1
                part, log = next(stream)
            out.append((table, part, log))
            count += len(part)
    return out


def _match(seed: int) -> Iterator[tuple[list[Event], list[Event] | None]]:
    match = Match(NAMES, RULES, seed=seed)
    bots = [make_bot("greedy", seed + i) for i in range(4)]
    yield match.start(), None
    while not match.over:
        seat = match.to_move
        part = match.apply(seat, bots[seat].choose(match.view(seat)))  # type: ignore[arg-type]
        yield part, list(match.log) if match.over else None


def direct(path: Path, parts: list[Move], batch: int) -> float:
    """Seconds to write ``parts`` with one transaction per ``batch`` events (a move's
    events are never split)."""
    store = MatchDatabase(str(path))
    ids = [store.begin(f"t{t}", 0.0, NAMES, RULES) for t in range(max(p[0] for p in parts) + 1)]
    seqs = [0] * len(ids)
    started = time.perf_counter()
    pending: list[Batch] = []
    waiting = 0
    for table, events, _ in parts:
        pending.append((ids[table], seqs[table], 0.0, events))
        seqs[table] += len(events)
        waiting += len(events)
        if waiting >= batch:
            store.append(pending)
            pending, waiting = [], 0
    if pending:
        store.append(pending)
    elapsed = time.perf_counter() - started
    store.close()
    return elapsed


async def through_journal(path: Path, parts: list[Move]) -> tuple[float, float, int]:
    """Seconds until every move handed to a ``Journal`` is committed and every ended
    match recorded, the loop's own seconds in ``add`` and ``end``, and the number of
    events written on the way."""
    store = AsyncStore(str(path))
    journal = Journal(store)
    recordings = [
        journal.begin(f"t{t}", 0.0, NAMES, RULES) for t in range(max(p[0] for p in parts) + 1)
    ]
    clock = time.perf_counter
    in_add = 0.0
    started = clock()
    for i, (table, events, log) in enumerate(parts):
        before = clock()
        recordings[table].add(events)
        if log is not None:  # the match is over: its record, and the table's next match
            recordings[table].end(log, "finished")
            recordings[table] = journal.begin(f"t{table}", 0.0, NAMES, RULES)
        in_add += clock() - before
        if i % 50 == 0:
            await asyncio.sleep(0)  # let the loop run its callbacks, as a server's would
    await journal.close()
    elapsed = clock() - started
    written = journal.written
    store.close()
    return elapsed, in_add, written


@click.command()
@click.option("--tables", default=50, show_default=True, help="Matches played side by side.")
@click.option("--events", default=60_000, show_default=True, help="Events to write.")
@click.option("--batch", default=1500, show_default=True, help="Events a batched transaction.")
def main(tables: int, events: int, batch: int) -> None:
    parts = moves(tables, events)
    total = sum(len(p[1]) for p in parts)
    ended = sum(p[2] is not None for p in parts)
    with tempfile.TemporaryDirectory() as tmp:
        per_move = direct(Path(tmp) / "per_move.sqlite3", parts, 1)
        batched = direct(Path(tmp) / "batched.sqlite3", parts, batch)
        cpu = time.process_time()
        seconds, in_add, written = asyncio.run(through_journal(Path(tmp) / "j.sqlite3", parts))
        cpu = time.process_time() - cpu
    assert written <= total
    result = {
        "bench": "store",
        "tables": tables,
        "events": total,
        "moves": len(parts),
        "matches_ended": ended,
        "per_move_events_per_s": round(total / per_move),
        "batched_events_per_s": round(total / batched),
        "batch": batch,
        "journal_events_per_s": round(total / seconds),
        "journal_written": written,
        "loop_us_per_event": round(in_add / total * 1e6, 2),
        "cpu_us_per_event": round(cpu / total * 1e6, 2),
    }
    click.echo(
        f"{total:,} events ({len(parts):,} moves at {tables} tables, {ended} matches ended): "
        f"a transaction per move {result['per_move_events_per_s']:,} events/s; "
        f"batches of {batch} {result['batched_events_per_s']:,} events/s; "
        f"through the journal {result['journal_events_per_s']:,} events/s, "
        f"{result['loop_us_per_event']} us of the loop and "
        f"{result['cpu_us_per_event']} us of CPU per event"
    )
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
