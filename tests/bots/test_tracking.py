"""Card tracking: what a seat knows is always true, and it knows everything the history tells."""

from __future__ import annotations

import random

import pytest

from bots.inference import ValueModel, hidden_hands, value_counts
from bots.rollout import sample_deal
from bots.tracking import CardKnowledge, Tracker, card_knowledge
from game import Declare, Match, Play, Reshuffled, RoundStarted, Rules, View, parse_cards
from game.cards import FULL_DECK, mask_of

from ..game.helpers import rigged_match

HANDS = ["2C 3C 4C 5C 6C", "7D 7H 9D JD KD", "2H 3H 4H 5H 6H"]


def mask(text: str) -> int:
    return mask_of(parse_cards(text))


def test_a_taken_open_card_is_known_until_discarded():
    m = rigged_match(HANDS, "KS", deck="QH 8C")
    m.apply(1, Play.of("7D 7H", "KS"))  # seat 1 takes the turned-up KS
    k = card_knowledge(m.view(2))
    assert k.known[1] == mask("KS")
    assert k.unknown == (5, 3, 0)
    assert k.known[2] == m.view(2).hand_mask  # a seat knows its own hand
    m.apply(2, Play.of("6H", "deck"))  # draws QH; 7D 7H go dead
    m.apply(0, Play.of("6C", "6H"))
    m.apply(1, Play.of("KS", "deck"))  # sheds the known card again
    k = card_knowledge(m.view(2))
    assert k.known[1] == 0 and k.known[0] == mask("6H")
    assert k.taken[1] == mask("KS") and k.taken[0] == mask("6H")
    assert k.drawn == (0, 1, 1)


def test_unseen_cards_are_the_deck_and_hidden_hands():
    m = rigged_match(HANDS, "KS", deck="QH 8C")
    m.apply(1, Play.of("7D 7H", "KS"))
    m.apply(2, Play.of("6H", "deck"))
    view = m.view(0)
    k = card_knowledge(view, first_open=int(parse_cards("KS")[0]))
    assert k.dead == mask("7D 7H")
    assert k.unseen & (view.hand_mask | k.dead | mask("KS 6H")) == 0
    hidden = (m.hands[1] & ~k.known[1]) | m.hands[2]
    assert k.unseen == mask_of(m.deck) | hidden
    assert k.deck_size == view.deck_size and k.dead_size == view.dead_size


def test_a_turned_up_card_nobody_took_is_unseen_unless_remembered():
    m = rigged_match(HANDS, "KS", deck="QH")
    m.apply(1, Play.of("KD", "deck"))  # KS goes to the dead pile unseen by history
    view = m.view(2)
    ks = mask("KS")
    assert card_knowledge(view).unseen & ks
    assert card_knowledge(view).dead_size == 1 == view.dead_size
    tracker = Tracker()
    for event in m.log:
        tracker.on_event(event.seen_by(2))
    assert tracker.knowledge(view).dead == ks
    assert not tracker.knowledge(view).unseen & ks


def test_the_tracker_notes_the_turned_up_card_from_the_first_view():
    m = rigged_match(HANDS, "KS", deck="QH")
    tracker = Tracker()
    tracker.first_open(m.view(1))  # seat 1 moves first and sees KS in its view
    m.apply(1, Play.of("KD", "deck"))
    assert tracker.knowledge(m.view(1)).dead == mask("KS")


def test_hidden_cards_are_capped_by_what_a_player_sheds():
    m = rigged_match(HANDS, "AS", deck="QH 8C")
    m.apply(1, Play.of("KD", "AS"))  # keeps cards worth at most 10
    m.apply(2, Play.of("2H 3H 4H", "deck"))  # a run worth 9
    view = m.view(0)
    k = card_knowledge(view)
    guesses = {h.seat: h for h in hidden_hands(view, k)}
    assert guesses[1].known == mask("AS") and guesses[1].known_total == 1
    assert guesses[1].caps == (10, 10, 10, 10)
    assert guesses[2].caps == (10, 9, 9)  # the drawn card is fresh, the kept two are capped
    assert all(len(h.caps) == k.unknown[h.seat] for h in guesses.values())


def check(view: View, knowledge: CardKnowledge, m: Match) -> None:
    """Everything the seat claims holds in the engine's full state."""
    seat = view.seat
    assert seat is not None
    for s in range(len(m.names)):
        assert knowledge.known[s] & ~m.hands[s] == 0, "a card known in a hand is not there"
        assert knowledge.unknown[s] == (m.hands[s] & ~knowledge.known[s]).bit_count()
    assert knowledge.dead & ~mask_of(m.dead) == 0, "a card seen dead is not in the dead pile"
    deck = mask_of(m.deck)
    hidden = 0
    for s in range(len(m.names)):
        if s != seat:
            hidden |= m.hands[s] & ~knowledge.known[s]
    unnoticed = mask_of(m.dead) & ~knowledge.dead  # dead cards this seat did not see go by
    assert knowledge.unseen == deck | hidden | unnoticed
    assert knowledge.deck_size == len(m.deck) and knowledge.dead_size == len(m.dead)


@pytest.mark.parametrize("seed", range(6))
def test_knowledge_is_true_through_whole_matches_and_reshuffles(seed):
    rng = random.Random(seed)
    seats = rng.randint(2, 6)
    rules = Rules(threshold=30, runs_same_suit=rng.random() < 0.5, max_turns=rng.choice([60, 200]))
    m = Match(seats, rules, seed)
    trackers = [Tracker() for _ in range(seats)]
    events = m.start()
    reshuffles = 0
    while not m.over:
        for s, tracker in enumerate(trackers):
            for event in events:
                tracker.on_event(event.seen_by(s))
        reshuffles += sum(isinstance(e, Reshuffled) for e in events)
        seat = m.to_move
        for s in range(seats):
            if m.active[s]:
                view = m.view(s)
                check(view, trackers[s].knowledge(view), m)
                check(view, card_knowledge(view), m)  # without the turned-up card: still true
        view = m.view(seat)
        move = (
            Declare()
            if view.can_declare and rng.random() < 0.03
            else rng.choice(view.legal_plays())
        )
        events = m.apply(seat, move)
    assert m.over


def test_reshuffles_happen_in_the_checked_matches():
    m = Match(2, Rules(max_turns=200), seed=1)
    m.start()
    seen = False
    while m.round == 1 and not m.over and not seen:
        seat = m.to_move
        events = m.apply(seat, m.auto_move(seat))
        seen = any(isinstance(e, Reshuffled) for e in events)
        if m.round == 1:
            view = m.view(0)
            check(view, card_knowledge(view), m)
    assert seen


@pytest.mark.parametrize("seed", range(4))
def test_sampled_deals_agree_with_everything_seen(seed):
    rng = random.Random(seed)
    m = Match(4, Rules(), seed)
    events = m.start()
    tracker = Tracker()
    for _ in range(rng.randint(3, 40)):
        for event in events:
            tracker.on_event(event.seen_by(0))
        if m.over:
            break
        seat = m.to_move
        view = m.view(seat)
        events = m.apply(seat, rng.choice(view.legal_plays()))
    for event in events:
        tracker.on_event(event.seen_by(0))
    if m.over or not any(isinstance(e, RoundStarted) for e in m.log):
        return
    view = m.view(0)
    k = tracker.knowledge(view)
    guesses = hidden_hands(view, k)
    model = ValueModel(value_counts(k.unseen))
    turns = [sum(1 for p in view.history if p.seat == s) for s in range(4)]
    deal = sample_deal(
        rng, view.hand_mask, k, guesses, model, mask_of(view.open), 0, view.turn, turns
    )
    assert deal.hands[0] == view.hand_mask
    union = mask_of(deal.deck) | mask_of(deal.dead) | mask_of(view.open)
    for s in range(4):
        assert deal.hands[s] & k.known[s] == k.known[s]
        assert deal.hands[s].bit_count() == view.hand_sizes[s]
        assert not union & deal.hands[s]
        union |= deal.hands[s]
    assert union == FULL_DECK
    assert len(deal.deck) == view.deck_size and len(deal.dead) == view.dead_size
