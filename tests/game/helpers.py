"""Rigged deals: build a deck order that deals exactly the hands a test needs."""

from __future__ import annotations

import random
from collections.abc import Sequence

from leastscore.game import NAMES, Match, Rules, parse_cards
from leastscore.game.match import ScriptedShuffler


def rigged_order(hands: Sequence[str], open_card: str, deck: str = "", first: int = 1) -> list[str]:
    """The 52-card order that deals ``hands`` (by seat), turns up ``open_card`` and then
    draws ``deck`` in order, followed by every other card in index order.

    ``first`` is the seat dealt first (the dealer's left); every seat is dealt in.
    """
    n = len(hands)
    dealt = [parse_cards(h) for h in hands]
    assert all(len(h) == 5 for h in dealt), "every hand is dealt five cards"
    order = []
    for j in range(5):
        for i in range(n):
            order.append(str(dealt[(first + i) % n][j]))
    order.append(str(parse_cards(open_card)[0]))
    order.extend(str(c) for c in parse_cards(deck))
    assert len(set(order)) == len(order), "a card is used twice in the rigging"
    order.extend(name for name in NAMES if name not in order)
    return order


def rigged_match(
    hands: Sequence[str],
    open_card: str,
    deck: str = "",
    rules: Rules | None = None,
    later: Sequence[Sequence[str]] = (),
) -> Match:
    """A started match whose round 1 deals ``hands``; ``later`` are further deck orders."""
    order = rigged_order(hands, open_card, deck)
    match = Match(len(hands), rules or Rules(), shuffler=RiggedShuffler([order, *later]))
    match.start()
    return match


class RiggedShuffler:
    """Deals the given orders first, then shuffles from a fixed seed."""

    def __init__(self, orders: Sequence[Sequence[str]], seed: int = 0) -> None:
        self._scripted = ScriptedShuffler(orders)
        self._left = len(orders)
        self._rng = random.Random(seed)

    def __call__(self, cards: list[int]) -> None:
        if self._left:
            self._left -= 1
            self._scripted(cards)
        else:
            self._rng.shuffle(cards)
