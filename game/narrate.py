"""Events told in words, for people: the client's move list, replays and demos."""

from __future__ import annotations

from collections.abc import Sequence

from .events import (
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
)


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``: a place as people say it."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def describe(event: Event, names: Sequence[str], me: int | None = None) -> str:
    """One line about ``event``; ``me`` is the reader's seat ("you")."""

    def who(seat: int) -> str:
        return "you" if seat == me else names[seat]

    def Who(seat: int) -> str:
        return "You" if seat == me else names[seat]

    if isinstance(event, MatchStarted):
        return f"Match of {', '.join(event.seats)} to {event.rules.threshold} points"
    if isinstance(event, RoundStarted):
        return (
            f"Round {event.round}: {who(event.dealer)} dealt, {who(event.first)} to start; "
            f"open card {' '.join(event.open)}"
        )
    if isinstance(event, Played):
        took = f"took {event.took}" if event.took else "drew from the deck"
        if event.drawn:
            took = f"drew {event.drawn}"
        late = " (out of time)" if event.auto else ""
        return f"{Who(event.seat)} discarded {' '.join(event.discard)} and {took}{late}"
    if isinstance(event, Reshuffled):
        return f"The dead pile was shuffled into a new deck of {event.size}"
    if isinstance(event, Declared):
        total = event.totals[event.seat]
        was = "were" if event.seat == me else "was"
        verdict = f"and {was} lowest" if event.holds else f"but {was} not lowest"
        line = f"{Who(event.seat)} declared at {total} {verdict}"
        if event.eliminated:
            line += f"; out: {', '.join(who(s) for s in event.eliminated)}"
        return line
    if isinstance(event, RoundVoid):
        return f"Round {event.round} reached {event.turns} turns without a declaration: void"
    if isinstance(event, Resigned):
        return f"{Who(event.seat)} left the match ({event.reason})"
    if isinstance(event, MatchEnded):
        return "Match over: " + ", ".join(
            f"{ordinal(s.place)} {who(s.seat)} ({s.score})" for s in event.standings
        )
    return type(event).__name__
