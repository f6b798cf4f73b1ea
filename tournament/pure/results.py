"""What one finished match leaves behind: all the standings need, and nothing more.

A result is summarized from the match's full event log and the referee's
fault counts, and stored as one JSON line. Standings are computed from
results alone, so a stored tournament can be re-reported and resumed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import msgspec
from leastscore.game import Declared, Event, Match, Played
from leastscore.seats.core import Faults

Status = Literal["played", "aborted"]


class SeatResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    bot: str
    place: int
    """1 for the winner; equals share a place."""
    score: int
    """Match score at the end."""
    rounds: int
    """Rounds it was dealt in that were settled by a declaration."""
    points: int
    """The sum of its round scores in those rounds."""
    declared: int
    held: int
    """Declarations that were lowest (scored 0)."""
    timeouts: int = 0
    illegal: int = 0
    crashes: int = 0
    lost_on_time: int = 0
    """1 when its time-control bank ran out: it lost the match on time (a forfeit)."""
    forfeit: bool = False
    faults: dict[str, int] = msgspec.field(default_factory=dict)
    """A program's limits gone over in this match, by kind (``memory``, ``cpu``, ...)."""
    failures: dict[str, int] = msgspec.field(default_factory=dict)
    """Its ``crashes`` by how they came about: ``start`` (it could not start, said no
    hello in time, or was not there), ``crash`` (it exited or stopped reading),
    ``garbled`` (it wrote what is no frame), ``protocol`` (it broke the protocol),
    ``limit`` (it went over a limit), ``gone`` (a remote entrant disconnected or
    never connected)."""
    cpu_seconds: float = 0.0
    """A program's CPU time during this match (0 for in-process bots)."""


class MatchResult(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    fixture: int
    status: Status
    seats: tuple[SeatResult, ...]
    """By seat; empty for an aborted match."""
    end: str
    """Why the match ended (``winner``, ``first_out``, ``max_rounds``) or was aborted."""
    rounds: int = 0
    moves: int = 0
    seconds: float = 0.0
    """Wall-clock time: reported, never counted in the standings."""
    problems: tuple[str, ...] = ()
    """What went wrong with external programs, in plain words."""


def _declarations(
    log: Sequence[Event], n: int
) -> tuple[list[int], list[int], list[int], list[int], int]:
    """By seat: rounds settled by a declaration, their points, declarations made and
    held; and the moves played."""
    rounds, points, declared, held = [0] * n, [0] * n, [0] * n, [0] * n
    others = 0  # most events are plays: counting the rest is the shorter loop
    for event in log:
        if type(event) is Played:
            continue
        others += 1
        if type(event) is Declared:
            declared[event.seat] += 1
            held[event.seat] += event.holds
            for seat, score in enumerate(event.round_scores):
                if score is not None:
                    rounds[seat] += 1
                    points[seat] += score
    return rounds, points, declared, held, len(log) - others


def summarize(
    fixture: int,
    match: Match,
    faults: Sequence[Faults],
    *,
    seconds: float = 0.0,
    problems: Sequence[str] = (),
    usage: Sequence[tuple[dict[str, int], float]] = (),
) -> MatchResult:
    n = match.seat_count
    rounds, points, declared, held, moves = _declarations(match.log, n)
    places = {s.seat: s.place for s in match.standings}
    forfeits = set(match.resigned)
    usage = list(usage) or [({}, 0.0)] * n
    seats = tuple(
        SeatResult(
            bot=match.names[i],
            place=places[i],
            score=match.scores[i],
            rounds=rounds[i],
            points=points[i],
            declared=declared[i],
            held=held[i],
            timeouts=faults[i].timeouts,
            illegal=faults[i].illegal,
            crashes=faults[i].crashes,
            lost_on_time=faults[i].lost_on_time,
            failures=dict(sorted(faults[i].failures.items())),
            forfeit=i in forfeits,
            faults=usage[i][0],
            cpu_seconds=round(usage[i][1], 3),
        )
        for i in range(n)
    )
    return MatchResult(
        fixture=fixture,
        status="played",
        seats=seats,
        end=match.end_reason or "",
        rounds=match.round,
        moves=moves,
        seconds=round(seconds, 4),
        problems=tuple(problems),
    )


def aborted(fixture: int, why: str, seconds: float = 0.0) -> MatchResult:
    """A match that could not be played to its end (its process died, or the runner failed)."""
    return MatchResult(fixture=fixture, status="aborted", seats=(), end=why, seconds=seconds)


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(MatchResult)


def encode_result(result: MatchResult) -> bytes:
    """One JSON line, newline included."""
    return _encoder.encode(result) + b"\n"


def decode_result(line: bytes) -> MatchResult:
    return _decoder.decode(line)
