"""Where the cards are, as far as one seat can tell: pure functions of its view.

Only facts, never guesses. A card is *known* in another hand when the seat saw
it taken from the open cards and not discarded since; it is *dead* when the
seat saw it buried (an open card nobody took) since the last reshuffle; every
card the seat cannot place is *unseen*: in the deck, or hidden in a hand.

``view.history`` (this round's public plays) holds all of it but one card: the
one turned up at the deal, which the history names only if the first player
took it. Pass it as ``turned_up`` when you saw it (``BotView`` does); without
it that card simply stays unseen.
"""

from __future__ import annotations

import msgspec
from leastscore.game import Card, View
from leastscore.game.cards import BY_NAME, FULL_DECK, cards_of
from leastscore.game.rules import HAND_SIZE


class Knowledge(msgspec.Struct, frozen=True, gc=False):
    """One seat's facts about the cards of the current round.

    Stored as card masks (bit ``i`` is card ``i``), the form fast bots compute
    with; ``known``, ``dead`` and ``unseen`` give the same facts as cards.
    """

    seat: int
    known_masks: tuple[int, ...]
    """By seat: the cards known to be in that hand. Your own entry is your whole hand;
    another's holds the open cards it took and has not discarded since."""
    hidden: tuple[int, ...]
    """By seat: how many cards of that hand you cannot name (0 for your own)."""
    dead_mask: int
    """Cards you saw go to the dead pile since it was last shuffled into the deck."""
    unseen_mask: int
    """Cards you cannot place: in the deck, hidden in someone's hand, or buried in the
    dead pile without you seeing them go (the turned-up card, when you missed it)."""
    dead_size: int
    """How many cards the dead pile holds, seen go by or not."""

    @property
    def known(self) -> tuple[tuple[Card, ...], ...]:
        """``known_masks`` as cards."""
        return tuple(cards_of(m) for m in self.known_masks)

    @property
    def dead(self) -> tuple[Card, ...]:
        return cards_of(self.dead_mask)

    @property
    def unseen(self) -> tuple[Card, ...]:
        return cards_of(self.unseen_mask)


def _mask(cards: tuple[str, ...] | tuple[Card, ...]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << (BY_NAME[card] if isinstance(card, str) else card)
    return mask


def knowledge(view: View, turned_up: Card | None = None) -> Knowledge:
    """Everything ``view``'s seat can tell about where this round's cards are.

    ``turned_up`` is the card turned face up at this round's deal, if the seat
    saw it; at the round's first turn it is simply ``view.open``.
    """
    seat = view.seat
    if seat is None:
        raise ValueError("a spectator has no hand: card knowledge is a seat's")
    if turned_up is None and not view.history and len(view.open) == 1:
        turned_up = view.open[0]
    n = len(view.names)
    known = [0] * n
    open_mask = 0 if turned_up is None else 1 << turned_up
    open_count = 1
    # The deck right after the deal. Seats that resigned during this round were
    # dealt in too; missing them makes the walk below see a reshuffle too early,
    # which only forgets dead cards (they become unseen): never a wrong fact.
    deck = 52 - 1 - HAND_SIZE * sum(view.active)
    dead = dead_count = 0
    for played in view.history:
        discard = _mask(played.discard)
        mover = played.seat
        if played.took is None:
            if deck <= 0:  # the dead pile is shuffled into a new deck
                deck, dead, dead_count = dead_count, 0, 0
            deck -= 1
            dead |= open_mask
            dead_count += open_count
            known[mover] &= ~discard
        else:
            took = 1 << BY_NAME[played.took]
            dead |= open_mask & ~took
            dead_count += open_count - 1
            known[mover] = (known[mover] & ~discard) | took
        open_mask, open_count = discard, len(played.discard)
    if deck != view.deck_size or dead_count > view.dead_size:
        dead = 0  # a reshuffle this walk could not place: forget, never guess
    for s in range(n):
        if view.hand_sizes[s] == 0:
            known[s] = 0  # out of the match: its cards went face down to the dead pile
    known[seat] = view.hand_mask
    in_sight = view.hand_mask | _mask(view.open)
    for mask in known:
        in_sight |= mask
    dead &= ~in_sight
    hidden = tuple(
        0 if s == seat else max(0, view.hand_sizes[s] - known[s].bit_count()) for s in range(n)
    )
    return Knowledge(
        seat=seat,
        known_masks=tuple(known),
        hidden=hidden,
        dead_mask=dead,
        unseen_mask=FULL_DECK & ~(in_sight | dead),
        dead_size=view.dead_size,
    )
