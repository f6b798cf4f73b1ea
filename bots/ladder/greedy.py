"""The baseline: shed the most points now, keep what pairs up, declare low.

- Declare when allowed with a total of 5 or less.
- Discard the legal group worth the most points (more cards on a tie).
- Take an open card that fits a kept card (makes a pair, or a run of three
  with two kept cards), the lowest such; otherwise the lowest open card if it
  is worth less than a deck card on average (so taking it lowers the expected
  total); otherwise draw from the deck.
"""

from __future__ import annotations

from leastscore.game import Card, Declare, Move, Play, View
from leastscore.game.cards import RANK, VALUE
from leastscore.game.groups import group_cards, hand_info

from ..base import Bot

DECLARE_AT = 5
MEAN_DECK_VALUE = sum(VALUE) / 52  # 85/13, about 6.5


class GreedyBot(Bot):
    """The ``greedy`` level: sheds the most points it can, takes an open card that fits
    or is cheap, declares at 5 or less; the baseline every bot should beat."""

    name = "greedy"

    def __init__(self, seed: int | None = None) -> None:
        pass  # deterministic; the seed is accepted like every built-in's

    def choose(self, view: View) -> Move:
        if view.can_declare and view.hand_total <= DECLARE_AT:
            return Declare()
        key = (view.hand_mask, view.rules.runs_same_suit)
        plan = _PLANS.get(key)
        if plan is None:
            plan = _plan(*key)
        return Play(group_cards(plan[0]), self._take(view, plan[1]))

    @staticmethod
    def _take(view: View, ranks: int) -> Card | None:
        fitting = None
        lowest = None
        for c in view.open:
            if lowest is None or VALUE[c] < VALUE[lowest]:
                lowest = c
            if fits(RANK[c], ranks) and (fitting is None or VALUE[c] < VALUE[fitting]):
                fitting = c
        if fitting is not None:
            return fitting
        if lowest is not None and (VALUE[lowest] < MEAN_DECK_VALUE or not view.can_draw):
            return lowest
        return None


_PLANS: dict[tuple[int, bool], tuple[int, int]] = {}


def _plan(mask: int, same_suit: bool) -> tuple[int, int]:
    """The group to shed from a hand and the ranks it keeps (cached by hand)."""
    info = hand_info(mask, same_suit)
    values = info.group_values
    groups = info.groups
    best = 0
    for i in range(1, len(values)):
        if values[i] > values[best] or (
            values[i] == values[best] and groups[i].bit_count() > groups[best].bit_count()
        ):
            best = i
    if len(_PLANS) >= 1 << 17:
        _PLANS.clear()
    plan = _PLANS[mask, same_suit] = (
        groups[best],
        hand_info(mask ^ groups[best], same_suit).rank_mask,
    )
    return plan


def fits(rank: int, kept_ranks: int) -> bool:
    """Would a card of ``rank`` make a pair or a three-card run with kept cards?

    ``kept_ranks`` has bit ``r`` set for each kept rank ``r``; bit 14 stands
    for an Ace played high, after a King.
    """
    if kept_ranks >> 1 & 1:
        kept_ranks |= 1 << 14
    if kept_ranks >> rank & 1:
        return True
    if rank == 1:
        return _makes_run(1, kept_ranks) or _makes_run(14, kept_ranks)
    return _makes_run(rank, kept_ranks)


def _makes_run(r: int, ranks: int) -> bool:
    near = ranks >> (r - 2) if r >= 2 else ranks << (2 - r)
    # bits 0..4 of near are ranks r-2, r-1, r, r+1, r+2
    return (near & 0b00011) == 0b00011 or (near & 0b01010) == 0b01010 or (near & 0b11000) == 0b11000
