"""The arena's loops survive what goes wrong inside a table."""

from __future__ import annotations

from pathlib import Path

import pytest
from leastscore.arena import service
from leastscore.arena.config import ArenaConfig
from leastscore.arena.service import Arena
from leastscore.arena.tables import PlayedTable, Seated


class Failing:
    """A table slot whose table breaks (a lost worker, a fault of the arena's own)."""

    async def play(self, *args: object) -> PlayedTable:
        raise RuntimeError("the worker went away")

    async def close(self) -> None:
        return None


async def test_a_table_that_fails_is_forgotten_and_the_loop_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setattr(service, "IDLE", 0.01)
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    seated = [Seated(1, "ann", tmp_path, "./bot"), Seated(2, "bo", tmp_path, "./bot")]
    await arena._play(Failing(), seated, seated)  # type: ignore[arg-type]
    assert arena.book.db.execute("SELECT COUNT(*) FROM tables_played").fetchone() == (0,)
    assert "table 1 failed; it is forgotten" in caplog.text
