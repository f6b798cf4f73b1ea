"""A random legal move: the floor of the ladder, and a fuzzer for the engine."""

from __future__ import annotations

import random

from leastscore.game import Declare, Move, View

from ..base import Bot


class RandomBot(Bot):
    """The ``random`` level: any legal move, declaring whenever it may; the floor a bot
    author first measures against."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def choose(self, view: View) -> Move:
        plays: list[Move] = list(view.legal_plays())
        if view.can_declare:
            plays.append(Declare())
        return self._rng.choice(plays)
