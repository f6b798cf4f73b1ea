"""Promises PROTOCOL.md makes about every client message, checked on the decoder.

The cases are generated from the message definitions, so a field added later
is covered without anyone remembering to add it here.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from leastscore.protocol import ProtocolError, decode_client, errors
from leastscore.protocol.codec import MAX_DEPTH
from leastscore.protocol.messages import CLIENT_TYPES, TOGETHER, optional_fields

from ..support.messages import minimal, nested

OPTIONAL = [
    (kind, name) for kind, cls in CLIENT_TYPES.items() for name in sorted(optional_fields(cls))
]


def test_every_message_type_has_optional_fields_to_check():
    assert {kind for kind, _ in OPTIONAL} == set(CLIENT_TYPES)
    assert ("hello", "name") in OPTIONAL and ("create", "seats") in OPTIONAL


@pytest.mark.parametrize(("kind", "name"), OPTIONAL)
def test_nil_in_an_optional_field_is_its_default(kind: str, name: str):
    message = minimal(kind)
    with_nil = decode_client(msgspec.msgpack.encode({**message, name: None}))
    assert with_nil == decode_client(msgspec.msgpack.encode(message))


@pytest.mark.parametrize(("kind", "name"), OPTIONAL)
def test_an_optional_field_that_takes_nil_has_nil_for_its_default(kind: str, name: str):
    """The decoder leans on this: nil is looked at again only when a message is refused."""
    (field,) = [f for f in msgspec.structs.fields(CLIENT_TYPES[kind]) if f.encode_name == name]
    try:
        msgspec.convert(None, field.type)
    except msgspec.ValidationError:
        return
    assert field.default is None


@pytest.mark.parametrize("kind", sorted(CLIENT_TYPES))
def test_nil_in_a_required_field_is_a_bad_message(kind: str):
    message = minimal(kind)
    for name in set(message) - {"type"}:
        with pytest.raises(ProtocolError) as e:
            decode_client(msgspec.msgpack.encode({**message, name: None, "id": 4}))
        assert (e.value.code, e.value.id) == (errors.BAD_MESSAGE, 4)


@pytest.mark.parametrize("kind", ["play", "declare"])
@pytest.mark.parametrize("alone", TOGETHER)
def test_round_and_turn_come_together(kind: str, alone: str):
    message = {**minimal(kind), "id": 9}
    for other in (None, "absent"):
        partial = {**message, alone: 3}
        if other is None:
            partial[next(n for n in TOGETHER if n != alone)] = None
        with pytest.raises(ProtocolError) as e:
            decode_client(msgspec.msgpack.encode(partial))
        assert (e.value.code, e.value.id) == (errors.BAD_MESSAGE, 9)
        assert "round and turn go together" in e.value.message
    both = decode_client(msgspec.msgpack.encode({**message, "round": 2, "turn": 3}))
    assert (both.round, both.turn) == (2, 3)  # type: ignore[attr-defined]


@pytest.mark.parametrize("depth", [1, 2, MAX_DEPTH - 1, MAX_DEPTH])
def test_frames_nest_up_to_the_limit(depth: int):
    assert decode_client(msgspec.msgpack.encode(nested(depth))).id == 1  # type: ignore[attr-defined]


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, MAX_DEPTH + 2, 500, 5000])
def test_frames_nested_deeper_are_bad_frames(depth: int):
    body = msgspec.msgpack.encode(nested(depth)) if depth < 900 else b"\x91" * depth + b"\x00"
    with pytest.raises(ProtocolError) as e:
        decode_client(body)
    assert e.value.code == errors.BAD_FRAME


def test_nesting_counts_maps_and_map_keys_too():
    deep_map: Any = 0
    for _ in range(MAX_DEPTH):
        deep_map = {"k": deep_map}
    with pytest.raises(ProtocolError):
        decode_client(msgspec.msgpack.encode({"type": "ping", "x": deep_map}))
    deep_key: Any = 0
    for _ in range(MAX_DEPTH):
        deep_key = (deep_key,)
    with pytest.raises(ProtocolError):
        decode_client(msgspec.msgpack.encode({"type": "ping", "x": {deep_key: 1}}))
