"""The person at the table: typed lines become requests, server messages become lines
and pictures, and a dropped connection is taken back with the resume token."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

import msgspec
from leastscore.bots import BUILTIN, make_bot
from leastscore.bots.hint import HINT_LEVELS, hint_bot
from leastscore.bots.link import ConnectionClosed, ServerError, ServerLink
from leastscore.bots.view import BotView
from leastscore.game import (
    Declare,
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Move,
    Play,
    RoundStarted,
)
from leastscore.protocol import errors
from leastscore.protocol.convert import move_to_wire
from leastscore.protocol.messages import (
    AddBot,
    Bye,
    Create,
    Error,
    Join,
    Leave,
    ListTables,
    Message,
    Ping,
    Say,
    Start,
    State,
    TableChanged,
    TableInfo,
    Tables,
    Turn,
)
from leastscore.protocol.tracker import Tracker
from rich.console import RenderableType
from rich.text import Text

from leastscore.lang import _, heard, ngettext, rules_text

from . import parse as cmd
from . import screen
from .complete import candidates, describe_move
from .seat_file import SeatFile
from .terminal import Terminal

REQUEST_TIMEOUT = 15.0
KEEPALIVE = 100.0
RECONNECT_TRIES = 12
"""Tries to reconnect after the connection drops, pausing 0.25 s after the first and
doubling up to 4 s: about half a minute, inside the server's grace period."""
"""Seconds between pings: a server closes a connection that says nothing for long in the lobby."""


class Client:
    """The terminal client: a person's prompt, screen and connection, from the lobby to
    the end of a match.

    Why one class holds them: what the person types is read against what the
    connection last said (a move against the hand, ``join 2`` against the last table
    list), and what the connection says decides the prompt (a turn, a reveal, a
    lost connection to come back from). The parsing (``parse``) and the drawing
    (``screen``) are pure modules it calls.
    """

    def __init__(
        self,
        conn: ServerLink,
        term: Terminal,
        *,
        tries: int = RECONNECT_TRIES,
        leave_on_quit: bool = True,
        seat_file: SeatFile | None = None,
    ) -> None:
        self.conn = conn
        self.term = term
        self.look = term.look
        self.tries = tries
        """How many times to try to reconnect after the connection drops."""
        self.leave_on_quit = leave_on_quit
        """Give up the seat on quit, so that nobody waits for a player who is gone."""
        self.seat_file = seat_file
        """Where the token of a seat in a match is kept, for a restarted client."""
        self._resuming = False
        self.muted = False
        """Seating changes are not told (while a local table fills up with bots)."""
        self.connected = True
        self.done = False
        self.exit_code = 0
        self.prefill = ""
        self.known_tables: list[TableInfo] = []
        self._seated: tuple[str, ...] = ()
        self._turns_shown = 0
        conn.on_message = self.on_message

    @property
    def tracker(self) -> Tracker:
        return self.conn.tracker

    # -- the session -------------------------------------------------------------------

    async def run(self, setup: Callable[[], Awaitable[None]] | None = None) -> int:
        """Read and act on lines until ``quit``, end of input, or a connection lost for good."""
        with self.term.session():
            watcher = asyncio.create_task(self._watch())
            pinger = asyncio.create_task(self._keepalive())
            try:
                if setup is not None:
                    try:
                        await setup()
                    except ServerError as e:
                        self.problem(_sentence(heard(e.message)))
                    except (ConnectionClosed, TimeoutError):
                        pass  # the watcher reports it and reconnects
                while not self.done:
                    try:
                        text = await self.term.read(self.prefill)
                    except EOFError:
                        break
                    self.prefill = ""
                    if not self.done and text.strip():
                        await self.handle(text)
            finally:
                for task in (watcher, pinger):
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
                await self._goodbye()
        return self.exit_code

    async def _goodbye(self) -> None:
        self.conn.on_message = None
        if self.leave_on_quit and self.connected and self.tracker.table is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.conn.request(Leave()), 2)
        await self.conn.close()

    def show(self, renderable: RenderableType | str) -> None:
        """Print; a plain string may carry what the server sent, so it is made safe first."""
        if isinstance(renderable, str):
            renderable = Text(screen.safe(renderable, self.look))
        self.term.show(renderable)

    def problem(self, line: str) -> None:
        """One line about something that did not work (often in the server's words)."""
        if self.tracker.my_turn and not line.endswith(_("still your turn.")):
            line = _("{problem}: still your turn.").format(problem=line.rstrip("."))
        self.show(Text(screen.safe(line, self.look), style="bold red" if self.look.color else ""))

    def status(self) -> str:
        return screen.status(self.tracker, self.look, time.monotonic(), self.connected)

    def prompt(self) -> str:
        return _("your move> ") if self.tracker.my_turn else "> "

    def options(self) -> list[tuple[str, str]]:
        return candidates(self.tracker, [t.id for t in self.known_tables])

    # -- what the server says ------------------------------------------------------------

    def on_message(self, m: msgspec.Struct) -> None:
        try:
            self._on_message(m)
        finally:
            self.term.refresh()

    def _on_message(self, m: msgspec.Struct) -> None:
        t = self.tracker
        look = self.look
        self._keep_seat(m)
        if isinstance(m, State):
            if self._resuming:
                self._resuming = False
                self.show(Text(_("Reconnected."), style=self._ok))
            self._redraw(moves=5)
            return
        if isinstance(m, TableChanged):
            seated = tuple(p.name for p in m.table.players)
            told = self._seated and not self.muted and (not t.in_match or t.over)
            if told and not m.table.playing and seated != self._seated:
                self.show(screen.seating(m.table, t.you, look))
            self._seated = seated
            return
        if isinstance(m, MatchStarted):
            self._seated = tuple(m.seats)
            self.show(screen.match_heading(m, t.you, look))
            return
        if isinstance(m, RoundStarted):
            self.show(screen.round_heading(m, t, look))
            return
        if isinstance(m, Turn):
            if t.my_turn:
                self._show_turn()
            elif m.turn == 0 or t.you is None:  # a spectator sees the table after every move
                self.show(screen.table_view(t, look))
            return
        if isinstance(m, Bye):
            reason = screen.safe(heard(m.reason), look)
            self.show(Text(_("The server says goodbye: {reason}.").format(reason=reason)))
            return
        if isinstance(m, Error):
            self.problem(_("The server says: {message}.").format(message=heard(m.message)))
            return
        line = screen.narrate(m, t, look)
        if line is not None:
            self.show(line)
        if isinstance(m, Declared):
            self.show(screen.reveal(m, screen.names_of(t), t.you, look, t.round))
            if t.you is not None and t.you in m.eliminated:
                self.show(_("You are out of this match; you can watch it to the end, or quit."))
        elif isinstance(m, MatchEnded):
            self.show(screen.standings(m, screen.names_of(t), t.you, look, t.out_in, t.left_in))
            self.show(self._after_match())

    def _keep_seat(self, m: msgspec.Struct) -> None:
        """Save the token while you hold a seat in a match; forget it when the match ends."""
        if self.seat_file is None:
            return
        t = self.tracker
        if isinstance(m, MatchEnded) or (isinstance(m, State) and not t.in_match):
            self.seat_file.forget()
        elif isinstance(m, MatchStarted | State) and t.you is not None and t.token:
            self.seat_file.save(t.token)

    def _after_match(self) -> Text:
        if self.tracker.you is None:
            return Text(_("Type leave for the lobby, or quit."))
        return Text(_("Type start to play again (the table's creator starts it), leave, or quit."))

    def _show_turn(self) -> None:
        t = self.tracker
        self.show(screen.table_view(t, self.look))
        self.show(screen.turn_line(t, self.look, time.monotonic(), self._turns_shown < 2))
        self._turns_shown += 1

    def _redraw(self, moves: int = 0) -> None:
        t = self.tracker
        if t.in_match and not t.over:
            self.show(screen.table_view(t, self.look, moves=moves))
            if t.my_turn:
                self.show(screen.turn_line(t, self.look, time.monotonic()))
        elif t.table is not None:
            self._seated = tuple(p.name for p in t.table.players)
            if not self.muted:
                self.show(screen.seating(t.table, t.you, self.look))
        else:
            self.show(Text(self.status()))

    # -- what the person types -------------------------------------------------------------

    def context(self) -> cmd.Context | None:
        t = self.tracker
        if not t.in_match or t.you is None:
            return None
        return cmd.Context(t.hand, t.open, t.rules, t.can_draw)

    async def handle(self, text: str) -> None:
        try:
            command = cmd.parse(text, self.context())
        except cmd.ParseError as e:
            self.problem(str(e))
            return
        try:
            await self._do(command)
        except ServerError as e:
            self.problem(_sentence(heard(e.message)))
        except (ConnectionClosed, TimeoutError):
            self.problem(_("Not sent: the connection to the server is down."))

    async def request(self, message: Message) -> msgspec.Struct:
        if not self.connected:
            raise ConnectionClosed("reconnecting")
        return await asyncio.wait_for(self.conn.request(message), REQUEST_TIMEOUT)

    def _show_rules(self) -> None:
        from rich.markdown import Markdown  # a fifth of the client's start, for one page

        text = rules_text()
        self.show(Markdown(text) if self.look.unicode else Text(text))
        self._clock_runs()

    async def _do(self, c: cmd.Command) -> None:
        t = self.tracker
        if isinstance(c, Play | Declare):
            await self.move(c)
        elif isinstance(c, cmd.Hint):
            self.hint()
        elif isinstance(c, cmd.Help):
            self.show(screen.help_view(self.look))
            self._clock_runs()
        elif isinstance(c, cmd.ShowRules):
            self._show_rules()
        elif isinstance(c, cmd.Redraw):
            self._redraw(moves=5)
        elif isinstance(c, cmd.Quit):
            self.done = True
        elif isinstance(c, cmd.Say):
            if t.table is None:
                self.problem(_("Chat goes to your table: join or create one first."))
                return
            await self.request(Say(c.text))
        elif isinstance(c, cmd.ListTables):
            await self.list_tables()
        elif isinstance(c, cmd.CreateTable):
            ok = await self.request(
                Create(name=c.name, seats=c.seats, rules=c.rules, password=c.password)
            )
            table = getattr(ok, "table", "")
            self.show(
                (
                    _(
                        "Others join with: join {table} --password P (the password you chose). "
                        "Fill seats with: bot add greedy. "
                        "Type start when ready (a full table starts by itself)."
                    )
                    if c.password
                    else _(
                        "Others join with: join {table}. Fill seats with: bot add greedy. "
                        "Type start when ready (a full table starts by itself)."
                    )
                ).format(table=table)
            )
        elif isinstance(c, cmd.JoinTable):
            await self.join(c)
        elif isinstance(c, cmd.AddBots):
            for _bot in range(c.count):
                await self.request(AddBot(level=c.level))
        elif isinstance(c, cmd.StartMatch):
            await self.request(Start())
        elif isinstance(c, cmd.LeaveTable):
            if t.table is None:
                self.problem(_("You are not at a table."))
                return
            await self.request(Leave())
            if self.seat_file is not None:
                self.seat_file.forget()
            self.conn.tracker = Tracker(player=t.player, token=t.token)
            self._seated = ()
            self.show(_("You left the table. Type tables to see the others, or create one."))

    async def move(self, move: Move) -> None:
        t = self.tracker
        if not t.in_match or t.over:
            self.problem(_("No match is being played here: moves wait for one."))
            return
        if t.you is None:
            self.problem(_("You are watching: only the players move."))
            return
        if not t.my_turn:
            names = screen.names_of(t)
            mover = names[t.to_move] if 0 <= t.to_move < len(names) else _("someone else")
            self.problem(_("It is {name}'s turn: wait for yours.").format(name=mover))
            return
        await self.request(move_to_wire(move))

    def _clock_runs(self) -> None:
        """After a long text on your own turn: the move's time did not stop meanwhile."""
        if self.tracker.my_turn:
            self.show(screen.turn_line(self.tracker, self.look, time.monotonic()))

    async def join(self, c: cmd.JoinTable) -> None:
        """Sit at (or watch) a table; the password it needs is asked for with the same
        command (``watch 2 --password P``, not ``join``)."""
        table_id = await self._table_id(c.table)
        if table_id is None:
            return
        try:
            await self.request(Join(table=table_id, watch=c.watch, password=c.password))
        except ServerError as e:
            if e.code != errors.PASSWORD_NEEDED:
                raise
            self.problem(
                _("That table needs a password: {command} {table} --password P").format(
                    command="watch" if c.watch else "join", table=c.table
                )
            )

    async def list_tables(self) -> None:
        reply = await self.request(ListTables())
        assert isinstance(reply, Tables)
        self.known_tables = list(reply.tables)
        self.show(screen.tables_list(reply.tables, self.look))

    async def _table_id(self, ref: str) -> str | None:
        """A table by id, by its number in the last list, or by its name."""
        if ref.isdigit():
            if not self.known_tables:  # none listed from this server yet (or since it restarted)
                await self.list_tables()
                if self.known_tables:
                    self.problem(
                        _("The server's tables now: choose again by number from this list.")
                    )
                    return None
            n = int(ref)
            if 1 <= n <= len(self.known_tables):
                return self.known_tables[n - 1].id
            self.problem(
                _("There is no table #{number}: type tables to list them.").format(number=n)
            )
            return None
        for table in self.known_tables:
            if ref.lower() == table.name.lower():
                return table.id
        return ref

    def hint(self) -> None:
        t = self.tracker
        if not t.my_turn:
            self.problem(_("Hints are for your own turn: wait for it."))
            return
        move = suggest(t)
        self.prefill = cmd.move_text(move)
        self.show(
            screen.with_cards(
                _("Hint: {move}. Press Enter to play it, or type another move.").format(
                    move=describe_move(move)
                ),
                self.look,
                "cyan" if self.look.color else "",
            )
        )

    # -- a dropped connection ----------------------------------------------------------------

    async def _watch(self) -> None:
        while not self.done:
            await self.conn.closed.wait()
            if self.done:
                return
            if not await self.reconnect():
                self.done = True
                self.exit_code = 1
                self.term.interrupt()
                return

    async def _keepalive(self) -> None:
        while True:
            await asyncio.sleep(KEEPALIVE)
            if self.connected:
                with contextlib.suppress(ConnectionClosed, TimeoutError, ServerError):
                    await self.request(Ping())

    async def reconnect(self) -> bool:
        """Take the seat back with the resume token; the ``state`` snapshot redraws the table."""
        self.connected = False
        self.term.refresh()
        reason = heard(self.conn.close_reason) if self.conn.close_reason else None
        self.show(
            Text(
                _("Connection lost ({reason}). Reconnecting...").format(
                    reason=screen.safe(reason, self.look) if reason else _("the connection dropped")
                ),
                style=self._warn,
            )
        )
        welcome = None
        while not self.done and welcome is None:
            self._resuming = self.tracker.token is not None
            try:
                welcome = await self.conn.reconnect(
                    resume=self._resuming, tries=self.tries, timeout=5, on_try=self._trying
                )
            except ServerError as e:
                self._resuming = False
                self._lost(e)
                continue  # a fresh start, in the lobby
            if welcome is None:
                break
        if welcome is not None:
            self.connected = True
            if self._resuming:  # the snapshot has not come yet (or there is none: no table)
                self._resuming = False
                self.show(Text(_("Reconnected."), style=self._ok))
            if self.tracker.table is None:
                self.show(_("You are in the lobby: type tables to see the tables."))
            self.term.refresh()
            return True
        where = f"{self.conn.host}:{self.conn.port}"
        self.show(
            Text(
                ngettext(
                    "The server at {address} did not come back after {tries} try; giving up.",
                    "The server at {address} did not come back after {tries} tries; giving up.",
                    self.tries,
                ).format(address=where, tries=self.tries),
                style=self._warn,
            )
        )
        return False

    def _trying(self, attempt: int) -> None:
        if attempt > 1:  # the first goes at once; say so only when it did not work
            self.term.refresh()
            self.show(
                _("Trying again ({attempt} of {tries})...").format(
                    attempt=attempt, tries=self.tries
                )
            )

    def _lost(self, refusal: ServerError) -> None:
        """The server is back but does not know us: it stopped, and what it held is gone."""
        t = self.tracker
        if t.in_match and not t.over:
            line = _("The server stopped: your match was lost.")
        elif t.table is not None:
            line = _("The server stopped: your table is gone.")
        else:
            line = _("The server restarted.")
        self.show(Text(line, style=self._warn))
        self.conn.tracker = Tracker()
        self._seated = ()
        self.known_tables = []  # the numbers of the last list were the old server's

    @property
    def _warn(self) -> str:
        return "bold yellow" if self.look.color else ""

    @property
    def _ok(self) -> str:
        return "bold green" if self.look.color else ""


def suggest(tracker: Tracker) -> Move:
    """The move the strongest built-in bot would make here."""
    view = BotView.of(tracker.view())
    for level in [lv for lv in HINT_LEVELS if lv in BUILTIN]:
        try:
            return hint_bot(level, _this_match(tracker)).choose(view)
        except Exception:  # a hint is never worth a crash: try a simpler bot
            continue
    return make_bot("random").choose(view)


def _this_match(tracker: Tracker) -> list[Event]:
    start = 0
    for i, m in enumerate(tracker.log):
        if isinstance(m, MatchStarted):
            start = i
    return [m for m in tracker.log[start:] if isinstance(m, Event)]


def _sentence(text: str) -> str:
    text = text.strip().rstrip(".")
    return (text[:1].upper() + text[1:] + ".") if text else _("Refused.")
