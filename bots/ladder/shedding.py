"""How many points a hand can shed in one discard: the core of looking a turn ahead.

``best_shed`` is the value of the best legal group in a hand. It is asked for
hundreds of hands a turn, so it is computed from ranks directly (no group list)
and cached by mask (bounded), apart from the engine's hand cache.
"""

from __future__ import annotations

from functools import lru_cache

from leastscore.game.cards import RANK, VALUE


@lru_cache(maxsize=1 << 18)
def best_shed(mask: int, same_suit: bool = False) -> int:
    """The most points one legal discard from the hand ``mask`` removes."""
    return best_group(mask, same_suit)[1]


def best_group(mask: int, same_suit: bool = False) -> tuple[int, int]:
    """The legal discard of the hand ``mask`` that sheds the most points, and those points.

    At equal points the group with more cards wins (it leaves fewer to hold).
    """
    cards = []
    m = mask
    while m:
        low = m & -m
        cards.append(low.bit_length() - 1)
        m ^= low
    if not cards:
        return 0, 0
    best = (-1, 0)
    group = 0
    by_rank: dict[int, list[int]] = {}
    for c in cards:
        key = (VALUE[c], 1)
        if key > best:
            best, group = key, 1 << c
        by_rank.setdefault(RANK[c], []).append(c)
    for same in by_rank.values():
        if len(same) >= 2:
            v = VALUE[same[0]]
            key = (4 * v, 4) if len(same) == 4 else (2 * v, 2)
            if key > best:
                best = key
                group = sum(1 << c for c in same) if len(same) == 4 else 1 << same[0] | 1 << same[1]
    if len(cards) == 5 and (len({c & 3 for c in cards}) == 1 or _five_run(by_rank, same_suit)):
        key = (sum(VALUE[c] for c in cards), 5)
        if key > best:
            best, group = key, mask
    if len(by_rank) >= 3:
        for low in range(1, 13):
            r1 = by_rank.get(low)
            r2 = by_rank.get(low + 1)
            r3 = by_rank.get(1 if low == 12 else low + 2)
            if r1 and r2 and r3:
                if same_suit:
                    picks = [
                        (a, b, z) for a in r1 for b in r2 for z in r3 if a & 3 == b & 3 == z & 3
                    ]
                else:
                    picks = [(r1[0], r2[0], r3[0])]  # any pick of these ranks sheds the same
                for a, b, z in picks:
                    key = (VALUE[a] + VALUE[b] + VALUE[z], 3)
                    if key > best:
                        best, group = key, 1 << a | 1 << b | 1 << z
    return group, best[0]


def _five_run(by_rank: dict[int, list[int]], same_suit: bool) -> bool:
    """Five distinct ranks in a row; with ``same_suit`` only the flush counts."""
    if same_suit or len(by_rank) != 5:
        return False
    ranks = sorted(by_rank)
    if ranks[-1] - ranks[0] == 4:
        return True
    return ranks[0] == 1 and ranks[1] == 10  # 10 J Q K A


_RANK_VALUE = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10, 1)
"""Value by rank, 14 being the Ace played high."""


@lru_cache(maxsize=1 << 15)
def shed_with(kept: int, same_suit: bool = False) -> tuple[int, ...]:
    """``best_shed(kept | card)`` for every card index (cards of ``kept`` give ``best_shed(kept)``).

    One table answers a whole deck draw: the caller averages it over the cards
    the deck may hold. ``kept`` holds at most four cards.
    """
    return _shed_with(kept, same_suit)


def _shed_with(kept: int, same_suit: bool) -> tuple[int, ...]:
    base = best_shed(kept, same_suit)
    count = [0] * 15
    suit_ranks = [0, 0, 0, 0]
    ranks = 0
    total = 0
    n = 0
    m = kept
    while m:
        low = m & -m
        c = low.bit_length() - 1
        m ^= low
        r = RANK[c]
        count[r] += 1
        ranks |= 1 << r
        suit_ranks[c & 3] |= 1 << r
        total += VALUE[c]
        n += 1
    if ranks & 2:
        ranks |= 1 << 14
        for s in range(4):
            if suit_ranks[s] & 2:
                suit_ranks[s] |= 1 << 14
    flush_suit = -1
    if n == 4:
        for s in range(4):
            if suit_ranks[s] and (suit_ranks[s] & ~(1 << 14)).bit_count() == 4:
                flush_suit = s
    out = [0] * 52
    for r in range(1, 14):
        v = _RANK_VALUE[r]
        best = base if base > v else v
        k = count[r]
        if k:
            pair = 4 * v if k == 3 else 2 * v
            if pair > best:
                best = pair
        if not same_suit:
            for need, run in _RUNS[r]:
                if ranks & need == need and run > best:
                    best = run
            if n == 4 and not ranks >> r & 1 and _makes_five(ranks, r) and total + v > best:
                best = total + v
        i = (r - 1) * 4
        for s in range(4):
            b = best
            if same_suit:
                for need, run in _RUNS[r]:
                    if suit_ranks[s] & need == need and run > b:
                        b = run
            if s == flush_suit and total + v > b:
                b = total + v
            out[i + s] = b
    return tuple(out)


def _runs(r: int) -> tuple[tuple[int, int], ...]:
    """(the other two ranks as a mask, the run's value) for each three-card run with rank ``r``."""
    out = []
    for rr in (r, 14) if r == 1 else (r,):
        for a, b in ((rr - 2, rr - 1), (rr - 1, rr + 1), (rr + 1, rr + 2)):
            if a >= 1 and b <= 14:
                out.append((1 << a | 1 << b, _RANK_VALUE[rr] + _RANK_VALUE[a] + _RANK_VALUE[b]))
    return tuple(out)


_RUNS = (((0, 0),), *(_runs(r) for r in range(1, 14)))


def _makes_five(ranks: int, r: int) -> bool:
    """Do four distinct kept ranks and ``r`` make five in a row (Ace low or high)?"""
    with_r = ranks | 1 << r | (1 << 14 if r == 1 else 0)
    for row in (with_r & ~(1 << 14), with_r & ~2):  # Ace low, Ace high
        low = row & -row
        if row == low * 0b11111:
            return True
    return False
