"""The worked checks of rules.md, house rules, and the two legality paths agreeing."""

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from leastscore.game import (
    CARDS,
    Rules,
    explain_discard,
    is_legal_discard,
    legal_discards,
    parse_cards,
)
from leastscore.protocol.vectorgen import shipped

WORKED_CHECKS = [
    (" ".join(check["discard"]), check["legal"])
    for check in json.loads((shipped() / "worked_checks.json").read_text())["checks"]
]
"""The rules' table of worked checks, as the shipped test vectors hold it."""


def test_the_vectors_hold_the_whole_table():
    assert len(WORKED_CHECKS) == 16 and ("KS AD 2H", False) in WORKED_CHECKS


@pytest.mark.parametrize(("text", "legal"), WORKED_CHECKS)
def test_worked_checks(text, legal):
    cards = parse_cards(text)
    assert is_legal_discard(cards) is legal
    assert is_legal_discard(list(reversed(cards))) is legal  # order does not matter


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("", "at least one card"),
        ("KS KD KH", "three of a kind"),
        ("KS KD QS QD", "two pairs"),
        ("6S 7S 8D 9H", "3 or 5 cards, not 4"),
        ("KS AD 2H", "wrap"),
        ("2H 7H 9H JH", "four cards of one suit"),
        ("5C 5C", "listed twice"),
        ("2C 9D", "is not a single card"),
    ],
)
def test_refusals_say_why(text, why):
    assert why in (explain_discard(parse_cards(text)) or "")


def test_more_edges():
    assert is_legal_discard(parse_cards("TD JC QH KS AS"))  # Ace-high run of 5
    assert is_legal_discard(parse_cards("AS 2D 3C 4H 5S"))  # Ace-low run of 5
    assert not is_legal_discard(parse_cards("QS KD AH 2C 3D"))  # around the corner
    assert is_legal_discard(parse_cards("JS QS KS AS 2S"))  # no run, but a flush
    assert not is_legal_discard(parse_cards("AS 2D 3C 4H"))
    assert not is_legal_discard(parse_cards("2C 2D 3C 3D 4C"))
    assert not is_legal_discard(parse_cards("2C 4D 6H"))


def test_runs_same_suit_house_rule():
    same = Rules(runs_same_suit=True)
    assert is_legal_discard(parse_cards("2C 3C 4C"), same)
    assert not is_legal_discard(parse_cards("2C 3D 4C"), same)
    assert "one suit" in (explain_discard(parse_cards("2C 3D 4C"), same) or "")
    assert is_legal_discard(parse_cards("2H 7H 9H JH KH"), same)  # flushes are unaffected
    assert not is_legal_discard(parse_cards("6S 7S 8D 9H TC"), same)
    assert is_legal_discard(parse_cards("KS KD"), same)  # sets are unaffected
    hand = parse_cards("2C 3C 4C 4D 5D")
    groups = {" ".join(map(str, g)) for g in legal_discards(hand, same)}
    assert "2C 3C 4C" in groups and "3C 4D 5D" not in groups
    assert "3C 4D 5D" in {" ".join(map(str, g)) for g in legal_discards(hand)}


def test_legal_discards_lists_each_group_once():
    hand = parse_cards("7C 7D 7H 8S 9S")
    groups = [" ".join(map(str, g)) for g in legal_discards(hand)]
    assert len(groups) == len(set(groups))
    assert set(groups) == {
        "7C", "7D", "7H", "8S", "9S",
        "7C 7D", "7C 7H", "7D 7H",
        "7C 8S 9S", "7D 8S 9S", "7H 8S 9S",
    }  # fmt: skip


hands = st.lists(st.sampled_from(CARDS), min_size=1, max_size=5, unique=True)


@given(hands, st.booleans())
def test_enumeration_agrees_with_the_judge(hand, same_suit):
    rules = Rules(runs_same_suit=same_suit)
    listed = {tuple(sorted(g)) for g in legal_discards(hand, rules)}
    from itertools import combinations

    judged = {
        tuple(sorted(g))
        for n in range(1, len(hand) + 1)
        for g in combinations(hand, n)
        if is_legal_discard(g, rules)
    }
    assert listed == judged


@given(st.lists(st.sampled_from(CARDS), min_size=6, max_size=8, unique=True))
def test_longer_hands_are_enumerated_too(hand):
    for group in legal_discards(hand):
        assert is_legal_discard(group)
