"""Players outlive connections: a resume token brings the same player back."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from .connection import Connection
    from .room import Cancellable, Room


class Player:
    """A person or a program the server knows, which outlives its connections: a
    dropped connection leaves the player (and its seat) waiting for the resume
    token, for the grace period."""

    def __init__(self, name: str, bot: bool, token: str | None = None) -> None:
        self.id = "p" + secrets.token_hex(4)
        self.token = token or secrets.token_urlsafe(24)
        self.name = name or f"player-{self.id[1:5]}"
        self.bot = bot
        self.conn: Connection | None = None
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
