"""Guesses about hidden cards stay consistent with everything a seat has seen."""

from __future__ import annotations

import random

import pytest
from leastscore.bots.knowledge import Knowledge, knowledge
from leastscore.bots.ladder.inference import ValueModel, hidden_hands, value_counts
from leastscore.bots.ladder.rollout import Declarer, play_out, sample_deal
from leastscore.bots.view import DealMemory
from leastscore.game import Match, Play, RoundStarted, Rules, View, parse_cards
from leastscore.game.cards import FULL_DECK, mask_of
from leastscore.game.rollout import Round, settle_round
from leastscore.game.scoring import settle

from ..game.helpers import rigged_match

HANDS = ["2C 3C 4C 5C 6C", "7D 7H 9D JD KD", "2H 3H 4H 5H 6H"]


def mask(text: str) -> int:
    return mask_of(parse_cards(text))


def test_the_deal_memory_notes_the_turned_up_card_from_the_first_view():
    m = rigged_match(HANDS, "KS", deck="QH")
    memory = DealMemory()
    memory.view(m.view(1))  # seat 1 moves first and sees KS in its view, without the events
    m.apply(1, Play.of("KD", "deck"))
    assert memory.view(m.view(1)).knowledge.dead_mask == mask("KS")
    assert knowledge(m.view(1)).unseen_mask & mask("KS")  # forgotten without the memory


def test_hidden_cards_are_capped_by_what_a_player_sheds():
    m = rigged_match(HANDS, "AS", deck="QH 8C")
    m.apply(1, Play.of("KD", "AS"))  # keeps cards worth at most 10
    m.apply(2, Play.of("2H 3H 4H", "deck"))  # a run worth 9
    view = m.view(0)
    k = knowledge(view)
    guesses = {h.seat: h for h in hidden_hands(view, k)}
    assert guesses[1].known == mask("AS") and guesses[1].known_total == 1
    assert guesses[1].caps == (10, 10, 10, 10)
    assert guesses[2].caps == (10, 9, 9)  # the drawn card is fresh, the kept two are capped
    assert all(len(h.caps) == k.hidden[h.seat] for h in guesses.values())


def _sampled(seed: int) -> tuple[View, Knowledge, Round] | None:
    """Seat 0's view some way into a seeded match, and a deal sampled from it."""
    rng = random.Random(seed)
    m = Match(4, Rules(), seed)
    events = m.start()
    memory = DealMemory()
    for _ in range(rng.randint(3, 40)):
        for event in events:
            memory.on_event(event.seen_by(0))
        if m.over:
            break
        seat = m.to_move
        view = m.view(seat)
        events = m.apply(seat, rng.choice(view.legal_plays()))
    for event in events:
        memory.on_event(event.seen_by(0))
    if m.over or not any(isinstance(e, RoundStarted) for e in m.log):
        return None
    view = m.view(0)
    k = memory.view(view).knowledge
    guesses = hidden_hands(view, k)
    model = ValueModel(value_counts(k.unseen_mask))
    turns = [sum(1 for p in view.history if p.seat == s) for s in range(4)]
    deal = sample_deal(
        rng, view.hand_mask, k, guesses, model, mask_of(view.open), 0, view.turn, turns
    )
    return view, k, deal


@pytest.mark.parametrize("seed", range(4))
def test_sampled_deals_agree_with_everything_seen(seed):
    sampled = _sampled(seed)
    if sampled is None:
        return
    view, k, deal = sampled
    assert deal.hands[0] == view.hand_mask
    union = mask_of(deal.deck) | mask_of(deal.dead) | mask_of(view.open)
    for s in range(4):
        assert deal.hands[s] & k.known_masks[s] == k.known_masks[s]
        assert deal.hands[s].bit_count() == view.hand_sizes[s]
        assert not union & deal.hands[s]
        union |= deal.hands[s]
    assert union == FULL_DECK
    assert len(deal.deck) == view.deck_size and len(deal.dead) == view.dead_size


@pytest.mark.parametrize("seed", range(12))
def test_a_play_out_ends_the_round_as_the_engine_scores_it(seed):
    """From a sampled deal the cheap players play on the engine's ``Round`` to a legal
    declaration, settled as ``game.scoring`` settles it, with no card lost."""
    sampled = _sampled(seed)
    if sampled is None:
        return
    view, _, deal = sampled
    start = deal.turn
    outcome = play_out(deal, [Declarer(8)] * 4, turn_limit=400)
    if outcome is None:
        assert deal.void or deal.turn - start >= 400
        return
    me = outcome.declarer
    assert deal.to_move == me and deal.turns[me] > 0
    totals = [deal.total(s) for s in deal.seats]
    assert totals[deal.seats.index(me)] <= 8
    scores = settle(totals, deal.seats.index(me), view.rules)
    assert [outcome.scores[s] for s in deal.seats] == scores
    assert outcome == settle_round(deal.hands, deal.seats, me, view.rules)
    union = mask_of(deal.deck) | mask_of(deal.dead) | deal.open
    for hand in deal.hands:
        assert not union & hand
        union |= hand
    assert union == FULL_DECK
