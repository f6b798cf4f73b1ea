"""A tournament directory (``--out DIR``): its definition, its results, its match logs.

    DIR/tournament.json    the definition (entrants, format, seed): what --resume reads
    DIR/results.jsonl      one line per finished match, appended as each one ends
    DIR/logs/000042.jsonl  the full log of match 42 (``leastscore replay`` reads it)
    DIR/standings.json     written at the end, with standings.csv and report.html

A result line is written and flushed the moment its match ends, after its log
file is in place, so a run killed at any point loses at most the matches that
were being played. A line cut short by the kill is dropped when the run resumes.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import Iterable
from pathlib import Path
from typing import IO

import msgspec
from leastscore.game import Event, write_log

from ..pure import config as configs
from ..pure.config import TournamentConfig
from ..pure.results import MatchResult, decode_result

DEFINITION = "tournament.json"
RESULTS = "results.jsonl"
LOGS = "logs"


class Store:
    """A tournament's ``--out`` folder (the module says what is in it). Everything a run
    keeps goes through here, so that a killed run resumes from what was written."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._out: IO[bytes] | None = None
        self._made: bool | None = None
        """Whether ``create`` made the folder itself (None: not made by ``create``)."""

    # -- opening ------------------------------------------------------------------------

    @classmethod
    def create(cls, path: str | Path, config: TournamentConfig) -> Store:
        """A new tournament directory; refuses one that already holds results."""
        store = cls(path)
        if (store.path / RESULTS).exists() or (store.path / DEFINITION).exists():
            raise ValueError(
                f"{store.path} already holds a tournament: continue it with --resume "
                f"{store.path}, or choose another --out"
            )
        store._made = not store.path.exists()
        (store.path / LOGS).mkdir(parents=True, exist_ok=True)
        _write_atomic(store.path / DEFINITION, configs.dump(config))
        return store

    def undo(self) -> None:
        """Take back what ``create`` made, as long as no match has been stored since
        (a run that stopped before its first match): the same command may run again."""
        if self._made is None or any(self.path.rglob("*.jsonl")):
            return
        self.close()
        if self._made:
            shutil.rmtree(self.path, ignore_errors=True)
            return
        (self.path / DEFINITION).unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.path / LOGS).rmdir()

    @classmethod
    def resume(cls, path: str | Path) -> tuple[Store, TournamentConfig]:
        store = cls(path)
        definition = store.path / DEFINITION
        try:
            data = definition.read_bytes()
        except OSError:
            raise ValueError(
                f"{store.path} holds no tournament ({DEFINITION} is missing)"
            ) from None
        (store.path / LOGS).mkdir(parents=True, exist_ok=True)
        return store, configs.load(data)

    # -- results ------------------------------------------------------------------------

    def results(self) -> list[MatchResult]:
        """Every stored result. A last line cut short by a kill is cut off the file."""
        path = self.path / RESULTS
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return []
        end = data.rfind(b"\n") + 1
        if end < len(data):
            with open(path, "r+b") as f:
                f.truncate(end)
        out: list[MatchResult] = []
        for number, line in enumerate(data[:end].splitlines(), 1):
            if not line.strip():
                continue
            try:
                out.append(decode_result(line))
            except msgspec.DecodeError as e:
                raise ValueError(f"{path}, line {number}: not a match result ({e})") from None
        return out

    def append(self, line: bytes) -> None:
        """Add one encoded result (see ``encode_result``) and flush it to the file."""
        if self._out is None:
            self._out = open(self.path / RESULTS, "ab")  # noqa: SIM115 - kept open for the run
        self._out.write(line)
        self._out.flush()

    def close(self) -> None:
        if self._out is not None:
            self._out.close()
            self._out = None

    # -- match logs -----------------------------------------------------------------------

    def log_path(self, fixture: int) -> Path:
        return self.path / LOGS / f"{fixture:06d}.jsonl"

    def write_log(self, fixture: int, events: Iterable[Event]) -> None:
        path = self.log_path(fixture)
        partial = path.with_name(f".{path.name}.{os.getpid()}")
        with open(partial, "wb") as f:
            write_log(events, f)
        os.replace(partial, path)

    def put_log(self, fixture: int, data: bytes) -> None:
        """A match log already written out (by a worker on another machine)."""
        _write_atomic(self.log_path(fixture), data)

    def write(self, name: str, data: bytes) -> Path:
        """A report file, replaced whole."""
        path = self.path / name
        _write_atomic(path, data)
        return path


def _write_atomic(path: Path, data: bytes) -> None:
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_bytes(data)
    os.replace(partial, path)
