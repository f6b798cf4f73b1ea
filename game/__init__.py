"""The rules of Least Score: pure, exact, deterministic. No I/O lives here."""

from .cards import CARDS, NAMES, Card, format_cards, hand_total, parse_card, parse_cards
from .events import (
    AnyEvent,
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
)
from .groups import explain_discard, is_legal_discard, legal_discards
from .log import read_log, replay, write_log
from .match import Match, ScriptedShuffler
from .moves import CannotDeclare, Declare, IllegalMove, MatchOver, Move, NotYourTurn, Play
from .rules import MAX_SEATS, MIN_SEATS, Rules
from .scoring import Standing, declaration_holds, settle
from .view import View

__all__ = [
    "CARDS",
    "MAX_SEATS",
    "MIN_SEATS",
    "NAMES",
    "AnyEvent",
    "CannotDeclare",
    "Card",
    "Declare",
    "Declared",
    "Event",
    "IllegalMove",
    "Match",
    "MatchEnded",
    "MatchOver",
    "MatchStarted",
    "Move",
    "NotYourTurn",
    "Play",
    "Played",
    "Reshuffled",
    "Resigned",
    "RoundStarted",
    "RoundVoid",
    "Rules",
    "ScriptedShuffler",
    "Standing",
    "View",
    "declaration_holds",
    "explain_discard",
    "format_cards",
    "hand_total",
    "is_legal_discard",
    "legal_discards",
    "parse_card",
    "parse_cards",
    "read_log",
    "replay",
    "settle",
    "write_log",
]
