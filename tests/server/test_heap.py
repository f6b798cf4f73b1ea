"""Memory freed after a burst of load goes back to the system (``leastscore.heap``).

A server hit by a thousand connections each holding half a frame kept 60 MB more
than it started with once they had all gone (``make fuzz`` reports it); glibc's
malloc keeps freed memory pinned below a block still in use until ``malloc_trim``.
"""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig

from leastscore.heap import HeapTrimmer, malloc_trim

from ..support.server import wait_for

BURST = """
import os
from leastscore.heap import HeapTrimmer, malloc_trim

def rss_mb():
    with open(f"/proc/{os.getpid()}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:")) // 1024

blocks = []
for i in range(1000):  # 60 MB in 60 KB blocks, as half-received frames are
    blocks.append(bytearray(60_000))
    blocks.append(bytes(2000))  # and a small block after each, still in use
del blocks[:-1]
freed = rss_mb()
malloc_trim()()
print(freed, rss_mb())
"""

needs_glibc = pytest.mark.skipif(malloc_trim() is None, reason="no glibc malloc_trim here")


@needs_glibc
def test_memory_freed_after_a_burst_goes_back_to_the_system() -> None:
    out = subprocess.run([sys.executable, "-c", BURST], capture_output=True, text=True, check=True)
    freed, trimmed = map(int, out.stdout.split())
    assert freed - trimmed >= 40, (freed, trimmed)  # of the 60 MB freed, kept until trimmed


@needs_glibc
async def test_a_running_server_trims_its_heap_every_so_often_and_stops_when_it_stops() -> None:
    server = Server(ServerConfig(port=0, trim_every=0.05))
    await server.start()
    heap = server.heap
    assert heap is not None and heap._trim is not None
    real = heap._trim
    calls: list[int] = []

    def counted() -> int:
        calls.append(1)
        return real()

    heap._trim = counted
    await wait_for(lambda: len(calls) >= 3, timeout=30)
    await server.shutdown()
    seen = len(calls)
    await wait_for(lambda: heap._running is None or heap._running.done(), timeout=30)
    assert heap._timer is None  # nothing more is due
    assert len(calls) <= seen + 1  # at most the one already under way


def test_a_server_configured_never_to_trim_does_not() -> None:
    class Loop:
        def call_later(self, *args: Any) -> None:
            raise AssertionError("scheduled")

    HeapTrimmer(Loop(), 0.0).start()  # type: ignore[arg-type]
