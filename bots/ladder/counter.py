"""``counter``: counts every card it sees and plays the expectation.

- Tracks the cards (``knowledge``) and guesses hidden hands (``inference``): an
  opponent's picked cards are known, the rest are capped by what it shed.
- Values each (discard, take) by the total the hand is expected to reach: the
  total right after the move counts as much as the chance that the round ends
  before the next turn, the total after the next best discard for the rest.
  A deck draw is averaged over the cards likely still in the deck, so pairs,
  runs and flushes it may complete count by their chances. A discard that
  gives the next player a cheap or fitting card costs a little.
- Declares when the expected cost of declaring (the chance of not being
  lowest, times 20 plus the difference) is below the expected cost of playing
  one more turn: someone else may declare first, or the choice comes back with
  the next turn's total. A false declaration weighs ``caution`` times its
  points: one 20-point jump hurts a match more than many small scores, and
  playing on also leaves room to improve that a one-turn look ahead misses.
- Learns from every declaration it sees (the hands are shown) at what totals
  each player declares, to judge how soon the round may end.

Deterministic: the same views give the same moves.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from leastscore.game import Declare, Declared, Event, Move, Play, View
from leastscore.game.cards import CARDS, RANK, VALUE, mask_total
from leastscore.game.groups import group_cards

from ..base import Bot
from ..knowledge import Knowledge
from ..view import BotView
from .inference import (
    AT_CAP,
    LOW_SKEW,
    OVER_CAP,
    Habits,
    HiddenHand,
    ValueModel,
    hidden_hands,
    value_counts,
)
from .shedding import shed_with


@dataclass(frozen=True)
class CounterStyle:
    """The few numbers behind counter's judgement (measured against greedy and itself)."""

    opponent_declares_at: int = 5
    """The total at which an opponent is assumed to declare."""
    declarer_total: float = 3.0
    """The total another player is assumed to hold when it declares."""
    feed: float = 0.3
    """Weight of what a discard hands the next player."""
    others_weight: float = 0.0
    """How much points scored by opponents are worth to this seat, against its own."""
    caution: float = 4.0
    """Multiplies the expected cost of a false declaration."""
    over_cap: float = OVER_CAP
    """Weight of a hidden card above its cap (see ``inference``)."""
    at_cap: float = AT_CAP
    low_skew: float = LOW_SKEW


@dataclass
class TurnEstimate:
    """One turn's estimates, shared by the move and the declaration."""

    view: BotView
    knowledge: Knowledge
    hands: list[HiddenHand]
    model: ValueModel
    deck: list[tuple[int, float]]
    """(card, probability) for the next deck card."""
    deck_mean: float
    hazard: float
    """The chance that someone else declares before this seat's next turn."""


DECK = -1
"""The take that draws from the deck."""


class Option(NamedTuple):
    """One candidate play and what counter thinks of it."""

    cost: float
    """Expected cost in points (lower is better)."""
    group: int
    """The discard, as a card mask."""
    take: int
    """The open card taken, or ``DECK``."""
    total: float
    """The hand total expected right after the play."""

    def play(self) -> Play:
        return Play(group_cards(self.group), None if self.take == DECK else CARDS[self.take])


class CounterBot(Bot):
    """The ``counter`` level: every card counted, each play valued by the total it is
    expected to leave, declarations weighed against playing on (the module says how)."""

    name = "counter"
    heavy = True

    def __init__(self, seed: int | None = None, style: CounterStyle | None = None) -> None:
        """``seed`` is accepted like every built-in's; counter draws no random numbers."""
        self.style = style or CounterStyle()
        self.habits = self.new_habits()

    def new_habits(self) -> Habits:
        return Habits(self.style.opponent_declares_at, self.style.declarer_total)

    def reset(self) -> None:
        self.habits = self.new_habits()

    def on_event(self, event: Event) -> None:
        if isinstance(event, Declared):
            total = event.totals[event.seat]
            if total is not None:
                self.habits.saw(event.seat, total)

    def choose(self, view: BotView) -> Move:
        table = self.read_table(view)
        best, expected = self.best_play(table)
        if view.can_declare and self.should_declare(table, expected):
            return Declare()
        return best

    # -- reading the table --------------------------------------------------

    def read_table(self, view: BotView) -> TurnEstimate:
        view = BotView.of(view)  # the same object when it is one already
        knowledge = view.knowledge
        hands = hidden_hands(view, knowledge)
        style = self.style
        model = ValueModel(
            value_counts(knowledge.unseen_mask), style.over_cap, style.at_cap, style.low_skew
        )
        deck_counts = model.deck_counts(hands)
        weights = []
        unseen = knowledge.unseen_mask
        total = 0.0
        while unseen:
            low = unseen & -unseen
            card = low.bit_length() - 1
            unseen ^= low
            v = VALUE[card]
            w = deck_counts[v] / model.counts[v]
            weights.append((card, w))
            total += w
        deck = [(c, w / total) for c, w in weights] if total > 0 else []
        deck_mean = sum(VALUE[c] * p for c, p in deck) if deck else 6.5
        hazard = self.hazard(view, model, hands)
        return TurnEstimate(view, knowledge, hands, model, deck, deck_mean, hazard)

    def hazard(self, view: View, model: ValueModel, hands: list[HiddenHand]) -> float:
        """The chance that another player declares before this seat's next turn."""
        rule = view.rules.declare_limit
        quiet = 1.0
        for hand in hands:
            if hand.turns == 0:
                continue  # its next turn is its first: it cannot declare yet
            limit = self.habits.declares_at(hand.seat)
            if rule is not None:
                limit = min(limit, rule)
            quiet *= 1.0 - sum(model.total_below(hand, limit))
        return 1.0 - quiet

    # -- playing ------------------------------------------------------------

    def best_play(self, table: TurnEstimate) -> tuple[Play, float]:
        """The play with the lowest expected cost, and the total it is expected to leave."""
        best = min(self.options(table), key=lambda option: option.cost)
        return best.play(), best.total

    def options(self, table: TurnEstimate) -> list[Option]:
        """For each take (each open card, the deck), the discard that goes best with it."""
        best: dict[int, Option] = {}
        for option in self.plays(table):
            if option.take not in best or option.cost < best[option.take].cost:
                best[option.take] = option
        assert best, "a player to move always has a legal play"
        return list(best.values())

    def plays(self, table: TurnEstimate) -> list[Option]:
        """Every legal play (each discard with each take), with its expected cost."""
        view = table.view
        same_suit = view.rules.runs_same_suit
        hand = view.hand_mask
        total = view.hand_total
        keep_later = 1.0 - table.hazard
        feeder = self.feed_costs(table, _next_seat(view))
        takes: list[int] = [int(c) for c in view.open]
        draw = view.can_draw and bool(table.deck)
        plays: list[Option] = []
        for group in view.legal_groups:
            kept = hand ^ group
            kept_total = total - mask_total(group)
            feed = feeder(group)
            shed = shed_with(kept, same_suit)
            for card in takes:
                new_total = kept_total + VALUE[card]
                cost = new_total - keep_later * shed[card] + feed
                plays.append(Option(cost, group, card, new_total))
            if draw:
                sheds = 0.0
                for drawn, p in table.deck:
                    sheds += p * shed[drawn]
                cost = kept_total + table.deck_mean - keep_later * sheds + feed
                plays.append(Option(cost, group, DECK, kept_total + table.deck_mean))
        return plays

    def feed_costs(self, table: TurnEstimate, next_seat: int | None) -> Callable[[int], float]:
        """What a discard is worth to the next player: a card below the deck's average,
        or one that pairs a card it is known to hold."""
        weight = self.style.feed
        if next_seat is None or weight == 0:
            return lambda group: 0.0
        known_ranks = 0
        for hand in table.hands:
            if hand.seat == next_seat:
                mask = hand.known
                while mask:
                    low = mask & -mask
                    known_ranks |= 1 << RANK[low.bit_length() - 1]
                    mask ^= low
        mean = table.deck_mean

        def cost(group: int) -> float:
            gain = 0.0
            mask = group
            while mask:
                low = mask & -mask
                card = low.bit_length() - 1
                mask ^= low
                g = mean - VALUE[card]
                if known_ranks >> RANK[card] & 1:
                    g += VALUE[card]  # it makes a pair they can shed
                gain = max(gain, g)
            return weight * gain

        return cost

    # -- declaring ----------------------------------------------------------

    def declare_odds(self, table: TurnEstimate, total: int) -> tuple[float, float]:
        """Declaring with ``total`` against the guessed hands: the chance that it holds,
        and the expected penalty (20 plus the difference when someone is lower)."""
        rules = table.view.rules
        limit = total if rules.tie_loses else total - 1  # a total this low beats the declarer
        if limit < 0:
            return 1.0, 0.0
        below = [table.model.total_below(hand, limit) for hand in table.hands]
        penalty = 0.0
        all_above_before = 1.0
        cums = [0.0] * len(below)
        for x in range(limit + 1):
            all_above = 1.0
            for i, dist in enumerate(below):
                cums[i] += dist[x]
                all_above *= 1.0 - cums[i]
            penalty += (all_above_before - all_above) * (rules.false_declare_penalty + total - x)
            all_above_before = all_above
        return all_above_before, penalty

    def declare_cost(self, table: TurnEstimate, total: int) -> float:
        """Expected cost of declaring: the penalty, weighed by caution, less what others score."""
        hold, penalty = self.declare_odds(table, total)
        others = sum(max(0.0, table.model.hand_mean(h) - total) for h in table.hands)
        share = self.style.others_weight / max(1, len(table.hands))
        return self.style.caution * penalty - hold * share * others

    def should_declare(self, table: TurnEstimate, expected_next: float) -> bool:
        """Declare when that costs less than one more turn, in expectation.

        Playing on, someone else may declare first: this seat then pays its total over
        theirs. Otherwise the same choice comes back with the total expected after this
        turn; when that total is higher (a short hand must draw), waiting only makes the
        declaration worse, so a hand that can only get worse declares sooner.
        """
        total = table.view.hand_total
        now = self.declare_cost(table, total)
        if now > 10:  # a long shot, whatever playing on costs
            return False
        declarer = self.habits.declarer_total([h.seat for h in table.hands])
        later = self.declare_cost(table, round(expected_next))
        h = table.hazard
        on = h * max(0.0, expected_next - declarer) + (1 - h) * later
        return now <= on


def _next_seat(view: View) -> int | None:
    n = len(view.names)
    seat = view.seat
    if seat is None:
        return None
    for step in range(1, n):
        s = (seat + step) % n
        if view.active[s]:
            return s
    return None
