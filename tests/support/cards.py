"""What a seat or a spectator may see of a match, from the engine's full log: what a
test holds every screen, page and frame to."""

from __future__ import annotations

import re
from typing import Any

from leastscore.game import Declared, Event, Played, RoundStarted

CARD = re.compile(r"^[A23456789TJQK][CDHS]$")


def public_cards(log: list[Event]) -> dict[int, set[str]]:
    """By round, the cards a spectator may see: the open card dealt, every discard and
    card taken, and the hands revealed at the declaration. Everything else is hidden."""
    public: dict[int, set[str]] = {0: set()}
    round_ = 0
    for event in log:
        if isinstance(event, RoundStarted):
            round_ = event.round
            public[round_] = set(event.open)
        elif isinstance(event, Played):
            public[round_] |= set(event.discard) | ({event.took} if event.took else set())
        elif isinstance(event, Declared):
            for hand in event.hands:
                public[round_] |= set(hand or ())
    return public


def visible_to(log: list[Event], seat: int) -> dict[int, set[str]]:
    """By round, the cards ``seat`` may see: the public ones, its own hand as dealt
    and every card it drew."""
    seen = public_cards(log)
    round_ = 0
    for event in log:
        if isinstance(event, RoundStarted):
            round_ = event.round
            seen[round_] |= set(event.hands[seat] or ())
        elif isinstance(event, Played) and event.seat == seat and event.drawn:
            seen[round_].add(event.drawn)
    return seen


def cards_in(obj: Any) -> set[str]:
    """Every card named anywhere in a decoded message."""
    if isinstance(obj, str):
        return {obj} if CARD.match(obj) else set()
    if isinstance(obj, dict):
        return set().union(*(cards_in(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(cards_in(v) for v in obj)) if obj else set()
    return set()
