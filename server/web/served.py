"""What the web edge needs of the server it shows."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..net.connection import Switchboard

if TYPE_CHECKING:
    from ..house.bots import HouseBots
    from ..records.store import AsyncStore


class Served(Switchboard, Protocol):
    """The server as its pages see it: a switchboard for its players' WebSockets, the
    lobby and its tables, the built-in bots (for hints) and the match store (for the
    history). Named here, so that the web's room holds no server class and the
    server, above every room, is the one that puts them together."""

    @property
    def store(self) -> AsyncStore | None: ...

    @property
    def bots(self) -> HouseBots: ...
