"""What one seat can know about where the cards are, derived from its view.

Everything here is a fact, never a guess: a card is *known* in a hand only if
the seat saw it taken from the open cards and not discarded since, and a card
is *unseen* only if this seat cannot place it (it is in the deck, in someone's
hidden cards, or buried in a dead pile the seat did not see go by).

The round's public plays (``view.history``) are enough to rebuild all of it,
so a bot that missed events is still right. The one thing the history does not
hold is the card turned up at the deal when the first player did not take it;
``Tracker`` remembers it from the ``RoundStarted`` event or the first view, and
without it that card simply stays unseen.
"""

from __future__ import annotations

import msgspec

from game import Event, RoundStarted, View
from game.cards import BY_NAME, FULL_DECK
from game.rules import HAND_SIZE


class CardKnowledge(msgspec.Struct, frozen=True, gc=False):
    """One seat's facts about the cards of the current round (masks: bit ``i`` is card ``i``)."""

    seat: int
    known: tuple[int, ...]
    """By seat: the cards known to be in that hand. The seat's own entry is its whole hand;
    another's holds the open cards it took and has not discarded since."""
    unknown: tuple[int, ...]
    """By seat: how many cards of that hand are not known (hand size minus known)."""
    unseen: int
    """Cards this seat cannot place: not in its hand, not open, not known in another hand,
    not seen go to the dead pile since the last reshuffle."""
    dead: int
    """Cards seen going to the dead pile since the last reshuffle."""
    dead_size: int
    """The dead pile's size, including a turned-up card this seat did not see."""
    deck_size: int
    reshuffles: int
    """How many times this round the dead pile became the deck."""
    drawn: tuple[int, ...]
    """By seat: how many cards that seat drew from the deck this round."""
    taken: tuple[int, ...]
    """By seat: every open card that seat took this round (even if discarded again)."""

    def hidden(self, seat: int) -> int:
        """How many cards of ``seat``'s hand this seat cannot name (0 for itself)."""
        return self.unknown[seat]


def first_deck_size(view: View) -> int:
    """The deck's size right after this round's deal."""
    return 52 - HAND_SIZE * sum(view.active) - 1


def card_knowledge(view: View, first_open: int | None = None) -> CardKnowledge:
    """Rebuild the card facts of ``view.seat`` from the round's public history.

    ``first_open`` is the card turned up at the deal, if this seat saw it;
    without it, that card counts as unseen once buried.
    """
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator has no hand to track cards for")
    n = len(view.names)
    known = [0] * n
    drawn = [0] * n
    taken = [0] * n
    open_mask = 1 << first_open if first_open is not None else 0
    open_count = 1
    deck = first_deck_size(view)
    dead = 0
    dead_count = 0
    reshuffles = 0
    for played in view.history:
        group = 0
        for name in played.discard:
            group |= 1 << BY_NAME[name]
        mover = played.seat
        known[mover] &= ~group
        if played.took is None:
            if deck == 0:  # the dead pile is shuffled into a new deck
                deck, dead, dead_count = dead_count, 0, 0
                reshuffles += 1
            deck -= 1
            drawn[mover] += 1
            dead |= open_mask
            dead_count += open_count
        else:
            took = 1 << BY_NAME[played.took]
            known[mover] |= took
            taken[mover] |= took
            dead |= open_mask & ~took
            dead_count += open_count - 1
        open_mask = group
        open_count = len(played.discard)
    known[seat] = view.hand_mask
    others = 0
    for s in range(n):
        if s != seat:
            others |= known[s]
    view_open = 0
    for card in view.open:
        view_open |= 1 << card
    unseen = FULL_DECK & ~(view.hand_mask | view_open | others | dead)
    unknown = tuple(
        0 if s == seat else max(0, view.hand_sizes[s] - known[s].bit_count()) for s in range(n)
    )
    return CardKnowledge(
        seat,
        tuple(known),
        unknown,
        unseen,
        dead,
        dead_count,
        deck,
        reshuffles,
        tuple(drawn),
        tuple(taken),
    )


class Tracker:
    """Remembers the one fact the history lacks: each round's turned-up card.

    Feed it the seat's events (``on_event``) or just its views (``knowledge``
    notes the open card at the round's first turn); either is enough.
    """

    def __init__(self) -> None:
        self._round = 0
        self._first_open: int | None = None

    def reset(self) -> None:
        self._round = 0
        self._first_open = None

    def on_event(self, event: Event) -> None:
        if isinstance(event, RoundStarted) and len(event.open) == 1:
            self._round = event.round
            self._first_open = BY_NAME[event.open[0]]

    def first_open(self, view: View) -> int | None:
        """The card turned up at this round's deal, if this seat has seen it."""
        if view.round != self._round:
            self._round = view.round
            self._first_open = None
        if self._first_open is None:
            if view.turn == 0 and len(view.open) == 1:
                self._first_open = int(view.open[0])
            elif view.history and view.history[0].took is not None:
                self._first_open = BY_NAME[view.history[0].took]
        return self._first_open

    def knowledge(self, view: View) -> CardKnowledge:
        return card_knowledge(view, self.first_open(view))
