"""Client messages made from the protocol's own definitions: the smallest good one of
each kind, and frames nested as deep as a test needs."""

from __future__ import annotations

from typing import Any

import msgspec
from leastscore.protocol.messages import CLIENT_TYPES

REQUIRED: dict[str, Any] = {
    "protocol": [1],
    "table": "t000000",
    "text": "hi",
    "discard": ["7H"],
    "take": "deck",
}
"""A good value for every required field of a client message."""


def minimal(kind: str) -> dict[str, Any]:
    """The smallest good message of ``kind``: its required fields only."""
    cls = CLIENT_TYPES[kind]
    required = [f.encode_name for f in msgspec.structs.fields(cls) if f.required]
    return {"type": kind, **{name: REQUIRED[name] for name in required}}


def nested(depth: int) -> dict[str, Any]:
    """A ping whose maps and arrays nest ``depth`` levels (the ping itself is level 1)."""
    inner: Any = 0
    for _ in range(depth - 1):
        inner = [inner]
    return {"type": "ping", "id": 1, "x": inner} if depth > 1 else {"type": "ping", "id": 1}
