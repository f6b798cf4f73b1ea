"""The engine's reasons are English phrases that remember how they were made, so that
an edge says them in its reader's language; the engine itself speaks none."""

from __future__ import annotations

import pickle

import msgspec
import pytest
from leastscore.game import IllegalMove, Match, Play, explain_discard, parse_cards
from leastscore.game.cards import RANK, parse_card
from leastscore.game.phrase import Phrase

from leastscore import lang


def test_a_phrase_is_its_english_sentence() -> None:
    reason = explain_discard(parse_cards("2h 3h 4h 5h"))
    assert reason == "a run must be 3 or 5 cards, not 4"
    assert isinstance(reason, Phrase)
    assert (reason.message, reason.values) == ("a run must be 3 or 5 cards, not {n}", {"n": 4})
    with pytest.raises(TypeError):  # a phrase is for people: the wire gets plain text
        msgspec.msgpack.encode(reason)


def test_a_refused_move_carries_plain_text_for_the_wire() -> None:
    match = Match(["Ann", "Bo"], seed=1)
    match.start()
    hand = match.view(match.to_move).hand
    other_rank = next(c for c in hand if RANK[c] != RANK[hand[0]])
    with pytest.raises(IllegalMove) as refused:
        match.apply(match.to_move, Play((hand[0], other_rank), None))
    assert type(refused.value.reason) is str
    assert msgspec.msgpack.decode(msgspec.msgpack.encode(refused.value.reason)) == str(
        refused.value
    )


def test_a_phrase_survives_pickling_whole() -> None:
    tricky = Phrase("{token} is not a card", token="'{x}'")  # braces in a value
    again = pickle.loads(pickle.dumps(tricky))
    assert (again, again.message, again.values) == (tricky, tricky.message, tricky.values)


def test_the_edge_says_it_in_the_readers_language() -> None:
    reason = explain_discard(parse_cards("2h 3h 4h 5h"))
    assert reason is not None
    with lang.speaking("fr"):
        french = lang.say(reason)
        assert lang.say("plain text") == "plain text"
    assert french != reason and "4" in french
    with pytest.raises(ValueError) as refused:
        parse_card("7x")
    with lang.speaking("nl"):
        dutch = lang.say(refused.value.args[0])
    assert dutch != str(refused.value) and "'7x'" in dutch
