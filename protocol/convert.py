"""Game types <-> wire types: views become ``turn``/``state``, wire moves become moves."""

from __future__ import annotations

from leastscore.game import NAMES, Declare, Move, Play, Standing, View
from leastscore.game.cards import BY_NAME
from leastscore.game.groups import group_names

from . import errors
from .messages import (
    DeclareMove,
    MatchState,
    PlayMove,
    SeatInfo,
    State,
    TableInfo,
    Turn,
    Welcome,
)


def move_from_wire(message: PlayMove | DeclareMove) -> Move:
    """The game move for a wire move; an unknown card is ``bad_message``."""
    if isinstance(message, DeclareMove):
        return Declare()
    try:
        discard = tuple([BY_NAME[c] for c in message.discard])
        take = None if message.take == "deck" else BY_NAME[message.take]
    except KeyError as e:
        raise errors.ProtocolError(
            errors.BAD_MESSAGE,
            f"{e.args[0]!r} is not a card (write rank then suit: A 2-9 T J Q K, C D H S)",
            message.id,
        ) from None
    return Play(discard, take)


def move_to_wire(
    move: Move, msg_id: int | None = None, round: int | None = None, turn: int | None = None
) -> PlayMove | DeclareMove:
    """The wire move; ``round`` and ``turn`` name the ``turn`` message it answers."""
    if isinstance(move, Declare):
        return DeclareMove(id=msg_id, round=round, turn=turn)
    take = "deck" if move.take is None else NAMES[move.take]
    discard = [NAMES[c] for c in move.discard]
    return PlayMove(discard=discard, take=take, id=msg_id, round=round, turn=turn)


def stamp_of(message: PlayMove | DeclareMove) -> tuple[int, int] | None:
    """The (round, turn) a wire move says it answers, when it says."""
    if message.round is None or message.turn is None:
        return None
    return (message.round, message.turn)


def _names(cards: tuple[int, ...]) -> list[str]:
    return [NAMES[c] for c in cards]


def turn_for(view: View, time_ms: int, mover: int) -> Turn:
    """The ``turn`` message as ``view``'s seat receives it (the mover's copy has its hand)."""
    if view.seat != mover:
        return public_turn(view, time_ms, mover)
    return _turn(
        view,
        time_ms,
        mover,
        can_declare=view.can_declare,
        hand=_names(view.hand),
        legal=list(map(group_names, view.legal_groups)),
    )


def public_turn(view: View, time_ms: int, mover: int) -> Turn:
    """The ``turn`` message as everyone but the mover receives it.

    Built from public fields only (round, turn, open cards, whether one can
    draw), so any seat's view gives the same message: it may be encoded once
    for every seat but the mover and every spectator.
    """
    return _turn(view, time_ms, mover)


def _turn(
    view: View,
    time_ms: int,
    mover: int,
    can_declare: bool = False,
    hand: list[str] | None = None,
    legal: list[tuple[str, ...]] | None = None,
) -> Turn:
    return Turn(
        seat=mover,
        round=view.round,
        turn=view.turn,
        time_ms=time_ms,
        open=_names(view.open),
        can_declare=can_declare,
        can_draw=view.can_draw,
        hand=hand,
        legal=legal,
    )


def match_state(view: View, time_ms: int, standings: list[Standing] | None = None) -> MatchState:
    """Everything ``view`` holds, for a ``state`` snapshot."""
    mine = view.my_turn
    return MatchState(
        round=view.round,
        turn=view.turn,
        dealer=view.dealer,
        to_move=view.to_move,
        time_ms=time_ms,
        open=_names(view.open),
        hand_sizes=list(view.hand_sizes),
        scores=list(view.scores),
        active=list(view.active),
        deck_size=view.deck_size,
        dead_size=view.dead_size,
        history=list(view.history),
        hand=_names(view.hand),
        hand_total=view.hand_total,
        can_declare=view.can_declare,
        can_draw=view.can_draw,
        legal=list(map(group_names, view.legal_groups)) if mine else None,
        over=view.over,
        standings=standings,
    )


def program_snapshot(view: View, time_ms: int) -> State:
    """The ``state`` a host sends a program it (re)started over stdio, before its turn.

    Over stdio there is no lobby, so this ``table`` map is the only one the program
    ever gets: its ``rules`` are the house rules that differ from the standard game.
    """
    players = [SeatInfo(i, name, "bot") for i, name in enumerate(view.names)]
    table = TableInfo(
        id="stdio",
        name="match",
        seats=len(view.names),
        players=players,
        spectators=0,
        playing=True,
        locked=False,
        rules=view.rules.changes(),
    )
    return State(table=table, you=view.seat, match=match_state(view, time_ms))


def program_welcome(version: int, server: str, msg_id: int | None) -> Welcome:
    """The ``welcome`` a host answers a stdio program's ``hello`` with: no player, no token."""
    return Welcome(version, server, "stdio", "", False, msg_id)
