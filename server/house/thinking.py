"""Where the server's heavy built-in bots think: a few processes of their own.

A bot that samples (expert) may think for a second. On the event loop that
second stalls every table; in a thread it holds the interpreter's lock, queues
other tables' moves behind it, and can never be stopped. So each decision is
sent, with the bot itself, to one of a few worker processes, and the loop only
waits for the answer. A decision that overruns its hard limit has its worker
killed and replaced; shutting down kills every worker at once.

Decisions are stateless: a worker is given the bot and the view and returns
the move with the bot as it is after choosing (its random state moved on), so
any worker can take any decision and a killed worker loses only the decision
it was making. Each match asks for one decision at a time, so a table can hold
at most one worker; decisions wait their turn in the order they were asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections import deque
from dataclasses import dataclass, field
from multiprocessing.connection import Connection as Pipe
from multiprocessing.process import BaseProcess
from multiprocessing.reduction import ForkingPickler

from leastscore.bots.base import Bot
from leastscore.game import Move, View
from leastscore.seats.loop import clean_processes

log = logging.getLogger("leastscore.server")


class ThinkingFailed(Exception):
    """A decision did not come back: the bot raised, overran its limit, or its worker died."""


def _think(pipe: Pipe) -> None:  # pragma: no cover - runs in the worker process
    """A worker: choose for whatever bot comes, until told to stop."""
    with contextlib.suppress(OSError):
        os.nice(5)  # the event loop's process comes first when the cores are busy

    import leastscore.bots  # noqa: F401 - every built-in bot, imported before the clock runs

    pipe.send(READY)  # started and imported: from now on its time is the bot's
    while True:
        try:
            job = pipe.recv()
        except (EOFError, OSError, KeyboardInterrupt):
            return
        if job is None:
            return
        bot, view = job
        try:
            move = bot.choose(view)
        except Exception as e:
            pipe.send((None, f"{type(e).__name__}: {e}"))
        else:
            pipe.send((move, bot))


READY = "ready"
"""A worker's first word: a decision's time limit starts when it is handed to a worker
that is ready, so a worker's start (a second or more on a busy machine) is never
counted against a bot."""


@dataclass(eq=False)
class _Job:
    sent: bytes
    """The bot and the view, pickled when the decision was asked for: events the bot
    is told while the decision waits for a worker must not travel with it."""
    done: asyncio.Future[tuple[Move, Bot]]


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    pipe: Pipe
    job: _Job | None = None
    limit: asyncio.TimerHandle | None = None


@dataclass
class ThinkingPool:
    """Up to ``workers`` processes that choose moves for bots; ``limit`` seconds is the
    most a decision may take before its worker is killed."""

    workers: int
    limit: float
    _idle: list[_Worker] = field(default_factory=list)
    _busy: set[_Worker] = field(default_factory=set)
    _starting: set[_Worker] = field(default_factory=set)
    _queue: deque[_Job] = field(default_factory=deque)
    _closed: bool = False
    _loop: asyncio.AbstractEventLoop | None = None

    async def choose(self, bot: Bot, view: View) -> tuple[Move, Bot]:
        """The bot's move and the bot after choosing; ``ThinkingFailed`` when none came."""
        if self._closed:
            raise ThinkingFailed("the server is shutting down")
        loop = self._loop = asyncio.get_running_loop()
        try:
            sent = bytes(ForkingPickler.dumps((bot, view)))
        except Exception as e:
            raise ThinkingFailed(f"the bot cannot think elsewhere: {e}") from None
        job = _Job(sent, loop.create_future())
        self._queue.append(job)
        self._dispatch()
        return await job.done

    @property
    def pids(self) -> list[int]:
        """The worker processes now running (for tests and status)."""
        workers = [*self._idle, *self._busy, *self._starting]
        return [w.process.pid for w in workers if w.process.pid is not None]

    def close(self) -> None:
        """Kill every worker now: nothing a bot is doing delays a shutdown."""
        self._closed = True
        for job in self._queue:
            if not job.done.done():
                job.done.set_exception(ThinkingFailed("the server is shutting down"))
        self._queue.clear()
        for worker in [*self._idle, *self._busy, *self._starting]:
            self._end(worker, ThinkingFailed("the server is shutting down"))
        self._idle.clear()

    # -- inside ----------------------------------------------------------------

    def _dispatch(self) -> None:
        while self._queue:
            job = self._queue[0]
            if job.done.done():  # cancelled while it waited
                self._queue.popleft()
                continue
            if not self._idle:
                if len(self._busy) + len(self._starting) < self.workers:
                    self._start_worker()
                return  # a worker that finishes, or one that becomes ready, takes it
            worker = self._idle.pop()
            self._queue.popleft()
            try:
                worker.pipe.send_bytes(job.sent)
            except OSError as e:  # the worker died while idle
                self._end(worker, None)
                job.done.set_exception(ThinkingFailed(f"the bot's worker process died ({e})"))
                continue
            worker.job = job
            self._busy.add(worker)
            worker.limit = self._running().call_later(self.limit, self._overrun, worker)

    def _start_worker(self) -> None:
        context = clean_processes(__name__, "leastscore.bots")  # nothing of the server
        ours, theirs = context.Pipe()
        process = context.Process(target=_think, args=(theirs,), daemon=True, name="thinker")
        process.start()
        theirs.close()
        worker = _Worker(process, ours)
        self._starting.add(worker)
        self._running().add_reader(ours.fileno(), self._answered, worker)

    def _answered(self, worker: _Worker) -> None:
        try:
            said = worker.pipe.recv()
        except (EOFError, OSError) as e:
            if worker in self._starting:  # it could not even start: do not retry forever
                self._end(worker, None)
                if self._queue:
                    failed = self._queue.popleft()
                    if not failed.done.done():
                        failed.done.set_exception(
                            ThinkingFailed("a worker process for the bots could not start")
                        )
            else:
                self._end(worker, ThinkingFailed(f"the bot's worker process died ({e or 'EOF'})"))
            self._dispatch()
            return
        if worker in self._starting:
            self._starting.discard(worker)
            self._idle.append(worker)
            self._dispatch()
            return
        move, outcome = said
        job = worker.job
        worker.job = None
        if worker.limit is not None:
            worker.limit.cancel()
            worker.limit = None
        self._busy.discard(worker)
        self._idle.append(worker)
        if job is not None and not job.done.done():
            if move is None:
                job.done.set_exception(ThinkingFailed(f"the bot raised {outcome}"))
            else:
                job.done.set_result((move, outcome))
        self._dispatch()

    def _overrun(self, worker: _Worker) -> None:
        worker.limit = None
        log.warning("a bot thought longer than %.1f s: its worker is replaced", self.limit)
        self._end(worker, ThinkingFailed(f"the bot thought longer than {self.limit:g} s"))
        self._dispatch()

    def _running(self) -> asyncio.AbstractEventLoop:
        assert self._loop is not None, "workers start from choose(), on the loop"
        return self._loop

    def _end(self, worker: _Worker, error: ThinkingFailed | None) -> None:
        if self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(worker.pipe.fileno())
        if worker.limit is not None:
            worker.limit.cancel()
            worker.limit = None
        worker.process.kill()
        worker.pipe.close()
        worker.process.join(0)
        self._busy.discard(worker)
        self._starting.discard(worker)
        job, worker.job = worker.job, None
        if job is not None and error is not None and not job.done.done():
            job.done.set_exception(error)
