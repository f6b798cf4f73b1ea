"""Frames <-> plain JSON, for people who debug a bot by hand (``leastscore frame``).

A frame shows as the JSON of its MessagePack map, with the two things JSON
cannot say spelled out: a ``bin`` value is ``{"$bin": "<hex>"}`` and an
``ext`` value is ``{"$ext": <code>, "data": "<hex>"}``. ``encode`` reads the
same spellings back, so that a frame the server refuses (a bin where a string
belongs, say) can be made on purpose.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from typing import Any

import msgspec

from . import errors
from .codec import decode_client, decode_server
from .errors import ProtocolError
from .framing import HEADER
from .messages import CLIENT_TYPES, SERVER_TYPES

BIN = "$bin"
EXT = "$ext"


@dataclass(frozen=True)
class Ext:
    code: int
    data: bytes


def _keep_ext(code: int, data: memoryview) -> Ext:
    return Ext(code, bytes(data))


_loose = msgspec.msgpack.Decoder(ext_hook=_keep_ext)


def plain(value: Any) -> Any:
    """A decoded MessagePack value as JSON-able data (bins and exts spelled out)."""
    if isinstance(value, dict):
        return {k if isinstance(k, str) else repr(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, bytes | bytearray | memoryview):
        return {BIN: bytes(value).hex()}
    if isinstance(value, Ext):
        return {EXT: value.code, "data": value.data.hex()}
    return value


def _unplain(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {BIN} and isinstance(value[BIN], str):
            return bytes.fromhex(value[BIN])
        if set(value) == {EXT, "data"} and isinstance(value[EXT], int):
            return msgspec.msgpack.Ext(value[EXT], bytes.fromhex(value["data"]))
        return {k: _unplain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unplain(v) for v in value]
    return value


def encode_json(text: str | bytes) -> bytes:
    """One JSON value as a whole frame (length prefix and body), keys in the order given.

    Raises ``ValueError`` for text that is not JSON.
    """
    try:
        value = msgspec.json.decode(text)
    except msgspec.DecodeError as e:
        raise ValueError(f"not JSON: {e}") from None
    body = msgspec.msgpack.encode(_unplain(value))
    return HEADER.pack(len(body)) + body


@dataclass(frozen=True)
class Decoded:
    """One frame as a person reads it: its JSON, and whether a peer would take it."""

    size: int
    """Bytes of the body."""
    value: Any
    """The JSON-able value, or None when the body is not MessagePack."""
    verdict: str
    """e.g. ``"a client hello"``, or the error code and message a server would send."""
    valid: bool


def judge(body: bytes) -> Decoded:
    """Decode one frame body and say what a server (or a client) would make of it."""
    try:
        value = plain(_loose.decode(body))
    except (msgspec.DecodeError, RecursionError) as e:
        return Decoded(len(body), None, f"{errors.BAD_FRAME}: not valid MessagePack: {e}", False)
    kind = value.get("type") if isinstance(value, dict) else None
    sides = [
        (side, decode)
        for side, table, decode in (
            ("client", CLIENT_TYPES, decode_client),
            ("server", SERVER_TYPES, decode_server),
        )
        if isinstance(kind, str) and kind in table
    ] or [("client", decode_client)]
    refusals = []
    for side, decode in sides:
        try:
            decode(body)
        except ProtocolError as e:
            refusals.append(f"{e.code}: {e.message}")
            continue
        return Decoded(len(body), value, f"a {side} {kind}", True)
    return Decoded(len(body), value, "; ".join(refusals), False)


def trace_line(sender: str, body: bytes, seconds: float, copy: int) -> bytes:
    """One frame as a line of a trace (``bot check --trace``): when, which copy of the
    program, who sent it, and the message (or its bytes and why they were refused)."""
    shown = judge(body)
    line: dict[str, Any] = {"t": round(seconds, 6), "copy": copy, "from": sender}
    if shown.value is not None:
        line["message"] = shown.value
    if not shown.valid:
        line["hex"] = body.hex()
        line["refused"] = shown.verdict
    return msgspec.json.encode(line) + b"\n"


def split(data: bytes) -> tuple[list[bytes], str | None]:
    """Frame bodies in ``data``: a stream of whole frames, or else one bare body.

    The second item says what is wrong with bytes left over, if any.
    """
    bodies: list[bytes] = []
    at = 0
    while len(data) - at >= 4:
        (size,) = HEADER.unpack_from(data, at)
        if len(data) - at - 4 < size:
            break
        bodies.append(data[at + 4 : at + 4 + size])
        at += 4 + size
    if at == len(data) and bodies:
        return bodies, None
    if not bodies:
        try:
            _loose.decode(data)
        except (msgspec.DecodeError, RecursionError):
            pass
        else:
            return [data], None  # a body without its length prefix
    rest = len(data) - at
    if rest >= 4:
        (size,) = HEADER.unpack_from(data, at)
        why = f"{rest} bytes left over: a frame of {size} bytes was announced, {rest - 4} follow"
    else:
        why = f"{rest} bytes left over: a length prefix is 4 bytes"
    return bodies, why


def read_hex(text: str) -> bytes:
    """Hex digits with any spaces, newlines or ``0x``/``:`` separators between bytes."""
    cleaned = text.replace("0x", "").replace(":", "").replace(",", "")
    digits = "".join(cleaned.split())
    if not digits or any(c not in string.hexdigits for c in digits) or len(digits) % 2:
        raise ValueError("not hex: give pairs of hex digits, e.g. 00 00 00 0b 82 a4 74 79 70 65")
    return bytes.fromhex(digits)


def hex_bytes(data: bytes, spaced: bool = False) -> str:
    return data.hex(" ") if spaced else data.hex()


__all__ = [
    "Decoded",
    "encode_json",
    "hex_bytes",
    "judge",
    "plain",
    "read_hex",
    "split",
    "trace_line",
]
