"""Match logs as JSON Lines: one full event a line; enough to replay and audit a match."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import IO

import msgspec

from .cards import parse_card, parse_cards
from .events import (
    AnyEvent,
    Declared,
    Event,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
)
from .match import Match, ScriptedShuffler
from .moves import Declare, Move, Play

_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(AnyEvent)


def encode_event(event: Event) -> bytes:
    return _encoder.encode(event)


def decode_event(line: bytes | str) -> Event:
    return _decoder.decode(line)


def write_log(events: Iterable[Event], out: IO[bytes]) -> None:
    for event in events:
        out.write(_encoder.encode(event))
        out.write(b"\n")


def read_log(lines: Iterable[bytes]) -> list[Event]:
    """The events of a JSON Lines log: an open file (binary), or its lines."""
    return [decode_event(line) for line in lines if line.strip()]


def moves_of(events: Iterable[Event]) -> Iterator[tuple[int, Move | Resigned, bool]]:
    """What each player did, in order: (seat, move or resignation, auto)."""
    for event in events:
        if isinstance(event, Played):
            take = None if event.took is None else parse_card(event.took)
            yield event.seat, Play(tuple(parse_cards(event.discard)), take), event.auto
        elif isinstance(event, Declared):
            yield event.seat, Declare(), False
        elif isinstance(event, Resigned):
            yield event.seat, event, False


def match_from_log(events: Sequence[Event]) -> Match:
    """A fresh match set up like the logged one, dealing the logged decks."""
    if not events or not isinstance(events[0], MatchStarted):
        raise ValueError("a match log starts with a match_start event")
    head = events[0]
    orders = []
    for event in events:
        if isinstance(event, RoundStarted | Reshuffled):
            if event.deck is None:
                raise ValueError(
                    "this log has no deck orders (it is a player's copy, not a full log)"
                )
            orders.append(event.deck)
    return Match(head.seats, head.rules, head.seed, shuffler=ScriptedShuffler(orders))


def replay(events: Sequence[Event]) -> list[Event]:
    """Play a log's moves again and return the events they cause (equal to the log's)."""
    match = match_from_log(events)
    out = match.start()
    for seat, move, auto in moves_of(events):
        if isinstance(move, Resigned):
            out.extend(match.resign(seat, move.reason))
        else:
            out.extend(match.apply(seat, move, auto=auto))
    return out
