"""The lobby's and the tables' decisions, without sockets and without an event loop:
the lobby is given a host with a fake clock, players are given connections that
only keep what they are sent."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Coroutine
from typing import Any

import msgspec
import pytest
from leastscore.protocol import decode_server, errors
from leastscore.protocol.errors import ProtocolError
from leastscore.protocol.messages import (
    AddBot,
    Create,
    Error,
    GetState,
    Join,
    Leave,
    ListTables,
    Ok,
    PlayerLeft,
    Start,
    State,
    TableChanged,
    Tables,
)
from leastscore.server.config import ServerConfig
from leastscore.server.house.bots import HouseBots
from leastscore.server.lobby.lobby import Lobby
from leastscore.server.lobby.players import Player
from leastscore.server.records.journal import Journal


class Timer:
    def __init__(self, clock: FakeClock, when: float, call: Callable[[], object]) -> None:
        self.when, self.call, self.cancelled = when, call, False

    def __lt__(self, other: Timer) -> bool:
        return self.when < other.when

    def cancel(self) -> None:
        self.cancelled = True


class FakeClock:
    """The time only moves when the test says so; callbacks due by then are run."""

    def __init__(self) -> None:
        self.now = 1000.0
        self._due: list[Timer] = []

    def time(self) -> float:
        return self.now

    def call_later(self, delay: float, callback: Callable[..., object], *args: Any) -> Timer:
        timer = Timer(self, self.now + delay, lambda: callback(*args))
        heapq.heappush(self._due, timer)
        return timer

    def advance(self, seconds: float) -> None:
        self.now += seconds
        while self._due and self._due[0].when <= self.now:
            timer = heapq.heappop(self._due)
            if not timer.cancelled:
                timer.call()


class Played:
    """A match handed to the host to play; the test decides whether it ever runs."""

    def __init__(self, match: Coroutine[None, None, None]) -> None:
        self.match = match
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True
        self.match.close()


class FakeHost:
    def __init__(self, **settings: Any) -> None:
        self.config = ServerConfig(db=None, **settings)
        self.bots = HouseBots(self.config)
        self.journal = Journal(None)
        self.loop = FakeClock()
        self.serving = True
        self.matches: list[Played] = []

    def play(self, match: Coroutine[None, None, None]) -> Played:
        played = Played(match)
        self.matches.append(played)
        return played


class Line:
    """A connection that keeps what it is sent, as messages."""

    def __init__(self, lobby: Lobby, name: str) -> None:
        self.lobby = lobby
        self.peer = self.address = "10.0.0.1"
        self.closed = False
        self.received: list[msgspec.Struct] = []
        self.player: Player | None = lobby.players.new(name, False)
        self.player.conn = self  # type: ignore[assignment]

    def send(self, message: msgspec.Struct) -> None:
        self.received.append(message)

    def send_bytes(self, data: bytes) -> None:
        message = decode_server(data[4:])  # past the length prefix
        assert message is not None
        self.received.append(message)

    def refund(self) -> None:
        pass

    def ask(self, message: Any) -> msgspec.Struct:
        """Send a request as the client would; the reply with its id (or the refusal)."""
        self.received.clear()
        try:
            self.lobby.handle(self, message)  # type: ignore[arg-type]
        except ProtocolError as e:
            return Error(e.code, e.message, e.id)
        replies = [m for m in self.received if getattr(m, "id", None) == message.id]
        assert replies, self.received
        return replies[0]

    def drop(self) -> None:
        self.closed = True
        assert self.player is not None
        self.lobby.lost(self.player)

    def last(self, kind: type[msgspec.Struct]) -> Any:
        found = [m for m in self.received if isinstance(m, kind)]
        assert found, f"no {kind.__name__} in {self.received}"
        return found[-1]


@pytest.fixture
def host() -> FakeHost:
    return FakeHost(grace_period=30.0)


@pytest.fixture
def lobby(host: FakeHost) -> Lobby:
    return Lobby(host)  # type: ignore[arg-type]


def test_create_join_and_the_tables_list(lobby: Lobby) -> None:
    ann, bea = Line(lobby, "Ann"), Line(lobby, "Bea")
    made = ann.ask(Create(name="Friday", seats=3, id=1))
    assert isinstance(made, Ok) and made.seat == 0
    listed = bea.ask(ListTables(id=2))
    assert isinstance(listed, Tables)
    assert [(t.name, len(t.players)) for t in listed.tables] == [("Friday", 1)]
    joined = bea.ask(Join(table=made.table, id=3))
    assert isinstance(joined, Ok) and joined.seat == 1
    assert [p.name for p in ann.last(TableChanged).table.players] == ["Ann", "Bea"]


def test_a_password_table_says_a_password_is_needed_before_it_says_wrong(
    lobby: Lobby, host: FakeHost
) -> None:
    ann, bea = Line(lobby, "Ann"), Line(lobby, "Bea")
    made = ann.ask(Create(name="Private", seats=2, password="s3cret", id=1))
    assert isinstance(made, Ok)
    refused = bea.ask(Join(table=made.table, id=2))
    assert isinstance(refused, Error) and refused.code == errors.PASSWORD_NEEDED
    wrong = bea.ask(Join(table=made.table, password="guess", id=3))
    assert isinstance(wrong, Error) and wrong.code == errors.WRONG_PASSWORD
    host.loop.advance(60)  # past any wait the miss earned
    right = bea.ask(Join(table=made.table, password="s3cret", watch=True, id=4))
    assert isinstance(right, Ok) and right.seat is None


def test_only_the_creator_adds_bots_and_starts(lobby: Lobby, host: FakeHost) -> None:
    ann, bea = Line(lobby, "Ann"), Line(lobby, "Bea")
    made = ann.ask(Create(name="T", seats=3, id=1))
    assert isinstance(made, Ok)
    bea.ask(Join(table=made.table, id=2))
    for request in (AddBot(level="greedy", id=3), Start(id=4)):
        refused = bea.ask(request)
        assert isinstance(refused, Error) and refused.code == errors.NOT_ALLOWED
    assert host.matches == []


def test_the_bot_that_fills_the_table_starts_the_match(lobby: Lobby, host: FakeHost) -> None:
    ann = Line(lobby, "Ann")
    made = ann.ask(Create(name="T", seats=3, id=1))
    assert isinstance(made, Ok)
    assert isinstance(ann.ask(AddBot(level="greedy", id=2)), Ok)
    assert host.matches == []
    assert isinstance(ann.ask(AddBot(level="random", id=3)), Ok)
    assert len(host.matches) == 1  # handed to the host to play
    table = lobby.tables[made.table]
    assert table.playing
    late = Line(lobby, "Cy")
    refused = late.ask(Join(table=made.table, id=4))
    assert isinstance(refused, Error) and refused.code == errors.MATCH_RUNNING
    watching = late.ask(Join(table=made.table, watch=True, id=5))
    assert isinstance(watching, Ok)
    assert len(host.matches) == 1
    table.close()
    assert host.matches[0].cancelled and made.table not in lobby.tables


def test_leaving_renumbers_the_seats_passes_the_table_on_and_the_last_closes_it(
    lobby: Lobby,
) -> None:
    ann, bea, cy = Line(lobby, "Ann"), Line(lobby, "Bea"), Line(lobby, "Cy")
    made = ann.ask(Create(name="T", seats=4, id=1))
    assert isinstance(made, Ok)
    bea.ask(Join(table=made.table, id=2))
    cy.ask(Join(table=made.table, id=3))
    assert isinstance(ann.ask(Leave(id=4)), Ok)
    table = lobby.tables[made.table]
    assert [s.name for s in table.slots] == ["Bea", "Cy"]
    assert cy.player is not None and cy.player.seat == 1
    assert table.owner is bea.player  # the creator's rights go to the next person seated
    bea.ask(Leave(id=5))
    cy.ask(Leave(id=6))
    assert made.table not in lobby.tables


def test_a_vanished_player_keeps_the_seat_for_the_grace_period(
    lobby: Lobby, host: FakeHost
) -> None:
    ann, bea = Line(lobby, "Ann"), Line(lobby, "Bea")
    made = ann.ask(Create(name="T", seats=3, id=1))
    assert isinstance(made, Ok)
    bea.ask(Join(table=made.table, id=2))
    assert bea.player is not None
    token = bea.player.token
    bea.drop()
    told = ann.last(PlayerLeft)
    assert told.name == "Bea" and told.grace_ms == 30_000
    host.loop.advance(29)
    assert lobby.players.by_token(token) is bea.player  # still held: the token resumes it
    assert [s.name for s in lobby.tables[made.table].slots] == ["Ann", "Bea"]
    host.loop.advance(2)
    assert lobby.players.by_token(token) is None  # gone for good, the token with it
    assert [s.name for s in lobby.tables[made.table].slots] == ["Ann"]
    state = ann.ask(GetState(id=3))
    assert isinstance(state, State) and [p.name for p in state.table.players] == ["Ann"]
