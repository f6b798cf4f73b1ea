"""Cards as small ints: the engine works on indices and bit masks, people on "TS".

A card's index is ``(rank - 1) * 4 + suit``, so sorting indices sorts by rank,
and a hand is a 52-bit mask. ``Card`` is an ``int`` subclass with exactly 52
instances, so it costs nothing on the hot path yet prints canonically.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .phrase import Phrase

SUITS = "CDHS"
RANKS = "A23456789TJQK"
SUIT_SYMBOLS = "♣♦♥♠"

_RANK_ALIASES = {"10": "T", "1": "A"}
_SUIT_ALIASES = dict(zip(SUIT_SYMBOLS, SUITS, strict=True))


class Card(int):
    """One of the 52 cards; ``Card("TS")`` or ``Card(51)`` return the same object."""

    __slots__ = ()

    def __new__(cls, card: int | str) -> Card:
        if isinstance(card, str):
            return parse_card(card)
        if type(card) is Card:
            return card
        if isinstance(card, int) and not isinstance(card, bool) and 0 <= card < 52:
            return CARDS[card]
        raise ValueError(f"{card!r} is not a card index (0-51)")

    @property
    def rank(self) -> int:
        """1 (Ace) to 13 (King)."""
        return RANK[self]

    @property
    def suit(self) -> str:
        return SUITS[self & 3]

    @property
    def value(self) -> int:
        """Points in a hand: Ace 1, pips at face value, pictures 10."""
        return VALUE[self]

    @property
    def bit(self) -> int:
        return 1 << int(self)

    def __str__(self) -> str:
        return NAMES[self]

    def __repr__(self) -> str:
        return f"Card('{NAMES[self]}')"

    def __reduce__(self) -> tuple[type[Card], tuple[int]]:
        return (Card, (int(self),))


CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(52))
NAMES: tuple[str, ...] = tuple(RANKS[i >> 2] + SUITS[i & 3] for i in range(52))
RANK: tuple[int, ...] = tuple((i >> 2) + 1 for i in range(52))
VALUE: tuple[int, ...] = tuple(min(10, (i >> 2) + 1) for i in range(52))
BIT: dict[int, int] = {i: 1 << i for i in range(52)}
"""Index -> bit; a dict so that anything that is not a card index misses."""
BY_NAME: dict[str, Card] = {name: CARDS[i] for i, name in enumerate(NAMES)}
FULL_DECK = (1 << 52) - 1

_TOKEN = re.compile(r"[\s,]+")


def parse_card(token: str) -> Card:
    """Read one card, forgivingly: ``7h``, ``10D``, ``ts``, ``Q♠``."""
    card = BY_NAME.get(token)
    if card is not None:
        return card
    text = token.strip().upper()
    if len(text) < 2:
        raise ValueError(
            Phrase("{token} is not a card: write rank then suit, like 7H or TS", token=repr(token))
        )
    rank, suit = text[:-1], text[-1]
    suit = _SUIT_ALIASES.get(suit, suit)
    rank = _RANK_ALIASES.get(rank, rank)
    if rank not in RANKS or len(rank) != 1:
        raise ValueError(
            Phrase(
                "{token} is not a card: unknown rank {rank} (ranks are A 2-9 T/10 J Q K)",
                token=repr(token),
                rank=repr(rank),
            )
        )
    if suit not in SUITS:
        raise ValueError(
            Phrase(
                "{token} is not a card: unknown suit {suit} (suits are C D H S)",
                token=repr(token),
                suit=repr(suit),
            )
        )
    return CARDS[RANKS.index(rank) * 4 + SUITS.index(suit)]


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Read cards from ``"7h 7D 10s"`` (spaces or commas) or from a list of tokens."""
    tokens = [t for t in _TOKEN.split(text) if t] if isinstance(text, str) else list(text)
    return [parse_card(t) for t in tokens]


def format_cards(cards: Iterable[int]) -> str:
    return " ".join(NAMES[c] for c in cards)


def hand_total(cards: Iterable[int]) -> int:
    """The points a hand counts at a declaration."""
    return sum(VALUE[c] for c in cards)


def mask_of(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= BIT[c]
    return mask


def cards_of(mask: int) -> tuple[Card, ...]:
    """The cards of a mask, lowest index first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(CARDS[low.bit_length() - 1])
        mask ^= low
    return tuple(out)


def mask_total(mask: int) -> int:
    """The points of the cards of ``mask``."""
    total = 0
    while mask:
        low = mask & -mask
        total += VALUE[low.bit_length() - 1]
        mask ^= low
    return total
