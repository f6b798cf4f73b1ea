"""The hall: a room of entrants admitted by token, whose matches a host program plays.

A tournament with remote entrants serves one (``server.entrants.open_hall``) and
registers one player per remote entrant; the player's resume token is the entrant's
token. A bot connects, says ``hello`` with that token (``"token": "..."``) and is
seated in the ``Hall``, where it stays between matches. The server routes its moves
to the hall, the hall to the match it is playing. Unauthenticated clients may connect
but can create no tables.

Faults are the tournament's: a bot that is not connected when its move is due
counts a crash and gets the automatic move; a bot that has not connected when
its match starts (within the start-up time) forfeits that match.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

import msgspec
from leastscore.game import Match, Move, Rules, View
from leastscore.protocol import errors
from leastscore.protocol.convert import match_state, turn_for
from leastscore.protocol.errors import ProtocolError
from leastscore.protocol.messages import SeatInfo, State, TableInfo
from leastscore.seats.seat import Gone, SeatFailed

from .players import Player, Players
from .room import ConnectedSeat


class EntrantSeat(ConnectedSeat):
    """A remote entrant's seat in one match: a server seat that fails at once when its
    bot is not connected (a tournament waits for nobody)."""

    def __init__(self, hall: Hall, player: Player, index: int) -> None:
        super().__init__(hall, index, player)

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        mine = view()
        if mover == self.index:
            self.slot.open((mine.round, mine.turn))
        else:
            self.slot.close()
        if self.listening:
            self.player.send(turn_for(mine, int(time_limit * 1000), mover))

    def choose(self, view: View, time_limit: float) -> asyncio.Future[Move]:
        if not self.listening:
            failed: asyncio.Future[Move] = asyncio.get_running_loop().create_future()
            failed.set_exception(Gone(f"{self.name}: not connected"))
            return failed
        return super().choose(view, time_limit)

    def listen(
        self,
        view: View,
        time_limit: float,
        moved: Callable[[Move], None],
        failed: Callable[[SeatFailed], None],
    ) -> None:
        if not self.listening:
            raise Gone(f"{self.name}: not connected")
        super().listen(view, time_limit, moved, failed)

    def lost(self) -> None:
        self.slot.fail(Gone(f"{self.name}: disconnected"))


class Hall:
    """The room every remote entrant is in for the whole tournament (a ``Room`` of the
    server's, not a table: nobody joins, leaves, adds bots or starts anything here).
    Each match the tournament plays gives each remote entrant's player a seat of it.
    Why a room and not a table: the host program, not the players, decides who plays
    which match and when."""

    def __init__(self, players: Players, rules: Rules) -> None:
        self.id = "tournament"
        self.name = "tournament"
        self.owner = Player("tournament", True)
        self.rules = rules
        self._players = players
        self.entrants: dict[str, Player] = {}
        self.playing_now: dict[Player, tuple[Match, EntrantSeat]] = {}
        self._changed = asyncio.Event()

    def admit(self, name: str, token: str | None = None) -> Player:
        """Register a remote entrant; its player's token is what the bot says hello with."""
        player = self._players.new(name, True, token)
        player.room = self
        self.entrants[name] = player
        return player

    def tokens(self) -> dict[str, str]:
        return {name: player.token for name, player in self.entrants.items()}

    async def arrival(self, name: str, timeout: float) -> bool:
        """Wait until the entrant is connected; False if it is not within ``timeout``."""
        player = self.entrants[name]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not player.connected:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return False
            self._changed.clear()
            try:  # not wait_for: in Python 3.11 it drops a cancel that comes with the wake-up
                async with asyncio.timeout(remaining):
                    await self._changed.wait()
            except TimeoutError:
                return player.connected
        return True

    # -- a match ------------------------------------------------------------------------

    def seat(self, name: str, match: Match, index: int) -> EntrantSeat:
        player = self.entrants[name]
        seat = EntrantSeat(self, player, index)
        self.playing_now[player] = (match, seat)
        if player.connected:
            player.send(self._state(player, None))
        return seat

    def done(self, seats: Sequence[EntrantSeat]) -> None:
        for seat in seats:
            self.playing_now.pop(seat.player, None)

    def _info(self, match: Match | None) -> TableInfo:
        names: Sequence[str] = match.names if match is not None else ()
        return TableInfo(
            id=self.id,
            name=self.name,
            seats=len(names),
            players=[SeatInfo(i, name, "bot") for i, name in enumerate(names)],
            spectators=0,
            playing=match is not None and not match.over,
            locked=True,
            rules=self.rules.changes(),
        )

    def _state(self, player: Player, msg_id: int | None) -> State:
        now = self.playing_now.get(player)
        if now is None:
            return State(table=self._info(None), id=msg_id)
        match, seat = now
        if not match.started:
            return State(table=self._info(match), you=seat.index, id=msg_id)
        view = match.view(seat.index)
        standings = list(match.standings) if match.over else None
        return State(
            table=self._info(match),
            you=seat.index,
            match=match_state(view, 0, standings),
            id=msg_id,
        )

    # -- what the server's lobby calls ------------------------------------------------------

    def holds(self, player: Player, seat: int) -> bool:
        now = self.playing_now.get(player)
        return player.room is self and now is not None and now[1].index == seat

    def state_for(self, player: Player, msg_id: int | None = None) -> State:
        return self._state(player, msg_id)

    def move(
        self, player: Player, move: Move, msg_id: int | None, stamp: tuple[int, int] | None
    ) -> None:
        now = self.playing_now.get(player)
        if now is None:
            raise ProtocolError(errors.NO_MATCH, "you are not playing a match now", msg_id)
        now[1].receive(move, msg_id, stamp)

    def player_gone(self, player: Player) -> None:
        now = self.playing_now.get(player)
        if now is not None:
            now[1].lost()
        self._changed.set()

    def player_back(self, player: Player) -> None:
        self._changed.set()
        player.send(self._state(player, None))

    def leave(self, player: Player) -> None:
        raise ProtocolError(
            errors.NOT_ALLOWED, "a tournament entrant stays seated: disconnect to withdraw"
        )

    def start(self) -> None:
        raise ProtocolError(errors.NOT_ALLOWED, "the tournament starts its matches itself")

    def add_bot(self, level: str) -> int:
        raise ProtocolError(errors.NOT_ALLOWED, "the tournament seats its own entrants")

    def full(self) -> bool:
        return False

    def broadcast(self, message: msgspec.Struct, skip: Player | None = None) -> None:
        pass  # entrants do not chat
