"""Educated guesses about hidden cards, on top of the facts in ``knowledge``.

The model is one simple, general idea about players: they shed their most
valuable group. So right after a discard worth ``v``, every card the player
kept is probably worth at most ``v`` (a player who keeps many cards tends to
hold low ones). Each hidden card gets a *cap*: the value it most likely does
not exceed (10, no cap, for a card fresh from the deck). The guess is soft: a
card above its cap keeps a small weight, so a player who does not shed its
highest cards only makes the guesses blur, never impossible.
"""

from __future__ import annotations

from collections.abc import Sequence

import msgspec
from leastscore.game import View
from leastscore.game.cards import BY_NAME, VALUE
from leastscore.game.rules import HAND_SIZE

from ..knowledge import Knowledge

OVER_CAP = 0.02
"""Relative weight of a card worth more than its slot's cap."""
AT_CAP = 0.3
"""Relative weight of a card worth exactly its cap: below 10 it would have made a pair."""
LOW_SKEW = 0.8
"""Under a cap, each point of value more multiplies the weight by this: a card that
survived several discards is usually well below the cards shed."""


class HiddenHand(msgspec.Struct, frozen=True, gc=False):
    """What one opponent is thought to hold: the known cards and a cap per hidden card."""

    seat: int
    known: int
    """Mask of the cards known to be in the hand."""
    known_total: int
    caps: tuple[int, ...]
    """One per hidden card, highest first: the value it is guessed not to exceed."""
    turns: int
    """Turns this seat has played this round (declaring needs at least one)."""


def hidden_hands(view: View, knowledge: Knowledge) -> list[HiddenHand]:
    """The guessed hands of every other seat still in the round, in seat order."""
    me = knowledge.seat
    out = []
    for guess in public_hands(view):
        if guess.seat == me:
            continue
        s = guess.seat
        mask = knowledge.known_masks[s]
        hidden = knowledge.hidden[s]
        slots = sorted(guess.caps, reverse=True)
        slots = (slots + [10] * hidden)[:hidden] if len(slots) < hidden else slots[-hidden:]
        slots.sort(reverse=True)
        total = sum(VALUE[c] for c in range(52) if mask >> c & 1)
        out.append(HiddenHand(s, mask, total, tuple(slots) if hidden else (), guess.turns))
    return out


def public_hands(view: View) -> list[HiddenHand]:
    """Every seat's hand still in the round as anyone at the table may guess it from the
    public plays alone (this seat's own included, as the others see it)."""
    n = len(view.names)
    known = [0] * n
    caps: list[list[int]] = [[10] * HAND_SIZE if view.active[s] else [] for s in range(n)]
    turns = [0] * n
    for played in view.history:
        s = played.seat
        turns[s] += 1
        slots = caps[s]
        value = 0
        for name in played.discard:
            card = BY_NAME[name]
            value += VALUE[card]
            if known[s] >> card & 1:
                known[s] &= ~(1 << card)
            elif slots:
                slots.remove(best_fit(slots, VALUE[card]))
        caps[s] = slots = [min(cap, value) for cap in slots]
        if played.took is None:
            slots.append(10)
        else:
            known[s] |= 1 << BY_NAME[played.took]
    out = []
    for s in range(n):
        if view.active[s]:
            mask = known[s]
            total = sum(VALUE[c] for c in range(52) if mask >> c & 1)
            slots = sorted(caps[s], reverse=True)
            out.append(HiddenHand(s, mask, total, tuple(slots), turns[s]))
    return out


def best_fit(slots: Sequence[int], value: int) -> int:
    """The cap of the slot a shed hidden card most likely came from: the tightest that allows it."""
    fitting = [cap for cap in slots if cap >= value]
    return min(fitting) if fitting else max(slots)


def value_counts(mask: int) -> list[float]:
    """How many cards of each value (index 1-10) a mask holds."""
    counts = [0.0] * 11
    while mask:
        low = mask & -mask
        counts[VALUE[low.bit_length() - 1]] += 1
        mask ^= low
    return counts


class ValueModel:
    """Value distributions of hidden cards, drawn from the unseen cards under the cap model."""

    def __init__(
        self,
        unseen_counts: Sequence[float],
        over_cap: float = 0.02,
        at_cap: float = AT_CAP,
        low_skew: float = LOW_SKEW,
    ) -> None:
        self.counts = list(unseen_counts)
        self.over_cap = over_cap
        self.at_cap = at_cap
        self.low_skew = low_skew
        self._slots: dict[int, list[float]] = {}
        self._card_weights: dict[int, list[float]] = {}
        self._below: dict[tuple[int, tuple[int, ...], int], float] = {}

    def slot(self, cap: int) -> list[float]:
        """P(value = v) for a hidden card with this cap (index 0 unused)."""
        dist = self._slots.get(cap)
        if dist is None:
            weights = [0.0] + [self.counts[v] * self._weight(v, cap) for v in range(1, 11)]
            total = sum(weights)
            if total <= 0:
                weights = [0.0] + [1.0] * 10
                total = 10.0
            dist = self._slots[cap] = [w / total for w in weights]
        return dist

    def card_weights(self, cap: int) -> list[float]:
        """Each value's odds for one unseen card of that value to be a hidden card with
        this cap (index 0 unused): its slot's chance spread over the unseen cards."""
        weights = self._card_weights.get(cap)
        if weights is None:
            slot = self.slot(cap)
            weights = [0.0] + [slot[v] / max(self.counts[v], 1e-9) for v in range(1, 11)]
            self._card_weights[cap] = weights
        return weights

    def _weight(self, value: int, cap: int) -> float:
        if cap >= 10:
            return 1.0
        if value > cap:
            return self.over_cap
        weight = float(self.low_skew ** (value - 1))
        return weight * self.at_cap if value == cap else weight

    def mean(self, cap: int) -> float:
        return sum(v * p for v, p in enumerate(self.slot(cap)))

    def total_below(self, hand: HiddenHand, limit: int) -> list[float]:
        """P(hand total = t) for t in 0..limit (the rest of the mass lies above ``limit``)."""
        return self.sum_below(hand.known_total, hand.caps, limit)

    def sum_below(self, known_total: int, caps: Sequence[int], limit: int) -> list[float]:
        """P(known_total + hidden cards = t) for t in 0..limit, hidden cards under ``caps``."""
        size = limit + 1
        dist = [0.0] * size
        if known_total >= size:
            return dist
        dist[known_total] = 1.0
        for cap in caps:
            slot = self.slot(cap)
            new = [0.0] * size
            for t in range(size):
                p = dist[t]
                if p:
                    for v in range(1, min(10, limit - t) + 1):
                        new[t + v] += p * slot[v]
            dist = new
        return dist

    def hold_chance(
        self, total: int, hands: Sequence[tuple[int, Sequence[int]]], strict: bool
    ) -> float:
        """The chance that every hand, given as (known total, caps), is at least ``total``
        (above it when ``strict``): a declaration with ``total`` holds."""
        limit = total if strict else total - 1
        if limit < 0:
            return 1.0
        hold = 1.0
        for known_total, caps in hands:
            hold *= 1.0 - self.chance_at_most(known_total, tuple(sorted(caps)), limit)
        return hold

    def chance_at_most(self, known_total: int, caps: tuple[int, ...], limit: int) -> float:
        """P(known_total + hidden cards <= limit), cached: play-outs ask the same often."""
        key = (known_total, caps, limit)
        p = self._below.get(key)
        if p is None:
            p = self._below[key] = sum(self.sum_below(known_total, caps, limit))
        return p

    def hand_mean(self, hand: HiddenHand) -> float:
        return hand.known_total + sum(self.mean(cap) for cap in hand.caps)

    def deck_counts(self, hands: Sequence[HiddenHand]) -> list[float]:
        """Expected count of each value among unseen cards that are in the deck, not in a hand."""
        counts = list(self.counts)
        for hand in hands:
            for cap in hand.caps:
                slot = self.slot(cap)
                for v in range(1, 11):
                    counts[v] -= slot[v]
        return [max(c, 0.05 * u) for c, u in zip(counts, self.counts, strict=True)]


class Habits:
    """How each player declares, learned from the match's declarations (each reveals the
    declarer's total). Used to judge how soon someone else will end the round."""

    def __init__(self, prior_at: int = 5, prior_total: float = 3.0, weight: int = 3) -> None:
        self.prior_at = prior_at
        self.prior_total = prior_total
        self.weight = weight
        self.totals: dict[int, list[int]] = {}

    def saw(self, seat: int, total: int) -> None:
        self.totals.setdefault(seat, []).append(total)

    def declares_at(self, seat: int) -> int:
        """The total at or below which ``seat`` tends to declare: a high quantile of the
        totals it declared with, starting from ``weight`` declarations at ``prior_at``."""
        seen = sorted([self.prior_at] * self.weight + self.totals.get(seat, []))
        return seen[int(0.8 * (len(seen) - 1))]

    def highest(self, seat: int) -> int:
        """The highest total ``seat`` has declared with (the prior when never seen)."""
        return max([self.prior_at, *self.totals.get(seat, [])])

    def declarer_total(self, seats: Sequence[int]) -> float:
        """The total one of ``seats`` typically holds when it declares."""
        seen = [t for s in seats for t in self.totals.get(s, [])]
        return (self.prior_total * self.weight + sum(seen)) / (self.weight + len(seen))
