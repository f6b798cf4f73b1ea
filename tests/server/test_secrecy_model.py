"""Secrecy as a property: whatever players do, no frame shows anyone a card they may not see.

Hypothesis writes programs of lobby requests, moves, snapshots, disconnections and
resumes for a few players over a few tables of a real server; the test runs each one
and checks every frame each connection receives against a model of its own.

The model decides who may see what from the requests alone, never from the server's
code: it seats players as PROTOCOL.md says (in order of sitting; a match's seats are
the table's seats when it starts), follows each player's own hand through the events
they receive (their deal, their own moves), and allows a card in a frame only where
the protocol puts public cards (open cards, discards, a declaration's reveal) or in a
private field of the receiver's own seat in the match they follow, holding exactly
the hand the model tracked. Every request is followed by a ``state`` from every player
at a table, so every step is probed from every seat.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig

from ..support.server import Raw

CARD = re.compile(r"^[A2-9TJQK][CDHS]$")
CARD_IN_TEXT = re.compile(r"\b[A2-9TJQK][CDHS]\b")
PLAYERS = 4


class Leak(AssertionError):
    """A frame showed a card its receiver may not see, or broke the model's picture."""


# -- the model ---------------------------------------------------------------------


@dataclass(eq=False)
class TableModel:
    id: str
    size: int
    owner: Person
    slots: list[list[Any]] = field(default_factory=list)
    """[occupant, gone] in order of sitting: a Person or a bot's level."""
    spectators: set[Person] = field(default_factory=set)
    matches: list[dict[Person, int]] = field(default_factory=list)
    """For each match started here: the seat each person held in it."""
    playing: bool = False

    def start(self) -> bool:
        """Clear the seats of those who left; start a match if two or more are seated."""
        self.slots = [s for s in self.slots if not s[1]]
        if len(self.slots) < 2:
            return False
        seats = {s[0]: i for i, s in enumerate(self.slots) if isinstance(s[0], Person)}
        self.matches.append(seats)
        self.playing = True
        return True

    def full(self) -> bool:
        return len(self.slots) == self.size

    def humans(self) -> list[Person]:
        return [s[0] for s in self.slots if isinstance(s[0], Person) and not s[1]]


@dataclass(eq=False)
class Person:
    """One player (across connections), and what they may see."""

    name: str
    token: str | None = None
    table: TableModel | None = None
    following: tuple[TableModel, int] | None = None
    """(table, match number) of the match this person receives events of."""
    seat: int | None = None
    """The seat held in the followed match (None: watching, or left it)."""
    hand: set[str] | None = None
    """The hand of that seat, as tracked from this person's own events (None: unknown)."""
    round: int | None = None
    open: list[str] | None = None
    pending: dict[str, Any] | None = None
    """The turn this person is to answer, from a ``turn`` or a snapshot."""
    resigned: bool = False
    """This person's own seat was resigned since their last request: they left a match
    that was on (and their leaving may have ended it)."""
    resynced: bool = False
    """Set on a resume: the next snapshot may show a round dealt while away."""
    last_request: set[str] = field(default_factory=set)

    def follow(self, table: TableModel) -> None:
        number = len(table.matches) - 1
        self.following = (table, number)
        self.seat = table.matches[number].get(self) if number >= 0 else None
        self.hand = None
        self.round = None
        self.open = None
        self.pending = None

    def latest(self) -> bool:
        """Does this person follow the latest match at their table?"""
        table = self.table
        return table is not None and self.following == (table, len(table.matches) - 1)

    def unfollow(self) -> None:
        self.following = None
        self.seat = None
        self.hand = None
        self.open = None
        self.pending = None


def _cards(obj: Any, path: str = "") -> list[tuple[str, str]]:
    """Every card-like string in a decoded frame, with its path (``turn.hand.2``)."""
    if isinstance(obj, str):
        return [(path, obj)] if CARD.match(obj) else []
    if isinstance(obj, dict):
        return [c for k, v in obj.items() for c in _cards(v, f"{path}.{k}" if path else k)]
    if isinstance(obj, list):
        return [c for i, v in enumerate(obj) for c in _cards(v, f"{path}.{i}")]
    return []


PUBLIC = (
    re.compile(r"^(round_start|turn)\.open\.\d+$"),
    re.compile(r"^played\.(discard\.\d+|took)$"),
    re.compile(r"^declared\.hands\.\d+\.\d+$"),
    re.compile(r"^state\.match\.open\.\d+$"),
    re.compile(r"^state\.match\.history\.\d+\.(discard\.\d+|took)$"),
)
PRIVATE = (
    re.compile(r"^round_start\.hands\.\d+\.\d+$"),
    re.compile(r"^turn\.(hand\.\d+|legal\.\d+\.\d+)$"),
    re.compile(r"^played\.drawn$"),
    re.compile(r"^state\.match\.(hand\.\d+|legal\.\d+\.\d+)$"),
)


def check(person: Person, message: dict[str, Any]) -> None:
    """Raise ``Leak`` unless ``person`` may see every card of ``message``."""
    kind = message["type"]
    for path, _card in _cards(message, kind):
        if not any(p.match(path) for p in PUBLIC + PRIVATE):
            raise Leak(f"{person.name} got a card in {path}: {message}")
    if kind == "error":
        named = set(CARD_IN_TEXT.findall(message.get("message", "")))
        allowed = person.last_request | set(person.open or ()) | (person.hand or set())
        if named - allowed:
            raise Leak(f"{person.name}'s error names {named - allowed}: {message}")
    elif kind == "match_start":
        if person.table is None:
            raise Leak(f"{person.name} is at no table and got {message}")
        person.follow(person.table)
        match = person.table.matches[-1] if person.table.matches else None
        if match is None or len(message["seats"]) != len(person.table.slots):
            raise Leak(f"the model started no match of {message['seats']} ({person.name})")
        for other, seat in match.items():
            if message["seats"][seat] != other.name:
                raise Leak(f"the model seats {other.name} at {seat}: {message['seats']}")
    elif kind == "round_start":
        for i, hand in enumerate(message["hands"]):
            if hand is not None and i != person.seat:
                raise Leak(f"{person.name} (seat {person.seat}) was dealt seat {i}'s hand")
        if person.seat is not None:
            person.hand = set(message["hands"][person.seat] or ())
        person.round = message["round"]
        person.open = list(message["open"])
        person.pending = None
    elif kind == "turn":
        if person.open is not None and message["open"] != person.open:
            raise Leak(f"{person.name}: turn shows open {message['open']}, not {person.open}")
        if "hand" in message or "legal" in message:
            if message["seat"] != person.seat or person.seat is None:
                raise Leak(f"{person.name} (seat {person.seat}) got seat {message['seat']}'s turn")
            _own(person, message.get("hand") or [], message.get("legal") or [])
            person.pending = message
    elif kind == "played":
        seat = message["seat"]
        if "drawn" in message and seat != person.seat:
            raise Leak(f"{person.name} (seat {person.seat}) saw seat {seat} draw")
        if person.open is not None and message["took"] not in (None, *person.open):
            raise Leak(f"{person.name}: {message['took']} was taken but not open")
        person.open = list(message["discard"])
        if seat == person.seat and person.seat is not None:
            person.pending = None
            if person.hand is not None:
                if message["took"] is None and "drawn" not in message:
                    raise Leak(f"{person.name}'s own copy does not say what was drawn")
                person.hand -= set(message["discard"])
                person.hand.add(message["took"] or message["drawn"])
    elif kind == "resigned":
        if message["seat"] == person.seat and person.seat is not None:
            person.resigned = True
    elif kind == "match_end":
        person.pending = None
        if person.latest():
            assert person.table is not None
            person.table.playing = False
    elif kind == "state":
        _snapshot(person, message)


def _own(person: Person, hand: list[str], legal: list[list[str]]) -> None:
    """A private display of ``person``'s own hand: it must be the hand tracked."""
    if person.hand is None:
        person.hand = set(hand)  # dealt while away: taken as shown (see ``resynced``)
    elif set(hand) != person.hand:
        raise Leak(f"{person.name} was shown {sorted(hand)}, holds {sorted(person.hand)}")
    for group in legal:
        if not set(group) <= person.hand:
            raise Leak(f"{person.name} was offered {group}, not from their hand")


def _snapshot(person: Person, message: dict[str, Any]) -> None:
    match = message.get("match")
    if person.table is not None and message["table"]["id"] == person.table.id:
        # a running match is always shown: the table plays while one is shown unfinished
        person.table.playing = match is not None and not match.get("over", False)
    if match is None:
        return
    for played in match["history"]:
        if "drawn" in played:
            raise Leak(f"{person.name}'s snapshot history shows a drawn card: {played}")
    hand = match["hand"]
    if person.seat is None:
        if hand or match.get("legal") or message.get("you") is not None:
            raise Leak(
                f"{person.name} holds no seat and was shown {hand} (you={message.get('you')})"
            )
        return
    if message.get("you") != person.seat:
        raise Leak(
            f"{person.name} holds seat {person.seat}; the snapshot says {message.get('you')}"
        )
    if person.resynced:  # back from a disconnection: moves were made while away
        person.resynced = False
        person.open = list(match["open"])
        if match["round"] != person.round:
            person.hand = None  # a round dealt while away: nothing to compare with
            person.round = match["round"]
    if hand or person.hand:
        _own(person, hand, match.get("legal") or [])
    if person.open is None:
        person.open = list(match["open"])
    if match["to_move"] == message.get("you") and match.get("legal") and not match.get("over"):
        person.pending = {**match, "stamp": (match["round"], match["turn"])}


# -- running a program -------------------------------------------------------------


@dataclass(eq=False)
class Seat:
    """A person and their connection (None while disconnected)."""

    person: Person
    client: Raw | None = None
    next_id: int = 1


class Run:
    def __init__(self, server: Server) -> None:
        self.server = server
        self.seats = [Seat(Person(f"p{i}")) for i in range(PLAYERS)]
        self.tables: list[TableModel] = []

    async def open(self) -> None:
        for seat in self.seats:
            await self.connect(seat)

    async def connect(self, seat: Seat, token: str | None = None) -> None:
        seat.client = await Raw.connect(self.server.port)
        extra = {"token": token} if token else {}
        reply = await self.request(
            seat, {"type": "hello", "protocol": [1], "name": seat.person.name, **extra}
        )
        if reply["type"] == "error":
            assert reply["code"] == "bad_token", reply
            seat.person = Person(seat.person.name)
            reply = await self.request(
                seat, {"type": "hello", "protocol": [1], "name": seat.person.name}
            )
        assert reply["type"] == "welcome", reply
        seat.person.token = reply["token"]

    async def request(self, seat: Seat, message: dict[str, Any]) -> dict[str, Any]:
        """Send; check every frame up to the reply; return the reply."""
        client = seat.client
        assert client is not None
        seat.next_id += 1
        msg_id = seat.next_id
        seat.person.last_request = {c for _, c in _cards(message)}
        seat.person.resigned = False
        client.send({**message, "id": msg_id})
        while True:
            reply = await client.recv(timeout=20)
            if reply.get("id") == msg_id and reply["type"] == "welcome":
                return reply  # checked by the caller: it changes who this is
            check(seat.person, reply)
            if reply.get("id") == msg_id:
                return reply

    async def probe(self) -> None:
        """Every connected player asks for a snapshot (or pings): a check from every seat,
        and a barrier: every frame sent before it has been checked."""
        for seat in self.seats:
            if seat.client is not None:
                kind = "state" if seat.person.table is not None else "ping"
                await self.request(seat, {"type": kind})

    def table(self, index: int) -> TableModel | None:
        return self.tables[index % len(self.tables)] if self.tables else None

    # -- steps -------------------------------------------------------------------

    def actor(self, kind: str, who: int) -> Seat:
        """Who does ``kind``: the ``who``-th of those who can (at no table to sit down, at
        one to leave, an owner to add a bot), or seat ``who`` itself when nobody can, for
        a refusal to check too."""
        seated = [s for s in self.seats if s.client is not None and s.person.table is not None]
        can = {
            "create": [s for s in self.seats if s.client is not None and s.person.table is None],
            "resume": [s for s in self.seats if s.client is None],
            "add_bot": [s for s in seated if s.person.table.owner is s.person],  # type: ignore[union-attr]
        }
        can["join"] = can["watch"] = can["create"]
        can["start"] = can["add_bot"]
        candidates = can.get(kind, seated)
        return candidates[who % len(candidates)] if candidates else self.seats[who]

    async def step(self, step: tuple[Any, ...]) -> None:
        kind, who, *args = step
        seat = self.actor(kind, who)
        person = seat.person
        if kind == "resume":
            if seat.client is None:
                token = person.token
                await self.connect(seat, token)
                if seat.person is person and person.table is not None:
                    person.resynced = True
                    matches = person.table.matches
                    if matches and person in matches[-1] and not person.latest():
                        person.follow(person.table)  # a match began while away
            return
        if seat.client is None:
            return
        if kind == "disconnect":
            seat.client.close()
            seat.client = None
            table = person.table
            if table is not None and person in table.spectators:
                self._left(person, table)
            elif table is None:
                seat.person = Person(person.name)  # forgotten: the token is no good now
                seat.person.token = person.token
            return
        if kind == "create":
            seats, max_turns, max_rounds = args
            rules = {"max_turns": max_turns, "max_rounds": max_rounds}
            reply = await self.request(seat, {"type": "create", "seats": seats, "rules": rules})
            if reply["type"] == "ok":
                table = TableModel(reply["table"], seats, person)
                table.slots.append([person, False])
                self.tables.append(table)
                person.table = table
                person.unfollow()
        elif kind in ("join", "watch"):
            table = self.table(args[0])
            if table is None:
                return
            message = {"type": "join", "table": table.id, "watch": kind == "watch"}
            reply = await self.request(seat, message)
            if reply["type"] == "ok":
                person.table = table
                person.unfollow()
                if kind == "watch":
                    table.spectators.add(person)
                else:
                    table.slots.append([person, False])
                    if table.full():
                        table.start()
        elif kind == "add_bot":
            reply = await self.request(seat, {"type": "add_bot", "level": args[0]})
            if reply["type"] == "ok":
                assert person.table is not None
                person.table.slots.append([args[0], False])
                if person.table.full():
                    person.table.start()
        elif kind == "start":
            table = person.table
            reply = await self.request(seat, {"type": "start"})
            if table is not None and table.owner is person and not table.playing:
                # refused for want of players, the seats of those who left are cleared anyway
                assert table.start() == (reply["type"] == "ok"), reply
        elif kind == "leave":
            table = person.table
            reply = await self.request(seat, {"type": "leave"})
            if reply["type"] == "ok" and table is not None:
                self._left(person, table)
        elif kind == "state":
            await self.request(seat, {"type": "state"})
        elif kind == "move":
            await self.move(seat, *args)
        elif kind == "play_on":
            for _ in range(args[0]):
                moved = False
                for other in self.seats:
                    if other.client is not None and other.person.pending is not None:
                        await self.move(other, 0, False)
                        moved = True
                if not moved:
                    break
                await self.probe()
        await self.probe()

    def _left(self, person: Person, table: TableModel) -> None:
        if person in table.spectators:
            table.spectators.discard(person)
        else:
            playing = table.playing or person.resigned
            for slot in table.slots:
                if slot[0] is person:
                    if playing:
                        slot[1] = True
                    else:
                        table.slots.remove(slot)
                    break
            if table.owner is person and table.humans():
                table.owner = table.humans()[0]
        person.table = None
        person.unfollow()
        if not table.humans() and not table.spectators and table in self.tables:
            self.tables.remove(table)

    async def move(self, seat: Seat, choice: int, declare: bool) -> None:
        turn = seat.person.pending
        if turn is None:
            return
        stamp = {"round": turn["round"], "turn": turn["turn"]}
        if declare and turn.get("can_declare"):
            await self.request(seat, {"type": "declare", **stamp})
            return
        legal = turn["legal"]
        group = legal[choice % len(legal)]
        options = ["deck"] if turn["can_draw"] else []
        options += turn["open"]
        take = options[choice % len(options)]
        await self.request(seat, {"type": "play", "discard": list(group), "take": take, **stamp})

    async def close(self) -> None:
        for seat in self.seats:
            if seat.client is not None:
                seat.client.close()


who = st.integers(0, PLAYERS - 1)
creating = st.tuples(
    st.just("create"), who, st.integers(2, 4), st.integers(2, 6), st.integers(1, 2)
)
_STEPS = {
    "create": creating,
    "join": st.tuples(st.just("join"), who, st.integers(0, 1)),
    "watch": st.tuples(st.just("watch"), who, st.integers(0, 1)),
    "add_bot": st.tuples(st.just("add_bot"), who, st.sampled_from(["greedy", "random"])),
    "move": st.tuples(st.just("move"), who, st.integers(0, 20), st.booleans()),
    "play_on": st.tuples(st.just("play_on"), who, st.integers(5, 40)),
    **{kind: st.tuples(st.just(kind), who) for kind in ("start", "leave", "state")},
    **{kind: st.tuples(st.just(kind), who) for kind in ("disconnect", "resume")},
}
WEIGHTS = {"join": 4, "play_on": 4, "leave": 3, "add_bot": 2, "start": 2, "resume": 2}
"""Steps drawn more often than once in the mix: seats fill, matches end, seats empty."""
steps = st.sampled_from([kind for kind in _STEPS for _ in range(WEIGHTS.get(kind, 1))]).flatmap(
    _STEPS.__getitem__
)


async def run_program(program: list[tuple[Any, ...]]) -> None:
    config = ServerConfig(
        port=0, bot_delay=0.0, grace_period=60.0, human_move_time=60.0, thinkers=1
    )
    server = Server(config)
    await server.start()
    run = Run(server)
    try:
        await run.open()
        for step in program:
            await run.step(step)
    finally:
        await run.close()
        await server.shutdown()


@settings(
    max_examples=50,
    deadline=None,
    report_multiple_bugs=False,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(first=creating, program=st.lists(steps, min_size=10, max_size=30))
def test_no_frame_shows_a_card_its_receiver_may_not_see(
    first: tuple[Any, ...], program: list[tuple[Any, ...]]
) -> None:
    asyncio.run(asyncio.wait_for(run_program([first, *program]), 60))


def test_the_model_catches_a_snapshot_of_another_seats_hand() -> None:
    """The checker itself: a snapshot showing a hand other than the one tracked is a leak."""
    person = Person("p0", seat=1, hand={"2C", "3C", "4C", "5C", "6C"}, round=1)
    table = {"id": "t", "name": "t", "seats": 2, "players": [], "spectators": 0}
    match = {"round": 1, "turn": 3, "to_move": 0, "open": ["9H"], "history": []}
    state = {"type": "state", "table": table, "you": 1}
    check(person, {**state, "match": {**match, "hand": ["2C", "3C", "4C", "5C", "6C"]}})
    try:
        check(person, {**state, "match": {**match, "hand": ["KD", "3C", "4C", "5C", "6C"]}})
    except Leak:
        pass
    else:
        raise AssertionError("another hand went unnoticed")
    try:
        check(person, {"type": "played", "seat": 0, "discard": ["9H"], "took": None, "drawn": "AS"})
    except Leak:
        pass
    else:
        raise AssertionError("another seat's drawn card went unnoticed")
