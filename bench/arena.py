"""What an arena costs and how fast it learns, against ``leastscore tournament`` with the
same entrants in the same run.

    python -m bench.arena [--seconds 60] [--seats 2] [--threshold 50]
                          [--levels random,greedy,counter] [--copies 1]
                          [--report-every 600] [--warm-up 600] [--trace 1]

Reference bots (built-in levels, by default ``random``, ``greedy``, ``counter``,
weakest first) run as programs on stdio, each from a folder of its own, under the
sandbox the machine has (with ``--copies N``, each level is entered N times, as
``LEVEL``, ``LEVEL-2``, ..., for a busy arena):

- ``tournament``: ``leastscore tournament --workers 1`` over those programs plays a
  round-robin; matches per second of wall time.
- ``arena``: ``leastscore arena serve`` with one table at a time; the three are
  submitted, and the arena plays for ``--seconds``. Matches per second of wall time
  once all three are placed, and the ratio to the tournament's (the bookkeeping's
  cost: the book, the matchmaker, the fit); the seconds from a submission to its
  first rated match; and after how many matches the leaderboard's order became
  the levels' (strongest first) and stayed so to the end; and the arena process's
  resident memory when all were placed and at the end. For a long run,
  ``--report-every`` prints a line to stderr now and then (matches, memory, order)
  to show that the arena keeps going at the same pace. ``--warm-up``: the resident
  memory is read again that long after all were placed, and its growth from then to
  the end given per hour (``rss_growth_mb_per_hour``); with ``--trace N`` the arena
  runs under tracemalloc (``bench.traced``, N frames deep), snapshotted at both
  points, and the source lines whose allocations grew most are printed.

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

from .load import rss_kib
from .traced import Traced, top, total_mb

LEVELS = ("random", "greedy", "counter")
"""The default reference levels, weakest first."""


def run_builtin(level: str) -> str:
    """A built-in level as a program on stdio, as the arena and the tournament start it."""
    return f"{sys.executable} -m leastscore bot run builtin:{level} --stdio"


def leastscore(*args: str) -> str:
    argv = [sys.executable, "-m", "leastscore", *args]
    done = subprocess.run(argv, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"leastscore {args[0]} {args[1]} failed:\n{done.stdout}{done.stderr}")
    return done.stdout


def references(root: Path, levels: tuple[str, ...], copies: int = 1) -> dict[str, Path]:
    """A folder for each entrant, named for its level (``LEVEL-2``: its second copy)."""
    folders = {}
    for level in levels:
        for copy in range(1, copies + 1):
            name = level if copy == 1 else f"{level}-{copy}"
            folder = root / "bots" / name
            folder.mkdir(parents=True)
            (folder / "bot.toml").write_text(f'run = "{run_builtin(level)}"\n')
            folders[name] = folder
    return folders


def in_order(authors: list[str], entered: list[str]) -> bool:
    """Are ``authors`` (the leaderboard, best first) in the order of their levels, as
    ``entered`` lists them weakest first (copies of a level in any order)?"""
    strength = {name: entered.index(name.split("-")[0]) for name in entered}
    ranks = [strength[a] for a in authors]
    return len(authors) == len(entered) and ranks == sorted(ranks, reverse=True)


def tournament(folders: dict[str, Path], seats: int, threshold: int, deals: int) -> dict[str, Any]:
    argv = [f'--bot={name}=cmd:"{run_builtin(name.split("-")[0])}"' for name in folders]
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


def arena(root: Path, folders: dict[str, Path], seats: int, threshold: int, seconds: float,
          report_every: float, warm_up: float, trace: int) -> dict[str, Any]:  # fmt: skip
    home = root / "arena"
    home.mkdir()
    (home / "arena.toml").write_text(
        f"seats = {seats}\nthreshold = {threshold}\ntables_at_once = 1\ncheck_matches = 1\n"
    )
    tokens = {name: leastscore("arena", "invite", str(home), name).strip() for name in folders}
    traced = ["-m", "bench.traced", str(trace)] if trace else ["-m", "leastscore"]
    serve = Traced([sys.executable, *traced, "arena", "serve", str(home), "--port", "0"])
    try:
        url = serve.readline().split()[1].rstrip("/")
        sent_at = {}
        for level in folders:
            sent_at[level] = time.perf_counter()
            leastscore("arena", "submit", url, str(folders[level]), "--token", tokens[level])
        memory = Memory(serve, warm_up, traced=bool(trace))
        return {**_watch(url, sent_at, seconds, memory, seats, report_every), **memory.figures()}
    finally:
        serve.stop(wait=10.0 if trace else 0.0)  # traced: Ctrl-C


def rss_mb(pid: int) -> float:
    """A process's resident memory in MB (``bench.load.rss_kib``)."""
    return round(rss_kib(pid) / 1024, 1)


class Memory:
    """The arena process's memory at three points: when all entrants were placed, once
    warmed up (``warm_up`` seconds later) and at the end; with tracemalloc, what grew
    from the second to the third."""

    def __init__(self, serve: Traced, warm_up: float, traced: bool) -> None:
        self.serve, self.warm_up, self.traced = serve, warm_up, traced
        self.rss: dict[str, float] = {}
        self.at: dict[str, float] = {}
        self.snaps: dict[str, Any] = {}

    def read(self, point: str) -> None:
        self.at[point] = time.perf_counter()
        if self.traced:
            self.snaps[point], rss = self.serve.snapshot(point)
            self.rss[point] = round(rss, 1)
        else:
            self.rss[point] = rss_mb(self.serve.proc.pid)

    def tick(self, since_placed: float) -> None:
        if "warm" not in self.at and since_placed >= self.warm_up:
            self.read("warm")

    def figures(self) -> dict[str, Any]:
        out: dict[str, Any] = {"serve_rss_mb": self.rss}
        if "warm" in self.at and "end" in self.at:
            hours = max(1e-9, self.at["end"] - self.at["warm"]) / 3600
            out["rss_growth_mb_per_hour"] = round((self.rss["end"] - self.rss["warm"]) / hours, 2)
            if self.traced:
                warm, end = self.snaps["warm"], self.snaps["end"]
                out["traced_mb"] = {
                    "warm": round(total_mb(warm), 2),
                    "end": round(total_mb(end), 2),
                }
                out["traced_growth_mb_per_hour"] = round(
                    (total_mb(end) - total_mb(warm)) / hours, 3
                )
                out["grew_after_warm_up"] = top(end, warm)
        return out


def _watch(url: str, sent_at: dict[str, float], seconds: float, memory: Memory, seats: int,
           report_every: float) -> dict[str, Any]:  # fmt: skip
    first: dict[str, float] = {}
    reported = time.perf_counter()
    placed_at = placed_matches = None
    history: list[tuple[int, bool]] = []
    deadline = time.perf_counter() + seconds
    while True:
        now = time.perf_counter()
        rows = board(url)
        for row in rows:
            if row["matches"] and row["author"] not in first:
                first[row["author"]] = now - sent_at[row["author"]]
        total = sum(r["matches"] for r in rows) // seats
        if placed_at is None and len(first) == len(sent_at):
            placed_at, placed_matches = now, total
            deadline = now + seconds
            memory.read("placed")
        if placed_at is not None:
            memory.tick(now - placed_at)
        order = [r["author"] for r in rows if r["matches"]]
        history.append((total, in_order(order, list(sent_at))))
        if report_every and now - reported >= report_every:
            reported = now
            _report(now - (placed_at or now), total, rss_mb(memory.serve.proc.pid), order)
        if placed_at is not None and now >= deadline:
            break
        time.sleep(0.25)
    memory.read("end")
    played = history[-1][0] - (placed_matches or 0)
    elapsed = max(1e-9, time.perf_counter() - (placed_at or 0))
    settled = next(
        (m for i, (m, ok) in enumerate(history) if all(good for _, good in history[i:])), None
    )
    return {
        "matches": played,
        "seconds": round(elapsed, 2),
        "per_s": round(played / elapsed, 2),
        "to_first_rated_match_s": {k: round(v, 2) for k, v in sorted(first.items())},
        "settled_after_matches": settled,
        "final_order": [r["author"] for r in board(url)],
        "matches_per_hour_per_author": round(3600 * played * seats / len(sent_at) / elapsed),
    }


def _report(seconds: float, matches: int, rss: float, order: list[str]) -> None:
    line = {"seconds": round(seconds), "matches": matches, "rss_mb": rss, "order": order}
    print(json.dumps(line), file=sys.stderr, flush=True)


@click.command()
@click.option("--seconds", default=60.0, show_default=True, help="How long the arena plays.")
@click.option("--seats", default=2, show_default=True, help="Players at a table.")
@click.option("--threshold", default=50, show_default=True, help="Points that end a match.")
@click.option("--deals", default=150, show_default=True, help="The tournament's deals per group.")
@click.option("--levels", default=",".join(LEVELS), show_default=True,
              help="The reference levels, weakest first.")  # fmt: skip
@click.option("--copies", default=1, show_default=True, help="Entrants of each level.")
@click.option("--report-every", default=0.0, help="Seconds between progress lines (stderr).")
@click.option(
    "--warm-up",
    default=600.0,
    show_default=True,
    help="Seconds after all are placed before memory growth is counted.",
)
@click.option("--trace", default=0, help="Run the arena under tracemalloc, this many frames deep.")
def main(seconds: float, seats: int, threshold: int, deals: int, levels: str, copies: int,
         report_every: float, warm_up: float, trace: int) -> None:  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="leastscore-bench-arena-") as tmp:
        root = Path(tmp)
        folders = references(root, tuple(levels.split(",")), copies)
        played = tournament(folders, seats, threshold, deals)
        ran = arena(root, folders, seats, threshold, seconds, report_every, warm_up, trace)
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
    for row in ran.get("grew_after_warm_up", []):
        print(f"  {row['where']:<50} {row['kib']:>8} KiB ({row['growth_kib']:+} KiB)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
