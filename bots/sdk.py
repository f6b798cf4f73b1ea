"""What a bot author imports: the view a bot chooses from, moves, cards, events.

    from leastscore.bots.sdk import Bot, BotView, Declare, Move, Play

    class Lowball(Bot):
        name = "lowball"

        def choose(self, view: BotView) -> Move:
            if view.can_declare and view.hand_total <= 5:
                return Declare()
            return max(view.legal_plays(), key=lambda p: sum(c.value for c in p.discard))

The same class plays in-process (tournaments, the server's built-ins), over
TCP (``leastscore bot run FILE --server HOST:PORT``) and over stdin/stdout
(``leastscore bot run FILE --stdio``), and gets the same ``BotView`` each way.
"""

from __future__ import annotations

from leastscore.game import (
    Card,
    Declare,
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Move,
    Play,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
    Rules,
    View,
)

from .base import Bot
from .knowledge import Knowledge, knowledge
from .view import BotView, DealMemory

__all__ = [
    "Bot",
    "BotView",
    "Card",
    "DealMemory",
    "Declare",
    "Declared",
    "Event",
    "Knowledge",
    "MatchEnded",
    "MatchStarted",
    "Move",
    "Play",
    "Played",
    "Reshuffled",
    "Resigned",
    "RoundStarted",
    "RoundVoid",
    "Rules",
    "View",
    "knowledge",
]
