"""Every message of protocol v1 as a typed struct; ``type`` is the tag.

Game events (``match_start``, ``round_start``, ``played``, ...) are the
engine's own event structs from ``game.events``: they are already plain data
with string cards, and each receiver gets the copy ``seen_by`` its seat.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec
from leastscore.game.events import (
    Declared,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
)
from leastscore.game.scoring import Standing
from msgspec import Meta

from .text import PRINTABLE

# Text that others are shown (or that the server logs) holds no control characters.
PlayerName = Annotated[str, Meta(max_length=32, pattern=PRINTABLE)]
TableName = Annotated[str, Meta(max_length=40, pattern=PRINTABLE)]
ChatText = Annotated[str, Meta(min_length=1, max_length=500, pattern=PRINTABLE)]
ClientName = Annotated[str, Meta(max_length=64, pattern=PRINTABLE)]
BotLevel = Annotated[str, Meta(max_length=64, pattern=PRINTABLE)]
ShortText = Annotated[str, Meta(max_length=64)]
Id = int | None
CardName = Annotated[str, Meta(min_length=2, max_length=2)]
Seats = Annotated[int, Meta(ge=2, le=8)]


class Message(msgspec.Struct, tag_field="type", omit_defaults=True, gc=False):
    """Base of every protocol message."""


def optional_fields(cls: type[msgspec.Struct]) -> frozenset[str]:
    """The wire names of the fields of ``cls`` that may be left out (they have a default).

    From a client, nil in one of these means the same as leaving it out: the default.
    """
    return frozenset(f.encode_name for f in msgspec.structs.fields(cls) if not f.required)


TOGETHER = ("round", "turn")
"""The fields of a move that name the ``turn`` it answers: both, or neither."""


def _both_or_neither(move: PlayMove | DeclareMove) -> None:
    if (move.round is None) != (move.turn is None):
        raise ValueError("round and turn go together: send both or neither")


# -- client to server ---------------------------------------------------------


class Hello(Message, tag="hello"):
    protocol: list[int]
    """The major versions the client speaks, e.g. ``[1]``."""
    name: PlayerName = ""
    bot: bool = False
    client: ClientName = ""
    """Free text naming the client program and its version."""
    token: str | None = None
    """A resume token from an earlier ``welcome``: take back the same player."""
    id: Id = None


class Ping(Message, tag="ping"):
    id: Id = None


class ListTables(Message, tag="tables"):
    id: Id = None


class Create(Message, tag="create"):
    name: TableName = ""
    seats: Seats = 4
    rules: dict[str, Any] = {}
    """House rules by name (``threshold``, ``runs_same_suit``, ...); omitted ones are standard."""
    password: ShortText | None = None
    id: Id = None
    rematch: bool = False
    """When a match ends and every seat is still held by a bot or a program (nobody who
    said ``hello.bot: false``), the next match starts by itself."""


class Join(Message, tag="join"):
    table: ShortText
    watch: bool = False
    """Join as a spectator instead of taking a seat."""
    password: ShortText | None = None
    id: Id = None


class Leave(Message, tag="leave"):
    id: Id = None


class AddBot(Message, tag="add_bot"):
    level: BotLevel = "greedy"
    id: Id = None


class Start(Message, tag="start"):
    id: Id = None


class Say(Message, tag="chat"):
    text: ChatText
    id: Id = None


class GetState(Message, tag="state"):
    id: Id = None


class PlayMove(Message, tag="play"):
    discard: Annotated[list[CardName], Meta(min_length=1, max_length=5)]
    take: Annotated[str, Meta(min_length=2, max_length=4)]
    """An open card, or ``"deck"`` for the top of the closed deck."""
    id: Id = None
    round: int | None = None
    """With ``turn``: the ``turn`` message this move answers. A move for a turn that has
    passed is then refused instead of landing on a later turn."""
    turn: int | None = None

    def __post_init__(self) -> None:
        _both_or_neither(self)


class DeclareMove(Message, tag="declare"):
    id: Id = None
    round: int | None = None
    turn: int | None = None

    def __post_init__(self) -> None:
        _both_or_neither(self)


ClientMessage = (
    Hello
    | Ping
    | ListTables
    | Create
    | Join
    | Leave
    | AddBot
    | Start
    | Say
    | GetState
    | PlayMove
    | DeclareMove
)

# -- server to client ---------------------------------------------------------


class Welcome(Message, tag="welcome"):
    protocol: int
    server: str
    player: str
    """This player's id: public, shown in table listings."""
    token: str
    """Secret: send it in a later ``hello`` to resume after a lost connection."""
    resumed: bool
    id: Id = None


class Error(Message, tag="error"):
    code: str
    message: str
    id: Id = None
    supported: list[int] | None = None
    """With ``version_unsupported``: the versions this server speaks."""
    retry_ms: int | None = None
    """With ``too_many_attempts``: how long to wait before the next try is taken."""


class Ok(Message, tag="ok"):
    id: Id = None
    table: str | None = None
    seat: int | None = None


class Pong(Message, tag="pong"):
    id: Id = None


class SeatInfo(msgspec.Struct, omit_defaults=True, gc=False):
    seat: int
    name: str
    kind: Literal["human", "bot"]
    connected: bool = True
    level: str | None = None
    """For a bot: its built-in level."""


class TableInfo(msgspec.Struct, omit_defaults=True, gc=False):
    id: str
    name: str
    seats: int
    players: list[SeatInfo]
    spectators: int
    playing: bool
    locked: bool
    """A password is needed to join."""
    rules: dict[str, Any]
    """House rules that differ from the standard game."""
    rematch: bool = False
    """The table starts the next match by itself (see ``Create.rematch``)."""


class Tables(Message, tag="tables"):
    tables: list[TableInfo]
    id: Id = None


class TableChanged(Message, tag="table"):
    """Someone sat down, left, or a bot was added: the table as it is now."""

    table: TableInfo


class PlayerLeft(Message, tag="player_left"):
    seat: int
    name: str
    grace_ms: int
    """How long the seat is kept before a built-in bot plays it."""


class PlayerBack(Message, tag="player_back"):
    seat: int
    name: str


class PlayerReplaced(Message, tag="player_replaced"):
    """A built-in bot now plays this seat (until its player resumes)."""

    seat: int
    name: str
    level: str


class Turn(Message, tag="turn"):
    seat: int
    round: int
    turn: int
    time_ms: int
    """Time the mover has for this move."""
    open: list[str]
    can_declare: bool
    """Whether the mover may declare (always false in others' copies)."""
    can_draw: bool
    """False only when neither the deck nor the dead pile has a card: take an open card."""
    hand: list[str] | None = None
    """Only in the mover's copy: its hand."""
    legal: list[tuple[str, ...]] | None = None
    """Only in the mover's copy: every legal discard from its hand."""


class MatchState(msgspec.Struct, omit_defaults=True, gc=False):
    round: int
    turn: int
    dealer: int
    to_move: int
    time_ms: int
    open: list[str]
    hand_sizes: list[int]
    scores: list[int]
    active: list[bool]
    deck_size: int
    dead_size: int
    history: list[Played]
    """This round's moves as everyone saw them."""
    hand: list[str]
    """Empty for a spectator."""
    hand_total: int
    can_declare: bool
    can_draw: bool
    legal: list[tuple[str, ...]] | None = None
    over: bool = False
    standings: list[Standing] | None = None


class State(Message, tag="state"):
    """A full snapshot for one receiver: on join, on resume, and on request."""

    table: TableInfo
    you: int | None = None
    """Your seat, or none when watching."""
    match: MatchState | None = None
    id: Id = None


class Chat(Message, tag="chat"):
    name: str
    text: str
    seat: int | None = None


class Bye(Message, tag="bye"):
    """The server is closing this connection (shutting down)."""

    reason: str


ServerMessage = (
    Welcome
    | Error
    | Ok
    | Pong
    | Tables
    | TableChanged
    | PlayerLeft
    | PlayerBack
    | PlayerReplaced
    | Turn
    | State
    | Chat
    | Bye
    | MatchStarted
    | RoundStarted
    | Played
    | Reshuffled
    | Declared
    | RoundVoid
    | MatchEnded
    | Resigned
)

CLIENT_TYPES: dict[str, type[Message]] = {
    cls.__struct_config__.tag: cls for cls in ClientMessage.__args__
}
SERVER_TYPES: dict[str, type[msgspec.Struct]] = {
    cls.__struct_config__.tag: cls for cls in ServerMessage.__args__
}
