"""A server that holds only a hall of entrants, for a host program that plays their matches.

The tournament asks for one when some of its entrants are remote bots: it names the
address, the rules and each entrant's token, and is given a ``ServedHall``: where the
bots connect, their tokens, a seat for each in a match, and the close. The tournament
reaches the server through nothing else (it imports no part of ``server``: the
``leastscore`` command hands it ``open_hall``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from leastscore.game import Match, Rules

from .app import Server
from .config import ServerConfig
from .lobby.hall import EntrantSeat, Hall


class ServedHall:
    """The hall of remote entrants with the server it is reached through, as one thing the
    tournament opens, seats from and closes. Why both in one: the tournament needs the
    server's port and its end, and the hall's seats, and nothing else of either."""

    def __init__(self, server: Server, hall: Hall) -> None:
        self.server = server
        self.hall = hall

    @property
    def port(self) -> int:
        """Where the entrants connect (the port chosen when the address said 0)."""
        return self.server.port

    def tokens(self) -> dict[str, str]:
        """Each entrant's token, by name: what its bot says hello with."""
        return self.hall.tokens()

    async def arrival(self, name: str, timeout: float) -> bool:
        return await self.hall.arrival(name, timeout)

    def seat(self, name: str, match: Match, index: int) -> EntrantSeat:
        return self.hall.seat(name, match, index)

    def done(self, seats: Sequence[object]) -> None:
        self.hall.done([s for s in seats if isinstance(s, EntrantSeat)])

    async def close(self, reason: str) -> None:
        await self.server.shutdown(reason)


async def open_hall(
    host: str, port: int, rules: Rules, entrants: Mapping[str, str | None]
) -> ServedHall:
    """Start a server for remote entrants on ``host:port`` (0: any port), where nobody can
    create a table, and register the entrants by name with the token each was given
    (None: a new one)."""
    server = Server(ServerConfig(host=host, port=port, db=None, max_tables=0))
    await server.start()
    hall = Hall(server.lobby.players, rules)
    for name, token in sorted(entrants.items()):
        hall.admit(name, token)
    return ServedHall(server, hall)
