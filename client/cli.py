"""``leastscore play``: sit down at a server's table, or at a local one with bots."""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import sys
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING

import click
from leastscore.bots.cli import level_option
from leastscore.protocol.address import DEFAULT_PORT, parse_address
from leastscore.server.config import ServerConfig

from leastscore.lang import LANGUAGES, _, choose, heard, ngettext, use

if TYPE_CHECKING:
    from leastscore.bots.link import ServerLink
    from leastscore.protocol.lan import ServerAd
    from leastscore.server.app import Server

    from .app import Client
    from .screen import Look
    from .seat_file import SeatFile
    from .terminal import Terminal


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # no user name in this environment
        name = ""
    return (name or "player")[:32]


@click.command()
@click.option(
    "--server",
    "address",
    envvar="LEASTSCORE_SERVER",
    default=None,
    help="HOST:PORT of the server (or set LEASTSCORE_SERVER). Without it, the servers "
    f"announced on the LAN are listed to pick from; none found: 127.0.0.1:{DEFAULT_PORT}.",
)
@click.option("--name", default=None, show_default="your login", help="Your name at the table.")
@click.option("--local", is_flag=True, help="Play against bots on a server inside this program.")
@click.option(
    "--bots",
    default=3,
    show_default=True,
    type=click.IntRange(1, 7),
    help="With --local: how many bots.",
)
@click.option(
    "--level",
    default="counter",
    show_default=True,
    callback=level_option,
    help="With --local: the bots' level (random, greedy, counter, expert).",
)
@click.option(
    "--threshold",
    default=100,
    show_default=True,
    type=click.IntRange(1),
    help="With --local: a player above this many points is out.",
)
@click.option(
    "--move-time",
    default=60.0,
    show_default=True,
    type=click.FloatRange(1),
    help="With --local: seconds you have for a move.",
)
@click.option(
    "--bot-delay",
    default=ServerConfig.bot_delay,
    show_default=True,
    type=click.FloatRange(0),
    help="With --local: seconds a bot waits before it moves.",
)
@click.option("--plain", is_flag=True, help="ASCII only, no colour.")
@click.option(
    "--lang",
    type=click.Choice(list(LANGUAGES), case_sensitive=False),
    default=None,
    show_default="the locale's (LC_ALL, LC_MESSAGES, LANG), else English",
    help="The language of the game: en (English), tl (Tagalog), nl (Dutch), fr (French) or "
    "zu (Zulu).",
)
@click.option("--retries", default=None, type=click.IntRange(1), hidden=True)
def play(
    address: str | None,
    name: str | None,
    local: bool,
    bots: int,
    level: str,
    threshold: int,
    move_time: float,
    bot_delay: float,
    plain: bool,
    lang: str | None,
    retries: int | None,
) -> None:
    """Play Least Score in the terminal."""
    use(choose(lang, os.environ))
    target: tuple[str, int] | LocalTable
    if local:
        target = LocalTable(bots, level, threshold, move_time, bot_delay)
    else:
        try:
            target = parse_address(address or pick_server())
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--server") from None
    player = (name or default_name()).strip()[:32] or "player"
    try:
        code = asyncio.run(_play(target, player, plain, retries))
    except KeyboardInterrupt:  # Ctrl-C while no prompt was waiting: leave quietly
        code = 130
    sys.exit(code)


def pick_server() -> str:
    """The address of a server found on the LAN: the only one, or the one the player
    picks; 127.0.0.1 and the default port when none answers."""
    from .discovery import DiscoveryUnavailable, find_servers

    fallback = f"127.0.0.1:{DEFAULT_PORT}"
    click.echo(_("Looking for servers on the LAN..."))
    try:
        found = asyncio.run(find_servers())
    except DiscoveryUnavailable as e:
        click.echo(_("{problem}; trying {address}").format(problem=e, address=fallback))
        return fallback
    if not found:
        click.echo(
            _("No server announced itself on the LAN; trying {address}").format(address=fallback)
        )
        return fallback
    if len(found) == 1:
        click.echo(
            _("Found {name} at {address}").format(name=found[0].name, address=found[0].address)
        )
        return found[0].address
    for number, ad in enumerate(found, 1):
        click.echo(
            "  "
            + _("{number}. {name} at {address}: {tables}").format(
                number=number, name=ad.name, address=ad.address, tables=_tables(ad)
            )
        )
    choice = click.prompt(_("Which server"), type=click.IntRange(1, len(found)), default=1)
    return found[choice - 1].address


def _tables(ad: ServerAd) -> str:
    tables = ngettext("{count} table", "{count} tables", ad.tables).format(count=ad.tables)
    seats = ngettext("{count} seat free", "{count} seats free", ad.seats_free)
    return f"{tables}, {seats.format(count=ad.seats_free)}"


@click.command()
@click.option(
    "--wait",
    default=1.5,
    show_default=True,
    type=click.FloatRange(0.1, 30),
    help="Seconds to listen for announcements.",
)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per server, for scripts.")
def servers(wait: float, as_json: bool) -> None:
    """List the Least Score servers announced on the LAN (listens --wait seconds)."""
    import json

    from .discovery import DiscoveryUnavailable, find_servers

    use(choose(None, os.environ))
    try:
        found = asyncio.run(find_servers(wait, patience=0))
    except DiscoveryUnavailable as e:
        raise click.ClickException(str(e)) from None
    if as_json:
        for ad in found:
            click.echo(json.dumps({**asdict(ad), "protocols": list(ad.protocols)}))
        return
    if not found:
        click.echo(_("no server announced itself on the LAN"))
    for ad in found:
        version = ad.version or _("unknown")
        click.echo(f"{ad.name}  {ad.address}  {_tables(ad)}  ({version})")


@dataclass(frozen=True)
class LocalTable:
    """A table on a server inside this program, filled with built-in bots."""

    bots: int
    level: str
    threshold: int
    move_time: float
    bot_delay: float


async def _play(
    target: tuple[str, int] | LocalTable, name: str, plain: bool, retries: int | None
) -> int:
    from .app import RECONNECT_TRIES, Client
    from .screen import detect_look
    from .seat_file import SeatFile

    local = target if isinstance(target, LocalTable) else None
    server = await _practice_server(local) if local is not None else None
    if server is not None:
        host, port = "127.0.0.1", server.port
    else:
        assert not isinstance(target, LocalTable)
        host, port = target
    where = f"{host}:{port}"
    try:
        seat_file = SeatFile(host, port, name) if local is None else None
        connected = await _connect_or_say_why(host, port, name, seat_file)
        if connected is None:
            return 1
        conn, resumed = connected
        look = detect_look(plain, os.environ, sys.stdout.encoding, sys.stdout.isatty())
        holder: list[Client] = []
        client = Client(
            conn,
            _terminal(look, holder),
            tries=retries or RECONNECT_TRIES,
            leave_on_quit=server is None,
            seat_file=seat_file,
        )
        holder.append(client)
        if local is not None:
            return await client.run(lambda: _sit_down_with_bots(client, local))
        return await client.run(lambda: _lobby(client, where, name, resumed))
    finally:
        if server is not None:
            await server.shutdown()


async def _practice_server(local: LocalTable) -> Server:
    """A server inside this program for ``play --local``; its matches are recorded."""
    from leastscore.server.app import Server
    from leastscore.server.records.store import StoreError

    from leastscore.about import default_db

    quiet = logging.getLogger("leastscore.server")
    quiet.addHandler(logging.NullHandler())
    quiet.propagate = False
    config = ServerConfig(
        host="127.0.0.1",
        port=0,
        db=default_db(),  # practice matches played to the end show in `leastscore history`
        recover=False,
        keep_aborted=False,  # one the player quit does not
        bot_delay=local.bot_delay,
        human_move_time=local.move_time,
        idle_timeout=24 * 3600,
    )
    try:
        server = Server(config)
    except (StoreError, OSError) as e:
        click.echo(_("This match will not be recorded ({problem}).").format(problem=e), err=True)
        config.db = None
        server = Server(config)
    await server.start()
    return server


async def _connect_or_say_why(
    host: str, port: int, name: str, seat_file: SeatFile | None
) -> tuple[ServerLink, bool] | None:
    """The connection and whether a seat was taken back; None once the reason is printed."""
    from leastscore.bots.link import ConnectionClosed, ServerError
    from leastscore.protocol import ProtocolError
    from leastscore.protocol.text import shown

    where = f"{host}:{port}"
    try:
        return await _connect(host, port, name, seat_file)
    except ServerError as e:
        click.echo(
            _("The server at {address} refused us: {reason}.").format(
                address=where, reason=shown(heard(e.message))
            ),
            err=True,
        )
    except (ConnectionClosed, ProtocolError):
        click.echo(
            _("Something answers at {address}, but it is not a Least Score server.").format(
                address=where
            ),
            err=True,
        )
    except (OSError, TimeoutError) as e:
        click.echo(
            _(
                "No Least Score server answers at {address} ({reason}). Start one with "
                "'leastscore serve', or play against bots with 'leastscore play --local'."
            ).format(address=where, reason=_why(e)),
            err=True,
        )
    return None


def _terminal(look: Look, holder: list[Client]) -> Terminal:
    """A prompt on a real terminal, plain lines otherwise; they ask the client (once it is
    in ``holder``) for the status line, the prompt and the completions."""
    from .terminal import LineTerminal, PromptTerminal

    def status() -> str:
        return holder[0].status() if holder else ""

    def prompt() -> str:
        return holder[0].prompt() if holder else "> "

    def options() -> list[tuple[str, str]]:
        return holder[0].options() if holder else []

    if sys.stdin.isatty() and sys.stdout.isatty():
        return PromptTerminal(look, status, prompt, options)
    return LineTerminal(look, status)


async def _sit_down_with_bots(client: Client, local: LocalTable) -> None:
    from leastscore.protocol.messages import AddBot, Create

    n = local.bots
    client.show(
        ngettext(
            "Least Score: you against {count} {level} bot, out above {threshold} points. "
            "The lowest hand wins. Type help at any time.",
            "Least Score: you against {count} {level} bots, out above {threshold} points. "
            "The lowest hand wins. Type help at any time.",
            n,
        ).format(count=n, level=local.level, threshold=local.threshold)
    )
    rules = {"threshold": local.threshold}
    client.muted = True
    try:
        await client.conn.request(Create(name="Practice", seats=n + 1, rules=rules))
        for _bot in range(n):
            await client.conn.request(AddBot(level=local.level))  # the last one starts the match
    finally:
        client.muted = False


async def _lobby(client: Client, where: str, name: str, resumed: bool) -> None:
    from leastscore.protocol.messages import GetState, ListTables, Tables

    from .screen import tables_list

    client.show(_("Connected to {address} as {name}.").format(address=where, name=name))
    if resumed:
        client.show(_("You are back in your seat."))
        client.on_message(await client.conn.request(GetState()))  # redraws the table
        return
    reply = await client.conn.request(ListTables())
    assert isinstance(reply, Tables)
    client.known_tables = list(reply.tables)
    client.show(tables_list(reply.tables, client.look))
    client.show(_("Type create to open a table, join ID to sit down, help for more."))


async def _connect(
    host: str, port: int, name: str, seat_file: SeatFile | None
) -> tuple[ServerLink, bool]:
    """Connect, taking back the seat a killed client held if its token was kept;
    (the link, whether a seat was taken back)."""
    from leastscore.bots.link import ServerError, ServerLink

    from leastscore.about import VERSION

    conn = ServerLink(host, port, name, client=f"leastscore-play/{VERSION}")
    token = seat_file.load() if seat_file is not None else None
    if token is not None and seat_file is not None:
        conn.tracker.token = token
        try:
            await conn.connect(resume=True, timeout=5)
        except ServerError:  # expired or unknown: the match ended or was stopped
            seat_file.forget()
            await conn.close()
            conn = ServerLink(host, port, name, client=f"leastscore-play/{VERSION}")
        else:
            return conn, True
    await conn.connect(timeout=5)
    return conn, False


def _why(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return _("no answer in time")
    if isinstance(error, ConnectionRefusedError):
        return _("connection refused")
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__
