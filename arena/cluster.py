"""Arena tables on a Dask cluster (``arena serve --cluster local:N`` or ``tcp://HOST:PORT``).

Imported only when a cluster is asked for (it needs ``distributed``). Each table
slot is played on one worker, the same one each time where it can be, so that the
slot's programs live on between tables there as they do in the arena's own
process; if that worker goes, the slot moves to another and starts its programs
again. The workers read the submissions' folders and write the tables' logs and
standard error where the arena keeps them: the arena's folder must be at the same
path on every worker's machine (a local cluster, or a shared file system).
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from distributed import Client, WorkerPlugin, get_worker
from leastscore.seats.loop import LoopThread

from .config import ArenaConfig
from .tables import PlayedTable, Seated, Tables

PLUGIN = "leastscore-arena"
CLOSE_TIME = 30.0


class ArenaPlugin(WorkerPlugin):
    """The arena's table slots on one worker, with an event loop of their own in a
    thread, so that their programs outlive the tasks that play each table."""

    def __init__(self, config: ArenaConfig, folder: str) -> None:
        self.config = config
        self.folder = folder

    def setup(self, worker: Any) -> None:
        self.loop = LoopThread(PLUGIN)
        self.slots: dict[int, Tables] = {}

    def teardown(self, worker: Any) -> None:
        async def close() -> None:
            for tables in self.slots.values():
                await tables.close()

        self.loop.stop(close(), CLOSE_TIME)

    def play(self, slot: int, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
             table_dir: str) -> PlayedTable:  # fmt: skip
        tables = self.slots.get(slot)
        if tables is None:
            where = Path(self.folder, "programs", f"{slot}-{get_worker().name}")
            tables = self.slots[slot] = Tables(self.config, where)
        job = tables.play(seated, everyone, seed, Path(table_dir))
        return self.loop.call(job)


def play_on_worker(slot: int, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
                   table_dir: str) -> PlayedTable:  # fmt: skip
    """A Dask task: one table, played by this worker's programs for ``slot``."""
    plugin = get_worker().plugins[PLUGIN]
    assert isinstance(plugin, ArenaPlugin)
    return plugin.play(slot, seated, everyone, seed, table_dir)


class ClusterTables:
    """A table slot whose tables are played on a Dask worker: what ``Tables`` does, in
    another process, perhaps on another machine."""

    def __init__(self, client: Client, slot: int) -> None:
        self.client = client
        self.slot = slot

    async def play(self, seated: Sequence[Seated], everyone: Sequence[Seated], seed: int,
                   table_dir: Path) -> PlayedTable:  # fmt: skip
        scheduler = self.client.scheduler
        assert scheduler is not None  # a connected client
        identity = await scheduler.identity()
        workers = sorted(identity.get("workers", {}))
        home = {"workers": [workers[self.slot % len(workers)]], "allow_other_workers": True}
        future = self.client.submit(
            play_on_worker, self.slot, list(seated), list(everyone), seed, str(table_dir),
            pure=False, **(home if workers else {}),
        )  # fmt: skip
        played: PlayedTable = await future
        return played

    async def close(self) -> None:
        return None


async def connect(stack: contextlib.AsyncExitStack, address: str, config: ArenaConfig,
                  folder: Path) -> Client:  # fmt: skip
    """A client of the cluster, each of whose workers has the arena's plugin."""
    from leastscore.tournament.running.cluster import open_cluster

    client = await open_cluster(stack, address)
    await client.register_plugin(ArenaPlugin(config, str(folder.resolve())), name=PLUGIN)
    return client
