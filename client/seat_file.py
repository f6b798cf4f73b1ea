"""The resume token of the seat you hold, kept in your private data folder.

A ``leastscore play`` that is killed (a closed window, a crash) loses the token it
would take the seat back with; kept on disk, per server and name, the next
``leastscore play`` with the same server and name takes the seat back while the
match lasts (PROTOCOL.md, *Resuming*). The file is readable by you alone (the token is your seat)
and is forgotten when the match ends or you leave the table.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from leastscore.about import data_dir, private_folder


class SeatFile:
    """One server and name's saved token: ``seats/<hash>`` under ``data_dir()``."""

    def __init__(self, host: str, port: int, name: str, folder: Path | None = None) -> None:
        key = hashlib.sha256(f"{host}:{port}\n{name}".encode()).hexdigest()[:32]
        self.folder = folder or data_dir() / "seats"
        self.path = self.folder / key

    def load(self) -> str | None:
        try:
            token = self.path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return None
        return token or None

    def save(self, token: str) -> None:
        """Write the token, mode 0600 in a 0700 folder; a folder that refuses is no error
        (the seat is then only kept for this session, as before)."""
        with contextlib.suppress(OSError):
            private_folder(self.folder)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(token)
            os.chmod(self.path, 0o600)  # one made before with other modes

    def forget(self) -> None:
        with contextlib.suppress(OSError):
            self.path.unlink()
