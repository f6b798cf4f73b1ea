"""In-process bots that misbehave, for the fault tests (``python:`` entrants)."""

from __future__ import annotations

import os
import time

from leastscore.bots import GreedyBot
from leastscore.game import Move, View


class Raiser(GreedyBot):
    """Raises on its second move of each round."""

    def choose(self, view: View) -> Move:
        if view.turn in (1, 2):
            raise RuntimeError("boom")
        return super().choose(view)


class Looper(GreedyBot):
    """Thinks forever on its second move of the match."""

    def __init__(self, seed: int | None = None) -> None:
        self.moves = 0

    def choose(self, view: View) -> Move:
        self.moves += 1
        while self.moves == 2:
            time.sleep(0.01)
        return super().choose(view)


class Exiter(GreedyBot):
    """Takes its whole process down on its first move."""

    def choose(self, view: View) -> Move:
        os._exit(9)
