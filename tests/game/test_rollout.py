"""``game.rollout.Round``: a cheap copy, and a round played on it as ``Match`` plays it."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leastscore.bots import GreedyBot
from leastscore.game import (
    CannotDeclare,
    Declare,
    Declared,
    IllegalMove,
    Match,
    Play,
    Rules,
    parse_cards,
)
from leastscore.game.cards import FULL_DECK, mask_of
from leastscore.game.rollout import DRAW, Round, settle_round
from leastscore.game.scoring import declaration_holds, settle

from .helpers import rigged_match

fast = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _midround(seats: int, rules: Rules, seed: int, moves: int) -> Match:
    """A match ``moves`` plays into its first round (greedy players, no declaring)."""
    match = Match(seats, rules, seed=seed)
    match.start()
    bot = GreedyBot()
    for _ in range(moves):
        view = match.view(match.to_move)
        move = bot.choose(view)
        if not isinstance(move, Play):
            move = view.legal_plays()[0]
        match.apply(match.to_move, move)
        if match.round > 1:
            break
    return match


def _state(r: Round) -> tuple[object, ...]:
    return (r.hands, r.deck, r.dead, r.open, r.turns, r.to_move, r.turn)


def _cheap_move(r: Round, rng: random.Random) -> tuple[int, int]:
    """A random legal play in ``r``: a single card, an open card or the deck."""
    hand = r.hands[r.to_move]
    cards = [c for c in range(52) if hand >> c & 1]
    opens = [c for c in range(52) if r.open >> c & 1]
    takes = opens + ([DRAW] if r.can_draw else [])
    return 1 << rng.choice(cards), rng.choice(takes)


@fast
@given(st.integers(2, 6), st.integers(0, 2**32), st.integers(0, 30), st.integers(1, 20))
def test_a_copy_is_independent_of_its_original(
    seats: int, seed: int, moves: int, more: int
) -> None:
    original = _midround(seats, Rules(), seed, moves).round_state(random.Random(seed).shuffle)
    before = [list(x) if isinstance(x, list) else x for x in _state(original)]
    copy = original.copy()
    assert _state(copy) == _state(original)
    rng = random.Random(seed)
    for _ in range(more):
        if copy.void:
            break
        copy.play(copy.to_move, *_cheap_move(copy, rng))
    assert list(_state(original)) == before


@fast
@given(st.integers(2, 6), st.integers(0, 2**32), st.integers(0, 40), st.booleans())
def test_a_round_plays_move_for_move_as_the_match(
    seats: int, seed: int, moves: int, same_suit: bool
) -> None:
    """The same moves, the same reshuffles: the state stays the match's, and a
    declaration scores what the match scores."""
    rules = Rules(runs_same_suit=same_suit, max_turns=60)
    match = _midround(seats, rules, seed, moves)
    if match.round > 1 or match.over:
        return
    twin = random.Random()  # a shuffler in the state of the match's: the same reshuffles
    twin.setstate(match._shuffle.__self__.getstate())  # type: ignore[attr-defined]
    r = match.round_state(twin.shuffle)
    rng = random.Random(seed)
    while True:
        seat = match.to_move
        if r.can_declare(seat) and rng.random() < 0.2:
            settled = r.declare(seat)
            event = match.apply(seat, Declare())[0]
            assert isinstance(event, Declared)
            assert settled.scores == [s or 0 for s in event.round_scores]
            assert settled.holds == event.holds
            return
        group, take = _cheap_move(r, rng)
        r.play(seat, group, take)
        match.apply(
            seat, Play(tuple(c for c in range(52) if group >> c & 1), take if take >= 0 else None)
        )
        if match.round > 1:
            assert r.void
            return
        assert _state(r) == _state(match.round_state())


@fast
@given(st.integers(3, 6), st.integers(0, 2**32), st.integers(0, 30), st.integers(0, 5))
def test_a_forfeit_mid_round_leaves_the_others_to_play_on_in_turn(
    seats: int, seed: int, moves: int, pick: int
) -> None:
    """A seat that forfeits leaves the round: its cards go to the dead pile, the turn
    passes it by, the round's state (``round_state``) holds no seat for it, and a state
    taken before keeps every seat."""
    match = _midround(seats, Rules(), seed, moves)
    if match.round > 1 or match.over:
        return
    before = match.round_state()
    quitter = [s for s in range(seats) if match.active[s]][pick % seats]
    hand, mover = match.hands[quitter], match.to_move
    match.resign(quitter)
    now = match.round_state()
    assert quitter not in now.seats and now.hands[quitter] == 0
    assert mask_of(now.dead) & hand == hand
    after = next(s % seats for s in range(quitter + 1, quitter + seats) if s % seats in now.seats)
    assert match.to_move == (after if mover == quitter else mover)
    assert quitter in before.seats and before.hands[quitter] == hand
    bot = GreedyBot()
    for _ in range(3 * seats):
        if match.round > 1 or match.over:
            break
        assert match.to_move != quitter
        view = match.view(match.to_move)
        move = bot.choose(view)
        match.apply(match.to_move, move if isinstance(move, Play) else view.legal_plays()[0])
    if match.round == 1 and not match.over:
        r = match.round_state()
        cards = mask_of(r.deck) | mask_of(r.dead) | r.open
        for seat_hand in r.hands:
            assert not cards & seat_hand
            cards |= seat_hand
        assert cards == (1 << 52) - 1


@fast
@given(st.integers(2, 6), st.integers(0, 2**32), st.integers(0, 30), st.booleans())
def test_a_declaration_settles_as_game_scoring_does(
    seats: int, seed: int, moves: int, tie_loses: bool
) -> None:
    rules = Rules(tie_loses=tie_loses)
    r = _midround(seats, rules, seed, moves).round_state()
    while not r.can_declare(r.to_move):
        r.play(r.to_move, *_cheap_move(r, random.Random(seed)))
    me = r.to_move
    totals = [r.total(s) for s in r.seats]
    settled = r.declare(me)
    scores = settle(totals, r.seats.index(me), rules)
    assert [settled.scores[s] for s in r.seats] == scores
    assert settled.holds == declaration_holds(totals, r.seats.index(me), rules)
    assert settled == settle_round(r.hands, r.seats, me, rules)
    cards = mask_of(r.deck) | mask_of(r.dead) | r.open
    for hand in r.hands:
        assert not cards & hand
        cards |= hand
    assert cards == FULL_DECK  # no card lost or made on the way


def test_a_round_refuses_what_the_match_refuses_and_changes_nothing() -> None:
    match = rigged_match(["2C 3C 4C 5C 6C", "7D 7H 9D JD KD"], "KS", deck="QH")
    r = match.round_state()
    first = r.to_move
    assert first == 1
    hand = r.hands[first]
    single = hand & -hand
    elsewhere = FULL_DECK & ~hand & ~r.open
    before = _state(r)
    with pytest.raises(IllegalMove):
        r.play(1 - first, r.hands[1 - first] & -r.hands[1 - first])  # not this seat's turn
    with pytest.raises(IllegalMove):
        r.play(first, elsewhere & -elsewhere)  # not in the hand
    with pytest.raises(IllegalMove):
        r.play(first, mask_of(parse_cards("7D 9D")))  # no group
    with pytest.raises(IllegalMove):
        r.play(first, single, take=(elsewhere & -elsewhere).bit_length() - 1)  # not open
    with pytest.raises(CannotDeclare):
        r.declare(first)  # nobody declares on the first turn
    assert _state(r) == before
