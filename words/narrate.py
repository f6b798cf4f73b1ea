"""Events told in words, for people: the client's move list, replays and demos.

The words are in the process's language (``leastscore.lang``): English unless
a client chose another. A sentence about the reader ("You discarded") is its
own message, apart from the one about another player, since most languages
change more than the name.
"""

from __future__ import annotations

from collections.abc import Sequence

from leastscore.game.events import (
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

from leastscore.lang import _, heard


def ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``: a place as people say it."""
    if n == 1:
        return _("1st")
    if 10 <= n % 100 <= 20:
        form = _("{n}th")
    else:
        form = {1: _("{n}st"), 2: _("{n}nd"), 3: _("{n}rd")}.get(n % 10) or _("{n}th")
    return form.format(n=n)


def describe(event: Event, names: Sequence[str], me: int | None = None) -> str:
    """One line about ``event``; ``me`` is the reader's seat ("you")."""

    def who(seat: int) -> str:
        return _("you") if seat == me else names[seat]

    if isinstance(event, MatchStarted):
        return _("Match of {players} to {threshold} points").format(
            players=", ".join(event.seats), threshold=event.rules.threshold
        )
    if isinstance(event, RoundStarted):
        return _("Round {round}: {dealer} dealt, {first} to start; open card {cards}").format(
            round=event.round,
            dealer=who(event.dealer),
            first=who(event.first),
            cards=" ".join(event.open),
        )
    if isinstance(event, Played):
        return _played(event, names, me)
    if isinstance(event, Reshuffled):
        return _("The dead pile was shuffled into a new deck of {size}").format(size=event.size)
    if isinstance(event, Declared):
        total = event.totals[event.seat]
        if event.seat == me:
            line = (
                _("You declared at {total} and were lowest")
                if event.holds
                else _("You declared at {total} but were not lowest")
            )
        else:
            line = (
                _("{who} declared at {total} and was lowest")
                if event.holds
                else _("{who} declared at {total} but was not lowest")
            )
        line = line.format(who=names[event.seat], total=total)
        if event.eliminated:
            out = ", ".join(who(s) for s in event.eliminated)
            line = _("{declared}; out: {players}").format(declared=line, players=out)
        return line
    if isinstance(event, RoundVoid):
        return _("Round {round} reached {turns} turns without a declaration: void").format(
            round=event.round, turns=event.turns
        )
    if isinstance(event, Resigned):
        line = _("You left the match") if event.seat == me else _("{who} left the match")
        line = line.format(who=names[event.seat])
        if event.reason != f"{names[event.seat]} left":  # nothing to add to that
            line = f"{line} ({heard(event.reason)})"
        return line
    if isinstance(event, MatchEnded):
        places = ", ".join(
            _("{place} {player} ({score})").format(
                place=ordinal(s.place), player=who(s.seat), score=s.score
            )
            for s in event.standings
        )
        return _("Match over: {standings}").format(standings=places)
    return type(event).__name__


def _played(event: Played, names: Sequence[str], me: int | None) -> str:
    mine = event.seat == me
    if event.drawn:
        line = (
            _("You discarded {cards} and drew {card}")
            if mine
            else _("{who} discarded {cards} and drew {card}")
        )
    elif event.took:
        line = (
            _("You discarded {cards} and took {card}")
            if mine
            else _("{who} discarded {cards} and took {card}")
        )
    else:
        line = (
            _("You discarded {cards} and drew from the deck")
            if mine
            else _("{who} discarded {cards} and drew from the deck")
        )
    line = line.format(
        who=names[event.seat], cards=" ".join(event.discard), card=event.drawn or event.took
    )
    if event.auto:
        line = _("{move} (out of time)").format(move=line)
    return line
