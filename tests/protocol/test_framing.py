"""FrameReader: the same frames however the stream is cut into reads."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from leastscore.protocol import FrameReader, FrameTooLarge, frame


@settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    bodies=st.lists(st.binary(max_size=40), max_size=8),
    cuts=st.lists(st.integers(min_value=0, max_value=400), max_size=8),
    kind=st.sampled_from([bytes, bytearray, memoryview]),
)
def test_any_cut_of_the_stream_gives_the_same_frames(
    bodies: list[bytes], cuts: list[int], kind: type
) -> None:
    stream = b"".join(frame(b) for b in bodies)
    points = sorted({0, len(stream), *(c for c in cuts if c < len(stream))})
    reader = FrameReader(limit=64)
    got: list[bytes] = []
    for a, b in itertools.pairwise(points):
        frames = reader.feed(kind(stream[a:b]))
        assert all(type(f) is bytes for f in frames)
        got += frames
    assert got == bodies and reader.pending == 0


def test_an_oversized_frame_is_refused_from_its_prefix_and_the_rest_kept() -> None:
    reader = FrameReader(limit=8)
    assert reader.feed(frame(b"ok") + b"\x00\x00") == [b"ok"]
    assert reader.pending == 2
    with pytest.raises(FrameTooLarge) as refused:
        reader.feed(b"\x00\x09")  # 9 bytes said, none sent
    assert refused.value.size == 9 and refused.value.limit == 8
    assert reader.pending == 4


def test_a_frame_split_inside_its_prefix() -> None:
    reader = FrameReader()
    data = frame(b"hello")
    assert reader.feed(data[:2]) == []
    assert reader.feed(data[2:5]) == []
    assert reader.feed(data[5:] + frame(b"")) == [b"hello", b""]
