"""Arena tables on a Dask cluster (``arena serve --cluster local:N`` or ``tcp://HOST:PORT``).

Imported only when a cluster is asked for (it needs ``distributed``). Workers share
no disk with the arena: each accepted version's folder, as the arena built it, is
packed once and held on the cluster (``Shipping``) while the version plays; a worker
unpacks it the first time it seats that version, into a folder of its own named by
what it holds (``versions/HASH``, ``upload.content_hash``), and its programs run from
there under the worker's sandbox. Keyed by content, an identical build sent again is
neither packed nor shipped twice, and no worker can mistake one version for another
(two arenas' submission 1, say). A table's match logs, each author's standard error
and the name of the worker that played it come back with its result, and the arena
keeps them where it keeps its own tables'.

Each table slot is played on one worker, the same one each time where it can be,
so that the slot's programs live on between tables there as they do in the arena's
own process; if that worker goes, the slot moves to another and starts its
programs again.

What Dask does when a worker dies mid-table (kill -9, a lost machine): the scheduler
runs the task again on another worker, from the start, with the same seed (at most
``distributed.scheduler.allowed-failures`` times, 3 by default, then
``KilledWorker``). Nothing of the first try comes back (it died with its worker), so
the table is recorded once, whole, as the second try played it. A table whose every
copy of some version's archive was lost with the workers that held it, or that killed
too many workers, fails with ``WorkerLost``: it is forgotten, no entrant is charged for
it, and the archives are shipped again. A program that misbehaves is another thing:
its worker lives, the referee charges the program's seat a fault in the match's
result, and the table is recorded as played.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from distributed import Client, Future, KilledWorker, WorkerPlugin, get_worker
from distributed.client import FutureCancelledError
from leastscore.seats.loop import LoopThread
from leastscore.seats.sandbox import hand_over, programs_user, seal_problem

from leastscore.about import VERSION

from .config import ArenaConfig, NoCluster
from .tables import PlayedTable, Seated, Tables, WorkerLost, stderr_file, stderr_slice
from .upload import content_hash, pack_built, unpack_built

PLUGIN = "leastscore-arena"
CLOSE_TIME = 30.0


@dataclass(frozen=True)
class ShippedTable:
    """A table played on a worker, as it travels back: each match's seats and result,
    the table's files (match logs, by their path in the table's folder) and what each
    author's program wrote to stderr during it, and the worker that played it."""

    matches: list[tuple[tuple[int, ...], bytes]]
    files: dict[str, bytes]
    stderr: dict[str, bytes]
    worker: str = ""


class ArenaPlugin(WorkerPlugin):
    """The arena's table slots on one worker, with an event loop of their own in a
    thread, so that their lineups outlive the tasks that play each table, and the
    versions this worker has unpacked, so that each is unpacked once."""

    def __init__(self, config: ArenaConfig) -> None:
        self.config = config

    def setup(self, worker: Any) -> None:
        self.root = Path(worker.local_directory, PLUGIN)
        shutil.rmtree(self.root, ignore_errors=True)  # a worker's folder may be reused
        self.loop = LoopThread(PLUGIN)
        self.slots: dict[int, Tables] = {}
        self.unpacked: dict[str, Path] = {}
        """Each version unpacked here, by its content hash."""
        self.using: dict[int, set[str]] = {}
        """The versions (content hashes) each slot plays with now: the others may go."""
        self.unpacking = threading.Lock()  # a worker may run tasks in several threads

    def teardown(self, worker: Any) -> None:
        async def close() -> None:
            for tables in self.slots.values():
                await tables.close()

        self.loop.stop(close(), CLOSE_TIME)
        shutil.rmtree(self.root, ignore_errors=True)  # the unpacked versions go with it

    def play(self, slot: int, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
             versions: dict[int, str], packed: dict[str, bytes]) -> ShippedTable:  # fmt: skip
        """Play a table; ``versions``: each entrant's content hash, ``packed``: each
        hash's archive."""
        self.using[slot] = {versions[e.submission] for e in everyone}
        here = {
            e.submission: self._here(e, versions[e.submission], packed[versions[e.submission]])
            for e in everyone
        }
        tables = self.slots.get(slot)
        if tables is None:
            tables = self.slots[slot] = Tables(self.config, self.root / "programs" / str(slot))
        table_dir = self.root / "tables" / str(slot)
        shutil.rmtree(table_dir, ignore_errors=True)
        job = tables.play(
            [here[e.submission] for e in seated], list(here.values()), seed, table_dir
        )
        played = self.loop.call(job)
        self.tidy()
        return _pack_table(played, table_dir)

    def _here(self, entrant: Seated, version: str, archive: bytes) -> Seated:
        """``entrant`` as it runs on this worker: from this worker's copy of the version
        whose content hash is ``version`` (unpacked the first time it is seated)."""
        folder = self.root / "versions" / version
        with self.unpacking:
            if version not in self.unpacked:
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
                unpack_built(archive, folder)
                hand_over(folder, programs_user())  # a worker run as root: nobody's
                self.unpacked[version] = folder
        return replace(entrant, folder=folder)

    def tidy(self) -> None:
        """Remove the versions no slot plays with any more (replaced, disqualified): a
        worker that runs for weeks keeps only what plays."""
        with self.unpacking:
            used = set().union(*self.using.values())
            for version in set(self.unpacked) - used:
                shutil.rmtree(self.unpacked.pop(version), ignore_errors=True)


def _pack_table(played: PlayedTable, table_dir: Path) -> ShippedTable:
    files = {
        str(path.relative_to(table_dir)): path.read_bytes()
        for path in sorted(table_dir.rglob("*"))
        if path.is_file()
    }
    stderr = {author: stderr_slice(*where) for author, where in played.stderr.items()}
    return ShippedTable(played.matches, files, stderr)


def land(shipped: ShippedTable, table_dir: Path, stderr_dir: Path) -> PlayedTable:
    """A table shipped back from a worker, kept as the arena keeps its own: the logs in
    the table's folder, each author's stderr added to the slot's file for them."""
    for name, data in shipped.files.items():
        path = (table_dir / name).resolve()
        if not path.is_relative_to(table_dir.resolve()):
            raise ValueError(f"a worker sent back {name!r}, outside the table's folder")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    stderr_dir.mkdir(parents=True, exist_ok=True)
    where = {}
    for author, data in shipped.stderr.items():
        path = stderr_file(stderr_dir, author)
        with open(path, "ab") as f:
            start = f.tell()
            f.write(data)
        where[author] = (str(path), start, start + len(data))
    return PlayedTable(shipped.matches, where, shipped.worker or None)


def play_on_worker(slot: int, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
                   versions: dict[int, str], packed: dict[str, bytes]) -> ShippedTable:  # fmt: skip
    """A Dask task: one table, played by this worker's programs for ``slot``."""
    worker = get_worker()
    plugin = worker.plugins[PLUGIN]
    assert isinstance(plugin, ArenaPlugin)
    shipped = plugin.play(slot, seated, everyone, seed, versions, packed)
    return replace(shipped, worker=str(worker.name))


class Shipping:
    """The folders of the versions that play, each packed once and held on the cluster
    while it plays (a worker fetches it the first time it needs it), keyed by what it
    holds: one for every table slot, so that no version is packed or sent twice, nor an
    identical build under another name. Why it watches its copies: scattered data lives
    only on workers, and a copy whose workers all died is gone for good (a table that
    needs it is cancelled), so a lost one is shipped again; each copy is sent to every
    worker there is (``broadcast``), so that losing one worker loses no copy."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._hashes: dict[int, asyncio.Future[str]] = {}
        """Each playing submission's content hash (its folder no longer changes)."""
        self._held: dict[str, asyncio.Future[Future[bytes]]] = {}
        """The cluster's copy of each playing version, by content hash."""
        self.shipped = 0
        """Archives sent to the cluster so far."""

    async def held(
        self, everyone: Sequence[Seated]
    ) -> tuple[dict[int, str], dict[str, Future[bytes]]]:
        """Each of ``everyone``'s content hash, and the cluster's copy of each of those
        versions (the others are let go)."""
        wanted = {e.submission: e for e in everyone}
        for left in set(self._hashes) - set(wanted):
            del self._hashes[left]
        for submission, entrant in wanted.items():
            if submission not in self._hashes:
                self._hashes[submission] = asyncio.ensure_future(
                    asyncio.to_thread(content_hash, entrant.folder)
                )
        try:
            versions = {submission: await self._hashes[submission] for submission in wanted}
            for gone in set(self._held) - set(versions.values()):
                del self._held[gone]
            for submission, version in versions.items():
                if version not in self._held or _lost(self._held[version]):
                    self._held[version] = asyncio.ensure_future(self._ship(wanted[submission]))
            return versions, {v: await self._held[v] for v in set(versions.values())}
        except Exception:
            _drop_failed(self._hashes)  # a failure is tried again next time
            _drop_failed(self._held)
            raise

    async def _ship(self, entrant: Seated) -> Future[bytes]:
        archive = await asyncio.to_thread(pack_built, entrant.folder)
        future: Future[bytes] = await self.client.scatter(archive, hash=False, broadcast=True)
        self.shipped += 1
        return future


def _failed(job: asyncio.Future[Any]) -> bool:
    return job.done() and (job.cancelled() or job.exception() is not None)


def _drop_failed(jobs: dict[Any, asyncio.Future[Any]]) -> None:
    for key in [key for key, job in jobs.items() if _failed(job)]:
        del jobs[key]


def _lost(held: asyncio.Future[Future[bytes]]) -> bool:
    """Whether a copy on the cluster is gone (every worker that held it died)."""
    if not held.done() or _failed(held):
        return False
    return held.result().status not in ("pending", "finished")


class ClusterTables:
    """A table slot whose tables are played on a Dask worker: what ``Tables`` does, in
    another process, perhaps on another machine."""

    def __init__(self, client: Client, shipping: Shipping, slot: int, stderr_dir: Path) -> None:
        self.client = client
        self.shipping = shipping
        self.slot = slot
        self.stderr_dir = stderr_dir

    async def play(self, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
                   table_dir: Path) -> PlayedTable:  # fmt: skip
        scheduler = self.client.scheduler
        assert scheduler is not None  # a connected client
        identity = await scheduler.identity()
        workers = sorted(identity.get("workers", {}))
        home = {"workers": [workers[self.slot % len(workers)]], "allow_other_workers": True}
        versions, packed = await self.shipping.held(everyone)
        future = self.client.submit(
            play_on_worker, self.slot, list(seated), list(everyone), seed, versions, packed,
            pure=False, **(home if workers else {}),
        )  # fmt: skip
        try:
            shipped: ShippedTable = await future
        except (KilledWorker, FutureCancelledError) as e:
            raise WorkerLost(_why_lost(e)) from None
        return await asyncio.to_thread(land, shipped, table_dir, self.stderr_dir)

    async def close(self) -> None:
        return None


def _why_lost(error: Exception) -> str:
    if isinstance(error, KilledWorker):
        return f"every worker that played it died ({error})"
    return f"what it needed was lost with the workers that held it ({error})"


async def connect(stack: contextlib.AsyncExitStack, address: str, config: ArenaConfig) -> Client:
    """A client of the cluster, each of whose workers has the arena's plugin; ``NoCluster``
    when there is none, or a worker has another leastscore."""
    from leastscore.tournament.running.cluster import open_cluster

    try:
        client = await open_cluster(stack, address)
    except (OSError, RuntimeError) as e:
        raise NoCluster(str(e)) from None
    found: dict[str, str] = await client.run(_version)
    other = sorted(
        f"{worker} has {version}" for worker, version in found.items() if version != VERSION
    )
    if other:
        raise NoCluster(f"workers with another leastscore than {VERSION}: {', '.join(other)}")
    if config.sandbox == "bwrap":
        problems: dict[str, str | None] = await client.run(seal_problem)
        unsealed = sorted(f"{w}: {why}" for w, why in problems.items() if why is not None)
        if unsealed:
            raise NoCluster(f"workers that cannot seal programs: {'; '.join(unsealed)}")
    await client.register_plugin(ArenaPlugin(config), name=PLUGIN)
    return client


def _version() -> str:
    """Run on each worker: the leastscore it has."""
    return VERSION
