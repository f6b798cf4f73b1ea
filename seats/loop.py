"""The event loop a command runs on: uvloop's when it is installed, asyncio's otherwise.

One choice for every command (the server, tournaments and their workers, the
benchmarks), made by giving ``asyncio.Runner`` a loop factory: the event loop
policy the older way used is deprecated. uvloop is an optional extra
(``leastscore[fast]``); matches and the server run about a third faster on it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
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


def loop_name(fast: bool = True) -> str:
    """The name of the loop ``run(..., fast)`` runs on: "uvloop" or "asyncio"."""
    return "asyncio" if loop_factory(fast) is None else "uvloop"


def run(main: Coroutine[Any, Any, T], fast: bool = True) -> T:
    """``asyncio.run`` on the loop ``loop_factory(fast)`` gives."""
    with asyncio.Runner(loop_factory=loop_factory(fast)) as runner:
        return runner.run(main)
