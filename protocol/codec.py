"""Bytes <-> typed messages. Pure functions; the edges call them.

Decoding is envelope-first: the frame is read as plain MessagePack (refusing
extension types), checked to be a map with a string ``type``, and only then
converted to that type's struct, so each failure gets its own error code:
``bad_frame`` (not one map), ``unknown_type``, ``bad_message`` (schema).

Two promises of the protocol are kept here, once for every message type: nil
in an optional field means its default, and a client's frame nests at most
``MAX_DEPTH`` levels.
"""

from __future__ import annotations

from typing import Any

import msgspec

from . import errors
from .framing import HEADER
from .messages import (
    CLIENT_TYPES,
    SERVER_TYPES,
    ClientMessage,
    Message,
    ServerMessage,
    optional_fields,
)
from .text import PRINTABLE, PRINTABLE_RULE

MAX_DEPTH = 32
"""How deep a client's frame may nest maps and arrays; the top map is level 1."""

_OPTIONAL = {cls: optional_fields(cls) for cls in CLIENT_TYPES.values()}


def _refuse_ext(code: int, data: memoryview) -> Any:
    raise ValueError(f"MessagePack extension types are not allowed (got ext type {code})")


_raw = msgspec.msgpack.Decoder(ext_hook=_refuse_ext)
_encoder = msgspec.msgpack.Encoder()


_encode = _encoder.encode
_pack = HEADER.pack


def encode(message: msgspec.Struct) -> bytes:
    """One whole frame: length prefix and body."""
    # Two small bytes objects joined: less than half the time of encode_into a
    # fresh bytearray (which grows, then is copied out) for a frame this size.
    body = _encode(message)
    return _pack(len(body)) + body


_NESTED = (dict, list, tuple)  # a MessagePack array used as a map key decodes as a tuple
_HEADERS = bytes([*range(0x80, 0xA0), *range(0xDC, 0xE0)])
"""The bytes that open a map or an array (fixmap, fixarray, map 16/32, array 16/32)."""
_NOT_HEADERS = bytes(sorted(set(range(256)) - set(_HEADERS)))
_EXTS = bytes([0xC7, 0xC8, 0xC9, *range(0xD4, 0xD9)])
"""The bytes that open an extension type (ext 8/16/32, fixext 1-16)."""
_NOT_EXTS = bytes(sorted(set(range(256)) - set(_EXTS)))
_NOT_MARKS = bytes(sorted(set(range(256)) - set(_HEADERS) - set(_EXTS)))
_typed = msgspec.msgpack.Decoder(ClientMessage)
_typed_server = msgspec.msgpack.Decoder(ServerMessage, ext_hook=_refuse_ext)


def _within(obj: dict[Any, Any], limit: int) -> bool:
    """Whether ``obj`` nests maps and arrays, keys too, at most ``limit`` levels deep."""
    level: list[Any] = [obj]
    for _ in range(limit):
        inner = []
        for container in level:
            if type(container) is dict:
                for key, value in container.items():
                    if type(value) in _NESTED:
                        inner.append(value)
                    if type(key) is tuple:
                        inner.append(key)
            else:
                inner += [item for item in container if type(item) in _NESTED]
        if not inner:
            return True
        level = inner
    return False


def _envelope(body: bytes, max_depth: int | None = None) -> tuple[dict[str, Any], str, int | None]:
    try:
        obj = _raw.decode(body)
    except (msgspec.DecodeError, ValueError, RecursionError) as e:
        raise errors.ProtocolError(errors.BAD_FRAME, f"not valid MessagePack: {e}") from None
    if type(obj) is not dict:
        raise errors.ProtocolError(
            errors.BAD_FRAME, f"a frame holds one MessagePack map, not {type(obj).__name__}"
        )
    # Every map or array opens with one of _HEADERS (a string may hold such bytes too):
    # a frame with no more of them than the limit cannot nest deeper, whatever it holds.
    if (
        max_depth is not None
        and len(body) > max_depth
        and len(body.translate(None, _NOT_HEADERS)) > max_depth
        and not _within(obj, max_depth)
    ):
        raise errors.ProtocolError(
            errors.BAD_FRAME, f"maps and arrays nest more than {max_depth} levels deep"
        )
    msg_id = obj.get("id")
    if msg_id is not None and (type(msg_id) is not int):
        raise errors.ProtocolError(errors.BAD_MESSAGE, "id must be an integer")
    kind = obj.get("type")
    if type(kind) is not str:
        raise errors.ProtocolError(
            errors.BAD_MESSAGE, "every message needs a string field 'type'", msg_id
        )
    return obj, kind, msg_id


def decode_client(body: bytes) -> Message:
    """A client's frame body as a typed message, or ``ProtocolError`` saying why not.

    Most frames are read in one pass, straight into their struct: a frame with no byte
    that could open an extension type, and too few that open a map or an array to nest
    past ``MAX_DEPTH``, is one the envelope would let through, and msgspec's typed
    decoder gives the same struct as the envelope's map converted. Any frame it refuses
    takes the envelope's way, which says why (or reads nil as a default)."""
    marks = body.translate(None, _NOT_MARKS)
    if len(marks) <= MAX_DEPTH and not marks.translate(None, _HEADERS):
        try:
            message: Message = _typed.decode(body)
            return message
        except (msgspec.DecodeError, msgspec.ValidationError):
            pass
    return _decode_client_by_envelope(body)


def _decode_client_by_envelope(body: bytes) -> Message:
    """``decode_client`` the long way: the frame as a map, checked, then converted."""
    obj, kind, msg_id = _envelope(body, MAX_DEPTH)
    cls = CLIENT_TYPES.get(kind)
    if cls is None:
        raise errors.ProtocolError(
            errors.UNKNOWN_TYPE, f"unknown message type {kind[:40]!r}", msg_id, kind
        )
    try:
        return msgspec.convert(obj, cls)
    except msgspec.ValidationError as e:
        refusal = e
    # Nil in an optional field means its default. A field whose type takes nil has nil
    # for its default (tests/protocol check it), so only a refused message needs a second
    # look, and the common case costs nothing.
    if None in obj.values():
        optional = _OPTIONAL[cls]
        try:
            return msgspec.convert(
                {k: v for k, v in obj.items() if v is not None or k not in optional}, cls
            )
        except msgspec.ValidationError as e:
            refusal = e
    raise errors.ProtocolError(
        errors.BAD_MESSAGE, f"bad {kind}: {_in_words(refusal)}", msg_id, kind
    )


_PATTERN = f"`str` matching regex {PRINTABLE!r}"


def _in_words(error: msgspec.ValidationError) -> str:
    """msgspec's own sentence (it names the field), with the text pattern said in words."""
    return str(error).replace(_PATTERN, PRINTABLE_RULE)


def decode_server(body: bytes, *, plain: bool = False) -> msgspec.Struct | None:
    """A server's frame body as a typed message; None for a type this client does not know.

    Most frames are read in one pass, straight into their struct, as in
    ``decode_client``. A frame that may hold an extension type takes the envelope's
    way, which refuses it as the protocol says (the typed decoder would skip one in a
    field it does not know), and so does any frame the typed decoder refuses: the
    envelope has the last word. ``plain``: the caller has seen that ``body`` holds no
    byte that may open an extension type (one look at a whole read)."""
    if plain or not may_hold_ext(body):
        try:
            message: msgspec.Struct = _typed_server.decode(body)
            return message
        except (msgspec.DecodeError, ValueError, RecursionError):  # ValidationError is one
            pass
    return _decode_server_by_envelope(body)


def _decode_server_by_envelope(body: bytes) -> msgspec.Struct | None:
    """``decode_server`` the long way: the frame as a map, checked, then converted."""
    obj, kind, msg_id = _envelope(body)
    cls = SERVER_TYPES.get(kind)
    if cls is None:
        return None
    try:
        return msgspec.convert(obj, cls)
    except msgspec.ValidationError as e:
        raise errors.ProtocolError(errors.BAD_MESSAGE, f"bad {kind}: {e}", msg_id) from None


def may_hold_ext(data: bytes) -> bool:
    """Whether ``data`` may hold an extension type: each one starts with one of the
    ``_EXTS`` bytes (which other values may hold too: those frames merely take the long
    way). A deleting ``translate`` looks at a byte in a third of what a regular
    expression's search takes."""
    return bool(data.translate(None, _NOT_EXTS))
