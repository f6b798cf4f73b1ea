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
