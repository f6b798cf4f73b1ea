"""``leastscore play``: sit down at a server's table, or at a local one with bots."""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import sys
from dataclasses import dataclass

import click

DEFAULT_PORT = 7445
"""The port ``leastscore serve`` listens on by default."""


def parse_address(text: str, default_port: int = DEFAULT_PORT) -> tuple[str, int]:
    """``HOST:PORT``, ``HOST``, ``:PORT`` or ``[::1]:PORT``; raises ``ValueError``."""
    text = text.strip()
    if not text:
        raise ValueError("the server address is empty")
    host, port = text, ""
    if text.startswith("["):
        close = text.find("]")
        if close < 0:
            raise ValueError(f"{text!r}: an IPv6 address ends with ]")
        host, rest = text[1:close], text[close + 1 :]
        if rest and not rest.startswith(":"):
            raise ValueError(f"{text!r} is not HOST:PORT")
        port = rest[1:]
    elif text.count(":") == 1:
        host, port = text.split(":")
    host = host or "127.0.0.1"
    if not port:
        return host, default_port
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{port!r} is not a port number (1-65535)")
    return host, int(port)


def default_name() -> str:
    try:
        name = getpass.getuser()
    except Exception:  # no user name in this environment
        name = ""
    return (name or "player")[:32]


def _level(ctx: click.Context, param: click.Parameter, value: str) -> str:
    from leastscore.bots import builtin

    try:
        builtin(value)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None
    return value


@click.command()
@click.option(
    "--server",
    "address",
    envvar="LEASTSCORE_SERVER",
    default=f"127.0.0.1:{DEFAULT_PORT}",
    show_default=True,
    help="HOST:PORT of the server (or set LEASTSCORE_SERVER).",
)
@click.option("--name", default=None, help="Your name at the table (default: your login).")
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
    callback=_level,
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
    default=0.8,
    show_default=True,
    type=click.FloatRange(0),
    help="With --local: seconds a bot waits before it moves.",
)
@click.option("--plain", is_flag=True, help="ASCII only, no colour.")
@click.option("--retry-for", default=60.0, type=click.FloatRange(0), hidden=True)
def play(
    address: str,
    name: str | None,
    local: bool,
    bots: int,
    level: str,
    threshold: int,
    move_time: float,
    bot_delay: float,
    plain: bool,
    retry_for: float,
) -> None:
    """Play Least Score in the terminal."""
    target: tuple[str, int] | LocalTable
    if local:
        target = LocalTable(bots, level, threshold, move_time, bot_delay)
    else:
        try:
            target = parse_address(address)
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="--server") from None
    player = (name or default_name()).strip()[:32] or "player"
    try:
        code = asyncio.run(_play(target, player, plain, retry_for))
    except KeyboardInterrupt:  # Ctrl-C while no prompt was waiting: leave quietly
        code = 130
    sys.exit(code)


@dataclass(frozen=True)
class LocalTable:
    """A table on a server inside this program, filled with built-in bots."""

    bots: int
    level: str
    threshold: int
    move_time: float
    bot_delay: float


async def _play(
    target: tuple[str, int] | LocalTable, name: str, plain: bool, retry_for: float
) -> int:
    from leastscore.bots.net import Connection, ConnectionClosed, ServerError
    from leastscore.protocol import ProtocolError
    from leastscore.protocol.messages import AddBot, Create, ListTables, Tables
    from leastscore.protocol.text import shown

    from leastscore.about import VERSION

    from .app import Client
    from .screen import detect_look, tables_list
    from .terminal import LineTerminal, PromptTerminal, Terminal

    server = None
    local = target if isinstance(target, LocalTable) else None
    if local is not None:
        from leastscore.server.app import Server
        from leastscore.server.config import ServerConfig

        quiet = logging.getLogger("leastscore.server")
        quiet.addHandler(logging.NullHandler())
        quiet.propagate = False
        server = Server(
            ServerConfig(
                host="127.0.0.1",
                port=0,
                db=None,
                bot_delay=local.bot_delay,
                human_move_time=local.move_time,
                idle_timeout=24 * 3600,
            )
        )
        await server.start()
        host, port = "127.0.0.1", server.port
    else:
        assert not isinstance(target, LocalTable)
        host, port = target
    where = f"{host}:{port}"
    try:
        try:
            conn = await Connection.open(
                host, port, name, client=f"leastscore-play/{VERSION}", timeout=5
            )
        except ServerError as e:
            click.echo(f"The server at {where} refused us: {shown(e.message)}.", err=True)
            return 1
        except (ConnectionClosed, ProtocolError):
            click.echo(
                f"Something answers at {where}, but it is not a Least Score server.", err=True
            )
            return 1
        except (OSError, TimeoutError) as e:
            click.echo(
                f"No Least Score server answers at {where} ({_why(e)}). Start one with "
                "'leastscore serve', or play against bots with 'leastscore play --local'.",
                err=True,
            )
            return 1

        tty = sys.stdin.isatty() and sys.stdout.isatty()
        look = detect_look(plain, os.environ, sys.stdout.encoding, sys.stdout.isatty())
        client: Client | None = None

        def status() -> str:
            return client.status() if client is not None else ""

        def prompt() -> str:
            return client.prompt() if client is not None else "> "

        def options() -> list[tuple[str, str]]:
            return client.options() if client is not None else []

        term: Terminal = (
            PromptTerminal(look, status, prompt, options) if tty else LineTerminal(look, status)
        )
        client = Client(conn, term, retry_for=retry_for, leave_on_quit=server is None)

        async def sit_down_with_bots() -> None:
            assert local is not None
            n = local.bots
            client.show(
                f"Least Score: you against {n} {local.level} bot{'s' if n > 1 else ''}, "
                f"out above {local.threshold} points. The lowest hand wins. Type help at any time."
            )
            rules = {"threshold": local.threshold}
            client.muted = True
            try:
                await conn.request(Create(name="Practice", seats=n + 1, rules=rules))
                for _ in range(n):
                    await conn.request(AddBot(level=local.level))  # the last one starts the match
            finally:
                client.muted = False

        async def lobby() -> None:
            client.show(f"Connected to {where} as {name}.")
            reply = await conn.request(ListTables())
            assert isinstance(reply, Tables)
            client.known_tables = list(reply.tables)
            client.show(tables_list(reply.tables, look))
            client.show("Type create to open a table, join ID to sit down, help for more.")

        return await client.run(sit_down_with_bots if local is not None else lobby)
    finally:
        if server is not None:
            await server.shutdown()


def _why(error: BaseException) -> str:
    if isinstance(error, TimeoutError):
        return "no answer in time"
    if isinstance(error, ConnectionRefusedError):
        return "connection refused"
    if isinstance(error, OSError) and error.strerror:
        return error.strerror.lower()
    return str(error) or type(error).__name__
