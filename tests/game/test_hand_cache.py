"""The engine's hand cache stays within the bound a process sets, and still answers right."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from leastscore.game import groups
from leastscore.game.cards import BIT


@pytest.fixture
def bound() -> Iterator[None]:
    before = groups.HAND_CACHE_SIZE
    yield
    groups.set_hand_cache_size(before)


def _masks(count: int) -> list[int]:
    rng = random.Random(7)
    out = []
    for _ in range(count):
        mask = 0
        for card in rng.sample(range(52), 5):
            mask |= BIT[card]
        out.append(mask)
    return out


def test_the_cache_never_holds_more_hands_than_its_bound(bound: None):
    groups.set_hand_cache_size(50)
    for mask in _masks(2000):
        groups.hand_info(mask)
        groups.hand_info(mask, same_suit=True)
        assert groups.hand_cache_size() <= 2 * 50


def test_a_smaller_bound_empties_a_fuller_cache_and_answers_stay_the_same(bound: None):
    masks = _masks(300)
    groups.set_hand_cache_size(1000)
    before = [groups.hand_info(m).groups for m in masks]
    groups.set_hand_cache_size(10)
    assert groups.hand_cache_size() <= 2 * 10
    assert [groups.hand_info(m).groups for m in masks] == before


def test_a_bound_below_one_is_refused(bound: None):
    with pytest.raises(ValueError, match="at least 1"):
        groups.set_hand_cache_size(0)


def test_a_long_run_holds_every_group_from_its_start_and_meets_no_new_one(bound: None) -> None:
    """A server or an arena referees matches for days: the tables of the legal groups
    must be whole from its start, or they grow for days, a rare five-card group at a
    time (its memory then creeps, and steps as a table passes a size)."""
    from leastscore.bots import make_bot
    from leastscore.game import Match, Rules

    groups.for_a_long_run(64)
    held = groups.groups_held()
    assert held == 16_259  # every legal group of the pack
    for seed in range(20):
        match = Match(["a", "b", "c"], Rules(threshold=60), seed=seed)
        match.start()
        bots = [make_bot("greedy", seed=seed + i) for i in range(3)]
        while not match.over:
            seat = match.to_move
            match.apply(seat, bots[seat].choose(match.view(seat)))
    assert groups.groups_held() == held
    assert groups.HAND_CACHE_SIZE == 64
