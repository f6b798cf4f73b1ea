"""What the referee's core hands its driver, read the way the tests read it: the kinds
of its actions, the events it tells, the one seat it asks."""

from __future__ import annotations

from leastscore.seats.core import Action, Ask, Tell


def kinds(actions: list[Action]) -> list[type]:
    return [type(a) for a in actions]


def told(actions: list[Action]) -> list[object]:
    """Every full event the actions send, in order."""
    return [e for a in actions if isinstance(a, Tell) for e in a.events]


def only_ask(actions: list[Action]) -> Ask:
    (ask,) = [a for a in actions if isinstance(a, Ask)]
    return ask
