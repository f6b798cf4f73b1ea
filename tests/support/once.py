"""A folder of results made once for the whole run, whichever test process needs it first.

Under pytest-xdist every test process builds a module's fixtures again: a fixture that
plays a whole contest is played once per process that runs one of its tests. What such
a fixture makes is files (a tournament's folder), so the first process to ask makes
them under a lock in the folder all test processes share, and the others wait for it
and read the same files: one contest, however the tests are spread.
"""

from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

MADE = ".made"
"""Left in the folder once it is whole: a folder without it was cut short, and is
made again."""


def shared_root(factory: pytest.TempPathFactory) -> Path:
    """The folder every test process of this run can see: the parent of each one's own
    base folder under xdist, the base folder itself without it."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def made_once(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder ``name``, filled by ``make(folder)`` in exactly one test process of
    the run; every process gets it whole. If ``make`` fails, the process that called it
    raises, and the next to ask tries again."""
    root = shared_root(factory)
    folder = root / name
    with open(root / f"{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / MADE).exists():
            shutil.rmtree(folder, ignore_errors=True)
            folder.mkdir()
            make(folder)
            (folder / MADE).touch()
    return folder
