"""What one seat may see: the only input a player (person or bot) gets."""

from __future__ import annotations

import msgspec

from .cards import Card
from .events import Played
from .groups import group_cards
from .moves import Play
from .rules import Rules


class View(msgspec.Struct, frozen=True, gc=False):
    """Built positionally by ``Match.view`` (keywords cost more than the rest of a turn)."""

    seat: int | None
    """None for a spectator, who has no hand."""
    names: tuple[str, ...]
    rules: Rules
    round: int
    turn: int
    """Moves played so far this round."""
    dealer: int
    to_move: int
    hand: tuple[Card, ...]
    hand_mask: int
    """The hand as a bit mask (bit ``i`` is card index ``i``), for fast bots."""
    hand_total: int
    open: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    scores: tuple[int, ...]
    active: tuple[bool, ...]
    """Seats still in the match."""
    deck_size: int
    dead_size: int
    can_draw: bool
    """False only when neither the deck nor the dead pile holds a card."""
    can_declare: bool
    legal_groups: tuple[int, ...]
    """Every legal discard from the hand, as card masks (see ``legal_discards``)."""
    history: tuple[Played, ...]
    """This round's moves as everyone saw them (drawn cards are only in your own hand)."""
    over: bool
    turned_up: Card | None = None
    """The card turned face up at this round's deal, which every seat saw (None when
    whoever built the view did not see it: a view from a snapshot)."""

    @property
    def legal_discards(self) -> tuple[tuple[Card, ...], ...]:
        """Every legal discard from the hand, each once."""
        return tuple([group_cards(g) for g in self.legal_groups])

    @property
    def my_turn(self) -> bool:
        return self.seat == self.to_move and not self.over

    def legal_plays(self) -> list[Play]:
        """Every legal (discard, take) pair when it is this seat's turn, else none."""
        if not self.my_turn:
            return []
        takes: list[Card | None] = list(self.open)
        if self.can_draw:
            takes.append(None)
        return [Play(group, take) for group in self.legal_discards for take in takes]
