"""Remote entrants: bots that connect over TCP to a hall the runner opens.

The tournament does not serve them itself: it is handed an ``OpenHall`` in its
``Running`` (the ``leastscore`` command hands it the server's,
``server.entrants.open_hall``); the runner opens the
hall at the start of a run with each remote entrant's token, seats the connected
entrants in their matches through it and closes it at the end. Faults are the
tournament's: a bot that is not connected when its move is due counts a crash and gets
the automatic move; a bot that has not connected when its match starts (within the
start-up time) forfeits that match.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from leastscore.game import Match, Rules

if TYPE_CHECKING:  # a seat plays over asyncio; this room only names it
    from leastscore.seats.seat import Seat


class EntrantHall(Protocol):
    """What the tournament needs of the hall its remote entrants connect to: where it
    listens, their tokens, their arrival, a seat for each in a match, and its end."""

    @property
    def port(self) -> int: ...

    def tokens(self) -> dict[str, str]: ...

    async def arrival(self, name: str, timeout: float) -> bool:
        """Wait until the entrant is connected; False if it is not within ``timeout``."""
        ...

    def seat(self, name: str, match: Match, index: int) -> Seat: ...

    def done(self, seats: Sequence[Seat]) -> None:
        """The match those seats were in is over."""
        ...

    async def close(self, reason: str) -> None: ...


OpenHall = Callable[[str, int, Rules, Mapping[str, str | None]], Awaitable[EntrantHall]]
"""Open a hall on ``host, port`` (0: any) under ``rules`` for the entrants, by name,
with the token each was given (None: a new one)."""


OPEN_HALL = "leastscore.open_hall"
"""The key under which the ``leastscore`` command puts the server's ``OpenHall`` in
click's shared ``Context.meta``."""


class NoHall(RuntimeError):
    """A tournament with remote entrants was run without a way to open their hall."""

    def __init__(self) -> None:
        super().__init__(
            "remote entrants need a server to connect to: run the tournament with the "
            "leastscore command (leastscore tournament ...), which opens one"
        )
