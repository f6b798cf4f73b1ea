"""Seeds and decks for duplicate play: the same cards at every table of a deal.

Everything random in a tournament is derived from its one seed with a hash, so
a match plays the same whichever process runs it, and in whatever order.
"""

from __future__ import annotations

import hashlib
import random

from leastscore.game import CARDS


def derive(seed: int, *parts: object) -> int:
    """A 63-bit seed for one purpose (``derive(seed, "deal", 3)``), stable across runs."""
    text = "/".join(map(str, (seed, *parts)))
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big") >> 1


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal number ``deal`` (0-based) of a tournament."""
    return derive(seed, "deal", deal)


class DuplicateDeck:
    """A match shuffler that deals every round from one seeded stream and
    reshuffles the dead pile from another.

    With a single stream a reshuffle in round 1 would change the deck of round
    2; with two, round ``k`` is dealt from the same deck order at every table
    that plays this deal, however the rounds before it went.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._deals = random.Random(seed)
        self._reshuffles = random.Random(derive(seed, "reshuffle"))

    def __call__(self, cards: list[int]) -> None:
        # A new round shuffles the whole pack; a reshuffle only the dead pile.
        stream = self._deals if len(cards) == len(CARDS) else self._reshuffles
        stream.shuffle(cards)
