"""A process under ``tracemalloc``, and what grew in it between two snapshots.

    python -m bench.traced FRAMES ARGS...    # ``leastscore ARGS...`` traced

The benches that ask what holds memory (``bench.memory`` for the server,
``bench.arena --trace`` for the arena) run what they measure as a child traced
this way. The child keeps a thread reading its stdin: ``snap PATH`` dumps a
snapshot to PATH and answers ``done`` on stdout; stdin closed, it ends (a command
as Ctrl-C ends it). ``Traced`` is the parent's side:
it asks for a snapshot, loads it and reads the child's resident memory at the same
moment; ``top`` lists the source lines whose allocations grew most between two.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import threading
import tracemalloc
from collections.abc import Callable
from typing import Any

from .load import rss_kib

TOP = 12


def answer_snapshots(stdin: Any, stdout: Any, ended: Callable[[], object]) -> None:
    """The child's side, in a thread: a snapshot dumped for every ``snap PATH`` line;
    ``ended`` called once stdin is closed (the parent is done with it)."""

    def serve() -> None:
        for line in stdin:
            if line.startswith("snap "):
                tracemalloc.take_snapshot().dump(line[5:].strip())
                print("done", file=stdout, flush=True)
        ended()

    threading.Thread(target=serve, name="snapshots", daemon=True).start()


class Traced:
    """A traced child process and its snapshots. Why a class: the child, the pipe it
    answers on and the folder its snapshots pass through live as long as the bench
    asks it questions, and go together."""

    def __init__(self, argv: list[str]) -> None:
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.dir = tempfile.mkdtemp(prefix="leastscore-traced-")

    def readline(self) -> str:
        assert self.proc.stdout is not None
        return self.proc.stdout.readline()

    def snapshot(self, name: str) -> tuple[tracemalloc.Snapshot, float]:
        """A snapshot of the child's heap, and its RSS in MB, taken now."""
        assert self.proc.stdin is not None
        path = os.path.join(self.dir, f"{name}.snap")
        self.proc.stdin.write(f"snap {path}\n")
        self.proc.stdin.flush()
        while (line := self.readline()) and line.strip() != "done":
            pass  # what the child itself wrote on stdout
        assert line, "the traced process ended"
        rss = rss_kib(self.proc.pid) / 1024
        snap = tracemalloc.Snapshot.load(path)
        os.unlink(path)
        return snap, rss

    def stop(self, wait: float = 30.0) -> None:
        """Its stdin closed (a server ends then); killed if it has not ended in ``wait``."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(wait)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.rmdir(self.dir)


def top(after: tracemalloc.Snapshot, before: tracemalloc.Snapshot) -> list[dict[str, Any]]:
    """The source lines whose allocations grew most from ``before`` to ``after``."""
    rows = []
    for stat in after.compare_to(before, "lineno")[:TOP]:
        frame = stat.traceback[0]
        rows.append(
            {
                "where": f"{_short(frame.filename)}:{frame.lineno}",
                "kib": round(stat.size / 1024),
                "growth_kib": round(stat.size_diff / 1024),
                "blocks": stat.count,
            }
        )
    return rows


def _short(path: str) -> str:
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1]
    parts = path.split(os.sep)
    return os.sep.join(parts[-2:])


def total_mb(snap: tracemalloc.Snapshot) -> float:
    return sum(s.size for s in snap.statistics("filename")) / 2**20


def main() -> None:
    """``leastscore ARGS...`` with tracemalloc on, FRAMES deep, answering snapshots."""
    frames, args = int(sys.argv[1]), sys.argv[2:]
    tracemalloc.start(frames)
    answer_snapshots(sys.stdin, sys.stdout, lambda: os.kill(os.getpid(), signal.SIGINT))
    from leastscore.cli import main as leastscore

    leastscore(args, prog_name="leastscore")


if __name__ == "__main__":
    main()
