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
from leastscore.bots.link import ConnectionClosed, ServerError, ServerLink
from leastscore.protocol.messages import AddBot, Create, Join, Leave, Message, Start

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
    link = ServerLink(host, port, (name or bot.name)[:32], bot=True, client=CLIENT)
    stay = BotAtTable(bot, link, matches)
    if not await stay.sit(where):
        return 1
    try:
        await stay.play(resume_for)
    except BotFailed as e:  # pragma: no cover - "continue" never raises
        stay.say(str(e))
        return 1
    finally:
        await stay.leave()
    return stay.outcome()


class BotAtTable:
    """One bot's stay at a server's table: its link, the runner that answers for it,
    and whether it is between connections. Why a class: the link's callbacks, the
    loop that resumes a lost connection and the runner share that state (nothing may
    go out on a new connection before its hello, and a snapshot that comes with the
    welcome must be answered at once)."""

    def __init__(self, bot: Bot, link: ServerLink, matches: int | None) -> None:
        self.link = link
        self.resuming = False
        self.runner = BotRunner(
            bot, self.send, say=self.say, on_error="continue", first_id=MOVE_IDS, matches=matches
        )
        link.on_message = self.receive
        self.starting: set[asyncio.Task[None]] = set()

    def say(self, text: str) -> None:
        print(f"[{self.link.name}] {text}", file=sys.stderr, flush=True)

    def send(self, message: Message) -> bool:
        if self.resuming:  # nothing may go out before the new connection's hello
            return False
        try:
            self.link.send(message)
        except ConnectionClosed:
            return False
        return True

    def receive(self, message: msgspec.Struct) -> None:
        # Only the welcome (a reply, not delivered here) comes before this on a new
        # connection, and a snapshot may come in the same read: the runner answers it
        # before the reconnect has returned, and that answer must go out.
        self.resuming = False
        self.runner.feed(message)

    async def sit(self, where: TableChoice) -> bool:
        """Connect and take the seat ``where`` says; False (said why) when it cannot."""
        link = self.link
        if where.token:
            link.tracker.token = where.token
        try:
            welcome = await link.connect(resume=bool(where.token))
            self.say(
                f"connected to {link.host}:{link.port} ({welcome.server}, "
                f"protocol {welcome.protocol})"
            )
            await _sit(link, where, self.say)
        except (OSError, TimeoutError, ServerError, ConnectionClosed) as e:
            self.say(f"cannot play at {link.host}:{link.port}: {e or type(e).__name__}")
            await link.close()
            return False
        if where.create:  # the creator starts each next match
            self.runner.on_match_end = self._next_match
        return True

    def _next_match(self, end: object) -> None:
        matches = self.runner.matches
        if matches is None or self.runner.matches_ended < matches:
            task = asyncio.ensure_future(_start(self.link, self.say))
            self.starting.add(task)
            task.add_done_callback(self.starting.discard)

    async def play(self, resume_for: float) -> None:
        """Play until the runner is done, taking the seat back when the link drops."""
        link, runner = self.link, self.runner
        playing = asyncio.ensure_future(runner.run())
        try:
            while not playing.done():
                closed = asyncio.ensure_future(link.closed.wait())
                await asyncio.wait({playing, closed}, return_when=asyncio.FIRST_COMPLETED)
                closed.cancel()
                if playing.done() or not link.closed.is_set():
                    continue
                if runner.host_left:
                    break  # the server said bye and closed: the runner finishes on its own
                self.say(f"connection lost ({link.close_reason or 'closed'}): resuming")
                self.resuming = True
                resumed = await _resume(link, runner, resume_for, self.say)
                self.resuming = False
                if not resumed:
                    runner.stop("the connection was lost")
            await playing
        finally:
            playing.cancel()

    async def leave(self) -> None:
        if not self.link.closed.is_set():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.link.request(Leave()), 2.0)
        await self.link.close()

    def outcome(self) -> int:
        """Said, and the exit status: 0 when every match was played with no fault."""
        runner = self.runner
        self.say(
            f"{runner.matches_ended} match(es) played; {runner.moves} moves, "
            f"{runner.refused} refused, {runner.late} too late, {runner.errors} errors"
        )
        if runner.matches is not None and runner.matches_ended < runner.matches:
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
