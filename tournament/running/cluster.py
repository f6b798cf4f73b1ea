"""Playing fixtures on a Dask cluster (``--cluster``): ``Workers``' shape, Dask's engine.

``--cluster tcp://HOST:8786`` uses a running scheduler (``dask scheduler`` and
``dask worker`` on any number of machines); ``--cluster local:N`` starts a
``LocalCluster`` of N worker processes on 127.0.0.1 for the run. Dask is
imported only here and only then: it is an optional dependency.

Before anything is played every worker is asked what it lacks (a program, a
file, the same leastscore, the runner's sandbox) and greets every program as
the runner does for its own workers (``ready``): one missing thing, or one
program that does not answer, stops the tournament. Then
each worker gets a ``LineupPlugin`` (see ``cluster_worker``) and fixtures go
out in batches: one task per batch, sized from the scheduler's measured cost
per task and the measured time per match so that the first is under
``OVERHEAD`` of the second. Each worker holds ``IN_HAND`` batches, the one it
plays and the next.

Results are handed on in schedule order (a batch that finishes early waits for
those before it), so results.jsonl reads the same as a run on one worker.
Fixtures are deterministic: a batch whose worker was lost is re-run elsewhere
by Dask and gives the same results, and each future resolves once, so each
result is recorded once. A batch that kills every worker it runs on is split;
a single fixture that does is recorded as aborted, as a dead local worker's
match is.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import secrets
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from leastscore.seats.limits import Mode

from leastscore.about import VERSION

from ..pure.results import MatchResult, aborted, decode_result, encode_result
from ..pure.schedule import Fixture
from .pool import IN_HAND, OnResult
from .ready import NotReady
from .store import Store

if TYPE_CHECKING:
    from distributed import Client, Future

OVERHEAD = 0.01
"""The most the scheduler's cost per task may be of the work in it. The cost is
measured as an empty task's round trip, which is more than the scheduler's CPU
for it; 1 % rather than 5 % gives fewer, larger batches, and with them local:2
came closer to the local pool (0.89-0.99x against 0.63-0.85x at 5 %, alternated,
100 greedy matches on 2 cores)."""
MAX_BATCH = 1000
PROBES = 7
"""Empty tasks timed to learn the scheduler's cost per task (the median counts)."""
QUIET_SCHEDULER = {"dashboard_address": "127.0.0.1:0"}
"""A local cluster's scheduler serves no dashboard, and its small HTTP server (health
checks) listens on a free loopback port, not the fixed 8787 another run may hold.
"""
QUIET_DASK = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
"""Dask's own housekeeping, turned down for the clusters a run starts (``local:N``):
its statistical profiler samples every thread each 10 ms, its event-loop check runs
each 20 ms and its system monitor each 500 ms, all for a dashboard nobody opens. Idle,
a local:2 cluster took 5.6 CPU seconds every 30 s (a fifth of a core, taken from
the bots' matches and their clocks); with these, 0.5. The same keys as environment
variables (``DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False``, ...) quiet the
workers an organiser starts by hand (TOURNAMENTS.md, "Several machines")."""
WAIT_FOR_WORKERS = 60.0
"""Seconds to wait for a running cluster's first worker."""


def parse_cluster(text: str) -> str:
    """``tcp://HOST:PORT`` or ``local:N``, checked; a ``ValueError`` says what is wrong."""
    text = text.strip()
    kind, _, rest = text.partition(":")
    if kind == "local":
        if not rest.isdigit() or int(rest) < 1:
            raise ValueError(f"{text!r}: write local:N with N worker processes, e.g. local:2")
        return text
    if "://" in text and text.split("://", 1)[1]:
        return text
    raise ValueError(f"{text!r}: write the scheduler's address (tcp://HOST:8786) or local:N")


async def open_cluster(stack: contextlib.AsyncExitStack, address: str) -> Client:
    """An asynchronous client of the cluster ``address`` names (``local:N``: N worker
    processes started here, on loopback, ended with ``stack``), once its first workers
    (all N of a local one) are there; ``RuntimeError`` when there is no scheduler."""
    import dask
    from distributed import Client, LocalCluster

    wanted = 1
    if address.startswith("local:"):
        wanted = int(address.partition(":")[2])
        with dask.config.set(QUIET_DASK):  # read as the scheduler and workers start
            cluster = await stack.enter_async_context(
                LocalCluster(
                    n_workers=wanted,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                    scheduler_kwargs=QUIET_SCHEDULER,
                    asynchronous=True,
                )
            )
        address = cluster.scheduler_address
    try:
        client = await stack.enter_async_context(
            Client(address, asynchronous=True, timeout=WAIT_FOR_WORKERS)
        )
    except OSError as e:
        raise RuntimeError(f"no Dask scheduler at {address}: {e}") from None
    await client.wait_for_workers(wanted, timeout=WAIT_FOR_WORKERS)
    return cast("Client", client)


def batch_size(task_cost: float, match_cost: float, left: int, workers: int) -> int:
    """Fixtures per task: enough that ``task_cost`` is under ``OVERHEAD`` of the work,
    few enough that every worker still gets ``IN_HAND`` batches of what is left."""
    wanted = math.ceil(task_cost / (OVERHEAD * max(match_cost, 1e-6)))
    share = math.ceil(left / (workers * IN_HAND)) if left > 0 else 1
    return max(1, min(wanted, share, MAX_BATCH))


@dataclass
class _Batch:
    start: int
    """Its first fixture's position in the run's list."""
    fixtures: list[Fixture]


class ClusterWorkers:
    """Plays fixtures on a Dask cluster, handing each result on as ``Workers`` does."""

    def __init__(
        self,
        address: str,
        definition: bytes,
        store: Store | None,
        on_result: OnResult,
        sandbox: Mode | None = None,
        on_ready: Callable[[], None] | None = None,
    ) -> None:
        """``sandbox``: the mode the runner resolved: every worker contains its programs
        so, or says that it cannot (and the run stops before it starts). ``on_ready``:
        called once every worker has passed its check."""
        self._on_ready = on_ready
        self.address = parse_cluster(address)
        self._definition = definition
        self._sandbox = sandbox
        self._out = str(store.path.resolve()) if store is not None else None
        self._store = store
        self._on_result = on_result
        self._stopping = False
        self.workers = 0
        self.task_cost: float | None = None
        """Seconds the scheduler takes per task (an empty task's round trip)."""
        self.match_cost: float | None = None
        """Seconds a match takes on a worker, from the batches played so far."""
        self.batches = 0
        self.ready_at: float | None = None
        """Loop time when the workers were checked and ready (for benchmarks)."""

    def wind_down(self) -> None:
        """Start nothing more: ``run`` returns once the batches being played are done."""
        self._stopping = True

    async def run(self, fixtures: Sequence[Fixture]) -> None:
        """Play ``fixtures``; returns when each has a result."""
        if not fixtures:
            return
        async with contextlib.AsyncExitStack() as stack:
            client = await open_cluster(stack, self.address)
            await self._check(client)
            if self._on_ready is not None:
                self._on_ready()
            await self._play(client, list(fixtures))

    async def _check(self, client: Client) -> None:
        """Every worker has what the tournament needs, or the run stops here."""
        from .cluster_worker import check_worker

        answers: dict[str, list[str]] = await client.run(
            check_worker, self._definition, VERSION, self._sandbox, self._out
        )
        self.workers = len(answers)
        for worker, problems in sorted(answers.items()):
            if problems:
                raise NotReady(f"worker {worker}: {problems[0]}")

    async def _play(self, client: Client, fixtures: list[Fixture]) -> None:
        from distributed import KilledWorker, as_completed

        from .cluster_worker import LineupPlugin, nothing, play_batch

        loop = asyncio.get_running_loop()
        name = f"leastscore-{secrets.token_hex(4)}"
        plugin = LineupPlugin(self._definition, name, self._sandbox, self._out)
        await client.register_plugin(plugin, name=name)
        try:
            self.task_cost = await self._task_cost(client, nothing)
            self.ready_at = loop.time()
            keep_logs = self._store is not None
            in_order = _InOrder()
            sent = 0
            match_seconds = 0.0
            matches = 0
            running: dict[Future[Any], _Batch] = {}
            flow = as_completed()

            def submit(batch: _Batch) -> None:
                future = client.submit(
                    play_batch, name, batch.fixtures, keep_logs, pure=False, retries=0
                )
                running[future] = batch
                flow.add(future)
                self.batches += 1

            def deal() -> None:
                nonlocal sent
                while (
                    not self._stopping
                    and sent < len(fixtures)
                    and len(running) < IN_HAND * max(1, self.workers)
                ):
                    size = self._batch_size(len(fixtures) - sent)
                    submit(_Batch(sent, fixtures[sent : sent + size]))
                    sent += size

            deal()
            while running:
                future = await flow.__anext__()
                batch = running.pop(future)
                done = await _batch_done(future, batch, submit, KilledWorker)
                if done is None:
                    continue
                lines, logs, seconds, news = done
                self._keep_stderr(news)
                matches += len(lines)
                match_seconds += seconds
                self.match_cost = match_seconds / matches
                in_order.add(batch.start, list(zip(lines, logs, strict=True)))
                # once stopping, what is left of the order no longer matters
                for line, log in in_order.ready(everything=self._stopping):
                    self._record(line, log)
                deal()
        finally:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.unregister_worker_plugin(name), 30)

    def _batch_size(self, remaining: int) -> int:
        if self.match_cost is None:
            return 1  # the first batches measure a match
        return batch_size(self.task_cost or 0.0, self.match_cost, remaining, max(1, self.workers))

    async def _task_cost(self, client: Client, nothing: Any) -> float:
        times = []
        for _ in range(PROBES):
            started = time.perf_counter()
            await client.submit(nothing, pure=False)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    def _keep_stderr(self, news: dict[str, bytes]) -> None:
        """Append what the workers' programs wrote on stderr to ``programs/`` here."""
        if self._store is None or not news:
            return
        folder = self._store.path / "programs"
        folder.mkdir(exist_ok=True)
        for name, data in news.items():
            if "/" not in name and not name.startswith("."):
                with open(folder / name, "ab") as f:
                    f.write(data)

    def _record(self, line: bytes, log: bytes | None) -> None:
        result: MatchResult = decode_result(line)
        if log is not None and self._store is not None:
            self._store.put_log(result.fixture, log)
        self._on_result(line, result)


class _InOrder:
    """Results by position, handed on in schedule order as the gaps before them fill."""

    def __init__(self) -> None:
        self.waiting: dict[int, tuple[bytes, bytes | None]] = {}
        self.next = 0

    def add(self, start: int, items: list[tuple[bytes, bytes | None]]) -> None:
        for offset, item in enumerate(items):
            self.waiting[start + offset] = item

    def ready(self, *, everything: bool = False) -> list[tuple[bytes, bytes | None]]:
        """What can go on now: the run without gaps from the next position (or all)."""
        if everything:
            positions = sorted(self.waiting)
        else:
            positions = []
            while self.next + len(positions) in self.waiting:
                positions.append(self.next + len(positions))
        self.next += len(positions)
        return [self.waiting.pop(p) for p in positions]


async def _batch_done(
    future: Future[Any],
    batch: _Batch,
    submit: Callable[[_Batch], None],
    killed: type[BaseException],
) -> tuple[list[bytes], list[Any], float, dict[str, Any]] | None:
    """What a finished batch brought back: its result lines, logs, seconds of play and
    news of stderr. A batch whose worker processes all died (``killed``) is split to
    find the fixture that kills them, and None is returned; that fixture alone is
    aborted. Any other failure stops the run."""
    try:
        lines, logs, seconds, news = await future
    except killed:
        if len(batch.fixtures) > 1:
            for offset, fixture in enumerate(batch.fixtures):
                submit(_Batch(batch.start + offset, [fixture]))
            return None
        why = "it ended every worker process it was played in"
        result = aborted(batch.fixtures[0].index, why)
        return [encode_result(result)], [None], 0.0, {}
    except Exception as e:
        raise RuntimeError(
            f"a batch of fixtures failed on the cluster: {type(e).__name__}: {e}"
        ) from None
    return lines, logs, seconds, news
