"""Arena tables on a Dask cluster (``arena serve --cluster local:N`` or ``tcp://HOST:PORT``).

Imported only when a cluster is asked for (it needs ``distributed``). Workers share
no disk with the arena: each accepted version's folder, as the arena built it, is
packed once and held on the cluster (``Shipping``) while the version plays; a worker
unpacks it the first time it seats that version, into a folder of its own laid out
as the arena's (``submissions/AUTHOR/vN``), and its programs run from there under
the worker's sandbox. A table's match logs and each author's standard error come
back with its result, and the arena keeps them where it keeps its own tables'.

Each table slot is played on one worker, the same one each time where it can be,
so that the slot's programs live on between tables there as they do in the arena's
own process; if that worker goes, the slot moves to another and starts its
programs again.
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

from distributed import Client, Future, WorkerPlugin, get_worker
from leastscore.seats.loop import LoopThread
from leastscore.seats.sandbox import hand_over, programs_user, seal_problem

from leastscore.about import VERSION

from .config import ArenaConfig, NoCluster
from .tables import PlayedTable, Seated, Tables, stderr_file, stderr_slice
from .upload import pack_built, unpack_built

PLUGIN = "leastscore-arena"
CLOSE_TIME = 30.0


@dataclass(frozen=True)
class ShippedTable:
    """A table played on a worker, as it travels back: each match's seats and result,
    the table's files (match logs, by their path in the table's folder) and what each
    author's program wrote to stderr during it."""

    matches: list[tuple[tuple[int, ...], bytes]]
    files: dict[str, bytes]
    stderr: dict[str, bytes]


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
        self.unpacked: dict[int, Path] = {}
        self.using: dict[int, set[int]] = {}
        """The versions each slot plays with now: the others' folders may go."""
        self.unpacking = threading.Lock()  # a worker may run tasks in several threads

    def teardown(self, worker: Any) -> None:
        async def close() -> None:
            for tables in self.slots.values():
                await tables.close()

        self.loop.stop(close(), CLOSE_TIME)
        shutil.rmtree(self.root, ignore_errors=True)  # the unpacked versions go with it

    def play(self, slot: int, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
             packed: dict[int, bytes]) -> ShippedTable:  # fmt: skip
        here = {e.submission: self._here(e, packed[e.submission]) for e in everyone}
        self.using[slot] = set(here)
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

    def _here(self, entrant: Seated, archive: bytes) -> Seated:
        """``entrant`` as it runs on this worker: from its own copy of the version."""
        folder = self.root / "submissions" / entrant.author / entrant.folder.name
        with self.unpacking:
            if entrant.submission not in self.unpacked:
                shutil.rmtree(folder, ignore_errors=True)
                folder.mkdir(parents=True)
                unpack_built(archive, folder)
                hand_over(folder, programs_user())  # a worker run as root: nobody's
                self.unpacked[entrant.submission] = folder
        return replace(entrant, folder=folder)

    def tidy(self) -> None:
        """Remove the versions no slot plays with any more (replaced, disqualified): a
        worker that runs for weeks keeps only what plays."""
        with self.unpacking:
            used = set().union(*self.using.values())
            for submission in set(self.unpacked) - used:
                shutil.rmtree(self.unpacked.pop(submission), ignore_errors=True)


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
    return PlayedTable(shipped.matches, where)


def play_on_worker(slot: int, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
                   packed: dict[int, bytes]) -> ShippedTable:  # fmt: skip
    """A Dask task: one table, played by this worker's programs for ``slot``."""
    plugin = get_worker().plugins[PLUGIN]
    assert isinstance(plugin, ArenaPlugin)
    return plugin.play(slot, seated, everyone, seed, packed)


class Shipping:
    """The folders of the versions that play, each packed once and held on the cluster
    while it plays (a worker fetches it the first time it needs it); one for every
    table slot, so that no version is packed or sent twice."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self._held: dict[int, asyncio.Future[Future[bytes]]] = {}

    async def held(self, everyone: Sequence[Seated]) -> dict[int, Future[bytes]]:
        """The cluster's copy of each of ``everyone``'s folders (others are let go)."""
        wanted = {e.submission: e for e in everyone}
        for gone in set(self._held) - set(wanted):
            del self._held[gone]
        for submission, entrant in wanted.items():
            if submission not in self._held:
                self._held[submission] = asyncio.ensure_future(self._ship(entrant.folder))
        try:
            return {submission: await self._held[submission] for submission in wanted}
        except Exception:
            for submission in wanted:  # a failed packing is tried again next time
                sent = self._held.get(submission)
                if sent is not None and sent.done() and sent.exception() is not None:
                    del self._held[submission]
            raise

    async def _ship(self, folder: Path) -> Future[bytes]:
        archive = await asyncio.to_thread(pack_built, folder)
        future: Future[bytes] = await self.client.scatter(archive, hash=False)
        return future


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
        packed = await self.shipping.held(everyone)
        future = self.client.submit(
            play_on_worker, self.slot, list(seated), list(everyone), seed, packed,
            pure=False, **(home if workers else {}),
        )  # fmt: skip
        shipped: ShippedTable = await future
        return await asyncio.to_thread(land, shipped, table_dir, self.stderr_dir)

    async def close(self) -> None:
        return None


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
