"""decode_client: every frame, good or broken, gets the answer of the envelope-first path."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from leastscore.protocol import ProtocolError, decode_client
from leastscore.protocol.codec import _envelope
from leastscore.protocol.messages import CLIENT_TYPES

FRAMES: list[Any] = [
    {"type": "hello", "protocol": [1], "name": "ann", "bot": True, "client": "x/1"},
    {"type": "hello", "protocol": [1], "token": None, "extra": {"a": [1, 2]}},
    {"type": "play", "id": 7, "discard": ["7H", "7D"], "take": "deck", "round": 1, "turn": 3},
    {"type": "play", "discard": ["7H"], "take": "8S"},
    {"type": "declare", "id": -1},
    {"type": "create", "id": 1, "seats": 4, "rules": {"threshold": 50, "tie_loses": True}},
    {"type": "join", "table": "t1", "watch": True},
    {"type": "ping"},
    {"id": 3, "type": "chat", "text": "hi"},
    # refused: each must get the same error as before
    {"type": "play", "discard": [], "take": "deck"},
    {"type": "play", "discard": ["7H"] * 6, "take": "deck"},
    {"type": "play", "discard": ["7H"], "take": "deck", "id": True},
    {"type": "play", "discard": ["7H"], "take": "deck", "id": "1"},
    {"type": "play", "discard": ["7H"]},
    {"type": "hello", "protocol": "1"},
    {"type": "nonsense", "id": 4},
    {"type": 5},
    {"id": 5},
    [1, 2, 3],
    "hello",
    {1: 2, "type": "ping"},
]


def reference(body: bytes) -> msgspec.Struct:
    obj, kind, msg_id = _envelope(body)
    cls = CLIENT_TYPES.get(kind)
    if cls is None:
        raise ProtocolError("unknown_type", "", msg_id, kind)
    try:
        return msgspec.convert(obj, cls)
    except msgspec.ValidationError:
        raise ProtocolError("bad_message", "", msg_id, kind) from None


def outcome(decode: Any, body: bytes) -> Any:
    try:
        return decode(body)
    except ProtocolError as e:
        return (e.code, e.id)


@pytest.mark.parametrize("frame", FRAMES)
def test_decoding_agrees_with_the_envelope(frame):
    body = msgspec.msgpack.encode(frame)
    assert outcome(decode_client, body) == outcome(reference, body)


@pytest.mark.parametrize(
    "body", [b"", b"\x81", b"\xc1", msgspec.msgpack.encode({"type": "ping"}) + b"\x00"]
)
def test_broken_frames_are_bad_frame(body):
    with pytest.raises(ProtocolError) as e:
        decode_client(body)
    assert e.value.code == "bad_frame"


@pytest.mark.parametrize("data", [b"x", b"xy", b"x" * 3, b"x" * 300, b"x" * 70000])
def test_extension_types_are_refused_even_in_unknown_fields(data):
    ext = msgspec.msgpack.Ext(1, data)
    for frame in ({"type": "create", "rules": {"threshold": ext}}, {"type": "ping", "x": ext}):
        with pytest.raises(ProtocolError) as e:
            decode_client(msgspec.msgpack.encode(frame))
        assert e.value.code == "bad_frame"
