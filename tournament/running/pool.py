"""Worker processes: each plays one fixture at a time, with its own event loop.

Workers are forked from a fork server (``forkserver``: a clean process that
imported this module once; nothing inherited from the runner), or started with
``spawn`` where there is none, and build everything from the tournament's
definition, so fixture ``i`` plays the same in any worker. Each keeps its own
copy of every external program alive across its matches, and writes each match's
log itself; it sends back only the result line. The runner sends a worker its
next fixture as soon as it reports one, keeping two in hand so it never waits.

A worker that dies (a Python bot that brought its process down) costs the
match it was playing, which is recorded as aborted; the fixtures it held are
dealt out again and a new worker takes its place. Each worker leads its own
process group, so the programs it started end with it: a program hung on its
turn would not notice that its worker is gone.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from pathlib import Path

from leastscore.seats.limits import Mode
from leastscore.seats.loop import clean_processes, loop_factory
from leastscore.seats.sandbox import end_groups

from ..pure import config as configs
from ..pure.results import MatchResult, aborted, decode_result, encode_result
from ..pure.schedule import Fixture
from .lineup import Lineup, contain
from .play import play_safely
from .store import Store

IN_HAND = 2
"""Fixtures a worker holds at once: the one it plays and the next (the next only
while there are enough left for every worker to have one: see ``Workers._deal``)."""
STOP_GRACE = 5.0
"""Seconds a stopping worker has to close its programs before it is killed."""
READY = b""

OnResult = Callable[[bytes, MatchResult], None]


def _worker(
    conn: Connection,
    definition: bytes,
    out: str | None,
    core: int | None,
    number: int,
    sandbox: Mode | None = None,
) -> None:
    """A worker's whole life: play the fixtures it is sent until told to stop."""
    if core is not None:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {core})  # its programs inherit it: see worker_cores
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the runner's to handle
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    if hasattr(os, "setpgid"):
        os.setpgid(0, 0)  # its programs join its group: see _end_group
    config = configs.load(definition)
    store = Store(out) if out is not None else None
    stderr_dir = Path(out, "programs") if out is not None else None
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        copy = f"worker-{number + 1}"
        containment = contain(config, [out], sandbox=sandbox)
        lineup = Lineup(
            config, stderr_dir=stderr_dir, copy=copy, interrupt=True, containment=containment
        )
        try:
            conn.send_bytes(READY)
            while True:
                try:
                    fixture = conn.recv()
                except (EOFError, OSError):
                    break  # the runner is gone
                if fixture is None:
                    break
                result = runner.run(play_safely(fixture, config, lineup, store))
                try:
                    conn.send_bytes(encode_result(result))
                except OSError:
                    break
        finally:
            runner.run(lineup.close())


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    conn: Connection
    held: deque[int] = field(default_factory=deque)
    ready: bool = False


class Workers:
    """Worker processes of this machine that play a tournament's fixtures.

    Why processes, and why this class: the fixtures are independent and the rules
    engine is CPU-bound, so they are spread over cores (pinned, with ``affinity``);
    a worker that dies costs only the match it was playing (recorded as aborted):
    the fixtures it held are dealt out again and its programs end with its process
    group; results come back in the order they finish, and the runner puts them in
    schedule order.
    """

    def __init__(
        self,
        count: int,
        definition: bytes,
        out: str | None,
        on_result: OnResult,
        affinity: bool = True,
        sandbox: Mode | None = None,
    ) -> None:
        """``sandbox``: the mode the runner resolved, for every worker's programs."""
        self.count = count
        self._sandbox = sandbox
        self._cores = worker_cores(count) if affinity else None
        self._definition = definition
        self._out = out
        self._on_result = on_result
        self._context = clean_processes(__name__)
        self._workers: list[_Worker] = []
        """The workers alive now."""
        self._started: list[_Worker] = []
        self._threads: list[threading.Thread] = []
        self._todo: deque[Fixture] = deque()
        self._fixtures: dict[int, Fixture] = {}
        """The fixtures of the run, by index (those a dead worker held are dealt again)."""
        self._left = 0
        self._stopping = False
        self.ready_at: float | None = None
        """Loop time when every worker first said it was ready (for benchmarks)."""

    async def run(self, fixtures: Sequence[Fixture]) -> None:
        """Play ``fixtures``; returns when each has a result."""
        if not fixtures:
            return
        self._loop = asyncio.get_running_loop()
        self._done: asyncio.Future[None] = self._loop.create_future()
        self._todo = deque(fixtures)
        self._fixtures = {f.index: f for f in fixtures}
        self._left = len(fixtures)
        try:
            for number in range(self._planned()):
                self._spawn(number)
            await self._done
        finally:
            await self._stop()

    def wind_down(self) -> None:
        """Start nothing more: ``run`` returns once the fixtures being played are done."""
        self._left -= len(self._todo)
        self._todo.clear()
        if self._left <= 0 and not self._done.done():
            self._done.set_result(None)

    # -- the runner's side ------------------------------------------------------------------

    def _spawn(self, number: int) -> None:
        ours, theirs = self._context.Pipe()
        process = self._context.Process(
            target=_worker,
            args=(theirs, self._definition, self._out, self._core(number), number, self._sandbox),
            name=f"leastscore-worker-{number}",
            daemon=True,
        )
        process.start()
        theirs.close()
        worker = _Worker(number, process, ours)
        self._workers.append(worker)
        self._started.append(worker)
        thread = threading.Thread(target=self._listen, args=(worker,), daemon=True)
        thread.start()
        self._threads.append(thread)
        self._deal(worker)

    def _core(self, number: int) -> int | None:
        return None if self._cores is None else self._cores[number]

    def _listen(self, worker: _Worker) -> None:
        """In a thread: hand everything a worker says to the loop, then its end.

        The end is the process's exit, not the pipe's: the runner does not count on
        every process the worker started having left the pipe alone (``spawn`` in
        ``seats.sandbox`` hands a program none of the worker's descriptors).
        """
        loop = self._loop
        try:
            while True:
                ready = wait([worker.conn, worker.process.sentinel])
                if worker.conn not in ready:
                    break  # it exited, and everything it sent has been read
                try:
                    data = worker.conn.recv_bytes()
                except (EOFError, OSError):
                    break
                loop.call_soon_threadsafe(self._heard, worker, data)
            worker.process.join(STOP_GRACE)
            loop.call_soon_threadsafe(self._ended, worker)
        except RuntimeError:
            pass  # the loop is closed: the run is over

    def _heard(self, worker: _Worker, data: bytes) -> None:
        if data == READY:
            worker.ready = True
            if self.ready_at is None and all(w.ready for w in self._workers):
                self.ready_at = self._loop.time()
            return
        if self._stopping:
            return  # a stopped run (Ctrl-C) records nothing more: a resumed run plays it
        result = decode_result(data)
        if result.fixture in worker.held:
            worker.held.remove(result.fixture)
        self._finished(data, result)
        self._deal(worker)

    def _deal(self, worker: _Worker) -> None:
        """Give ``worker`` the fixture to play, and the next one to have at hand while
        at least one is left for every worker: otherwise, at the start of a short run
        or at the end of any, a worker would sit idle while another holds a match it
        has not begun."""
        while self._todo and not self._stopping and self._wants(worker):
            fixture = self._todo.popleft()
            worker.held.append(fixture.index)
            try:
                worker.conn.send(fixture)
            except OSError:
                return  # it died: _ended deals its fixtures out again

    def _wants(self, worker: _Worker) -> bool:
        if not worker.held:
            return True
        return len(worker.held) < IN_HAND and len(self._todo) >= self._planned()

    def _planned(self) -> int:
        """Workers the run keeps alive: no more than it has fixtures."""
        return min(self.count, len(self._fixtures))

    def _ended(self, worker: _Worker) -> None:
        _end_group(worker.process)
        if worker in self._workers:
            self._workers.remove(worker)
        if self._stopping or self._done.done():
            return
        code = worker.process.exitcode
        if not worker.ready:
            self._done.set_exception(
                RuntimeError(f"a worker process could not start (exit code {code})")
            )
            return
        if worker.held:
            lost = worker.held.popleft()
            result = aborted(lost, f"its worker process died (exit code {code})")
            self._todo.extendleft(reversed([self._fixtures[i] for i in worker.held]))
            self._finished(encode_result(result), result)
        if self._todo and not self._done.done():
            self._spawn(worker.number)

    def _finished(self, line: bytes, result: MatchResult) -> None:
        self._left -= 1
        try:
            self._on_result(line, result)
        except BaseException as e:
            if not self._done.done():
                self._done.set_exception(e)
            return
        if self._left <= 0 and not self._done.done():
            self._done.set_result(None)

    async def _stop(self) -> None:
        self._stopping = True
        for worker in self._workers:
            with contextlib.suppress(OSError):
                worker.conn.send(None)
        await self._loop.run_in_executor(None, self._reap)

    def _reap(self) -> None:
        for worker in self._started:
            worker.process.join(STOP_GRACE)
            if worker.process.is_alive():
                worker.process.terminate()
                worker.process.join(STOP_GRACE)
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
        for thread in self._threads:
            thread.join(STOP_GRACE)
        for worker in self._started:
            _end_group(worker.process)
            worker.conn.close()


def _end_group(process: BaseProcess) -> None:
    """Kill whatever is left of an ended worker's process group and cgroups: its
    programs, and what they started (in a session of their own, say)."""
    if process.pid is None or not hasattr(os, "killpg"):
        return
    with contextlib.suppress(OSError):  # nothing left (or not ours): fine
        os.killpg(process.pid, signal.SIGKILL)
    end_groups(process.pid)


def worker_cores(count: int) -> list[int] | None:
    """A core of its own for each worker, with the programs it starts, when there are
    enough (Linux). A program and its worker take turns, never run at once: on one
    core, each hand-over is a switch on that core instead of a wake-up of another,
    which halves the cost of a move over stdio on an otherwise idle machine."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    cores = sorted(os.sched_getaffinity(0))
    return cores[:count] if count <= len(cores) else None
