"""A bot at a server's table over TCP: create or join a table, play, come back
after a dropped connection with the resume token."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from leastscore.protocol.messages import AddBot, Create, Join, Leave, Message, Start
from leastscore.seats.link import ConnectionClosed, ServerError, ServerLink

from leastscore.about import VERSION

from .base import Bot
from .runner import BotFailed, BotRunner

CLIENT = f"leastscore-sdk/{VERSION} (tcp)"
Say = Callable[[str], None]
MOVE_IDS = 1_000_000
"""Move ids start here, far from the ids of the connection's own requests."""


@dataclass
class TableChoice:
    """Where the bot sits: a new table (``create``), a table by id, or wherever the
    host seats the holder of ``token`` (a tournament's remote entrant)."""

    create: bool = False
    table: str | None = None
    token: str | None = None
    seats: int = 2
    bots: list[str] = field(default_factory=list)
    """Built-in levels to fill seats of a new table with."""
    rules: dict[str, Any] = field(default_factory=dict)
    table_name: str = ""
    password: str | None = None


async def play_over_tcp(
    bot: Bot,
    host: str,
    port: int,
    where: TableChoice,
    *,
    name: str | None = None,
    matches: int | None = 1,
    resume_for: float = 60.0,
) -> int:
    """Play ``matches`` matches at a table (None: until the host says bye); the exit
    status (0: every match played, no faults)."""
    name = (name or bot.name)[:32]

    def say(text: str) -> None:
        print(f"[{name}] {text}", file=sys.stderr, flush=True)

    conn = ServerLink(host, port, name, bot=True, client=CLIENT)

    resuming = False

    def send(message: Message) -> bool:
        if resuming:  # nothing may go out before the new connection's hello
            return False
        try:
            conn.send(message)
        except ConnectionClosed:
            return False
        return True

    runner = BotRunner(bot, send, say=say, on_error="continue", first_id=MOVE_IDS, matches=matches)

    def receive(message: msgspec.Struct) -> None:
        nonlocal resuming
        # Only the welcome (a reply, not delivered here) comes before this on a new
        # connection, and a snapshot may come in the same read: the runner answers it
        # before the reconnect has returned, and that answer must go out.
        resuming = False
        runner.feed(message)

    conn.on_message = receive
    if where.token:
        conn.tracker.token = where.token
    try:
        welcome = await conn.connect(resume=bool(where.token))
        say(f"connected to {host}:{port} ({welcome.server}, protocol {welcome.protocol})")
        await _sit(conn, where, say)
    except (OSError, TimeoutError, ServerError, ConnectionClosed) as e:
        say(f"cannot play at {host}:{port}: {e or type(e).__name__}")
        await conn.close()
        return 1
    starting: set[asyncio.Task[None]] = set()
    if where.create:

        def next_match(end: object) -> None:
            if matches is None or runner.matches_ended < matches:
                task = asyncio.ensure_future(_start(conn, say))
                starting.add(task)
                task.add_done_callback(starting.discard)

        runner.on_match_end = next_match
    playing = asyncio.ensure_future(runner.run())
    try:
        while not playing.done():
            closed = asyncio.ensure_future(conn.closed.wait())
            await asyncio.wait({playing, closed}, return_when=asyncio.FIRST_COMPLETED)
            closed.cancel()
            if playing.done() or not conn.closed.is_set():
                continue
            if runner.host_left:
                break  # the server said bye and closed: the runner finishes on its own
            say(f"connection lost ({conn.close_reason or 'closed'}): resuming")
            resuming = True
            resumed = await _resume(conn, runner, resume_for, say)
            resuming = False
            if not resumed:
                runner.stop("the connection was lost")
        await playing
    except BotFailed as e:  # pragma: no cover - "continue" never raises
        say(str(e))
        return 1
    finally:
        playing.cancel()
        if not conn.closed.is_set():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.request(Leave()), 2.0)
        await conn.close()
    say(
        f"{runner.matches_ended} match(es) played; {runner.moves} moves, "
        f"{runner.refused} refused, {runner.late} too late, {runner.errors} errors"
    )
    if matches is not None and runner.matches_ended < matches:
        return 1
    return 1 if runner.refused or runner.late or runner.errors else 0


async def _sit(conn: ServerLink, where: TableChoice, say: Say) -> None:
    if where.create:
        ok = await conn.request(
            Create(
                name=where.table_name,
                seats=where.seats,
                rules=where.rules,
                password=where.password,
            )
        )
        table = getattr(ok, "table", None)
        for level in where.bots:
            await conn.request(AddBot(level=level))
        waiting = where.seats - 1 - len(where.bots)
        if waiting > 0:
            say(f"table {table}: waiting for {waiting} more player(s) (--table {table})")
        else:
            say(f"table {table}: the match starts")
    elif where.table:
        ok = await conn.request(Join(table=where.table, password=where.password))
        say(f"sitting at table {where.table}, seat {getattr(ok, 'seat', '?')}")


async def _start(conn: ServerLink, say: Say) -> None:
    """The creator starts the next match at its table."""
    try:
        await conn.request(Start())
    except (ServerError, ConnectionClosed) as e:
        say(f"could not start the next match: {e}")


RESUME_TRIES = 100
"""Attempts to take the seat back after a drop (``resume_for`` bounds them in time)."""


async def _resume(conn: ServerLink, runner: BotRunner, resume_for: float, say: Say) -> bool:
    """Reconnect with the token until it works or ``resume_for`` seconds have passed."""
    try:
        welcome = await conn.reconnect(
            resume=True,
            tries=RESUME_TRIES,
            within=resume_for,
            pause=0.2,
            max_pause=3.0,
            on_try=lambda attempt: runner.new_connection(),
        )
    except ServerError as e:
        say(f"cannot resume: {e}")
        return False
    if welcome is None:
        return False
    say("resumed")
    return True
