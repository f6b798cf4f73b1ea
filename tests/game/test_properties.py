"""Properties over many random matches: conservation, scoring, standings, secrecy, replay."""

from __future__ import annotations

import io
import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leastscore.bots import GreedyBot, RandomBot
from leastscore.game import (
    Declared,
    Match,
    MatchEnded,
    Played,
    RoundStarted,
    Rules,
    read_log,
    replay,
    write_log,
)
from leastscore.game.cards import BY_NAME, FULL_DECK, NAMES, VALUE, Card, mask_of

rules_st = st.builds(
    Rules,
    threshold=st.sampled_from([10, 25, 50]),
    runs_same_suit=st.booleans(),
    tie_loses=st.booleans(),
    false_declare_penalty=st.integers(0, 30),
    declare_limit=st.none() | st.integers(0, 12),
    first_out_ends=st.booleans(),
    max_turns=st.sampled_from([6, 60, 150]),
    max_rounds=st.sampled_from([3, 20]),
)

matches = st.tuples(st.integers(2, 8), rules_st, st.integers(0, 2**32), st.booleans())

fast = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def play(seats: int, rules: Rules, seed: int, greedy: bool, check=None) -> Match:
    """A match of random (and greedy) bots; now and then a player forfeits."""
    m = Match(seats, rules, seed)
    m.start()
    players = [(GreedyBot() if greedy and i % 2 else RandomBot(seed + i)) for i in range(seats)]
    chance = random.Random(seed)
    while not m.over:
        if chance.random() < 0.002:
            m.resign(chance.choice([s for s in range(seats) if m.active[s]]), "forfeit")
        else:
            seat = m.to_move
            m.apply(seat, players[seat].choose(m.view(seat)))
        if check:
            check(m)
    return m


def conserved(m: Match) -> None:
    masks = [*m.hands, mask_of(m.deck), mask_of(m.dead), mask_of(m.open)]
    union = 0
    for mask in masks:
        assert not union & mask, "a card is in two places"
        union |= mask
    assert union == FULL_DECK, "a card went missing"
    for seat, hand in enumerate(m.hands):
        assert hand.bit_count() == m.sizes[seat]
        assert (hand != 0) == m.active[seat] or m.over


@fast
@given(matches)
def test_all_52_cards_accounted_for_after_every_move(args):
    play(*args, check=conserved)


@fast
@given(matches)
def test_every_declaration_scores_as_the_rules_say(args):
    """From the hands revealed alone: a declaration holds when the declarer is lowest
    (a tie holds only without ``tie_loses``) and then each hand scores its total less
    the declarer's, the declarer 0; a false one costs the declarer the penalty plus its
    total less the lowest, and nobody else anything. Scores add up, and those above the
    threshold are out."""
    seats, rules, seed, greedy = args
    m = play(seats, rules, seed, greedy)
    scores = [0] * seats
    for event in m.log:
        if not isinstance(event, Declared):
            continue
        playing = [s for s, t in enumerate(event.totals) if t is not None]
        totals = {s: event.totals[s] for s in playing}
        assert playing == [s for s, h in enumerate(event.hands) if h is not None]
        for s in playing:  # each total is the count of its hand as revealed
            assert totals[s] == sum(VALUE[BY_NAME[c]] for c in event.hands[s] or ())
        mine, low = totals[event.seat], min(totals.values())
        lowest = [s for s in playing if totals[s] == low]
        holds = mine == low and not (rules.tie_loses and len(lowest) > 1)
        assert event.holds == holds
        if holds:
            expected = {s: totals[s] - mine for s in playing}
            assert expected[event.seat] == 0  # the declarer, at least, scores nothing
        else:
            expected = {s: 0 for s in playing}
            expected[event.seat] = rules.false_declare_penalty + mine - low
        assert {s: event.round_scores[s] for s in playing} == expected
        assert [event.round_scores[s] for s in range(seats) if s not in totals] == [None] * (
            seats - len(playing)
        )
        for s in playing:
            scores[s] += expected[s]
        assert list(event.scores) == scores
        out = tuple(s for s in playing if scores[s] > rules.threshold)
        assert event.eliminated == out


@fast
@given(matches)
def test_standings_follow_the_elimination_order(args):
    seats, rules, seed, greedy = args
    m = play(seats, rules, seed, greedy)
    end = m.log[-1]
    assert isinstance(end, MatchEnded)
    out_round: dict[int, int] = {}
    for event in m.log:
        if isinstance(event, Declared):
            for s in event.eliminated:
                out_round[s] = m.log.index(event)
    ranked = [st.seat for st in end.standings]
    assert sorted(ranked) == list(range(seats))
    places = [st.place for st in end.standings]
    assert places == sorted(places) and places[0] == 1
    forfeits = [s for s in ranked if s in m.resigned]
    assert forfeits == list(reversed(m.resigned))
    assert ranked[len(ranked) - len(forfeits) :] == forfeits
    ranked = ranked[: len(ranked) - len(forfeits)]
    if end.reason == "first_out":
        scores = [m.scores[s] for s in ranked]
        assert scores == sorted(scores)
        return
    survivors = [s for s in ranked if s not in out_round]
    assert ranked[: len(survivors)] == survivors or end.reason == "max_rounds"
    if end.reason == "winner":
        assert len(survivors) == 1
    gone = [s for s in ranked if s in out_round]
    assert [out_round[s] for s in gone] == sorted((out_round[s] for s in gone), reverse=True)


def visible_ok(m: Match, seat: int, public: set[str]) -> None:
    """No card of another seat's hand in ``seat``'s view unless the match's own log
    shows it in public (``public``: every card open or discarded so far)."""
    v = m.view(seat)
    named = {str(c) for c in v.open}
    for played in v.history:
        assert played.drawn is None
        named.update(played.discard)
        if played.took:
            named.add(played.took)
    own = {str(c) for c in v.hand}
    assert mask_of(v.hand) == m.hands[seat]
    for other in range(m.seat_count):
        if other == seat:
            continue
        theirs = {NAMES[c] for c in range(52) if m.hands[other] >> c & 1}
        assert not (theirs & own)
        assert theirs & named <= public, theirs & named - public


def made_public(m: Match, public: set[str], seen: int) -> int:
    """``public`` brought up to date with the log's events from index ``seen`` on (the
    cards each round opens with, and every discard and open card taken); the log's
    length returned."""
    for event in m.log[seen:]:
        if isinstance(event, RoundStarted):
            public.update(event.open)
        elif isinstance(event, Played):
            public.update(event.discard)
            if event.took:
                public.add(event.took)
    return len(m.log)


def test_the_hand_check_catches_a_view_that_shows_a_hidden_card(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``visible_ok`` fails a view that puts a card of another hand among the open cards
    (the public cards are the log's, not the view's own)."""
    m = Match(2, Rules(), 3)
    m.start()
    public: set[str] = set()
    made_public(m, public, 0)
    visible_ok(m, 0, public)  # the view as the match makes it
    hidden = Card(next(c for c in range(52) if m.hands[1] >> c & 1))
    leaky = msgspec.structs.replace(m.view(0), open=(*m.view(0).open, hidden))
    monkeypatch.setattr(m, "view", lambda seat: leaky)
    with pytest.raises(AssertionError):
        visible_ok(m, 0, public)


@fast
@given(matches)
def test_no_view_or_event_copy_shows_another_hand(args):
    seats, rules, seed, greedy = args

    public: set[str] = set()
    seen = 0

    def check(m: Match) -> None:
        nonlocal seen
        seen = made_public(m, public, seen)
        for seat in range(seats):
            if m.active[seat] and not m.over:
                visible_ok(m, seat, public)

    m = play(seats, rules, seed, greedy, check)
    for event in m.log:
        for seat in range(seats):
            copy = event.seen_by(seat)
            if isinstance(copy, RoundStarted):
                assert copy.deck is None
                assert all(h is None for i, h in enumerate(copy.hands) if i != seat)
            if isinstance(copy, Played) and copy.seat != seat:
                assert copy.drawn is None
        spectator = event.seen_by(None)
        if isinstance(spectator, RoundStarted):
            assert all(h is None for h in spectator.hands)


@fast
@given(matches)
def test_copies_for_all_seats_are_the_copies_for_each(args):
    m = play(*args)
    for event in m.log:
        copies = event.seen_by_all(m.seat_count)
        assert copies == [event.seen_by(s) for s in range(m.seat_count)] + [event.seen_by(None)]
        if isinstance(event, Played):  # the public copy is one object, encoded once
            public = [c for i, c in enumerate(copies) if i != event.seat]
            assert all(c is public[0] for c in public)


@fast
@given(matches)
def test_same_seed_same_moves_same_log_and_logs_replay(args):
    first = play(*args)
    second = play(*args)
    assert first.log == second.log
    buf = io.BytesIO()
    write_log(first.log, buf)
    path_events = [e for e in first.log]
    assert replay(path_events) == first.log
    buf.seek(0)
    import tempfile

    with tempfile.NamedTemporaryFile(suffix=".jsonl") as f:
        f.write(buf.getvalue())
        f.flush()
        with open(f.name, "rb") as written:
            loaded = read_log(written)
    assert loaded == first.log
    assert replay(loaded) == first.log


def test_secure_shuffles_differ_and_still_replay():
    m1, m2 = Match(4, Rules(threshold=25)), Match(4)
    m1.start()
    m2.start()
    assert m1.log[1].deck != m2.log[1].deck  # type: ignore[attr-defined]
    assert m1.seed is None
    players = [GreedyBot() for _ in range(4)]
    while not m1.over:
        seat = m1.to_move
        m1.apply(seat, players[seat].choose(m1.view(seat)))
    assert replay(m1.log) == m1.log
