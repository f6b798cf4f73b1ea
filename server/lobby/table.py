"""A table: seats, spectators, and the match its driver plays through them."""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import msgspec
from leastscore.bots.seat import BotSeat
from leastscore.game import Event, Match, Move, Rules, View
from leastscore.protocol import encode, errors
from leastscore.protocol.convert import match_state, public_turn, turn_for
from leastscore.protocol.errors import ProtocolError
from leastscore.protocol.messages import (
    PlayerBack,
    PlayerLeft,
    PlayerReplaced,
    SeatInfo,
    State,
    TableChanged,
    TableInfo,
)
from leastscore.seats.core import Policy, Tell
from leastscore.seats.driver import MatchDriver
from leastscore.seats.names import unique_names
from leastscore.seats.seat import Seat

from .players import Cancellable
from .room import ConnectedSeat, Host, encoded

if TYPE_CHECKING:
    from ..records.journal import Recording
    from .players import Player

log = logging.getLogger("leastscore.server")


@dataclass
class Chair:
    """Who sits at a seat of a table: a player, or a built-in bot of some level (a
    seat of the match is made from it when the match starts)."""

    name: str
    player: Player | None = None
    level: str | None = None
    gone: bool = False
    """The player left during the match; the seat is cleared when it ends."""


class RemoteSeat(ConnectedSeat):
    """A seat of a lobby table played over a connection: the mover gets its own ``turn``,
    everyone else the table's public one."""

    def __init__(self, table: Table, index: int, player: Player) -> None:
        super().__init__(table, index, player)
        self.table = table

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        if mover == self.index:
            mine = view()
            self.slot.open((mine.round, mine.turn))
            conn = self._listener()
            if conn is not None:
                conn.send(turn_for(mine, int(time_limit * 1000), mover))
        else:
            self.slot.close()
            conn = self._listener()
            if conn is not None:
                conn.send_bytes(self.table.public_turn)


class Table:
    """A table of the lobby: its seats (players and built-in bots), its spectators,
    and the matches played at it. It turns seating into a match, plays the match
    through the driver with one seat per player, hands each seat and spectator
    the copy of every event it may see, keeps a vanished player's seat for the
    grace period, holds the match while none of the people playing it is
    connected (the bots do not play on for nobody) and stops it when they stay
    away too long, and closes when nobody is left to play or watch."""

    def __init__(
        self,
        host: Host,
        name: str,
        seats: int,
        rules: Rules,
        password: str | None,
        owner: Player,
        rematch: bool = False,
        *,
        forget: Callable[[Player], None],
        closed: Callable[[Table], None],
    ) -> None:
        """``forget``: the server stops knowing a player who is gone for good (their
        token with them); ``closed``: the table is over and comes off the lobby's list."""
        self.host = host
        self._forget = forget
        self._closed = closed
        self.open = True
        """Until ``close``: the lobby lists the table."""
        self.id = "t" + secrets.token_hex(3)
        self.name = name or f"{owner.name}'s table"
        self.size = seats
        self.rules = rules
        self.password = password
        self.owner = owner
        self.rematch = rematch
        """Start the next match by itself when one ends at a table of bots and programs."""
        self.slots: list[Chair] = []
        self.spectators: set[Player] = set()
        self.match: Match | None = None
        self.driver: MatchDriver | None = None
        self.task: Cancellable | None = None
        self.remote: dict[int, RemoteSeat] = {}
        self.started_at = 0.0
        self.recording: Recording | None = None
        """The running match as the database has it, written as it is played."""
        self.public_turn = b""
        self.held: dict[Player, int] = {}
        """The match seat each player held in ``self.match``: a snapshot shows a player
        the hand of this seat and of no other, whatever happened to the seating since."""
        self.onlookers: set[Callable[[Sequence[msgspec.Struct]], None]] = set()
        """Spectators outside the protocol (the web view): each gets the spectator's
        copy of every event and the public ``turn``, as they happen."""
        self.abandoning: Cancellable | None = None
        """While the match waits for its players: when it is given up."""
        self.hints: dict[Player, tuple[tuple[int, int], asyncio.Future[Move]]] = {}
        """Each player's hint for a turn (round, turn): thought out once per turn."""

    # -- what people see ---------------------------------------------------------

    @property
    def playing(self) -> bool:
        return self.match is not None and not self.match.over

    def info(self) -> TableInfo:
        # Seats are named as the match names them (two "Greedy bot"s become "Greedy bot"
        # and "Greedy bot (2)"), so that a snapshot and the match's events agree.
        names = unique_names([slot.name for slot in self.slots])
        return TableInfo(
            id=self.id,
            name=self.name,
            seats=self.size,
            players=[
                SeatInfo(
                    seat=i,
                    name=names[i],
                    kind="bot"
                    if slot.level is not None or (slot.player and slot.player.bot)
                    else "human",
                    connected=not slot.gone
                    and (slot.player.connected if slot.player is not None else True),
                    level=slot.level,
                )
                for i, slot in enumerate(self.slots)
            ],
            spectators=len(self.spectators),
            playing=self.playing,
            locked=self.password is not None,
            rules=self.rules.changes(),
            rematch=self.rematch,
        )

    def holds(self, player: Player, seat: int) -> bool:
        # One who left the match and watches the table gets the spectators' copies only.
        return player.room is self and self.held.get(player) == seat

    def members(self) -> list[Player]:
        seated = [s.player for s in self.slots if s.player is not None]
        return seated + list(self.spectators)

    def broadcast(self, message: msgspec.Struct, skip: Player | None = None) -> None:
        data = encode(message)
        for player in self.members():
            if player is not skip and player.connected:
                player.send_bytes(data)

    def state_for(self, player: Player, msg_id: int | None = None) -> State:
        match = self.match
        if match is None:
            return State(table=self.info(), you=player.seat, id=msg_id)
        seat = self.held.get(player)
        view = match.view(seat)
        time_ms = 0
        if self.driver is not None and self.driver.deadline is not None:
            time_ms = max(0, int((self.driver.deadline - self.host.loop.time()) * 1000))
        standings = list(match.standings) if match.over else None
        return State(
            table=self.info(),
            you=seat,  # the seat held in this match: None for spectators and those who left it
            match=match_state(view, time_ms, standings),
            id=msg_id,
        )

    def seen_on_turn(self, player: Player) -> tuple[list[Event], View] | None:
        """What ``player`` has seen of the running match (their seat's copies of its
        events) and the view they move from, when it is their move; else None: hints and
        typed moves are for one's own turn."""
        match, seat = self.match, self.held.get(player)
        if not self.playing or match is None or seat is None or match.to_move != seat:
            return None
        if self.driver is None or self.driver.paused or player.room is not self:
            return None
        return [event.seen_by(seat) for event in match.log], match.view(seat)

    # -- seating -----------------------------------------------------------------

    def sit(self, player: Player) -> int:
        if self.playing:
            raise ProtocolError(errors.MATCH_RUNNING, "a match is being played: you may watch")
        if len(self.slots) >= self.size:
            raise ProtocolError(errors.TABLE_FULL, "every seat is taken")
        self._forget_match()
        self.slots.append(Chair(player.name, player=player))
        player.room = self
        player.seat = len(self.slots) - 1
        self.changed()
        return player.seat

    def watch(self, player: Player) -> None:
        self.spectators.add(player)
        player.room = self
        player.seat = None
        self.changed()

    def add_bot(self, level: str) -> int:
        if self.playing:
            raise ProtocolError(errors.MATCH_RUNNING, "a match is being played")
        if len(self.slots) >= self.size:
            raise ProtocolError(errors.TABLE_FULL, "every seat is taken")
        bot = self.host.bots.make(level)  # refused past the server's caps
        self._forget_match()
        self.slots.append(Chair(f"{bot.name.capitalize()} bot", level=level))
        self.changed()
        return len(self.slots) - 1

    def leave(self, player: Player) -> None:
        """The player goes for good: a seat in a running match is forfeited."""
        if player in self.spectators:
            self.spectators.discard(player)
        elif player.seat is not None:
            index = player.seat
            if self.playing and self.driver is not None:
                self.driver.resign(index, f"{player.name} left")
                self.held.pop(player, None)
                self.slots[index].gone = True
                self.slots[index].player = None
            else:
                self._forget_match()
                del self.slots[index]
                for i, slot in enumerate(self.slots):
                    if slot.player is not None:
                        slot.player.seat = i
        player.room = None
        player.seat = None
        if player.grace is not None:
            player.grace.cancel()
            player.grace = None
        if self.owner is player:
            humans = [s.player for s in self.slots if s.player is not None]
            if humans:
                self.owner = humans[0]
        if not any(s.player is not None and not s.gone for s in self.slots) and not self.spectators:
            self.close()
        else:
            self.changed()
            self._wait_if_nobody_plays()

    def _forget_match(self) -> None:
        """The seating changes after a match: its seats no longer line up with the
        table's, so snapshots stop showing it (it is in the database)."""
        if self.match is not None and self.match.over:
            self.match = None
            self.driver = None
            self.held = {}

    def changed(self) -> None:
        self.broadcast(TableChanged(self.info()))

    def full(self) -> bool:
        return len(self.slots) == self.size

    # -- vanishing and coming back ---------------------------------------------------

    def player_gone(self, player: Player) -> None:
        """The player's connection dropped: keep the seat for the grace period."""
        if player.seat is None:  # a spectator keeps nothing to come back to
            self._let_go(player)
            return
        grace = self.host.config.grace_period
        self.broadcast(PlayerLeft(player.seat, player.name, int(grace * 1000)), skip=player)
        player.grace = self.host.loop.call_later(grace, self._grace_over, player)
        self._wait_if_nobody_plays()

    def _grace_over(self, player: Player) -> None:
        player.grace = None
        if player.connected or player.room is not self or player.seat is None:
            return
        if not self.playing or self.driver is None:
            self._let_go(player)
            return
        level = self.host.config.replacement_level
        self.driver.replace(player.seat, self._bot_seat(level, player.name))
        self.broadcast(PlayerReplaced(player.seat, player.name, level))

    def _players_who_count(self) -> list[Player]:
        """Whom the running match is played for: its people, or at a table of programs
        only, its programs (the players who hold a seat in it and have not left it)."""
        players = list(self.held)
        people = [p for p in players if not p.bot]
        return people or players

    def _wait_if_nobody_plays(self) -> None:
        """None of the players the match is played for is connected: it waits for
        them, and is stopped if none is back in time."""
        driver = self.driver
        if not self.playing or driver is None or driver.paused:
            return
        players = self._players_who_count()
        if not players or any(p.connected for p in players):
            return
        driver.pause()
        wait = self.host.config.abandon_after
        log.info("table %s: nobody plays; the match waits %g s for them", self.id, wait)
        self.abandoning = self.host.loop.call_later(wait, self._abandon)

    def _play_on(self) -> None:
        """One of the players the match waited for is back."""
        if self.abandoning is not None:
            self.abandoning.cancel()
            self.abandoning = None
        if self.driver is not None and self.driver.paused:
            log.info("table %s: a player is back; the match plays on", self.id)
            self.driver.resume()

    def _let_go(self, player: Player) -> None:
        """A player whose connection is gone leaves for good: the seat, and the server's
        record of them (their token with it), or a long-lived server keeps everyone who
        ever vanished."""
        self.leave(player)
        self._forget(player)

    def _abandon(self) -> None:
        """Nobody came back in time: stop the match rather than keep it forever. It is
        saved as aborted, and the players' tokens go with the table."""
        self.abandoning = None
        log.info("table %s: nobody came back, the match is stopped", self.id)
        for player in self.members():
            self._forget(player)
        self.close()

    def player_back(self, player: Player) -> None:
        if player.grace is not None:
            player.grace.cancel()
            player.grace = None
        if player.seat is not None:
            seat = self.remote.get(player.seat)
            driver = self.driver
            if self.playing and driver and seat and driver.seats[player.seat] is not seat:
                driver.replace(player.seat, seat)
            if player in self._players_who_count():
                self._play_on()  # before the snapshot: it shows the mover's time
            self.broadcast(PlayerBack(player.seat, player.name), skip=player)
        player.send(self.state_for(player))

    # -- the match ---------------------------------------------------------------------

    def start(self) -> None:
        if self.playing:
            raise ProtocolError(errors.MATCH_RUNNING, "the match has already started")
        self.slots = [s for s in self.slots if not s.gone]
        for i, slot in enumerate(self.slots):
            if slot.player is not None:
                slot.player.seat = i
        if len(self.slots) < 2:
            raise ProtocolError(errors.NOT_ALLOWED, "a match needs at least 2 players")
        names = unique_names([s.name for s in self.slots])
        self.match = Match(names, self.rules)  # a shuffle from the OS's secure randomness
        self.held = {s.player: i for i, s in enumerate(self.slots) if s.player is not None}
        self.hints = {}
        people = any(s.player is not None and not s.player.bot for s in self.slots)
        seats: list[Seat] = []
        self.remote = {}
        for i, slot in enumerate(self.slots):
            if slot.player is not None:
                remote = RemoteSeat(self, i, slot.player)
                self.remote[i] = remote
                seats.append(remote)
            else:
                assert slot.level is not None
                seats.append(self._bot_seat(slot.level, names[i], paced=people))
        config = self.host.config
        bots = {i for i, s in enumerate(self.slots) if s.player is None or s.player.bot}

        def time_limit(seat: int) -> float:
            return config.bot_move_time if seat in bots else config.human_move_time

        self.driver = MatchDriver(
            self.match,
            seats,
            time_limit=time_limit,
            policy=Policy(retry_illegal=True),
            on_events=self._watchers_see,
            on_turn=self._turn_announced,
        )
        self.started_at = time.time()
        self.recording = self.host.journal.begin(self.name, self.started_at, names, self.rules)
        self.changed()
        self.task = self.host.play(self._play())

    def _bot_seat(self, level: str, name: str, paced: bool = True) -> BotSeat:
        return self.host.bots.seat(level, name, paced=paced)

    def _watchers_see(self, tell: Tell) -> None:
        """New events: the record gets them whole, spectators their copy (the core's
        own: cut once, and shared with the seats)."""
        if self.recording is not None:
            self.recording.add(tell.events)
        if not self.spectators and not self.onlookers:
            return  # nobody watches (a table of players, as most are): no copies to cut
        seen = tell.for_seat(-1)
        for player in self.spectators:
            if player.connected:
                for event in seen:
                    player.send_bytes(encoded(event))
        for onlooker in list(self.onlookers):
            onlooker(seen)

    def _turn_announced(self, mover: int, time_limit: float, view: View) -> None:
        """Build the public ``turn`` once: every seat but the mover, and every spectator, get it."""
        turn = public_turn(view, int(time_limit * 1000), mover)
        data = encode(turn)
        self.public_turn = data
        for player in self.spectators:
            if player.connected:
                player.send_bytes(data)
        for onlooker in list(self.onlookers):
            onlooker([turn])

    async def _play(self) -> None:
        assert self.driver is not None and self.match is not None
        assert self.recording is not None
        match, recording = self.match, self.recording
        try:
            await self.driver.run()
        except asyncio.CancelledError:
            recording.end(match.log, "aborted")
            raise
        except Exception:
            log.exception("table %s: the match failed", self.id)
            recording.end(match.log, "aborted")
            return
        finally:
            self.task = None
            if self.abandoning is not None:
                self.abandoning.cancel()
                self.abandoning = None
        recording.end(match.log, "finished")
        self.changed()
        for slot in list(self.slots):  # players who vanished and did not come back
            if slot.player is not None and not slot.player.connected and slot.player.grace is None:
                self._let_go(slot.player)
        if self.rematch and self.open and self.host.serving and self._all_machines():
            self.start()

    def _all_machines(self) -> bool:
        """Every seat is held, by a built-in bot or by a program that is connected."""
        return self.full() and all(
            not slot.gone and (slot.player is None or (slot.player.bot and slot.player.connected))
            for slot in self.slots
        )

    def close(self) -> None:
        if self.abandoning is not None:
            self.abandoning.cancel()
            self.abandoning = None
        if self.task is not None:
            self.task.cancel()
        if self.open:
            self.open = False
            self._closed(self)

    def move(
        self, player: Player, move: Move, msg_id: int | None, stamp: tuple[int, int] | None
    ) -> None:
        if not self.playing or player.seat is None:
            raise ProtocolError(errors.NO_MATCH, "no match is being played at your seat", msg_id)
        seat = self.remote.get(player.seat)
        if seat is None:
            raise ProtocolError(errors.NO_MATCH, "you are not in this match", msg_id)
        seat.receive(move, msg_id, stamp)
