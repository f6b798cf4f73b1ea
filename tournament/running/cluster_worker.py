"""What a Dask worker runs for a tournament: one lineup per worker, fixtures in batches.

Imported only on the cluster's side of things (it needs ``distributed``). The
runner registers a ``LineupPlugin`` with the scheduler; every worker, those
that join later included, gets its own copy and builds from the tournament's
definition the same lineup a local worker process builds: built-in and Python
bots made afresh for each match, each ``cmd:`` program started once and kept
alive across the worker's matches, under the same start-up time, move time,
fault policy, sandbox and limits (the mode the runner resolved). The plugin's
own event loop runs in a thread of its own, so the programs live between
tasks; Dask's task thread only waits for each batch.

A batch sends back each match's result line and, when the runner stores the
tournament, its log: workers need no shared disk.
"""

from __future__ import annotations

import io
import re
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from distributed import WorkerPlugin, get_worker
from leastscore.game import Event, write_log
from leastscore.seats.limits import Mode
from leastscore.seats.loop import LoopThread

from leastscore.about import VERSION

from ..pure import config as configs
from ..pure.config import TournamentConfig
from ..pure.results import encode_result
from ..pure.schedule import Fixture
from .lineup import Lineup, contain
from .play import play_safely
from .ready import unready
from .store import Store

CLOSE_TIME = 10.0
"""Seconds a worker's programs have to close when the tournament is over."""

Batch = tuple[list[bytes], list[bytes | None], float, dict[str, bytes]]
"""A batch played: each result's line, each match's log (when kept), the seconds it
took, and what the worker's programs wrote on stderr since the last batch, by file
(the runner keeps it: a worker's own folder goes when the worker does)."""


class _Logs(Store):
    """A store that keeps match logs in memory, to be sent back with the results."""

    def __init__(self) -> None:
        self.logs: dict[int, bytes] = {}

    def write_log(self, fixture: int, events: Any) -> None:
        buffer = io.BytesIO()
        write_log(list[Event](events), buffer)
        self.logs[fixture] = buffer.getvalue()


class LineupPlugin(WorkerPlugin):
    """One tournament's lineup on one worker, alive from registration to removal."""

    def __init__(
        self, definition: bytes, name: str, sandbox: Mode | None = None, out: str | None = None
    ) -> None:
        """``sandbox``: the runner's resolved mode; ``out``: its results folder, hidden
        from the programs where this machine has it (a ``LocalCluster``)."""
        self.definition = definition
        self.name = name
        self.sandbox = sandbox
        self.out = out

    def setup(self, worker: Any) -> None:
        self.config: TournamentConfig = configs.load(self.definition)
        self.loop = LoopThread(f"{self.name}-loop")
        self.stderr_dir = Path(worker.local_directory, "leastscore-programs", self.name)
        self.stderr_sent: dict[str, int] = {}
        self.where = re.sub(r"[^A-Za-z0-9_.-]+", "_", str(worker.name))
        hidden = [self.out, worker.local_directory]
        containment = contain(self.config, hidden, sandbox=self.sandbox)
        self.lineup = Lineup(
            self.config, stderr_dir=self.stderr_dir, containment=containment, copy="cluster"
        )

    def teardown(self, worker: Any) -> None:
        self.loop.stop(self.lineup.close(), CLOSE_TIME)

    def play(self, fixtures: Sequence[Fixture], keep_logs: bool) -> Batch:
        return self.loop.call(self._play(fixtures, keep_logs))

    async def _play(self, fixtures: Sequence[Fixture], keep_logs: bool) -> Batch:
        started = time.perf_counter()
        logs = _Logs() if keep_logs else None
        lines: list[bytes] = []
        for fixture in fixtures:
            result = await play_safely(fixture, self.config, self.lineup, logs)
            lines.append(encode_result(result))
        kept = [logs.logs.get(f.index) if logs is not None else None for f in fixtures]
        return lines, kept, time.perf_counter() - started, self._stderr_news()

    def _stderr_news(self) -> dict[str, bytes]:
        """What each program's stderr file gained since the last batch, named for the
        runner's ``programs/`` folder: ``NAME.worker-WORKER.stderr``."""
        news: dict[str, bytes] = {}
        files = sorted(self.stderr_dir.glob("*.cluster.stderr")) if self.stderr_dir.is_dir() else []
        for file in files:
            sent = self.stderr_sent.get(file.name, 0)
            with open(file, "rb") as f:
                f.seek(sent)
                data = f.read()
            if data:
                self.stderr_sent[file.name] = sent + len(data)
                name = file.name.removesuffix(".cluster.stderr")
                news[f"{name}.worker-{self.where}.stderr"] = data
        return news


def play_batch(plugin: str, fixtures: list[Fixture], keep_logs: bool) -> Batch:
    """A Dask task: play ``fixtures`` with this worker's lineup for the tournament."""
    lineup = get_worker().plugins[plugin]
    assert isinstance(lineup, LineupPlugin)
    return lineup.play(fixtures, keep_logs)


def nothing() -> None:
    """A task that does nothing: its round trip is the scheduler's cost per task."""


async def check_worker(
    definition: bytes,
    version: str,
    sandbox: Mode | None = None,
    out: str | None = None,
    dask_worker: Any = None,
) -> list[str]:
    """What this worker lacks to play the tournament, each program greeted under the
    runner's sandbox as the runner greets its own (``ready``): one line each, none
    when ready."""
    config = configs.load(definition)
    problems: list[str] = []
    if version != VERSION:
        problems.append(f"leastscore {VERSION} is installed here, the runner has {version}")
    here = dask_worker.local_directory if dask_worker is not None else None
    try:
        containment = contain(config, [out, here], sandbox=sandbox)
    except ValueError as e:
        return [*problems, f"sandbox: {e}"]
    return problems + await unready(config, containment)
