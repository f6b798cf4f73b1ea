"""PROTOCOL.md's card order on the wire: every list of cards the server sends is sorted by
rank then suit, the Ace first as rank 1 even where it ends a run (Q K A)."""

from __future__ import annotations

from typing import Any

import msgspec
from leastscore.game import Play
from leastscore.protocol import encode
from leastscore.protocol.convert import match_state, turn_for

from ..game.helpers import rigged_match


def on_the_wire(message: msgspec.Struct) -> dict[str, Any]:
    """A message as a client decodes it: the frame's body is one map."""
    decoded = msgspec.msgpack.decode(encode(message)[4:])
    assert isinstance(decoded, dict)
    return decoded


def test_a_hand_holding_q_k_a_is_sent_with_the_ace_first() -> None:
    match = rigged_match(["9C 9D 9H 9S 8C", "KH QD 5S AC 5C", "8D 8H 8S 7D 7H"], "6D")
    turn = on_the_wire(turn_for(match.view(1), 5000, 1))
    assert turn["hand"] == ["AC", "5C", "5S", "QD", "KH"]
    assert ["AC", "QD", "KH"] in turn["legal"]
    assert ["QD", "KH", "AC"] not in turn["legal"]
    state = on_the_wire(match_state(match.view(1), 5000))
    assert state["hand"] == turn["hand"] and state["legal"] == turn["legal"]


def test_a_q_k_a_run_played_in_any_order_is_sent_ace_first() -> None:
    match = rigged_match(["9C 9D 9H 9S 8C", "KH QD 5S AC 5C", "8D 8H 8S 7D 7H"], "6D")
    (played,) = match.apply(1, Play.of("QD KH AC", "deck"))
    sent = on_the_wire(played)
    assert sent["type"] == "played" and sent["discard"] == ["AC", "QD", "KH"]
    after = on_the_wire(turn_for(match.view(2), 5000, 2))
    assert after["open"] == ["AC", "QD", "KH"]  # the open cards are the discard, as sent
