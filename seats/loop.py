"""The event loop a command runs on (uvloop's when it is installed, asyncio's
otherwise), and how its worker processes are started.

One choice for every command (the server, tournaments and their workers, the
benchmarks), made by giving ``asyncio.Runner`` a loop factory: the event loop
policy the older way used is deprecated. uvloop is an optional extra
(``leastscore[fast]``); matches and the server run about a third faster on it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import threading
from collections.abc import Callable, Coroutine
from multiprocessing.context import ForkServerContext, SpawnContext
from typing import Any, TypeVar

T = TypeVar("T")


def loop_factory(fast: bool = True) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's ``new_event_loop`` when ``fast`` and it is installed; None (asyncio's) else."""
    if not fast:
        return None
    try:
        import uvloop
    except ImportError:
        return None
    factory: Callable[[], asyncio.AbstractEventLoop] = uvloop.new_event_loop
    return factory


def clean_processes(*preload: str) -> ForkServerContext | SpawnContext:
    """How a command starts its worker processes (a tournament's, the server's thinking
    bots): none inherits anything of the command. A spawned worker is a new interpreter
    that imports its modules again (0.8 CPU-s, as much as a small tournament's matches),
    for every worker and every restart; forked from Python's fork server, a clean
    process that imported ``preload`` once, it starts in a few milliseconds. ``spawn``
    where there is no fork server. The first start fixes what the server imported."""
    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(preload))
    return context


def loop_name(fast: bool = True) -> str:
    """The name of the loop ``run(..., fast)`` runs on: "uvloop" or "asyncio"."""
    return "asyncio" if loop_factory(fast) is None else "uvloop"


def run(main: Coroutine[Any, Any, T], fast: bool = True) -> T:
    """``asyncio.run`` on the loop ``loop_factory(fast)`` gives."""
    with asyncio.Runner(loop_factory=loop_factory(fast)) as runner:
        return runner.run(main)


class LoopThread:
    """An event loop running in a thread of its own, for code called from threads that
    are not asyncio's (a Dask worker's tasks): what it starts (programs, their pipes)
    lives on between calls, on one loop. ``call`` runs a coroutine there and waits."""

    def __init__(self, name: str) -> None:
        factory = loop_factory()
        self.loop = factory() if factory is not None else asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name=name, daemon=True)
        self.thread.start()

    def call(self, job: Coroutine[Any, Any, T], timeout: float | None = None) -> T:
        return asyncio.run_coroutine_threadsafe(job, self.loop).result(timeout)

    def stop(self, last: Coroutine[Any, Any, Any], timeout: float) -> None:
        """Run ``last`` (a clean-up), then stop the loop and its thread."""
        try:
            self.call(last, timeout)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout)
