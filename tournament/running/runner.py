"""Plays a tournament's fixtures: in worker processes, or in the runner's own loop.

Fixtures with a remote entrant are played here, where the server for remote
bots runs, one at a time (a remote bot is one connection). All the others go
to the worker processes (or a Dask cluster, see ``cluster``), even with one
worker: there a bot that brings its process down or never returns costs one
match, not the tournament. Each
result is stored the moment it arrives, then handed on (to the tally, the
progress display); the order results arrive in never matters.

Before the first match the run's containment is chosen once (``--sandbox``
resolved here, the same in every worker) and every program is started and
greeted (``ready``): one that cannot play stops the run before anything is
played.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from leastscore.seats.sandbox import Containment

from ..pure import config as configs
from ..pure.config import Running, TournamentConfig, listen_address
from ..pure.hall import EntrantHall, NoHall
from ..pure.results import MatchResult, encode_result
from ..pure.schedule import Fixture
from . import ready
from .lineup import Lineup, contain
from .play import play_safely
from .pool import Workers
from .store import Store

if TYPE_CHECKING:
    from .cluster import ClusterWorkers


IN_ONE_PROCESS = Running()
"""One worker process, on this machine."""


class Runner:
    """Plays a tournament's schedule to its end: in this process, on worker
    processes or on a Dask cluster, with the remote hall open if entrants connect.

    Why one runner for all three: the schedule, the store of results, the resume,
    the stop of a sequential test and the checks before the start are the same
    wherever the fixtures are played; only the pool that plays them differs.
    """

    def __init__(
        self,
        config: TournamentConfig,
        running: Running = IN_ONE_PROCESS,
        *,
        store: Store | None = None,
        on_result: Callable[[MatchResult], None] | None = None,
        on_hall: Callable[[EntrantHall], None] | None = None,
        stop_when: Callable[[], bool] | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        """``stop_when``: asked after each result; once true, no fixture is started any
        more and the run ends when those being played are done (a sequential test).

        ``running.cluster``: play on Dask (``tcp://HOST:PORT`` or ``local:N``) instead
        of in worker processes of this machine; see ``cluster``.

        ``running.open_hall``: how to open the hall remote entrants connect to (the
        server's, handed in by the ``leastscore`` command); ``on_hall`` is told once it
        is open."""
        self.config = config
        self.cluster = running.cluster
        self._warn = warn
        self.containment: Containment | None = None
        """How the run's programs are contained (known once it runs)."""
        self.workers = max(1, running.workers)
        self.affinity = running.affinity
        self.store = store
        self._on_result = on_result
        if config.remote and running.open_hall is None:
            raise NoHall()
        self._open_hall = running.open_hall
        self._on_hall = on_hall
        self.pool: Workers | ClusterWorkers | None = None
        self.hall: EntrantHall | None = None
        self._stop_when = stop_when
        self._stopping = False
        self.results: list[MatchResult] = []
        """Every result of this run, kept only when the run may stop early."""

    def split(self, todo: Sequence[int]) -> tuple[list[Fixture], list[Fixture]]:
        """(fixtures played here, fixtures for worker processes), from the schedule: the
        workers are handed the fixtures themselves and derive no schedule of their own."""
        remote = self.config.remote
        schedule = self.config.schedule()
        fixtures = [schedule[i] for i in todo]
        here = [f for f in fixtures if remote.intersection(f.seats)]
        return here, [f for f in fixtures if not remote.intersection(f.seats)]

    async def run(self, todo: Sequence[int]) -> None:
        """Play the fixtures ``todo``."""
        here, there = self.split(todo)
        config = self.config
        out = str(self.store.path) if self.store is not None else None
        stderr_dir = Path(out, "programs") if out is not None else None
        self.containment = containment = contain(config, [out], self._warn)
        # Every program this machine will run answers its greeting, or nothing is played
        # (on a cluster, each worker checks its own: see cluster.py).
        local = set(config.names)
        if self.cluster is not None:
            local = {name for f in here for name in f.seats}
        await ready.check(config, containment, local)

        def say_sandbox() -> None:
            if self._warn is not None and containment.mode != "none":
                self._warn(containment.describe())

        if config.remote:
            assert self._open_hall is not None
            host, port = listen_address(config.listen)
            self.hall = await self._open_hall(host, port, config.rules, config.remote_tokens())
            if self._on_hall is not None:
                self._on_hall(self.hall)
        lineup = Lineup(config, stderr_dir=stderr_dir, hall=self.hall, containment=containment)
        if self.cluster is not None:
            from .cluster import ClusterWorkers

            self.pool = ClusterWorkers(
                self.cluster,
                configs.dump(config),
                self.store,
                self._record,
                sandbox=containment.mode,
                on_ready=say_sandbox,
            )
        else:
            say_sandbox()
            self.pool = Workers(
                self.workers,
                configs.dump(config),
                out,
                self._record,
                affinity=self.affinity,
                sandbox=containment.mode,
            )
        lanes = [
            asyncio.ensure_future(self._play_here(here, lineup)),
            asyncio.ensure_future(self.pool.run(there)),
        ]
        try:
            await asyncio.gather(*lanes)
        finally:
            for lane in lanes:
                lane.cancel()
            await asyncio.gather(*lanes, return_exceptions=True)
            await lineup.close()
            if self.hall is not None:
                with contextlib.suppress(Exception):
                    await self.hall.close("the tournament is over")

    async def _play_here(self, fixtures: Sequence[Fixture], lineup: Lineup) -> None:
        for fixture in fixtures:
            if self._stopping:
                return
            result = await play_safely(fixture, self.config, lineup, self.store)
            self._record(encode_result(result), result)

    def _record(self, line: bytes, result: MatchResult) -> None:
        if self.store is not None:
            self.store.append(line)
        if self._stop_when is not None:
            self.results.append(result)
        if self._on_result is not None:
            self._on_result(result)
        if self._stop_when is not None and not self._stopping and self._stop_when():
            self._stopping = True
            if self.pool is not None:
                self.pool.wind_down()
