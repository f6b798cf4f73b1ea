"""What an arena costs and how fast it learns, against ``leastscore tournament`` with the
same entrants in the same run.

    python -m bench.arena [--seconds 60] [--seats 2] [--threshold 50]

Three reference bots (``random``, ``greedy``, ``counter``) run as programs on stdio,
each from a folder of its own, under the sandbox the machine has:

- ``tournament``: ``leastscore tournament --workers 1`` over those programs plays a
  round-robin; matches per second of wall time.
- ``arena``: ``leastscore arena serve`` with one table at a time; the three are
  submitted, and the arena plays for ``--seconds``. Matches per second of wall time
  once all three are placed, and the ratio to the tournament's (the bookkeeping's
  cost: the book, the matchmaker, the fit); the seconds from a submission to its
  first rated match; and after how many matches the leaderboard's order became
  ``counter > greedy > random`` and stayed so to the end; and the arena process's
  resident memory when all three were placed and at the end.

Both sides play one table at a time, so both are measured per worker. Last line:
one JSON object.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import click

LEVELS = ("random", "greedy", "counter")


def run_builtin(level: str) -> str:
    """A built-in level as a program on stdio, as the arena and the tournament start it."""
    return f"{sys.executable} -m leastscore bot run builtin:{level} --stdio"


def leastscore(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "leastscore", *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def references(root: Path) -> dict[str, Path]:
    folders = {}
    for level in LEVELS:
        folder = root / "bots" / level
        folder.mkdir(parents=True)
        (folder / "bot.toml").write_text(f'run = "{run_builtin(level)}"\n')
        folders[level] = folder
    return folders


def tournament(folders: dict[str, Path], seats: int, threshold: int, deals: int) -> dict[str, Any]:
    argv = [f'--bot={level}=cmd:"{run_builtin(level)}"' for level in folders]
    started = time.perf_counter()
    out = leastscore(
        "tournament", *argv, f"--seats={seats}", f"--threshold={threshold}",
        f"--deals={deals}", "--seed=1", "--workers=1", "--quiet",
    )  # fmt: skip
    seconds = time.perf_counter() - started
    matches = deals * len(_groups(len(folders), seats)) * seats
    return {
        "matches": matches,
        "seconds": round(seconds, 2),
        "per_s": round(matches / seconds, 2),
        "out": out[-200:],
    }


def _groups(n: int, k: int) -> list[tuple[int, ...]]:
    from itertools import combinations

    return list(combinations(range(n), k))


def board(url: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(url + "/api/leaderboard", timeout=30) as answer:
        return list(json.load(answer)["rows"])


def arena(
    root: Path, folders: dict[str, Path], seats: int, threshold: int, seconds: float
) -> dict[str, Any]:
    home = root / "arena"
    home.mkdir()
    (home / "arena.toml").write_text(
        f"seats = {seats}\nthreshold = {threshold}\ntables_at_once = 1\ncheck_matches = 1\n"
    )
    tokens = {level: leastscore("arena", "invite", str(home), level).strip() for level in LEVELS}
    serve = subprocess.Popen(
        [sys.executable, "-m", "leastscore", "arena", "serve", str(home), "--port", "0"],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert serve.stdout is not None
        url = serve.stdout.readline().split()[1].rstrip("/")
        sent_at = {}
        for level in LEVELS:
            sent_at[level] = time.perf_counter()
            leastscore("arena", "submit", url, str(folders[level]), "--token", tokens[level])
        return _watch(url, sent_at, seconds, serve.pid)
    finally:
        serve.kill()
        serve.wait()


def rss_mb(pid: int) -> float:
    """A process's resident memory, from /proc (0 where there is none)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return 0.0


def _watch(url: str, sent_at: dict[str, float], seconds: float, pid: int) -> dict[str, Any]:
    first: dict[str, float] = {}
    placed_at = placed_matches = None
    rss_placed = 0.0
    history: list[tuple[int, bool]] = []
    deadline = time.perf_counter() + seconds
    while True:
        now = time.perf_counter()
        rows = board(url)
        for row in rows:
            if row["matches"] and row["author"] not in first:
                first[row["author"]] = now - sent_at[row["author"]]
        total = sum(r["matches"] for r in rows) // 2 if rows else 0
        if placed_at is None and len(first) == len(LEVELS):
            placed_at, placed_matches = now, total
            deadline = now + seconds
            rss_placed = rss_mb(pid)
        order = [r["author"] for r in rows if r["matches"]]
        history.append((total, order == list(reversed(LEVELS))))
        if placed_at is not None and now >= deadline:
            break
        time.sleep(0.25)
    played = history[-1][0] - (placed_matches or 0)
    settled = next(
        (m for i, (m, ok) in enumerate(history) if all(good for _, good in history[i:])), None
    )
    return {
        "matches": played,
        "seconds": round(time.perf_counter() - (placed_at or 0), 2),
        "per_s": round(played / max(1e-9, time.perf_counter() - (placed_at or 0)), 2),
        "to_first_rated_match_s": {k: round(v, 2) for k, v in sorted(first.items())},
        "settled_after_matches": settled,
        "final_order": [r["author"] for r in board(url)],
        "serve_rss_mb": {"placed": rss_placed, "end": rss_mb(pid)},
    }


@click.command()
@click.option("--seconds", default=60.0, show_default=True, help="How long the arena plays.")
@click.option("--seats", default=2, show_default=True, help="Players at a table.")
@click.option("--threshold", default=50, show_default=True, help="Points that end a match.")
@click.option("--deals", default=150, show_default=True, help="The tournament's deals per group.")
def main(seconds: float, seats: int, threshold: int, deals: int) -> None:
    with tempfile.TemporaryDirectory(prefix="leastscore-bench-arena-") as tmp:
        root = Path(tmp)
        folders = references(root)
        played = tournament(folders, seats, threshold, deals)
        ran = arena(root, folders, seats, threshold, seconds)
    result = {
        "bench": "arena",
        "seats": seats,
        "threshold": threshold,
        "tournament_per_s": played["per_s"],
        "arena_per_s": ran["per_s"],
        "arena_to_tournament": round(ran["per_s"] / played["per_s"], 3),
        "tournament": {k: v for k, v in played.items() if k != "out"},
        "arena": ran,
        "cpus": os.cpu_count(),
    }
    print(json.dumps(result))


if __name__ == "__main__":
    main()
