"""What any part may ask without importing another: the version, and where data lives."""

from __future__ import annotations

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
