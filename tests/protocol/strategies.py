"""Hypothesis strategies shared by the tests of the decoders."""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st


def msgpack_values(*words: str) -> st.SearchStrategy[Any]:
    """Any value MessagePack holds, nested a little, with ``words`` among its strings
    (card names, say, so that some frames are good ones)."""
    text = st.text(max_size=5) | st.sampled_from(words) if words else st.text(max_size=5)
    return st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**63), max_value=2**64 - 1)  # what MessagePack holds
        | text
        | st.floats(),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner),
        max_leaves=6,
    )
