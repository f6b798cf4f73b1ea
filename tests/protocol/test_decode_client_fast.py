"""``decode_client`` reads most frames in one typed pass, and says exactly what the
long way (the frame as a map, checked, then converted) says about every frame, good
or bad."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leastscore.protocol import ProtocolError, decode_client
from leastscore.protocol.codec import MAX_DEPTH, _decode_client_by_envelope
from leastscore.protocol.messages import CLIENT_TYPES, DeclareMove, PlayMove
from leastscore.protocol.vectorgen import shipped_messages

from .strategies import msgpack_values

CLIENT_VECTORS = shipped_messages("client")


def outcome(decoder: Any, body: bytes) -> tuple[str, object]:
    try:
        return "message", decoder(body)
    except ProtocolError as e:
        return "refused", (e.code, e.message, e.id, e.kind)


def enc(obj: object) -> bytes:
    return msgspec.msgpack.encode(obj)


@pytest.mark.parametrize("entry", CLIENT_VECTORS, ids=[m["name"] for m in CLIENT_VECTORS])
def test_every_client_vector_decodes_as_the_long_way_has_it(entry: dict[str, Any]) -> None:
    body = bytes.fromhex(entry["frame"])[4:]
    assert outcome(decode_client, body) == outcome(_decode_client_by_envelope, body)


def test_a_move_takes_one_pass() -> None:
    play = enc({"type": "play", "discard": ["7H"], "take": "deck", "id": 3, "round": 1, "turn": 4})
    assert decode_client(play) == PlayMove(["7H"], "deck", id=3, round=1, turn=4)
    assert decode_client(enc({"type": "declare", "id": None})) == DeclareMove()


def deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = [value]
    return value


BAD = {
    "not msgpack": b"\xc1",
    "a list": enc([1, 2]),
    "no type": enc({"id": 1}),
    "a type that is not a string": enc({"type": 3}),
    "an unknown type": enc({"type": "from_the_future", "x": 1}),
    "an id that is not an integer": enc(
        {"type": "play", "discard": ["7H"], "take": "deck", "id": "1"}
    ),
    "no discard": enc({"type": "play", "take": "deck"}),
    "a nil discard": enc({"type": "play", "discard": None, "take": "deck"}),
    "six cards": enc({"type": "play", "discard": ["2H"] * 6, "take": "deck"}),
    "a round without a turn": enc({"type": "declare", "round": 1}),
    "not a card": enc({"type": "play", "discard": ["ZZ"], "take": "deck"}),
    "a key that is not a string": msgspec.msgpack.encode({"type": "declare", 5: 1}),
    "two types": b"\x82" + enc("type") + enc("play") + enc("type") + enc("declare"),
    "an extension type in a field nobody knows": enc(
        {"type": "declare", "id": 3, "later": msgspec.msgpack.Ext(5, b"abc")}
    ),
    "nesting deeper than the limit in a field nobody knows": enc(
        {"type": "declare", "later": deep(MAX_DEPTH + 1)}
    ),
    "trailing bytes": enc({"type": "declare"}) + b"\x00",
}


@pytest.mark.parametrize("body", BAD.values(), ids=BAD.keys())
def test_a_bad_frame_gets_the_same_answer(body: bytes) -> None:
    assert outcome(decode_client, body) == outcome(_decode_client_by_envelope, body)


values = msgpack_values("7H", "deck", "AS", "TC")


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(CLIENT_TYPES)),
    fields=st.dictionaries(
        st.sampled_from(["id", "discard", "take", "round", "turn", "later", "type"]),
        values,
        max_size=5,
    ),
)
def test_any_frame_gets_the_same_answer(kind: str, fields: dict[str, Any]) -> None:
    body = enc({"type": kind, **fields})
    assert outcome(decode_client, body) == outcome(_decode_client_by_envelope, body)
