"""Bots for the tests of the server's thinking processes: small, so that a worker
process unpickles them without importing the test suite."""

from __future__ import annotations

import os

from leastscore.bots.base import Bot
from leastscore.game import Move, View


class Spinner(Bot):
    """Thinks forever, as a bot with a runaway search would."""

    name = "spinner"
    heavy = True

    def choose(self, view: View) -> Move:
        while True:
            pass


class Counting(Bot):
    """Plays the first legal discard from the deck and counts its decisions."""

    name = "counting"
    heavy = True

    def __init__(self) -> None:
        self.decisions = 0
        self.pid = 0

    def choose(self, view: View) -> Move:
        self.decisions += 1
        self.pid = os.getpid()
        return view.legal_plays()[0]


class Noting(Counting):
    """Counting, and notes the kind of every event it is told."""

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[str] = []

    def on_event(self, event: object) -> None:
        self.seen.append(type(event).__name__)
