"""What a player does on a turn, and why a move can be refused."""

from __future__ import annotations

from collections.abc import Iterable

import msgspec

from .cards import Card, parse_card, parse_cards


class Play(msgspec.Struct, frozen=True, gc=False):
    """Discard a legal group, then take one open card, or the deck's top when ``take`` is None."""

    discard: tuple[Card, ...]
    take: Card | None = None

    @classmethod
    def of(cls, discard: str | Iterable[str | int], take: str | int | None = None) -> Play:
        """``Play.of("7h 7d", "8s")``; ``take`` None or ``"deck"`` draws from the deck.

        The discard is put in canonical order (by rank, then suit).
        """
        if isinstance(discard, str):
            cards = tuple(sorted(parse_cards(discard)))
        else:
            cards = tuple(sorted(parse_card(c) if isinstance(c, str) else Card(c) for c in discard))
        if take is None or (isinstance(take, str) and take.strip().lower() == "deck"):
            return cls(cards, None)
        return cls(cards, parse_card(take) if isinstance(take, str) else Card(take))

    def __str__(self) -> str:
        take = "deck" if self.take is None else str(self.take)
        return f"{' '.join(str(c) for c in self.discard)} take {take}"


class Declare(msgspec.Struct, frozen=True, gc=False):
    """End the round: every hand is shown and scored."""

    def __str__(self) -> str:
        return "declare"


Move = Play | Declare


class IllegalMove(Exception):
    """A refused move; the match is unchanged and the same player is still to move."""

    code = "illegal_move"

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = str(reason)
        """The English sentence as it goes on the wire: a plain ``str`` (a ``Phrase``
        stays in ``args`` for an edge that translates it)."""


class NotYourTurn(IllegalMove):
    code = "not_your_turn"


class CannotDeclare(IllegalMove):
    code = "cannot_declare"


class MatchOver(IllegalMove):
    code = "match_over"
