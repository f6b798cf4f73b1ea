"""Tables on a cluster of its own processes (``dask scheduler`` and two ``dask worker``,
each started in a working folder of its own, sharing no disk with the arena): the same
tables as local play for the same seeds, and a worker killed mid-table costs no more
than that table's first try."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import msgspec
import pytest

from ..support.arena import bot, quiet_dask, start_scheduler

pytest.importorskip("distributed", reason="clusters need Dask: pip install leastscore[cluster]")

from leastscore.arena.book import Book
from leastscore.arena.config import ArenaConfig
from leastscore.arena.standings import leaderboard
from leastscore.arena.tables import PlayedTable, Seated, Tables
from leastscore.tournament.pure.results import MatchResult, decode_result

# limits: the same with or without bubblewrap; the programs are the built-in levels
CONFIG = ArenaConfig(seats=3, threshold=50, sandbox="limits", check_matches=1)
SEEDS = (11, 12)
"""A table for each worker."""
DASK = str(Path(sys.executable).with_name("dask"))


def entrants(tmp_path: Path) -> list[Seated]:
    """Three built-in levels as programs, each seeded: the same moves every time."""
    seated = []
    for i, (name, level) in enumerate((("ann", "greedy"), ("bo", "random"), ("cy", "random"))):
        run = f"{sys.executable} -m leastscore bot run builtin:{level} --stdio --seed {i}"
        folder = bot(tmp_path / "versions" / name, None, run=run.split(" ", 1)[1])
        seated.append(Seated(i + 1, name, folder, run))
    return seated


def played(table: PlayedTable) -> list[tuple[tuple[int, ...], MatchResult]]:
    """A table's matches, all but what the clocks said (wall and CPU time)."""
    return [(seats, _timeless(decode_result(r))) for seats, r in table.matches]


def _timeless(result: MatchResult) -> MatchResult:
    seats = tuple(msgspec.structs.replace(s, cpu_seconds=0.0) for s in result.seats)
    return msgspec.structs.replace(result, seconds=0.0, seats=seats)


def standings(tables: Sequence[PlayedTable], seated: Sequence[Seated], path: Path) -> list[object]:
    """The leaderboard a book holding these tables gives."""
    book = Book.open(path)
    for e in seated:
        book.invite(e.author)
    subs = {e.author: book.submit(e.author) for e in seated}
    for e in seated:
        book.judged(subs[e.author].id, True, "", e.run)
    for seed, table in zip(SEEDS, tables, strict=True):
        table_id = book.begin_table(seed, [s.id for s in subs.values()])
        book.end_table(table_id, table.matches, {}, table.worker)
    rows = leaderboard(book.played(), book.playing(), book.authors_of())
    book.close()
    return [(r.author, round(r.rating, 9), r.matches, r.faults) for r in rows]


@pytest.fixture(scope="module")
def seated(tmp_path_factory: pytest.TempPathFactory) -> list[Seated]:
    return entrants(tmp_path_factory.mktemp("entrants"))


@pytest.fixture(scope="module")
def here(seated: list[Seated], tmp_path_factory: pytest.TempPathFactory) -> list[PlayedTable]:
    """Each seed's table played here, as the arena plays it without a cluster."""
    folder = tmp_path_factory.mktemp("here")

    async def run() -> list[PlayedTable]:
        tables = Tables(CONFIG, folder / "programs")
        try:
            return [
                await tables.play(seated, seated, seed, folder / "tables" / str(seed))
                for seed in SEEDS
            ]
        finally:
            await tables.close()

    return asyncio.run(run())


@contextlib.contextmanager
def cluster(tmp_path: Path) -> Iterator[tuple[str, dict[str, subprocess.Popen[bytes]]]]:
    """A scheduler and two workers (no nanny: a kill -9 ends the worker itself), each in
    its own working folder; the scheduler's address and the workers by name."""
    scheduler, address = start_scheduler()
    workers = {}
    try:
        for name in ("west", "east"):
            home = tmp_path / name
            home.mkdir()
            workers[name] = subprocess.Popen(
                [DASK, "worker", address, "--name", name, "--nthreads", "1", "--no-nanny",
                 "--no-dashboard", "--host", "127.0.0.1", "--local-directory", "scratch"],
                cwd=home, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=quiet_dask(),
            )  # fmt: skip
        yield address, workers
    finally:
        for process in [*workers.values(), scheduler]:
            process.kill()
            process.wait()


async def connected(stack: contextlib.AsyncExitStack, address: str) -> tuple[object, object]:
    from leastscore.arena.cluster import Shipping, connect

    client = await connect(stack, address, CONFIG)
    await client.wait_for_workers(2, timeout=120)
    return client, Shipping(client)


def started(home: Path) -> bool:
    """Whether a worker whose folder is ``home`` has begun a table's first match."""
    return any(home.rglob("leastscore-arena/tables/*/logs/*.jsonl"))


@pytest.mark.timeout(300)
def test_a_cluster_plays_the_tables_local_play_plays(
    seated: list[Seated], here: list[PlayedTable], tmp_path: Path
) -> None:
    """Each seed's table, played here and on the cluster (one slot per worker), gives the
    same matches and the same leaderboard; the workers unpacked the versions in their
    own folders, and the logs and each author's stderr came back."""
    from leastscore.arena.cluster import ClusterTables

    async def there(address: str) -> list[PlayedTable]:
        async with contextlib.AsyncExitStack() as stack:
            client, shipping = await connected(stack, address)
            slots = [
                ClusterTables(client, shipping, i % 2, tmp_path / f"there/programs/{i % 2}")  # type: ignore[arg-type]
                for i in range(len(SEEDS))
            ]
            return list(await asyncio.gather(*(
                slot.play(seated, seated, seed, tmp_path / "there/tables" / str(seed))
                for slot, seed in zip(slots, SEEDS, strict=True)
            )))  # fmt: skip

    with cluster(tmp_path) as (address, _):
        away = asyncio.run(there(address))
    assert [played(t) for t in away] == [played(t) for t in here]
    assert {t.worker for t in away} == {"west", "east"}
    book_here = standings(here, seated, tmp_path / "here.sqlite")
    assert standings(away, seated, tmp_path / "there.sqlite") == book_here
    for seed in SEEDS:
        assert len(list((tmp_path / f"there/tables/{seed}/logs").glob("*.jsonl"))) == 3
    for worker in ("west", "east"):
        assert (tmp_path / worker / "scratch").is_dir()  # its own folder, not the arena's
    for t in away:
        assert set(t.stderr) == {"ann", "bo", "cy"}


@pytest.mark.timeout(300)
def test_a_worker_killed_mid_table_loses_only_that_try(
    seated: list[Seated], here: list[PlayedTable], tmp_path: Path
) -> None:
    """``west`` is killed (-9) once its table's first match has begun: Dask plays that
    table again on ``east`` from its start with the same seed, so it comes back whole
    and as local play has it; the table ``east`` was playing is not touched."""
    from leastscore.arena.cluster import ClusterTables

    async def there(address: str, west: subprocess.Popen[bytes]) -> list[PlayedTable]:
        async with contextlib.AsyncExitStack() as stack:
            client, shipping = await connected(stack, address)
            info = client.scheduler_info()["workers"]  # type: ignore[attr-defined]
            slot = {w["name"]: i for i, w in enumerate(info[a] for a in sorted(info))}
            jobs = [
                asyncio.ensure_future(
                    ClusterTables(client, shipping, slot[name], tmp_path / "there" / name).play(  # type: ignore[arg-type]
                        seated, seated, seed, tmp_path / "there/tables" / str(seed)
                    )
                )
                for name, seed in zip(("west", "east"), SEEDS, strict=True)
            ]
            deadline = time.monotonic() + 120
            while not started(tmp_path / "west") and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            assert not jobs[0].done(), "the table was over before its worker could be killed"
            os.kill(west.pid, signal.SIGKILL)
            return list(await asyncio.gather(*jobs))

    with cluster(tmp_path) as (address, workers):
        away = asyncio.run(there(address, workers["west"]))
        assert workers["west"].wait() == -signal.SIGKILL
    assert [t.worker for t in away] == ["east", "east"]
    assert [played(t) for t in away] == [played(t) for t in here]
