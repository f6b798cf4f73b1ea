"""How the arena's cost grows with its work, by simulation: entrants and recorded matches.

    python -m bench.arena_scale [--entrants 100 --entrants 1000]
                                [--matches 10000 --matches 100000 --matches 1000000]
                                [--seats 4] [--repeat 5]

No program plays. Entrants with hidden true strengths (normal, standard deviation 1
in the fit's log-strength: about 170 Elo) are invited and accepted, and tables are
written straight into a ``Book`` as the arena records them: one deal from every
seat (``--seats`` matches, the seating rotated), each match's places drawn from the
strengths (Plackett-Luce: each seat's strength plus Gumbel noise), its result as a
table encodes it, and each author's note of where its standard error lies. The
entrants at a table are drawn at random. The book grows step by step (each
``--matches``), and at each step:

- ``db_mb``: the book's size on disk (the file and its WAL);
- ``start``: the arena's start, in a fresh process: ``Book.open`` (``open_s``),
  reading the finished matches as the arena's first board does (``read_s``, the
  book's ``played()``), adding them to a ``Ledger`` (``add_s``), and the process's
  peak resident memory over what it held before (``peak_mb``); its floor,
  ``floor_s``: the same rows fetched by a bare ``SELECT`` and not decoded;
- ``add_table_ms``: one more table (``--seats`` matches) added to the ledger;
- ``fit_s``: the ledger's fit (``Ledger.fit``) from its last ratings, on the same results;
  ``intervals_s``: the arena's bootstrap (``Arena.bootstrap``, in a thread), with
  ``frozen_ms`` the copy of the ledger it starts from (``Ledger.frozen``, on the
  event loop), ``loop_stall_ms`` the longest the event loop waited for a turn
  during the bootstrap, and ``bootstrap_pairs``, the pairs the bootstrap resamples
  (each unit's, at most ``UNITS`` units);
- ``board_s``: the arena's board after one more table is written (``Arena.board``:
  the book read for what is new, the fit, no intervals), as a command reading the
  book makes it; as the running arena makes it, with its fits in a thread
  (``Arena.ratings``): ``served_ms``, the board on the event loop after one more
  table, ``refit_s`` until the board's ratings have that table, and
  ``refit_stall_ms`` the longest the event loop waited for a turn meanwhile;
- ``next_table_us``: the matchmaker's choice of one table (``next_table``) from the
  board's standings, and ``choose_ms`` the arena's whole choice (who plays, the
  board, the choice);
- ``head_to_head_ms``: one entrant's head-to-head (``Book.head_to_head``, one query
  over all its matches), ``filtered_ms`` its last 20 matches won against its most
  met opponent (``Book.matches_of``), and ``note_ratings_ms`` a point of every
  entrant's rating history written (``Book.note_ratings``, as each bootstrap does);
- ``pages_ms``: ``/``, ``/api/leaderboard``, ``/entrant/NAME``, ``/api/entrant/NAME``
  as ``arena.web.make_app`` serves them (aiohttp on 127.0.0.1, the board warm), best
  of ``--repeat``; ``pages_to_floor``: each over a route that answers two bytes on
  the same server, its floor.

``growth`` gives, for each figure, the exponent of its growth from the first step to
the last of each number of entrants: about 1 is linear in matches, about 0 bounded.
Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click
import msgspec
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from leastscore.arena.book import Book
from leastscore.arena.config import ArenaConfig
from leastscore.arena.matchmaker import Standing, next_table
from leastscore.arena.service import Arena
from leastscore.arena.standings import Ledger
from leastscore.arena.web import make_app
from leastscore.tournament.pure.results import MatchResult, SeatResult, encode_result

from .load import rss_kib

BATCH = 5000
"""Tables written in one transaction."""
PAGES = ("/", "/api/leaderboard", "/entrant/{name}", "/api/entrant/{name}")


class Population:
    """The simulated arena's entrants and their hidden strengths, and the tables they
    play, written into the book. Why a class: every step adds tables to the same
    book, from the same entrants, with the same random numbers going on."""

    def __init__(self, book: Book, folder: Path, entrants: int, seats: int, seed: int) -> None:
        self.book = book
        self.seats = seats
        self.rng = random.Random(seed)
        self.names: dict[int, str] = {}
        self.strength: dict[int, float] = {}
        self.stderr = str(folder / "programs" / "0")
        for i in range(entrants):
            name = f"e{i:04d}"
            book.invite(name)
            sub = book.submit(name)
            book.judged(sub.id, True, "accepted: it plays from now on\n", "./bot")
            self.names[sub.id] = name
            self.strength[sub.id] = self.rng.gauss(0.0, 1.0)
        self.ids = sorted(self.names)

    def result(self, fixture: int, seating: list[int]) -> bytes:
        """One match's result, its places drawn from the seated entrants' strengths."""
        rng = self.rng
        perf = [self.strength[s] - math.log(-math.log(rng.random() or 1e-300)) for s in seating]
        order = sorted(range(len(seating)), key=lambda i: -perf[i])
        place = {seat: p + 1 for p, seat in enumerate(order)}
        seats = tuple(
            SeatResult(
                bot=self.names[s], place=place[i], score=20 * place[i] + rng.randrange(20),
                rounds=rng.randrange(5, 15), points=rng.randrange(60, 140),
                declared=rng.randrange(4), held=rng.randrange(2),
                cpu_seconds=round(rng.random() * 0.2, 3),
            )
            for i, s in enumerate(seating)
        )  # fmt: skip
        return encode_result(
            MatchResult(fixture=fixture, status="played", seats=seats, end="winner",
                        rounds=rng.randrange(5, 15), moves=rng.randrange(150, 400),
                        seconds=round(rng.random(), 4))
        )  # fmt: skip

    def write(self, tables: int) -> None:
        """``tables`` more finished tables, each one deal from every seat, with the rows
        ``Book.begin_table`` and ``Book.end_table`` write."""
        (last,) = self.book.db.execute("SELECT COALESCE(MAX(id), 0) FROM tables_played").fetchone()
        for start in range(0, tables, BATCH):
            rows: tuple[list[Any], list[Any], list[Any]] = ([], [], [])
            for table_id in range(last + 1 + start, last + 1 + min(tables, start + BATCH)):
                self._table(table_id, *rows)
            db = self.book.db
            db.execute("BEGIN")
            (placed,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM matches").fetchone()
            db.executemany("INSERT INTO tables_played (id, seed, entrants, state, started, "
                           "finished) VALUES (?, ?, ?, 'done', ?, ?)", rows[0])  # fmt: skip
            db.executemany("INSERT INTO matches (table_id, seats, result) VALUES (?, ?, ?)",
                           rows[1])  # fmt: skip
            db.executemany("INSERT INTO stderr VALUES (?, ?, ?, ?, ?)", rows[2])
            self.book.place_matches(placed)  # each seat, as Book.end_table places it
            db.execute("COMMIT")

    def _table(self, table_id: int, tables: list[Any], matches: list[Any],
               stderr: list[Any]) -> None:  # fmt: skip
        seated = self.rng.sample(self.ids, self.seats)
        now = time.time()
        tables.append((table_id, self.rng.getrandbits(63), json.dumps(seated), now, now))
        for r in range(self.seats):
            seating = seated[r:] + seated[:r]
            matches.append((table_id, json.dumps(seating), self.result(r, seating).decode()))
        for s in seated:
            path = f"{self.stderr}/{self.names[s]}.main.stderr"
            stderr.append((table_id, self.names[s], path, 0, 0))

    def one_table(self) -> None:
        """One more table through the book's own calls, as the arena ends one."""
        seated = self.rng.sample(self.ids, self.seats)
        table_id = self.book.begin_table(self.rng.getrandbits(63), seated)
        rotations = [seated[r:] + seated[:r] for r in range(self.seats)]
        matches = [(tuple(s), self.result(r, s)) for r, s in enumerate(rotations)]
        stderr = {self.names[s]: (f"{self.stderr}/{self.names[s]}.main.stderr", 0, 0)
                  for s in seated}  # fmt: skip
        self.book.end_table(table_id, matches, stderr)


def timed(work: Callable[[], object], repeat: int = 1) -> float:
    """The best of ``repeat`` runs of ``work``, in seconds."""
    best = math.inf
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        best = min(best, time.perf_counter() - started)
    return best


def start_figures(folder: Path) -> dict[str, float]:
    """The arena's start, in this (fresh) process: see the module's docstring."""
    path = folder / "arena.sqlite"
    with open(path, "rb") as f:  # the file in the page cache, as for every step
        while f.read(1 << 24):
            pass
    before = rss_kib(os.getpid())
    started = time.perf_counter()
    book = Book.open(path)
    opened = time.perf_counter()
    floor = timed(lambda: [None for _ in book.db.execute(
        "SELECT m.id, m.table_id, m.seats, m.result FROM matches m")])  # fmt: skip
    read_at = time.perf_counter()
    authors = {s.id: s.author for s in book.submissions()}
    played = book.played("m.id > ?", (0,))
    read = time.perf_counter()
    Ledger().add(played, authors)
    added = time.perf_counter()
    return {
        "open_s": round(opened - started, 4),
        "read_s": round(read - read_at, 3),
        "add_s": round(added - read, 3),
        "floor_s": round(floor, 3),
        "read_to_floor": round((read - read_at) / floor, 2),
        "peak_mb": round((rss_kib(os.getpid(), "VmHWM") - before) / 1024, 1),
    }


def start_in_a_fresh_process(folder: Path) -> dict[str, float]:
    argv = [sys.executable, "-m", "bench.arena_scale", "--start-of", str(folder)]
    done = subprocess.run(argv, capture_output=True, text=True, check=True)
    figures: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return figures


async def ticking(work: Awaitable[object]) -> tuple[float, float]:
    """How long ``work`` takes, and the longest the event loop waited for a turn
    meanwhile (a task asks for one every millisecond)."""
    longest = 0.0

    async def tick() -> None:
        nonlocal longest
        while True:
            before = time.perf_counter()
            await asyncio.sleep(0.001)
            longest = max(longest, time.perf_counter() - before - 0.001)

    ticker = asyncio.create_task(tick())
    began = time.perf_counter()
    await work
    took = time.perf_counter() - began
    ticker.cancel()
    return took, longest


async def refit_figures(arena: Arena, population: Population) -> dict[str, float]:
    """One more table with the arena's fits in their thread (``Arena.ratings``): the
    board's time on the event loop, then how long until its ratings have the table,
    and the longest the loop waited for a turn meanwhile."""
    fitting = arena.fit_in_background()
    population.one_table()
    arena.poke()
    before = arena._ledger.ratings
    served = timed(arena.board)

    async def landed() -> None:  # a fit that lands pokes the arena
        while arena._ledger.ratings is before:
            arena.changed.clear()
            await arena.changed.wait()

    took, stall = await ticking(landed())
    fitting.cancel()
    return {
        "served_ms": round(served * 1000, 2),
        "refit_s": round(took, 3),
        "refit_stall_ms": round(stall * 1000, 1),
    }


def board_figures(arena: Arena, population: Population, repeat: int) -> dict[str, Any]:
    """The ledger's and the board's figures at this step (see the module's docstring)."""
    book = arena.book
    authors = book.authors_of()
    arena.poke()
    arena.board()  # the ledger catches up with the step's tables
    ledger = arena._ledger
    population.one_table()
    new = book.played("m.id > ?", (arena._last_match,))
    add = timed(lambda: Ledger().add(new, authors), repeat)  # the table's own work
    arena.poke()
    board = timed(arena.board)
    fit = timed(ledger.fit, repeat)
    frozen = timed(ledger.frozen, repeat)
    intervals, stall = asyncio.run(ticking(arena.bootstrap()))
    refit = asyncio.run(refit_figures(arena, population))
    rows = arena.board()
    standings = [Standing(i, r.rating, r.width, r.matches) for i, r in enumerate(rows)]
    rng = random.Random(1)
    choice = timed(lambda: [next_table(standings, population.seats, rng) for _ in range(100)])
    choose = timed(lambda: arena._choose(arena._everyone()), repeat)
    return {
        "add_table_ms": round(add * 1000, 3),
        "board_s": round(board, 4),
        "fit_s": round(fit, 4),
        "intervals_s": round(intervals, 3),
        "frozen_ms": round(frozen * 1000, 2),
        "loop_stall_ms": round(stall * 1000, 1),
        **refit,
        "bootstrap_pairs": sum(len(unit) for unit in ledger.units.values()),
        "next_table_us": round(choice / 100 * 1e6, 1),
        "choose_ms": round(choose * 1000, 2),
    }


def entrant_figures(book: Book, population: Population, repeat: int) -> dict[str, float]:
    """An entrant page's queries at this step (see the module's docstring)."""
    name = population.names[population.ids[0]]
    met = book.head_to_head(name)
    meets = timed(lambda: book.head_to_head(name), repeat)
    filtered = timed(lambda: book.matches_of(name, met[0].opponent, "won", 20), repeat)
    ratings = [(i, 0.0, -1.0, 1.0, 1) for i in population.ids]
    at = time.time()
    note = timed(lambda: book.note_ratings(at + time.perf_counter(), ratings, every=0), repeat)
    return {
        "head_to_head_ms": round(meets * 1000, 2),
        "opponents_met": len(met),
        "filtered_ms": round(filtered * 1000, 2),
        "note_ratings_ms": round(note * 1000, 2),
    }


async def page_figures(arena: Arena, name: str, repeat: int) -> dict[str, dict[str, float]]:
    """Each page's best load time in milliseconds, and over the floor's."""

    async def floor(request: web.Request) -> web.Response:
        return web.Response(text="ok")

    app = make_app(arena)
    app.router.add_get("/floor", floor)
    loads: dict[str, float] = {}
    async with TestClient(TestServer(app, host="127.0.0.1", port=0)) as client:
        for path in ("/floor", *(p.format(name=name) for p in PAGES)):
            best = math.inf
            for _ in range(repeat + 1):  # the first warms what a page caches
                started = time.perf_counter()
                answer = await client.get(path)
                await answer.read()
                best = min(best, time.perf_counter() - started)
                assert answer.status == 200, (path, answer.status)
            loads[path] = best
    base = loads.pop("/floor")
    return {
        "pages_ms": {p: round(t * 1000, 2) for p, t in loads.items()},
        "pages_to_floor": {p: round(t / base, 1) for p, t in loads.items()},
        "floor_ms": {"/floor": round(base * 1000, 3)},
    }


def db_mb(folder: Path) -> float:
    files = [folder / f"arena.sqlite{tail}" for tail in ("", "-wal")]
    return round(sum(f.stat().st_size for f in files if f.exists()) / 1e6, 1)


def step(
    arena: Arena, population: Population, folder: Path, matches: int, repeat: int
) -> dict[str, Any]:
    """The book grown to ``matches`` matches, and every figure at that size."""
    (have,) = arena.book.db.execute("SELECT COUNT(*) FROM matches").fetchone()
    population.write(max(0, (matches - have) // population.seats))
    figures: dict[str, Any] = {"entrants": len(population.ids)}
    figures["matches"] = arena.book.db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]
    figures["db_mb"] = db_mb(folder)
    figures["start"] = start_in_a_fresh_process(folder)
    figures |= board_figures(arena, population, repeat)
    figures |= entrant_figures(arena.book, population, repeat)
    figures |= asyncio.run(page_figures(arena, population.names[population.ids[0]], repeat))
    return figures


def say(f: dict[str, Any]) -> None:
    s = f["start"]
    pages = ", ".join(f"{p} {ms} ms ({f['pages_to_floor'][p]}x)" for p, ms in f["pages_ms"].items())
    click.echo(
        f"{f['entrants']} entrants, {f['matches']:,} matches, {f['db_mb']} MB: start open "
        f"{s['open_s']} s, read {s['read_s']} s ({s['read_to_floor']}x a bare scan), add "
        f"{s['add_s']} s, +{s['peak_mb']} MB; a table adds in {f['add_table_ms']} ms; board "
        f"{f['board_s']} s; fit {f['fit_s']} s (in its thread: board {f['served_ms']} ms, "
        f"refit {f['refit_s']} s, stall {f['refit_stall_ms']} ms); intervals {f['intervals_s']} s "
        f"({f['bootstrap_pairs']:,} pairs); next_table "
        f"{f['next_table_us']} us, choose {f['choose_ms']} ms; head-to-head "
        f"{f['head_to_head_ms']} ms ({f['opponents_met']} met), filtered matches "
        f"{f['filtered_ms']} ms, ratings noted {f['note_ratings_ms']} ms; pages {pages}",
        err=True,
    )


def growth(steps: list[dict[str, Any]]) -> dict[str, dict[str, float | None]]:
    """Per number of entrants, each figure's exponent of growth in matches."""
    out: dict[str, dict[str, float | None]] = {}
    for n in sorted({s["entrants"] for s in steps}):
        mine = [s for s in steps if s["entrants"] == n]
        if len(mine) < 2:
            continue
        first, last = _flat(mine[0]), _flat(mine[-1])
        span = math.log(last["matches"] / first["matches"])
        out[str(n)] = {
            k: None if not first[k] or last[k] is None else
            round(math.log(max(last[k], 1e-9) / first[k]) / span, 2)
            for k in first if k not in ("entrants", "matches") and first[k] is not None
        }  # fmt: skip
    return out


def _flat(figures: dict[str, Any]) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, value in figures.items():
        if isinstance(value, dict):
            flat |= {f"{key}.{k}": v for k, v in value.items()}
        else:
            flat[key] = value
    return flat


@click.command()
@click.option("--entrants", type=int, multiple=True, help="Entrants (default 100 and 1000).")
@click.option("--matches", type=int, multiple=True,
              help="Matches at each step (default 10,000, 100,000 and 1,000,000).")  # fmt: skip
@click.option("--seats", default=4, show_default=True, help="Players at a table.")
@click.option("--repeat", default=5, show_default=True, help="Runs of each figure (the best).")
@click.option("--start-of", type=click.Path(path_type=Path), hidden=True)
def main(entrants: tuple[int, ...], matches: tuple[int, ...], seats: int, repeat: int,
         start_of: Path | None) -> None:  # fmt: skip
    if start_of is not None:
        click.echo(json.dumps(start_figures(start_of)))
        return
    steps = []
    started = time.perf_counter()
    for n in entrants or (100, 1000):
        with tempfile.TemporaryDirectory(prefix="leastscore-bench-arena-scale-") as tmp:
            folder = Path(tmp)
            arena = Arena(folder, ArenaConfig(seats=seats))
            population = Population(arena.book, folder, n, seats, seed=n)
            for m in sorted(matches or (10_000, 100_000, 1_000_000)):
                steps.append(step(arena, population, folder, m, repeat))
                say(steps[-1])
            arena.book.close()
    result = {
        "bench": "arena_scale",
        "seats": seats,
        "steps": steps,
        "growth": growth(steps),
        "seconds": round(time.perf_counter() - started),
        "cpus": os.cpu_count(),
    }
    click.echo(json.dumps(msgspec.to_builtins(result)))


if __name__ == "__main__":
    main()
