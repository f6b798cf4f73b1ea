"""Which groups of cards may be discarded together.

Two independent paths on purpose: ``explain_discard`` judges any list of cards
and says why it fails; ``hand_info`` lists every legal group of a hand (at
most five cards) once and caches it by the hand's bit mask, which is what makes
the turn loop fast. It looks each of the hand's 31 subsets up in a table of all
legal groups of the pack (some 16,000, built from the rules once). Tests check
that the two agree.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, product

import msgspec

from .cards import BIT, NAMES, RANK, VALUE, Card, cards_of
from .phrase import Phrase
from .rules import STANDARD, Rules


def explain_discard(cards: Sequence[int], rules: Rules = STANDARD) -> Phrase | None:
    """Why ``cards`` may not be discarded together, or None if they may: an English
    ``Phrase``, which an edge says in its reader's language."""
    n = len(cards)
    if n == 0:
        return Phrase("a discard needs at least one card")
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            return Phrase("{card} is listed twice: each card exists once", card=NAMES[c])
        seen.add(c)
    if n == 1:
        return None
    ranks = sorted(RANK[c] for c in cards)
    suits = {c & 3 for c in cards}
    distinct = len(set(ranks))
    if distinct == 1:
        if n in (2, 4):
            return None
        return Phrase("three of a kind is not a legal discard (sets are 2 or 4 cards of one rank)")
    if n == 5 and len(suits) == 1:
        return None  # a flush (and maybe a run too)
    if distinct == n and _consecutive(ranks):
        if n not in (3, 5):
            return Phrase("a run must be 3 or 5 cards, not {n}", n=n)
        if rules.runs_same_suit and len(suits) > 1:
            return Phrase("runs must be of one suit at this table")
        return None
    if distinct == n and {1, 2, 13} <= set(ranks):
        return Phrase("a run does not wrap around from King through Ace to 2")
    if n == 4 and len(suits) == 1:
        return Phrase("four cards of one suit are no flush (a flush is 5)")
    if distinct == 2 and n == 4 and ranks.count(ranks[0]) == 2:
        return Phrase("two pairs of different ranks cannot be discarded together")
    return Phrase(
        "{cards} is not a single card, a pair, four of a kind, a run of 3 or 5, or a flush of 5",
        cards=" ".join(NAMES[c] for c in cards),
    )


def _consecutive(ranks: list[int]) -> bool:
    """Sorted distinct ranks in a row, Ace low or (after King) high."""
    if ranks[-1] - ranks[0] == len(ranks) - 1:
        return True
    if ranks[0] == 1:
        high = [*ranks[1:], 14]
        return high[-1] - high[0] == len(high) - 1
    return False


def is_legal_discard(cards: Sequence[int], rules: Rules = STANDARD) -> bool:
    return explain_discard(cards, rules) is None


class HandInfo(msgspec.Struct, frozen=True, gc=False):
    """Everything about one hand that does not depend on the rest of the table.

    Cached by mask: there are 2.9 million hands of up to five cards, so the
    cache is bounded. ``Card`` objects keep any tuple holding them tracked by the
    garbage collector, so an entry holds just one such tuple (``cards``) and
    groups are card masks; otherwise collection costs a third of a match.
    """

    mask: int
    cards: tuple[Card, ...]
    total: int
    rank_mask: int
    """Bit ``r`` set when the hand holds a card of rank ``r`` (1-13)."""
    groups: tuple[int, ...]
    """Every legal discard as a card mask, in ascending order."""
    group_index: dict[int, int]
    group_values: tuple[int, ...]

    @property
    def discards(self) -> tuple[tuple[Card, ...], ...]:
        """Every legal discard as cards, in the order of ``groups``."""
        return tuple([group_cards(g) for g in self.groups])


def _new_hand(mask: int, same_suit: bool) -> HandInfo:
    legal = _legal_groups(same_suit)
    groups: list[int] = []
    values: list[int] = []
    sub = mask
    while sub:  # every non-empty subset of the hand, largest mask first
        value = legal.get(sub)
        if value is not None:
            groups.append(sub)
            values.append(value)
        sub = (sub - 1) & mask
    groups.reverse()
    values.reverse()
    cards = cards_of(mask)
    rank_mask = 0
    total = 0
    for c in cards:
        rank_mask |= 1 << RANK[c]
        total += VALUE[c]
    info = HandInfo(
        mask,
        cards,
        total,
        rank_mask,
        tuple(groups),
        {g: i for i, g in enumerate(groups)},
        tuple(values),
    )
    cache = _HANDS[same_suit]
    if len(cache) >= HAND_CACHE_SIZE:
        cache.clear()
    cache[mask] = info
    return info


HAND_CACHE_SIZE = 1 << 17
"""Entries per rules variant (runs of any suit, runs of one suit), each about 0.6 KB:
some 85 MB when full. ``python -m bench.engine --hand-cache`` measures what a bound
buys: greedy self-play runs about a quarter faster with a thousand hands (0.5 MB)
than with 256, and no faster within its noise with more, in runs of seconds; the
large default is for a bot's play-outs and long tournaments, which meet many more
hands (not measured there). A server, which meets each hand a few times in one
move and seldom again, keeps far fewer (``set_hand_cache_size``)."""
LONG_RUN_HAND_CACHE = 4096
"""The bound for a process that plays for days, a hand a few times each (a server, an
arena): some 4 MB instead of the default's 110 MB."""
_HANDS: tuple[dict[int, HandInfo], dict[int, HandInfo]] = ({}, {})


def set_hand_cache_size(entries: int) -> None:
    """Bound the hand cache of this process to ``entries`` hands per rules variant.

    Past the bound the cache starts afresh, so memory stays below ``entries``
    times about 0.9 KB per variant however long the process plays.
    """
    global HAND_CACHE_SIZE
    if entries < 1:
        raise ValueError(f"the hand cache needs room for at least 1 hand, not {entries}")
    HAND_CACHE_SIZE = entries
    for cache in _HANDS:
        if len(cache) > entries:
            cache.clear()


def for_a_long_run(hands: int) -> None:
    """Ready this process to play for days: the hand cache bounded to ``hands``
    (``set_hand_cache_size``), and every legal group's cards, names and mask worked
    out now (``hold_every_group``)."""
    set_hand_cache_size(hands)
    hold_every_group()


def hold_every_group() -> None:
    """Fill the tables of every legal group's cards, names and mask at once (16,259
    groups, about 4 MB, 0.06 s). Why: filled as groups are met, they grow for days in a
    process that referees many matches, a rare five-card run or flush at a time
    (15,348 of the groups have five cards), and each table grows in steps as it
    passes a size; a server or an arena holds its memory flat only once they are whole."""
    for mask in _legal_groups(False):  # runs of one suit are among these
        group_cards(mask)


def groups_held() -> int:
    """Legal groups whose cards, names and mask are held now (``hold_every_group``)."""
    return len(_GROUP_CARDS)


def hand_cache_size() -> int:
    """Hands held in the cache now, every rules variant together."""
    return sum(len(cache) for cache in _HANDS)


def hand_info(mask: int, same_suit: bool = False) -> HandInfo:
    """The cached facts of the hand with bit mask ``mask``."""
    info = _HANDS[same_suit].get(mask)
    return info if info is not None else _new_hand(mask, same_suit)


_GROUP_CARDS: dict[int, tuple[Card, ...]] = {}
_GROUP_NAMES: dict[int, tuple[str, ...]] = {}
DISCARD_MASK: dict[tuple[Card, ...], int] = {}
"""A legal group's cards in canonical order -> its mask: the fast path of a turn.

Shared by all hands: there are only some 16,000 legal groups.
"""


def group_cards(mask: int) -> tuple[Card, ...]:
    cards = _GROUP_CARDS.get(mask)
    if cards is None:
        cards = _GROUP_CARDS[mask] = cards_of(mask)
        _GROUP_NAMES[mask] = tuple([NAMES[c] for c in cards])
        DISCARD_MASK[cards] = mask
    return cards


def group_names(mask: int) -> tuple[str, ...]:
    names = _GROUP_NAMES.get(mask)
    if names is None:
        group_cards(mask)
        names = _GROUP_NAMES[mask]
    return names


_LEGAL: dict[bool, dict[int, int]] = {}


def _legal_groups(same_suit: bool) -> dict[int, int]:
    """Every legal group of the pack, as mask -> the points of its cards (built once)."""
    table = _LEGAL.get(same_suit)
    if table is None:
        table = _LEGAL[same_suit] = _build_legal_groups(same_suit)
    return table


def _build_legal_groups(same_suit: bool) -> dict[int, int]:
    table: dict[int, int] = {}

    def add(cards: Sequence[int]) -> None:
        mask = 0
        for c in cards:
            mask |= BIT[c]
        table[mask] = sum([VALUE[c] for c in cards])

    of_rank = {rank: [(rank - 1) * 4 + suit for suit in range(4)] for rank in range(1, 14)}
    for card in range(52):
        add((card,))
    for same in of_rank.values():
        for pair in combinations(same, 2):
            add(pair)
        add(same)
    for length in (3, 5):  # runs, Ace low or (as "14", after the King) high
        for low in range(1, 16 - length):
            ranks = [1 if r == 14 else r for r in range(low, low + length)]
            for run in product(*(of_rank[r] for r in ranks)):
                if not same_suit or len({c & 3 for c in run}) == 1:
                    add(run)
    for suit in range(4):
        for flush in combinations(range(suit, 52, 4), 5):
            add(flush)
    return table


def legal_discards(hand: Sequence[int], rules: Rules = STANDARD) -> list[tuple[Card, ...]]:
    """Every legal group in ``hand``, each once, in a stable order."""
    mask = 0
    for c in hand:
        mask |= BIT[c]
    if mask.bit_count() <= 5:
        return list(hand_info(mask, rules.runs_same_suit).discards)
    return [  # longer hands only come from callers outside a match
        group
        for n in (1, 2, 3, 4, 5)
        for group in combinations(sorted(Card(c) for c in set(hand)), n)
        if is_legal_discard(group, rules)
    ]
