"""``decode_server`` reads most frames in one typed pass (the SDK's stdio loop, once it
has looked at a whole read for extension types: ``plain``), and says exactly what the
long way (the frame as a map, checked, then converted) says about every frame, good
or bad."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leastscore.protocol import ProtocolError, decode_server
from leastscore.protocol.codec import _decode_server_by_envelope, may_hold_ext
from leastscore.protocol.messages import SERVER_TYPES
from leastscore.protocol.vectorgen import shipped_messages

from .strategies import msgpack_values

SERVER_VECTORS = shipped_messages("server")


def fast(body: bytes) -> msgspec.Struct | None:
    """``decode_server`` as the stdio loop calls it, having looked at the whole read."""
    return decode_server(body, plain=not may_hold_ext(body))


def outcome(decoder: Any, body: bytes) -> tuple[str, object]:
    try:
        return "message", decoder(body)
    except ProtocolError as e:
        return "refused", (e.code, e.message, e.id)


@pytest.mark.parametrize("entry", SERVER_VECTORS, ids=[m["name"] for m in SERVER_VECTORS])
def test_every_server_vector_decodes_as_decode_server_has_it(entry: dict[str, Any]) -> None:
    body = bytes.fromhex(entry["frame"])[4:]
    got = decode_server(body, plain=True)  # no shipped server frame holds an extension type
    assert got is not None and not may_hold_ext(body)
    assert got == decode_server(body) == _decode_server_by_envelope(body)
    assert type(got) is SERVER_TYPES[entry["message"]["type"]]


BAD = {
    "not msgpack": b"\xc1",
    "a list": msgspec.msgpack.encode([1, 2]),
    "no type": msgspec.msgpack.encode({"id": 1}),
    "a type that is not a string": msgspec.msgpack.encode({"type": 3}),
    "an unknown type": msgspec.msgpack.encode({"type": "from_the_future", "x": 1}),
    "an id that is not an integer": msgspec.msgpack.encode({"type": "ok", "id": "1"}),
    "a field of the wrong type": msgspec.msgpack.encode({"type": "turn", "seat": "me"}),
    "a missing field": msgspec.msgpack.encode({"type": "error"}),
    "an extension type": msgspec.msgpack.encode(
        {"type": "bye", "reason": msgspec.msgpack.Ext(1, b"x")}
    ),
    "trailing bytes": msgspec.msgpack.encode({"type": "ok"}) + b"\x00",
    "an extension type in a field nobody knows": msgspec.msgpack.encode(
        {"type": "ok", "id": 3, "later": msgspec.msgpack.Ext(5, b"abc")}
    ),
}


@pytest.mark.parametrize("body", BAD.values(), ids=BAD.keys())
def test_a_bad_frame_gets_the_same_answer(body: bytes) -> None:
    assert outcome(fast, body) == outcome(_decode_server_by_envelope, body)


values = msgpack_values()


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    kind=st.sampled_from(sorted(SERVER_TYPES)),
    fields=st.dictionaries(
        st.sampled_from(["id", "seat", "round", "turn", "reason", "open", "hand", "scores"]),
        values,
        max_size=4,
    ),
)
def test_any_frame_of_a_server_type_gets_the_same_answer(kind: str, fields: dict[str, Any]) -> None:
    body = msgspec.msgpack.encode({"type": kind, **fields})
    assert outcome(fast, body) == outcome(_decode_server_by_envelope, body)
