"""Frames on a byte stream: a 4-byte big-endian length, then that many bytes.

Sans-I/O: ``FrameReader`` is fed whatever bytes arrived and hands back whole
frames; it refuses an oversized frame from its length prefix alone, before a
single byte of the body is buffered.
"""

from __future__ import annotations

import struct

HEADER = struct.Struct(">I")
MAX_FRAME = 64 * 1024
"""Default cap on a frame from a client (the body, without the prefix)."""
SERVER_FRAME_LIMIT = 1 << 24
"""The cap a client puts on frames from a server or a host: a snapshot or a list of
tables may be far larger than anything a client sends, but not without bound."""


class FrameTooLarge(Exception):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"a frame of {size} bytes is over the limit of {limit}")
        self.size = size
        self.limit = limit


class FrameReader:
    """Splits a byte stream into frames."""

    __slots__ = ("_buffer", "_limit")

    def __init__(self, limit: int = MAX_FRAME) -> None:
        self._buffer = bytearray()
        self._limit = limit

    def feed(self, data: bytes) -> list[bytes]:
        """Add ``data``; return every frame now complete (possibly none).

        Raises ``FrameTooLarge`` as soon as a length prefix over the limit is seen.
        """
        buf = self._buffer
        if type(data) is not bytes:
            data = bytes(data)
        if buf:  # the rest of a frame begun in an earlier read
            buf += data
            data = bytes(buf)
            buf.clear()
        # Frames are cut straight from ``data``: when reads end on frame boundaries, as
        # they mostly do, nothing is buffered and each frame is copied once.
        frames: list[bytes] = []
        start = 0
        end = len(data)
        unpack, limit = HEADER.unpack_from, self._limit
        while end - start >= 4:
            (size,) = unpack(data, start)
            if size > limit:
                buf += data[start:]
                raise FrameTooLarge(size, limit)
            if end - start - 4 < size:
                break
            frames.append(data[start + 4 : start + 4 + size])
            start += 4 + size
        if start < end:
            buf += data[start:]
        return frames

    @property
    def pending(self) -> int:
        """Bytes received that are not yet a whole frame."""
        return len(self._buffer)


def frame(body: bytes) -> bytes:
    return HEADER.pack(len(body)) + body
