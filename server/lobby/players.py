"""Players outlive connections: a resume token brings the same player back.

What a player is in and holds is said here too, as the lobby sees it: the room it
is in (``Room``: a lobby table or a host's own) and the line it is reached on
(``Line``: a connection, whatever carries it). They hold each other, so they are
named in one module, and the network's rooms stand above this one."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from typing import Protocol

import msgspec
from leastscore.game import Move
from leastscore.protocol.messages import Hello, State


class Cancellable(Protocol):
    def cancel(self) -> object: ...


class Room(Protocol):
    """What the lobby asks of the room a player is in. Refusals are ``ProtocolError``."""

    id: str
    owner: Player
    """Who may add bots and start matches."""

    def holds(self, player: Player, seat: int) -> bool:
        """Whether ``player`` is here and plays ``seat`` of the running match."""

    def state_for(self, player: Player, msg_id: int | None = None) -> State:
        """A snapshot of the room as ``player`` may see it."""

    def move(
        self, player: Player, move: Move, msg_id: int | None, stamp: tuple[int, int] | None
    ) -> None:
        """A move from ``player`` for the match being played."""

    def player_gone(self, player: Player) -> None:
        """``player``'s connection dropped."""

    def player_back(self, player: Player) -> None:
        """``player`` resumed on a new connection."""

    def leave(self, player: Player) -> None:
        """``player`` goes for good."""

    def add_bot(self, level: str) -> int:
        """Seat a built-in bot; its seat."""

    def full(self) -> bool:
        """Every seat is taken (a match starts)."""

    def start(self) -> None:
        """Start a match with the seats as they are."""

    def broadcast(self, message: msgspec.Struct, skip: Player | None = None) -> None:
        """Send ``message`` to everyone in the room (chat)."""


class Line(Protocol):
    """A player's connection as the lobby holds it, whatever carries it (TCP, a
    WebSocket, a test's fake): the lobby sends on it, sees whether it is closed, agrees
    a version and says welcome or goodbye on it. It is all the lobby knows of the
    network, so the lobby holds no server, no transport and no clock of a connection's,
    and the network's rooms sit above the lobby, never beside it."""

    address: str
    """The peer's address without its port: what limits per machine count by."""

    @property
    def peer(self) -> str: ...

    @property
    def closed(self) -> bool: ...

    @property
    def player(self) -> Player | None: ...

    def send(self, message: msgspec.Struct) -> None: ...

    def send_bytes(self, data: bytes) -> None: ...

    def refund(self) -> None:
        """Give back the rate-limit token of an accepted move."""

    def agree(self, hello: Hello) -> int | None:
        """The version to speak; None when there is none in common (refused, closed)."""

    def welcome(self, player: Player, version: int, resumed: bool, msg_id: int | None) -> None:
        """The handshake is done: this line speaks ``version`` for ``player``; said."""

    def bye(self, reason: str) -> None:
        """Say goodbye and close."""


class Player:
    """A person or a program the server knows, which outlives its connections: a
    dropped connection leaves the player (and its seat) waiting for the resume
    token, for the grace period."""

    def __init__(self, name: str, bot: bool, token: str | None = None) -> None:
        self.id = "p" + secrets.token_hex(4)
        self.token = token or secrets.token_urlsafe(24)
        self.name = name or f"player-{self.id[1:5]}"
        self.bot = bot
        self.conn: Line | None = None
        self.room: Room | None = None
        """The lobby table, or a host's own room, the player is in."""
        self.seat: int | None = None
        """Index at the table; None while watching."""
        self.grace: Cancellable | None = None

    @property
    def connected(self) -> bool:
        return self.conn is not None and not self.conn.closed

    def send(self, message: msgspec.Struct) -> None:
        if self.conn is not None:
            self.conn.send(message)

    def send_bytes(self, data: bytes) -> None:
        if self.conn is not None:
            self.conn.send_bytes(data)


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


class Players:
    """Every player the server still holds, by id and by (hashed) token."""

    def __init__(self) -> None:
        self._by_id: dict[str, Player] = {}
        self._by_token: dict[bytes, Player] = {}

    def new(self, name: str, bot: bool, token: str | None = None) -> Player:
        """A new player; ``token`` lets a host hand out a token chosen in advance."""
        if token is not None and _digest(token) in self._by_token:
            raise ValueError("that token is taken")
        player = Player(name, bot, token)
        self._by_id[player.id] = player
        self._by_token[_digest(player.token)] = player
        return player

    def by_token(self, token: str) -> Player | None:
        # Looked up by a hash of the token, so timing says nothing about its characters.
        return self._by_token.get(_digest(token))

    def drop(self, player: Player) -> None:
        self._by_id.pop(player.id, None)
        self._by_token.pop(_digest(player.token), None)
        if player.grace is not None:
            player.grace.cancel()
            player.grace = None

    def __iter__(self) -> Iterator[Player]:
        return iter(list(self._by_id.values()))

    def __len__(self) -> int:
        return len(self._by_id)
