"""How much more the public plays say about another player's total than ``counter``
reads from them.

    python -m bench.reading [--decisions 1400] [--seed 600000] [--particles 200]
                            [--guess caps|even]

Counter reads an opponent's hidden cards with one rule of thumb (players shed their
most valuable group; ``bots.ladder.inference``). The policy reader asks the whole
question against an opponent whose way of playing it knows: which hidden cards, come
in when (at the deal, or by which draw from the deck), would make counter's own
choices explain every move that opponent made this round? Each particle is such a
story, its hidden cards drawn from the unseen ones (as counter guesses them, weighed
back to even odds; or at even odds, ``--guess even``); it weighs
``exp(-beta * shortfall) * decline ** declines``, where the shortfall is the points
by which the plays made fall short of counter's favourite in the hand the story
gives, and a decline is a turn on which counter would have declared but the player
played on. Against counter itself this is the exact reading, up to the particles'
count and the habits counter learns from earlier rounds.

Four ``counter`` play duplicate deals (threshold 100). At every chance a seat has to
declare with 12 or less, both readers give the chance that the declaration holds
(the others independent), and the bench prints each one's Brier score over the same
decisions, the policy reader's for several ``beta`` from the same particles. Last
line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import math
import platform
import random
import time
from collections.abc import Sequence
from typing import NamedTuple

import click
from leastscore.bots.ladder.counter import DECK, CounterBot, TurnEstimate
from leastscore.bots.ladder.inference import HiddenHand, ValueModel
from leastscore.bots.view import BotView
from leastscore.game import Rules
from leastscore.game.cards import BY_NAME, VALUE, Card
from leastscore.game.groups import hand_info
from leastscore.game.rules import HAND_SIZE
from leastscore.seats.loop import loop_factory

from bench.information import Probe, play, scores

BETAS = (0.5, 1.0, 2.0, 3.0)
DECLINE = 0.1
"""Weight of a story for each turn on which counter would have declared instead."""


class Move(NamedTuple):
    """One move of the opponent read: its history index, discard and the open card taken."""

    at: int
    discard: int
    """Card mask."""
    took: int
    """The open card taken, or ``DECK``."""


class Story(NamedTuple):
    """What the public plays fix about one opponent's round."""

    moves: list[Move]
    shed_hidden: list[tuple[int, int]]
    """(card, history index) for each card it shed that nobody saw it take."""
    draws: list[int]
    """History indices of its draws from the deck."""


class Particle(NamedTuple):
    """One story of the hidden cards, and how well counter's choices explain it."""

    total: int
    shortfall: float
    declines: int
    odds: float
    """Log of how much likelier even odds make this story than the guess that drew it."""


def story(view: BotView, seat: int) -> Story:
    """What ``view`` shows of ``seat``'s round so far."""
    moves: list[Move] = []
    shed_hidden: list[tuple[int, int]] = []
    draws: list[int] = []
    known = 0
    for index, played in enumerate(view.history):
        if played.seat != seat:
            continue
        discard = 0
        for name in played.discard:
            card = BY_NAME[name]
            discard |= 1 << card
            if known >> card & 1:
                known &= ~(1 << card)
            else:
                shed_hidden.append((card, index))
        if played.took is None:
            draws.append(index)
            took = DECK
        else:
            took = BY_NAME[played.took]
            known |= 1 << took
        moves.append(Move(index, discard, took))
    return Story(moves, shed_hidden, draws)


def past_view(view: BotView, seat: int, index: int, hand: int) -> BotView:
    """``seat``'s view when it made the move at ``index`` of ``view.history``, had it
    held ``hand`` then (deck size from the draws since, ignoring a reshuffle)."""
    history = view.history[:index]
    sizes = [HAND_SIZE if active else 0 for active in view.active]
    turns = 0
    for played in history:
        sizes[played.seat] += 1 - len(played.discard)
        turns += played.seat == seat
    draws_since = sum(1 for played in view.history[index:] if played.took is None)
    if index:
        open_cards: tuple[Card, ...] = tuple(BY_NAME[c] for c in history[-1].discard)
    else:
        assert view.turned_up is not None, "the reader needs the turned-up card"
        open_cards = (view.turned_up,)
    info = hand_info(hand, view.rules.runs_same_suit)
    limit = view.rules.declare_limit
    return BotView(
        seat,
        view.names,
        view.rules,
        view.round,
        index,
        view.dealer,
        seat,
        info.cards,
        info.mask,
        info.total,
        open_cards,
        tuple(sizes),
        view.scores,
        view.active,
        view.deck_size + draws_since,
        view.dead_size,
        True,
        turns > 0 and (limit is None or info.total <= limit),
        info.groups,
        history,
        False,
        view.turned_up,
    )


def hands_then(told: Story, hidden: Sequence[tuple[int, int, int]]) -> list[int]:
    """The hand (mask) the player held at each of its moves, had it held the hidden
    cards of ``hidden`` (card, came in at (-1: the deal), shed at; history indices)."""
    hands = []
    known = 0
    for move in told.moves:
        hand = known
        for card, came, shed in hidden:
            if came < move.at <= shed:
                hand |= 1 << card
        hands.append(hand)
        known &= ~move.discard
        if move.took != DECK:
            known |= 1 << move.took
    return hands


def explain(
    reader: CounterBot,
    view: BotView,
    seat: int,
    told: Story,
    hidden: Sequence[tuple[int, int, int]],
) -> tuple[float, int] | None:
    """How far counter's choices are from the moves ``seat`` made, had it held the
    hidden cards of ``hidden``: the summed shortfall in points and the turns it would
    have declared on; None when a move made is not legal in that story."""
    shortfall = 0.0
    declines = 0
    for move, hand in zip(told.moves, hands_then(told, hidden), strict=True):
        then = past_view(view, seat, move.at, hand)
        table = reader.read_table(then)
        plays = reader.plays(table)
        best = min(plays, key=lambda option: option.cost)
        made = [o.cost for o in plays if o.group == move.discard and o.take == move.took]
        if not made:
            return None
        shortfall += made[0] - best.cost
        declines += then.can_declare and reader.should_declare(table, best.total)
    return shortfall, declines


def particles(
    reader: CounterBot,
    view: BotView,
    hand: HiddenHand,
    model: ValueModel,
    rng: random.Random,
    count: int,
    even: bool = False,
) -> list[Particle]:
    """``count`` stories of the hidden cards of ``hand`` (as counter guesses it, with
    ``model``), each with how well it explains the seat's moves (stories in which a
    move made is illegal are left out). The cards are drawn as counter's guesses would
    draw them, each story weighed back to even odds for every unseen card
    (``Particle.odds``); with ``even``, drawn at even odds."""
    seat = hand.seat
    told = story(view, seat)
    came_in = [-1] * HAND_SIZE + told.draws
    unseen = view.knowledge.unseen_mask
    pool = [c for c in range(52) if unseen >> c & 1]
    flat = [1.0] * 11
    weights = [flat if even else model.card_weights(cap) for cap in hand.caps]
    out = []
    for _ in range(count):
        held, odds = guess_held(rng, pool, weights)
        free = list(came_in)
        hidden: list[tuple[int, int, int]] = []
        for card, shed in told.shed_hidden:  # in the order shed: any earlier arrival fits
            k = rng.choice([k for k, came in enumerate(free) if came < shed])
            hidden.append((card, free.pop(k), shed))
        rng.shuffle(free)
        hidden += [(card, came, len(view.history)) for card, came in zip(held, free, strict=True)]
        fit = explain(reader, view, seat, told, hidden)
        if fit is not None:
            out.append(Particle(hand.known_total + sum(VALUE[c] for c in held), *fit, odds))
    return out


def guess_held(
    rng: random.Random, pool: Sequence[int], weights: Sequence[Sequence[float]]
) -> tuple[list[int], float]:
    """One card of ``pool`` for each slot, drawn with the slot's odds by value, and the
    log of (even odds / the odds of this draw): what makes the guess weigh as if every
    unseen card were as likely."""
    left = list(pool)
    held = []
    log_odds = 0.0
    for weight in weights:
        odds = [weight[VALUE[c]] for c in left]
        total = sum(odds)
        if total <= 0:
            odds, total = [1.0] * len(left), float(len(left))
        x = rng.random() * total
        k = 0
        while k < len(left) - 1 and x >= odds[k]:
            x -= odds[k]
            k += 1
        log_odds += math.log(total / (odds[k] * len(left)))
        held.append(left.pop(k))
    return held, log_odds


def hold_chance(
    stories: Sequence[Sequence[Particle]], total: int, rules: Rules, beta: float
) -> float:
    """The chance that a declaration with ``total`` holds, each other hand read from
    its particles."""
    limit = total if rules.tie_loses else total - 1
    hold = 1.0
    for seen in stories:
        weights = [
            (p.total, math.exp(p.odds - beta * p.shortfall) * DECLINE**p.declines) for p in seen
        ]
        mass = sum(w for _, w in weights)
        if mass > 0:
            hold *= 1.0 - sum(w for t, w in weights if t <= limit) / mass
    return hold


class Reading(NamedTuple):
    """One chance to declare: the total, and the stories of each other hand."""

    total: int
    stories: list[list[Particle]]


class ReadingProbe(Probe):
    """Counter's probe that also reads every other hand by particles."""

    def __init__(
        self,
        notes: list[tuple[float, bool]],
        readings: list[Reading],
        rng: random.Random,
        count: int,
        even: bool,
        wanted: int,
    ) -> None:
        super().__init__(notes)
        self.readings = readings
        self.rng = rng
        self.count = count
        self.even = even
        self.wanted = wanted
        """Chances read in all: the last deal's later ones are played, not read."""
        self.reader = CounterBot()

    def note(self, view: BotView, table: TurnEstimate, truth: bool) -> None:
        if len(self.notes) >= self.wanted:
            return
        super().note(view, table, truth)
        stories = [
            particles(self.reader, view, h, table.model, self.rng, self.count, self.even)
            for h in table.hands
        ]
        self.readings.append(Reading(view.hand_total, stories))


@click.command()
@click.option("--decisions", default=1400, show_default=True, help="Chances to declare read.")
@click.option("--seed", default=600000, show_default=True, help="First deal seed.")
@click.option("--particles", "count", default=200, show_default=True, help="Stories per hand.")
@click.option(
    "--guess",
    type=click.Choice(["caps", "even"]),
    default="caps",
    show_default=True,
    help="Draw the hidden cards as counter guesses them, or at even odds.",
)
def main(decisions: int, seed: int, count: int, guess: str) -> None:
    rules = Rules(threshold=100)
    start = time.perf_counter()
    notes: list[tuple[float, bool]] = []
    readings: list[Reading] = []
    rng = random.Random(seed)
    deal = seed
    with asyncio.Runner(loop_factory=loop_factory()) as runner:
        while len(notes) < decisions:
            probes = [
                ReadingProbe(notes, readings, rng, count, guess == "even", decisions)
                for _ in range(4)
            ]
            runner.run(play(probes, rules, deal))
            deal += 1
    truths = [truth for _, truth in notes]
    counter = scores(notes)
    policy = {}
    for beta in BETAS:
        held = [hold_chance(r.stories, r.total, rules, beta) for r in readings]
        policy[str(beta)] = scores(list(zip(held, truths, strict=True)))
    best = min(policy, key=lambda b: policy[b]["brier"])
    seconds = time.perf_counter() - start
    click.echo(
        f"{len(notes)} chances to declare ({deal - seed} deals): Brier of counter's estimate "
        f"{counter['brier']}, of the policy reader "
        + ", ".join(f"{policy[b]['brier']} (beta {b})" for b in policy)
        + f"; {seconds / max(1, len(notes)):.2f} s a chance"
    )
    click.echo(
        json.dumps(
            {
                "bench": "reading",
                "seed": seed,
                "deals": deal - seed,
                "particles": count,
                "guess": guess,
                "counter": counter,
                "policy": policy,
                "best_beta": float(best),
                "seconds": round(seconds, 1),
                "python": platform.python_version(),
            }
        )
    )


if __name__ == "__main__":
    main()
