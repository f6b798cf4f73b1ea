"""``leastscore serve`` and ``leastscore history``."""

from __future__ import annotations

import gc
import logging
import socket
import sys

import click
from leastscore.game.groups import for_a_long_run
from leastscore.protocol.address import DEFAULT_PORT
from leastscore.seats.loop import loop_name, run

from leastscore.about import default_db

from .config import ServerConfig


def lan_address() -> str:
    """This machine's address on the local network (a UDP connect sends no packet)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.255.255.255", 1))
        return str(probe.getsockname()[0])
    except OSError:
        return socket.gethostbyname(socket.gethostname())
    finally:
        probe.close()


def setup_logging(verbose: int, quiet: int) -> None:
    level = logging.INFO - 10 * verbose + 10 * quiet
    logging.basicConfig(
        level=max(logging.DEBUG, level),
        format="%(asctime)s %(levelname)s %(message)s",
        stream=sys.stderr,
    )


@click.command()
@click.option("--host", default=ServerConfig.host, show_default=True, help="Address to bind.")
@click.option("--port", default=DEFAULT_PORT, show_default=True, help="Port; 0 picks a free one.")
@click.option(
    "--lan",
    is_flag=True,
    help="Bind every interface and announce the server, so others on the LAN find it.",
)
@click.option(
    "--name",
    default=None,
    show_default="this machine's name",
    help="The server's name on the LAN.",
)
@click.option("--db", default=default_db(), show_default=True, help="SQLite file for matches.")
@click.option("--no-db", is_flag=True, help="Keep no record of matches.")
@click.option(
    "--move-time",
    default=ServerConfig.human_move_time,
    show_default=True,
    help="Seconds per move for people.",
)
@click.option(
    "--bot-move-time",
    default=ServerConfig.bot_move_time,
    show_default=True,
    help="Seconds per move for bots and programs.",
)
@click.option(
    "--grace",
    default=ServerConfig.grace_period,
    show_default=True,
    help="Seconds a dropped seat is kept before a bot plays it.",
)
@click.option(
    "--abandon-after",
    default=ServerConfig.abandon_after,
    show_default=True,
    help="Seconds a match waits for its people when none is connected, then it is stopped.",
)
@click.option(
    "--bot-delay",
    default=ServerConfig.bot_delay,
    show_default=True,
    help="Seconds a bot waits before it moves at tables with people.",
)
@click.option(
    "--bot-think-time",
    default=ServerConfig.bot_think_time,
    show_default=True,
    help="Seconds a built-in bot may think about a move (the cap of time_budget).",
)
@click.option(
    "--max-bot-samples",
    default=ServerConfig.max_bot_samples,
    show_default=True,
    help="The most samples a built-in bot may be given (expert:samples=N).",
)
@click.option(
    "--thinkers",
    default=ServerConfig.thinkers,
    show_default=True,
    help="Processes in which heavy bots (counter, expert) think.",
)
@click.option(
    "--max-connections-per-peer",
    default=ServerConfig.max_connections_per_peer,
    show_default=True,
    help="Connections one address may hold at once (raise it for load tests).",
)
@click.option(
    "--frame-timeout",
    default=ServerConfig.frame_timeout,
    show_default=True,
    help="Seconds a frame begun has to arrive whole before the connection is closed.",
)
@click.option(
    "--hand-cache",
    default=ServerConfig.hand_cache,
    show_default=True,
    help="Hands the rules engine keeps worked out (about 0.9 KB each).",
)
@click.option(
    "--web",
    "web",
    default=None,
    is_flag=False,
    flag_value="7446",
    metavar="[HOST:]PORT",
    help="Also serve the web view (read-only, for spectators) on this port; the host is"
    " the server's unless given. --web alone: port 7446. Needs leastscore[web] (aiohttp).",
)
@click.option("--no-uvloop", is_flag=True, help="Use the standard asyncio loop.")
@click.option("-v", "--verbose", count=True, help="More logging (repeatable).")
@click.option("-q", "--quiet", count=True, help="Less logging (repeatable).")
def serve(
    host: str,
    port: int,
    lan: bool,
    name: str | None,
    db: str,
    no_db: bool,
    move_time: float,
    bot_move_time: float,
    grace: float,
    abandon_after: float,
    bot_delay: float,
    bot_think_time: float,
    max_bot_samples: int,
    thinkers: int,
    max_connections_per_peer: int,
    frame_timeout: float,
    hand_cache: int,
    web: str | None,
    no_uvloop: bool,
    verbose: int,
    quiet: int,
) -> None:
    """Run a Least Score server."""
    setup_logging(verbose, quiet)
    config = ServerConfig(
        host="0.0.0.0" if lan else host,
        port=port,
        db=None if no_db else db,
        human_move_time=move_time,
        bot_move_time=bot_move_time,
        grace_period=grace,
        abandon_after=abandon_after,
        bot_delay=bot_delay,
        bot_think_time=bot_think_time,
        max_bot_samples=max_bot_samples,
        thinkers=max(1, thinkers),
        max_connections_per_peer=max(1, max_connections_per_peer),
        frame_timeout=frame_timeout,
        hand_cache=max(1, hand_cache),
    )
    for_a_long_run(config.hand_cache)  # this process is the server's alone
    announce_as = (name or socket.gethostname().split(".")[0] or "leastscore").strip()[:60]
    web_at = None
    if web is not None:
        from leastscore.kit.address import parse_web

        try:
            web_at = parse_web(web, config.host)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--web") from None
    fast = not no_uvloop
    run(_serve(config, announce_as if lan else None, loop_name(fast), web_at), fast)


async def _serve(
    config: ServerConfig,
    announce_as: str | None,
    loop_name: str,
    web_at: tuple[str, int] | None = None,
) -> None:
    from .app import Server
    from .records.store import StoreError

    try:
        server = Server(config)
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    try:
        await server.start()
    except OSError as e:
        raise click.ClickException(
            f"cannot listen on {config.host}:{config.port}: {e.strerror}"
        ) from None
    click.echo(f"listening on {config.host}:{server.port}", err=False)
    if web_at is not None:
        try:
            from .web.view import WebView
        except ImportError:
            raise click.ClickException(
                "the web view needs aiohttp: pip install leastscore[web]"
            ) from None
        view = WebView(server, *web_at)
        try:
            await view.start()
        except OSError as e:
            await server.shutdown()
            raise click.ClickException(
                f"cannot serve the web view on {web_at[0]}:{web_at[1]}: {e.strerror}"
            ) from None
        server.web = view
        click.echo(f"web view at {view.address}")
    if announce_as is not None:
        from .lan.announce import Announcer

        click.echo(f"players on your LAN connect to {lan_address()}:{server.port}")
        server.announcer = Announcer(server, announce_as)
        if await server.announcer.start():
            click.echo(f"announced on the LAN as {announce_as!r}: leastscore play finds it")
        else:
            click.echo("not announced on the LAN: pip install leastscore[lan] (python-zeroconf)")
    logging.getLogger("leastscore.server").info(
        "event loop %s; matches saved to %s", loop_name, config.db or "nowhere"
    )
    sys.stdout.flush()
    collect_less()
    await server.serve_forever()


YOUNG_OBJECTS = 5000
"""New objects the collector lets pile up before it looks for cycles (Python's default:
700). Between two moves a server holds a few objects per connection in flight (a
future, a handle, queued frames), which each young collection walks and keeps: at
250 tables it collected every 0.1 s. Each young collection then takes the middle
generation with it."""

MIDDLE_COLLECTIONS = 20
"""Collections of the middle generation between two full ones, at the fewest (Python's
default: 10, this server's before: 1, with Python's other rule, a quarter more
long-lived objects than at the last). A full collection walks every object the server
holds: at 1,000 connections playing, 32,000 of them, 27 to 50 ms with every connection
waiting, one to three times in 8 s of ``bench.server`` (a young one takes 10 ms). What only a full
collection frees is rare now: a finished match's driver is freed by reference
counting, and what waits is a closed table, a few kilobytes."""


def collect_less() -> None:
    """Tune the garbage collector for a process that is the server's alone.

    What the server imported and built to start (some 25,000 objects) is frozen out of
    the collector's reach: it is there for the life of the process, and every full
    collection walked it again, with every connection waiting. The young generation
    is collected every ``YOUNG_OBJECTS``, and the whole heap seldom.
    """
    gc.freeze()
    gc.set_threshold(YOUNG_OBJECTS, 1, MIDDLE_COLLECTIONS)


@click.command()
@click.option("--db", default=default_db(), show_default=True, help="SQLite file for matches.")
@click.option("--limit", default=30, show_default=True, help="How many matches to list.")
def history(db: str, limit: int) -> None:
    """List recorded matches, newest first.

    Status: finished; aborted (stopped: everyone left, or the server was shut
    down); running (being played now); interrupted (the server died during it:
    its log goes as far as the last stored event, and it replays)."""
    import datetime
    from pathlib import Path

    from leastscore.protocol.text import shown
    from rich import box
    from rich.console import Console
    from rich.table import Table

    from .records.store import MatchDatabase, MatchRecord, StoreError

    if not Path(db).exists():
        raise click.ClickException(f"no match database at {db}")
    try:
        records = MatchDatabase(db).matches(limit)
    except StoreError as e:
        raise click.ClickException(str(e)) from None
    if not records:
        click.echo("no matches recorded yet")
        return

    this_year = datetime.date.today().year

    def started(r: MatchRecord) -> str:
        t = datetime.datetime.fromtimestamp(r.started)
        return t.strftime("%m-%d %H:%M" if t.year == this_year else "%Y-%m-%d %H:%M")

    table = Table(box=box.SIMPLE_HEAD, pad_edge=False)
    for name in ("match", "started", "status"):  # never wrapped
        table.add_column(name, no_wrap=True)
    for name in ("table", "players", "result", "rounds"):
        table.add_column(name)
    for r in records:
        # Names come from players (and from older servers, which let any text through):
        # written out, never obeyed, and never read as markup.
        players = [shown(p) for p in r.players]
        table.add_row(
            str(r.id),
            started(r),
            r.status,
            shown(r.table_name),
            ", ".join(players),
            ", ".join(f"{s['place']}. {players[s['seat']]}" for s in r.standings),
            "" if r.status == "running" else str(r.rounds),
        )
    Console(markup=False).print(table)
