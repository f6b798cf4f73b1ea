"""``leastscore arena``: set up, run and enter a standing competition (ARENA.md).

The organiser's commands act on the arena's folder and may run while ``arena serve``
does (they write the same book); ``arena submit`` is the author's, over HTTP.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import click
import msgspec

from leastscore.about import private_folder

from .book import Book
from .config import ArenaConfig, NoCluster, load

NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")


def _book(folder: Path) -> Book:
    if not (folder / "arena.sqlite").exists():
        raise click.UsageError(f"{folder} is no arena yet: start with arena invite or arena serve")
    return Book(folder / "arena.sqlite")


def _ready(folder: Path) -> Book:
    private_folder(folder)  # a new arena's folder is the organiser's alone (0700)
    try:
        load(folder)
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    return Book.open(folder / "arena.sqlite")


ARENA_HAND_CACHE = 1024
"""Hands the arena process keeps worked out (about 1 MB per rules variant)."""


@click.group()
def arena() -> None:
    """A standing competition that authors submit bots to (see ARENA.md)."""


@arena.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.argument("name")
def invite(folder: Path, name: str) -> None:
    """Make NAME an author and print their secret token (shown this once)."""
    if not NAME.fullmatch(name):
        raise click.UsageError("a name is 1 to 32 letters, digits, '-' or '_'")
    try:
        click.echo(_ready(folder).invite(name))
    except ValueError as e:
        raise click.UsageError(str(e)) from None


@arena.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.argument("level")
@click.option("--name", help="Its name on the leaderboard, LEVEL-ref when not given.")
def reference(folder: Path, level: str, name: str | None) -> None:
    """Enter the built-in LEVEL as a reference entrant (a yardstick for the authors)."""
    from leastscore.bots import BUILTIN

    from .service import submission_folder

    if level not in BUILTIN:
        raise click.UsageError(f"no built-in level {level!r}; choose from {', '.join(BUILTIN)}")
    name = name or f"{level}-ref"
    if not NAME.fullmatch(name):
        raise click.UsageError("a name is 1 to 32 letters, digits, '-' or '_'")
    book = _ready(folder)
    try:
        book.invite(name)  # a token nobody is given: it is the organiser's entrant
    except ValueError as e:
        raise click.UsageError(str(e)) from None
    version = book.submit(name, "receiving")
    where = submission_folder(folder, version)
    where.mkdir(parents=True)
    run = f"{sys.executable} -m leastscore bot run builtin:{level} --stdio"
    (where / "bot.toml").write_text(f"run = {json.dumps(run)}\n", encoding="utf-8")
    book.received(version.id)
    click.echo(f"{level} entered as {name}: it plays once the arena has checked it")


@arena.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option("--host", default="127.0.0.1", show_default=True, help="Where to serve the pages.")
@click.option("--port", default=8800, show_default=True, help="0: any free port.")
@click.option(
    "--cluster",
    metavar="local:N|tcp://HOST:PORT",
    help="Play the tables on a Dask cluster: local:N or tcp://HOST:PORT (see ARENA.md).",
)
@click.option(
    "--sandbox",
    type=click.Choice(["bwrap", "limits", "none"]),
    help="How programs are contained, over arena.toml's: bwrap, which refuses to start "
    "where programs cannot be sealed (what auto means here), or limits or none, which "
    "let programs read your files and use the network: only among people who trust "
    "each other.",
)
def serve(folder: Path, host: str, port: int, cluster: str | None, sandbox: str | None) -> None:
    """Run the arena kept in FOLDER (its settings in FOLDER/arena.toml)."""
    folder = folder.absolute()
    _ready(folder).close()
    config = _sealed(load(folder), sandbox)
    # a process that runs for weeks keeps the engine's hand cache small: the referee sees
    # a hand a few times within one match and rarely again, so a bound a match's hands
    # fill is as fast as a larger one and is reached within minutes, where the server's
    # (4096) was still filling after an hour and looked like a leak (bench.arena --trace);
    # and the tables of the legal groups are filled at once, not over days
    from leastscore.game.groups import for_a_long_run

    for_a_long_run(ARENA_HAND_CACHE)
    # the bots' commands and builds find this installation's leastscore on the PATH
    os.environ["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    from leastscore.seats.loop import run

    if cluster is not None:
        from leastscore.tournament.running.cluster import parse_cluster

        try:
            parse_cluster(cluster)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--cluster") from None
    try:
        run(_serve(folder, config, host, port, cluster))
    except NoCluster as e:
        raise click.ClickException(f"--cluster {cluster}: {e}") from None


def _sealed(config: ArenaConfig, sandbox: str | None) -> ArenaConfig:
    """The settings with the sandbox made concrete: strangers' programs run sealed
    (``auto`` never falls back to limits, as a tournament's may), or the arena does
    not start; ``limits`` and ``none`` only when the organiser says so."""
    from leastscore.seats.sandbox import seal_problem

    mode = sandbox or config.sandbox
    if mode in ("auto", "bwrap"):
        problem = seal_problem()
        if problem is not None:
            raise click.ClickException(
                f"programs cannot be sealed here: {problem}; to run them unsealed among "
                "people who trust each other, say --sandbox limits"
            )
        mode = "bwrap"
    else:
        click.echo(
            f"sandbox: {mode}: programs can read what this user can and use the "
            "network (see ARENA.md)",
            err=True,
        )
    return msgspec.structs.replace(config, sandbox=mode)


async def _serve(
    folder: Path, config: ArenaConfig, host: str, port: int, cluster: str | None
) -> None:
    from leastscore.kit.serve import WebSite

    from .service import Arena
    from .web import make_app

    running = Arena(folder, config, cluster)
    site = WebSite(host, port)
    await site.serve(make_app(running))
    click.echo(f"arena: {site.address}", nl=True)
    sys.stdout.flush()
    try:
        await running.run()
    finally:
        await site.stop()


@arena.command()
@click.argument("url")
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.option("--token", required=True, envvar="LEASTSCORE_ARENA_TOKEN", help="Your token.")
@click.option("--wait/--no-wait", default=True, show_default=True, help="Wait for the verdict.")
def submit(url: str, folder: Path, token: str, wait: bool) -> None:
    """Send the bot in FOLDER to the arena at URL as a new version."""
    from .upload import UploadRefused, pack

    try:
        archive = pack(folder)
    except UploadRefused as e:
        raise click.ClickException(str(e)) from None
    sent = _call(url, "/api/submit", token, archive)
    click.echo(f"sent as {sent['author']} v{sent['version']} ({len(archive):,} bytes)")
    if not wait:
        return
    while True:
        mine = {v["version"]: v for v in _call(url, "/api/mine", token)}
        judged = mine[sent["version"]]
        if judged["state"] in ("accepted", "rejected"):
            click.echo(judged["log"], nl=False)
            sys.exit(0 if judged["state"] == "accepted" else 1)
        time.sleep(0.5)


def _call(url: str, path: str, token: str, body: bytes | None = None) -> Any:
    request = urllib.request.Request(
        url.rstrip("/") + path, data=body, headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return json.load(answer)
    except urllib.error.HTTPError as e:
        raise click.ClickException(e.read().decode("utf-8", "replace") or str(e)) from None
    except (urllib.error.URLError, OSError) as e:
        raise click.ClickException(f"no arena at {url}: {e}") from None


@arena.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def pause(folder: Path) -> None:
    """Start no new table (those being played finish)."""
    _book(folder).set("paused", "yes")


@arena.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def resume(folder: Path) -> None:
    """Play tables again after a pause."""
    _book(folder).set("paused", "no")


@arena.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("name")
@click.option("--why", required=True, help="Shown with the author's name.")
def disqualify(folder: Path, name: str, why: str) -> None:
    """Take NAME out of play for good (their token stops working)."""
    try:
        _book(folder).disqualify(name, why)
    except ValueError as e:
        raise click.UsageError(str(e)) from None


@arena.command("roll-back")
@click.argument("url")
@click.argument("version", type=int)
@click.option("--token", required=True, envvar="LEASTSCORE_ARENA_TOKEN", help="Your token.")
def roll_back(url: str, version: int, token: str) -> None:
    """Play your accepted VERSION again instead of the newest."""
    done = _call(url, f"/api/roll-back/{version}", token, b"")
    click.echo(f"{done['author']} v{done['version']} plays from now on")


@arena.command()
@click.argument("folder", type=click.Path(exists=True, file_okay=False, path_type=Path))
def export(folder: Path) -> None:
    """Print the leaderboard, every version and every match as JSON."""
    from .standings import leaderboard

    book = _book(folder)
    config = load(folder)
    submissions = {s.id: s for s in book.submissions()}
    authors = {i: s.author for i, s in submissions.items()}
    rows = leaderboard(book.played(), book.playing(), authors, config.new_version)
    finished = dict(book.db.execute("SELECT id, finished FROM tables_played"))
    versions = [
        {"author": s.author, "version": s.version, "state": s.state, "submitted": s.submitted}
        for s in submissions.values()
    ]
    matches = [
        {
            "table": m.table_id,
            "seats": [authors[s] for s in m.seats],
            "places": list(m.places),
            "match": m.id,
            "versions": [submissions[s].version for s in m.seats],
            "finished": finished[m.table_id],
        }
        for m in book.played()
    ]
    document = {"leaderboard": [r.as_json() for r in rows], "versions": versions}
    json.dump({**document, "matches": matches}, sys.stdout)
    click.echo()
