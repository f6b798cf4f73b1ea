"""Round scores at a declaration, and final standings."""

from __future__ import annotations

from collections.abc import Sequence

import msgspec

from .rules import STANDARD, Rules


def declaration_holds(totals: Sequence[int], declarer: int, rules: Rules = STANDARD) -> bool:
    """True when the declarer is lowest (a tie counts only without ``tie_loses``)."""
    d = totals[declarer]
    low = min(totals)
    if d != low:
        return False
    return not (rules.tie_loses and sum(1 for t in totals if t == low) > 1)


def settle(totals: Sequence[int], declarer: int, rules: Rules = STANDARD) -> list[int]:
    """Round scores, index for index with ``totals`` (the hands still in the match)."""
    if not 0 <= declarer < len(totals):
        raise ValueError(f"declarer {declarer} is not one of the {len(totals)} hands")
    d = totals[declarer]
    if declaration_holds(totals, declarer, rules):
        return [t - d for t in totals]
    penalty = rules.false_declare_penalty + d - min(totals)
    return [penalty if i == declarer else 0 for i in range(len(totals))]


class Standing(msgspec.Struct, frozen=True, gc=False):
    seat: int
    place: int
    """1 for the winner; equals share a place (1, 2, 2, 4)."""
    score: int


def place(tiers: Sequence[Sequence[tuple[int, int]]]) -> list[Standing]:
    """Standings from best to worst tiers of (seat, score); equals in a tier share a place.

    Within a tier, lower score ranks higher.
    """
    out: list[Standing] = []
    for tier in tiers:
        ordered = sorted(tier, key=lambda seat_score: (seat_score[1], seat_score[0]))
        for i, (seat, score) in enumerate(ordered):
            rank = out[-1].place if i and score == ordered[i - 1][1] else len(out) + 1
            out.append(Standing(seat, rank, score))
    return out
