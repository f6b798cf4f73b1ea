"""What each request does: the handshake, the lobby, and moves routed to tables."""

from __future__ import annotations

import hmac
import logging
import math
from collections.abc import Callable
from typing import Any

from leastscore.game import Rules
from leastscore.protocol import errors
from leastscore.protocol.convert import move_from_wire, stamp_of
from leastscore.protocol.errors import ProtocolError
from leastscore.protocol.messages import (
    AddBot,
    Chat,
    Create,
    DeclareMove,
    Error,
    GetState,
    Hello,
    Join,
    Leave,
    ListTables,
    Message,
    Ok,
    Ping,
    PlayMove,
    Pong,
    Say,
    Start,
    Tables,
)

from .guesses import Guesses
from .players import Line, Player, Players, Room
from .room import Host
from .table import Table

log = logging.getLogger("leastscore.server")


class Lobby:
    """What each request does. The lobby is where a client's messages land once
    decoded: the handshake (new players, resumed ones), the tables (create, join,
    watch, leave, add bots, start), chat and snapshots, and moves handed to the
    table the player sits at. Refusals are raised as ``ProtocolError`` with the
    request's id; nothing here touches a socket."""

    def __init__(self, host: Host) -> None:
        self.host = host
        self.players = Players()
        self.tables: dict[str, Table] = {}
        config = host.config
        self.guesses = Guesses(
            per_table=config.password_checks,
            window=config.password_window,
            free_misses=config.password_misses,
            backoff=config.password_backoff,
            max_backoff=config.password_max_backoff,
        )

    def handle(self, conn: Line, message: Message) -> None:
        if isinstance(message, Hello):
            self.hello(conn, message)
            return
        player = conn.player
        assert player is not None
        handler = _HANDLERS.get(type(message))
        if handler is None:  # pragma: no cover - every client type has a handler
            raise ProtocolError(errors.UNKNOWN_TYPE, f"{type(message).__name__} is not handled")
        handler(self, player, message)

    # -- handshake ------------------------------------------------------------------

    def hello(self, conn: Line, hello: Hello) -> None:
        """A ``hello`` the connection's conversation took (a second one it refuses)."""
        version = conn.agree(hello)
        if version is None:
            return  # refused, and closed
        if hello.token is not None:
            player = self.players.by_token(hello.token)
            if player is None:
                raise ProtocolError(
                    errors.BAD_TOKEN,
                    "that token is unknown or expired: say hello without it to start afresh",
                    hello.id,
                )
            old = player.conn
            if old is not None and old is not conn and not old.closed:
                old.bye("this player connected again elsewhere")
            player.conn = conn
            conn.welcome(player, version, True, hello.id)
            log.info("%s resumed as %s", conn.peer, player.name)
            if player.room is not None:
                player.room.player_back(player)
            return
        player = self.players.new(hello.name.strip(), hello.bot)
        player.conn = conn
        conn.welcome(player, version, False, hello.id)
        log.info("%s joined as %s (%s)", conn.peer, player.name, hello.client or "unknown client")

    def lost(self, player: Player) -> None:
        """The player's connection is gone."""
        player.conn = None
        table = player.room
        if table is not None:
            table.player_gone(player)
        else:
            self.players.drop(player)

    # -- lobby ------------------------------------------------------------------------

    def ping(self, player: Player, msg: Ping) -> None:
        player.send(Pong(msg.id))

    def list_tables(self, player: Player, msg: ListTables) -> None:
        player.send(Tables([t.info() for t in self.tables.values()], msg.id))

    def create(self, player: Player, msg: Create) -> None:
        if player.room is not None:
            raise ProtocolError(errors.ALREADY_SEATED, "leave your table first", msg.id)
        if len(self.tables) >= self.host.config.max_tables:
            raise ProtocolError(errors.NOT_ALLOWED, "the server has too many tables", msg.id)
        try:
            rules = Rules.from_dict(msg.rules)
        except ValueError as e:
            raise ProtocolError(errors.BAD_RULES, str(e), msg.id) from None
        table = Table(
            self.host,
            msg.name.strip(),
            msg.seats,
            rules,
            msg.password,
            player,
            msg.rematch,
            forget=self.players.drop,
            closed=self._closed,
        )
        self.tables[table.id] = table
        seat = table.sit(player)
        player.send(Ok(msg.id, table.id, seat))
        player.send(table.state_for(player))
        log.info("%s created table %s (%s)", player.name, table.id, table.name)

    def join(self, player: Player, msg: Join) -> None:
        table = self.tables.get(msg.table)
        if table is None:
            raise ProtocolError(errors.NO_SUCH_TABLE, f"there is no table {msg.table!r}", msg.id)
        if player.room is not None:
            raise ProtocolError(errors.ALREADY_SEATED, "leave your table first", msg.id)
        if table.password is not None and not self._password_right(player, table, msg):
            return  # refused, and told why
        if msg.watch:
            table.watch(player)
            player.send(Ok(msg.id, table.id, None))
        else:
            try:
                seat = table.sit(player)
            except ProtocolError as e:
                e.id = msg.id
                raise
            player.send(Ok(msg.id, table.id, seat))
        player.send(table.state_for(player))
        if not msg.watch and table.full() and not table.playing:  # the last seat filled
            table.start()

    def _password_right(self, player: Player, table: Table, msg: Join) -> bool:
        """Check a guess at the table's password if ``Guesses`` allows one now; False once
        the refusal is sent. A guess over the limit is not even compared (no timing leak)."""
        assert table.password is not None
        if not msg.password:  # not a guess: nothing to count or to slow down
            player.send(
                Error(
                    errors.PASSWORD_NEEDED,
                    "that table needs a password: join ID --password P",
                    msg.id,
                )
            )
            return False
        now = self.host.loop.time()
        address = player.conn.address if player.conn is not None else "?"
        wait = self.guesses.wait(table.id, address, now)
        if wait > 0:
            player.send(
                Error(
                    errors.TOO_MANY_ATTEMPTS,
                    f"too many password guesses: try again in {math.ceil(wait)} s",
                    msg.id,
                    retry_ms=math.ceil(wait * 1000),
                )
            )
            return False
        if not hmac.compare_digest((msg.password or "").encode(), table.password.encode()):
            self.guesses.missed(address, now)
            player.send(Error(errors.WRONG_PASSWORD, "wrong password for that table", msg.id))
            return False
        return True

    def leave(self, player: Player, msg: Leave) -> None:
        table = self._table_of(player, msg.id)
        table.leave(player)
        player.send(Ok(msg.id))

    def add_bot(self, player: Player, msg: AddBot) -> None:
        table = self._table_of(player, msg.id)
        if player is not table.owner:
            raise ProtocolError(errors.NOT_ALLOWED, "only the table's creator adds bots", msg.id)
        try:
            seat = table.add_bot(msg.level)
        except ProtocolError as e:
            e.id = msg.id
            raise
        player.send(Ok(msg.id, table.id, seat))
        if table.full():
            table.start()

    def start(self, player: Player, msg: Start) -> None:
        table = self._table_of(player, msg.id)
        if player is not table.owner:
            raise ProtocolError(errors.NOT_ALLOWED, "only the table's creator starts it", msg.id)
        try:
            table.start()
        except ProtocolError as e:
            e.id = msg.id
            raise
        player.send(Ok(msg.id, table.id, player.seat))

    def chat(self, player: Player, msg: Say) -> None:
        table = self._table_of(player, msg.id)
        player.send(Ok(msg.id))
        table.broadcast(Chat(player.name, msg.text, player.seat))

    def state(self, player: Player, msg: GetState) -> None:
        table = self._table_of(player, msg.id)
        player.send(table.state_for(player, msg.id))

    def move(self, player: Player, msg: PlayMove | DeclareMove) -> None:
        move = move_from_wire(msg)  # an unknown card is bad_message wherever it comes from
        table = player.room
        if table is None:
            raise ProtocolError(errors.NOT_AT_TABLE, "you are not at a table", msg.id)
        table.move(player, move, msg.id, stamp_of(msg))

    def _closed(self, table: Table) -> None:
        self.tables.pop(table.id, None)

    def _table_of(self, player: Player, msg_id: int | None) -> Room:
        if player.room is None:
            raise ProtocolError(errors.NOT_AT_TABLE, "you are not at a table", msg_id)
        return player.room


_HANDLERS: dict[type[Message], Callable[[Lobby, Player, Any], None]] = {
    Ping: Lobby.ping,
    ListTables: Lobby.list_tables,
    Create: Lobby.create,
    Join: Lobby.join,
    Leave: Lobby.leave,
    AddBot: Lobby.add_bot,
    Start: Lobby.start,
    Say: Lobby.chat,
    GetState: Lobby.state,
    PlayMove: Lobby.move,
    DeclareMove: Lobby.move,
}
