import pickle

import pytest
from leastscore.game import CARDS, Card, format_cards, hand_total, parse_card, parse_cards


def test_canonical_names_round_trip():
    for card in CARDS:
        assert parse_card(str(card)) is card
        assert Card(str(card)) is card
        assert Card(int(card)) is card
    assert str(parse_card("10d")) == "TD"
    assert [str(c) for c in parse_cards("7h 7D 10s")] == ["7H", "7D", "TS"]
    assert [str(c) for c in parse_cards("as,kd, q♠")] == ["AS", "KD", "QS"]
    assert f"{Card('QH')}" == "QH"
    assert repr(Card("QH")) == "Card('QH')"


def test_values_ranks_suits():
    assert [c.value for c in parse_cards("AS 2C 9D TH JH QS KC")] == [1, 2, 9, 10, 10, 10, 10]
    assert Card("KC").rank == 13 and Card("AS").rank == 1
    assert Card("TD").suit == "D"
    assert hand_total(parse_cards("AS KD 5H")) == 16
    assert format_cards(parse_cards("ks 2h")) == "KS 2H"


def test_cards_sort_by_rank():
    assert [str(c) for c in sorted(parse_cards("KS 2C AH TD 2S"))] == ["AH", "2C", "2S", "TD", "KS"]


def test_pickles_as_the_same_card():
    assert pickle.loads(pickle.dumps(Card("9S"))) is Card("9S")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("7X", "unknown suit 'X'"),
        ("1H", None),
        ("ZZ", "unknown rank 'Z'"),
        ("7", "write rank then suit"),
        ("11H", "unknown rank '11'"),
        ("", None),
    ],
)
def test_bad_tokens_say_which_and_why(text, message):
    if message is None:
        # "1H" is read as the Ace (a forgiving alias); "" is no card at all
        assert parse_cards(text) == ([Card("AH")] if text else [])
        return
    with pytest.raises(ValueError) as err:
        parse_cards(f"AS {text} KD")
    assert repr(text) in str(err.value)
    assert message in str(err.value)


def test_card_rejects_bad_indices():
    for bad in (-1, 52, True, 3.0):
        with pytest.raises(ValueError):
            Card(bad)
