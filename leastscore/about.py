"""What any part may ask without importing another: the version, and where data lives."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

VERSION = "0.1.0"


def data_dir() -> Path:
    """``$XDG_DATA_HOME/leastscore`` (``~/.local/share/leastscore`` by default)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "leastscore"


def default_db() -> str:
    """``matches.sqlite3`` in ``data_dir()``."""
    return str(data_dir() / "matches.sqlite3")


def private_folder(folder: Path) -> None:
    """Make ``folder`` if it is missing, each folder this adds readable by you alone
    (0700): what lives there (every hand ever dealt, seat tokens) is yours. A folder
    that exists keeps its mode."""
    missing = []
    while not folder.exists():
        missing.append(folder)
        folder = folder.parent
    for made in reversed(missing):
        made.mkdir(mode=0o700, exist_ok=True)


def private_file(path: Path) -> None:
    """Create ``path`` empty, readable and writable by you alone (0600), unless it exists."""
    private_folder(path.parent)
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
