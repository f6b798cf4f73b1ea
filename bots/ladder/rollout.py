"""Playing the rest of a round in imagination: sampled deals and fast play-outs.

``sample_deal`` fills in everything a seat cannot see (the others' hidden cards,
the deck's order) consistently with what it saw: known cards stay where they
are, hand sizes match, and hidden cards are drawn under the caps of
``inference``; the guess is a ``game.rollout.Round``, the engine's own full
state of a round. ``play_out`` then plays the round to its end on that engine
with simple, fast players (shed the most points, take a cheap or fitting open
card, declare at a set total) and returns every seat's round score. How a round
plays and ends (legal groups, draws and reshuffles, turn order, the settle) is
the engine's alone: this module only decides the imagined players' moves.

This is deliberately shallow: no search inside a sample, just one play-out,
because searching deep in a world whose hidden cards are known makes a player
count on information it will never have.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple, TypeAlias

from leastscore.game import Rules
from leastscore.game.cards import RANK, VALUE, cards_of
from leastscore.game.rollout import Round, Settled
from leastscore.game.rules import STANDARD

from ..knowledge import Knowledge
from .greedy import fits
from .inference import HiddenHand, ValueModel, best_fit
from .shedding import best_group

MEAN_CARD = 85 / 13

Outcome: TypeAlias = Settled
"""How an imagined round ended: the engine's ``Settled``."""


def sample_deal(
    rng: random.Random,
    hand: int,
    knowledge: Knowledge,
    hands: list[HiddenHand],
    model: ValueModel,
    open_mask: int,
    to_move: int,
    turn: int,
    turns: list[int],
    *,
    rules: Rules = STANDARD,
    active: Sequence[int] | None = None,
) -> Round:
    """Guess every hidden card: each opponent's hidden cards drawn one by one from the
    unseen cards, weighted by the cap of the slot; what is left is the deck (and any
    dead card this seat did not see), shuffled.

    A card's weight depends only on its value, so a draw picks a value (by its weight
    times the unseen cards of that value) and then one of those cards: the same odds
    as weighing every card, at ten steps rather than one per unseen card.

    ``active``: the seats dealt in (default: those with cards); the deal reshuffles
    with ``rng`` when its deck runs out."""
    by_value: list[list[int]] = [[] for _ in range(11)]
    m = knowledge.unseen_mask
    while m:
        low = m & -m
        card = low.bit_length() - 1
        by_value[VALUE[card]].append(card)
        m ^= low
    masks = [0] * len(knowledge.known_masks)
    masks[knowledge.seat] = hand
    for guess in hands:
        mask = guess.known
        for cap in guess.caps:
            card = _draw(rng, model.card_weights(cap), by_value)
            if card < 0:
                break
            mask |= 1 << card
        masks[guess.seat] = mask
    unseen = [card for cards in by_value for card in cards]
    rng.shuffle(unseen)
    missing = knowledge.dead_size - knowledge.dead_mask.bit_count()
    dead: list[int] = list(cards_of(knowledge.dead_mask))
    if missing > 0:
        dead.extend(unseen[:missing])
        del unseen[:missing]
    seats = [s for s, m in enumerate(masks) if m] if active is None else active
    return Round(
        rules, seats, masks, unseen, dead, open_mask, list(turns), to_move, turn, rng.shuffle
    )


def _draw(rng: random.Random, weight: Sequence[float], by_value: list[list[int]]) -> int:
    """One unseen card, taken out of ``by_value``, with odds ``weight[its value]`` (all
    alike when every weight is 0); -1 when none is left."""
    sizes = [len(cards) for cards in by_value]
    weights = [w * n for w, n in zip(weight, sizes, strict=True)]
    total = sum(weights)
    if total <= 0:
        weights = [float(n) for n in sizes]
        total = sum(weights)
        if total <= 0:
            return -1
    x = rng.random() * total
    value = 10
    for v in range(1, 11):
        x -= weights[v]
        if x < 0 and sizes[v]:
            value = v
            break
    while not sizes[value]:  # rounding at the very top: the highest value that has a card
        value -= 1
    cards = by_value[value]
    i = rng.randrange(len(cards))
    card = cards[i]
    cards[i] = cards[-1]
    cards.pop()
    return card


# -- fast players -------------------------------------------------------------


@lru_cache(maxsize=1 << 17)
def plan(mask: int, same_suit: bool) -> tuple[int, int, int]:
    """(group to shed, hand total, ranks kept) for the most-points discard of a hand."""
    return _plan(mask, same_suit)


def _plan(mask: int, same_suit: bool) -> tuple[int, int, int]:
    group, _ = best_group(mask, same_suit)
    total = 0
    kept = 0
    m = mask
    while m:
        low = m & -m
        c = low.bit_length() - 1
        total += VALUE[c]
        if not group >> c & 1:
            kept |= 1 << RANK[c]
        m ^= low
    return group, total, kept


def cheap_take(open_mask: int, kept_ranks: int, can_draw: bool) -> int:
    """A cheap player's take: the lowest open card that fits, else a cheap one, else the deck."""
    fitting = -1
    lowest = -1
    m = open_mask
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        if lowest < 0 or VALUE[c] < VALUE[lowest]:
            lowest = c
        if fits(RANK[c], kept_ranks) and (fitting < 0 or VALUE[c] < VALUE[fitting]):
            fitting = c
    if fitting >= 0:
        return fitting
    if lowest >= 0 and (VALUE[lowest] < MEAN_CARD or not can_draw):
        return lowest
    return -1


class Watcher:
    """What the deciding seat believes during a play-out, updated as it would be at the table.

    It sees the others shed and take, caps their hidden cards the way
    ``inference`` does, and judges its own declaration by its estimated chance of
    holding, never by the cards the sample put in their hands.
    """

    def __init__(self, hands: Sequence[HiddenHand], model: ValueModel, strict: bool) -> None:
        self.model = model
        self.strict = strict
        self.known = {h.seat: h.known for h in hands}
        self.known_total = {h.seat: h.known_total for h in hands}
        self.caps = {h.seat: list(h.caps) for h in hands}

    def copy(self) -> Watcher:
        other = Watcher((), self.model, self.strict)
        other.known = dict(self.known)
        other.known_total = dict(self.known_total)
        other.caps = {s: list(c) for s, c in self.caps.items()}
        return other

    def saw(self, seat: int, group: int, took: int) -> None:
        """``seat`` shed ``group`` and took open card ``took`` (-1: drew from the deck)."""
        caps = self.caps.get(seat)
        if caps is None:
            return
        value = 0
        m = group
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            v = VALUE[c]
            value += v
            if self.known[seat] >> c & 1:
                self.known[seat] ^= 1 << c
                self.known_total[seat] -= v
            elif caps:
                caps.remove(best_fit(caps, v))
        caps[:] = [cap if cap < value else value for cap in caps]
        if took < 0:
            caps.append(10)
        else:
            self.known[seat] |= 1 << took
            self.known_total[seat] += VALUE[took]

    def hold(self, total: int) -> float:
        hands = [(self.known_total[s], self.caps[s]) for s in self.caps]
        return self.model.hold_chance(total, hands, self.strict)


class Declarer(NamedTuple):
    """When one seat declares in a play-out.

    Always at a total of ``at`` or less; above it, up to ``upto``, when its
    ``watcher`` (its estimate of the other hands) gives a chance of holding of at
    least ``need``.
    """

    at: int
    upto: int = -1
    need: float = 1.0
    watcher: Watcher | None = None

    def copy(self) -> Declarer:
        return self if self.watcher is None else self._replace(watcher=self.watcher.copy())


def play_out(deal: Round, declarers: list[Declarer], turn_limit: int = 80) -> Outcome | None:
    """Play on in ``deal`` with cheap players, each declaring as its ``Declarer`` says;
    every watcher sees every play. The engine's ``Round`` says what is legal, deals
    the draws and settles the declaration.

    Plays to the round's end. None when the round runs past ``turn_limit`` moves
    (or the table's limit): void.
    """
    same_suit = deal.rules.runs_same_suit
    watchers = [d.watcher for d in declarers if d.watcher is not None]
    stop = deal.turn + turn_limit
    while deal.turn < stop and not deal.void:
        seat = deal.to_move
        group, total, kept = plan(deal.hands[seat], same_suit)
        rule = declarers[seat]
        if (  # the engine's say (may it declare?) only for a total the player would declare
            total <= max(rule.at, rule.upto)
            and deal.can_declare(seat, total)
            and (
                total <= rule.at
                or (rule.watcher is not None and rule.watcher.hold(total) >= rule.need)
            )
        ):
            return deal.declare(seat)
        take = deal.play(seat, group, cheap_take(deal.open, kept, deal.can_draw))
        for watcher in watchers:
            watcher.saw(seat, group, take)
    return None


WATCH_LIMIT = 25
"""Above this total the watched seat does not even weigh declaring."""
