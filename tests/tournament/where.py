"""A bot that notes which cores its process may run on (in ``$WHERE_DIR``)."""

from __future__ import annotations

import os
import time
from pathlib import Path

from leastscore.bots import GreedyBot
from leastscore.bots.view import BotView
from leastscore.game import Move


class CoreNoter(GreedyBot):
    """Its moves wait (a minute at most) until ``$WHERE_PROCESSES`` processes have noted
    their cores: a worker that started first and fast could otherwise play every match
    before the other one is up."""

    def choose(self, view: BotView) -> Move:
        notes = Path(os.environ["WHERE_DIR"])
        cores = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        (notes / f"{os.getpid()}").write_text(cores)
        everyone = int(os.environ.get("WHERE_PROCESSES", "1"))
        deadline = time.monotonic() + 60
        while len(list(notes.iterdir())) < everyone and time.monotonic() < deadline:
            time.sleep(0.01)
        return super().choose(view)
