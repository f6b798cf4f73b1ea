"""An arena for tests: ``leastscore arena serve`` in a process of its own on loopback,
a contest's folder, bots and built-in levels entered as programs, and its pages read
as an author or a visitor reads them."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from leastscore.arena.book import Book
from leastscore.seats.sandbox import seal_problem

from .cli import leastscore


def bot(folder: Path, source: str | None, build: str | None = None, run: str = "bot.py") -> Path:
    """A bot's folder: ``source`` as its ``bot.py`` (if any), run as ``python RUN``."""
    folder.mkdir(parents=True)
    if source is not None:
        (folder / "bot.py").write_text(source)
    lines = [f'run = "{sys.executable} {run}"'] + ([f'build = "{build}"'] if build else [])
    (folder / "bot.toml").write_text("\n".join(lines) + "\n")
    return folder


def reference(folder: Path, level: str, build: str | None = None) -> Path:
    """A built-in level entered as a program (``bot run builtin:LEVEL --stdio``)."""
    return bot(folder, None, build, run=f"-m leastscore bot run builtin:{level} --stdio")


def get(url: str, token: str | None = None) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as r:
        body = r.read()
    return json.loads(body) if r.headers.get_content_type() == "application/json" else body


def status(url: str, token: str | None = None) -> int:
    try:
        get(url, token)
    except urllib.error.HTTPError as e:
        return e.code
    return 200


def contest(tmp_path: Path, settings: str) -> Path:
    """An arena's folder with these settings."""
    folder = tmp_path / "contest"
    folder.mkdir()
    (folder / "arena.toml").write_text(settings)
    return folder


def enter_references(served: Served, folder: Path, tmp_path: Path) -> dict[str, str]:
    """``greedy-ref`` and ``random-ref`` invited and submitted (accepted); their tokens."""
    tokens = {}
    for name, level in (("greedy-ref", "greedy"), ("random-ref", "random")):
        tokens[name] = leastscore("arena", "invite", str(folder), name).stdout.strip()
        made = reference(tmp_path / name, level)
        sent = leastscore("arena", "submit", served.url, str(made), "--token", tokens[name])
        assert sent.returncode == 0, sent.stdout + sent.stderr
        assert "accepted: it plays from now on" in sent.stdout
    return tokens


class Served:
    """``arena serve`` in a process of its own, on a free port of loopback."""

    def __init__(self, folder: Path, *args: str, env: dict[str, str] | None = None) -> None:
        if "--sandbox" not in args and (problem := seal_problem()) is not None:
            pytest.skip(f"an arena refuses to run programs unsealed: {problem}")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "leastscore",
                "arena",
                "serve",
                str(folder),
                "--port",
                "0",
                *args,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert self.proc.stdout is not None
        self.said: list[str] = []
        """What it wrote before its address."""
        while (line := self.proc.stdout.readline()).startswith("sandbox: "):
            self.said.append(line)
        assert line.startswith("arena: "), [*self.said, line]
        self.url = line.split()[1].rstrip("/")

    def stop(self) -> None:
        """As a crash or an operator's kill -9 ends it: no chance to tidy up."""
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def board(self) -> dict[str, dict[str, Any]]:
        return {row["author"]: row for row in get(self.url + "/api/leaderboard")["rows"]}

    def wait_for(self, enough: Any, seconds: float = 240) -> dict[str, dict[str, Any]]:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            board = self.board()
            if enough(board):
                return board
            time.sleep(0.2)  # a board is a few milliseconds of the arena's time
        raise AssertionError(f"not reached in {seconds} s: {self.board()}")


def quiet_variables() -> dict[str, str]:
    """``QUIET_DASK`` as the variables Dask reads at start, which TOURNAMENTS.md gives
    an organiser for ``dask scheduler`` and ``dask worker``."""
    from leastscore.tournament.running.cluster import QUIET_DASK

    return {
        "DASK_" + key.upper().replace(".", "__").replace("-", "_"): str(value)
        for key, value in QUIET_DASK.items()
    }


def quiet_dask() -> dict[str, str]:
    """This process's environment with Dask's housekeeping turned down."""
    return {**os.environ, **quiet_variables()}


def start_scheduler() -> tuple[subprocess.Popen[str], str]:
    """``dask scheduler`` on a free port of loopback, and its address (from the line
    it logs once it listens; the rest of its log is read and dropped)."""
    dask = str(Path(sys.executable).with_name("dask"))
    process = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=quiet_dask(),
    )  # fmt: skip
    assert process.stderr is not None
    for line in process.stderr:
        if "Scheduler at:" in line:
            address = line.split("Scheduler at:")[1].strip()
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, address
    raise AssertionError(f"no scheduler: it exited with {process.wait()}")


def playing(tmp_path: Path, *names: str) -> Book:
    """A book in which each of ``names`` has one accepted version (ids 1, 2, ...)."""
    book = Book.open(tmp_path / "a.sqlite")
    for name in names:
        book.invite(name)
        book.judged(book.submit(name).id, True, "ok", "./bot")
    return book
