"""The names of a match's seats."""

from __future__ import annotations

from collections.abc import Sequence


def unique_names(names: Sequence[str]) -> list[str]:
    """The names as a match shows them: alike ones told apart by their count, the
    second ``"Greedy bot"`` being ``"Greedy bot (2)"`` (PROTOCOL.md, ``seat_info``),
    so that every event names one seat. The same at a server's table, in ``demo``
    and in a local match."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} ({seen[name]})")
    return out
