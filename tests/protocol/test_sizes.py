"""The largest sizes PROTOCOL.md promises a client, and the order of ``legal``."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from leastscore.bots.check import seat_names
from leastscore.game import CARDS, Declare, Match, Play, Rules, legal_discards, parse_cards
from leastscore.game.groups import hand_info
from leastscore.protocol.convert import turn_for
from leastscore.protocol.messages import PlayerName
from leastscore.protocol.vectorgen import shipped
from leastscore.seats.names import unique_names
from leastscore.tournament.pure.entrants import MAX_NAME

MOST_GROUPS = 12
MOST_NAME = 42
DEEPEST = 5


def test_four_of_a_kind_and_one_card_hold_the_most_legal_groups() -> None:
    hand = parse_cards("7C 7D 7H 7S 2C")
    for rules in (Rules(), Rules(runs_same_suit=True)):
        assert len(legal_discards(hand, rules)) == MOST_GROUPS


@given(st.lists(st.sampled_from(CARDS), min_size=1, max_size=5, unique=True), st.booleans())
def test_no_hand_has_more_legal_groups(hand: list[int], same_suit: bool) -> None:
    """Checked for every one of the 2,598,960 five-card hands once (2 minutes); here, samples."""
    mask = sum(1 << c for c in hand)
    assert len(hand_info(mask, same_suit).groups) <= MOST_GROUPS


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32), st.integers(2, 8), st.booleans())
def test_hands_and_open_cards_never_pass_five_and_legal_is_sorted_and_unique(
    seed: int, seats: int, same_suit: bool
) -> None:
    match = Match(seats, Rules(runs_same_suit=same_suit, max_turns=40, max_rounds=4), seed=seed)
    match.start()
    rng = random.Random(seed)
    while not match.over:
        mover = match.to_move
        view = match.view(mover)
        turn = turn_for(view, 1000, mover)
        assert turn.hand is not None and turn.legal is not None
        assert len(turn.hand) <= 5 and len(turn.open) <= 5 and len(turn.legal) <= MOST_GROUPS
        order = {name: i for i, name in enumerate(str(c) for c in sorted(CARDS))}
        for group in turn.legal:
            assert list(group) == sorted(group, key=order.__getitem__)
        assert len(set(turn.legal)) == len(turn.legal)
        if view.can_declare and rng.random() < 0.2:
            match.apply(mover, Declare())
            continue
        groups = view.legal_discards
        group = groups[rng.randrange(len(groups))]
        take = None if view.can_draw and rng.random() < 0.7 else rng.choice(view.open)
        match.apply(mover, Play(group, take))


def test_names_are_at_most_42_characters() -> None:
    longest = "x" * 32
    assert PlayerName.__metadata__[0].max_length == 32
    assert max(map(len, unique_names([longest] * 8))) <= MOST_NAME  # the server's names
    assert MAX_NAME <= MOST_NAME  # a tournament's entrants
    names = seat_names(["greedy", "expert:samples=24,time_budget=0.05"], 0, "greedy")
    assert names[0] == "greedy (checked)" and max(map(len, names)) <= MOST_NAME
    assert max(map(len, seat_names(["x" * 60], 1, longest + "y"))) <= MOST_NAME


def _depth(value: Any) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0


def test_server_frames_nest_at_most_five_deep() -> None:
    messages = json.loads((shipped() / "messages.json").read_text())["messages"]
    depth = {m["name"]: _depth(m["message"]) for m in messages if m["from"] == "server"}
    assert max(depth.values()) == DEEPEST
    assert depth["tables_full"] == depth["state_full"] == DEEPEST
