"""A bot that notes which cores its process may run on (in ``$WHERE_DIR``)."""

from __future__ import annotations

import os
from pathlib import Path

from leastscore.bots import GreedyBot
from leastscore.bots.view import BotView
from leastscore.game import Move


class CoreNoter(GreedyBot):
    def choose(self, view: BotView) -> Move:
        cores = ",".join(map(str, sorted(os.sched_getaffinity(0))))
        (Path(os.environ["WHERE_DIR"]) / f"{os.getpid()}").write_text(cores)
        return super().choose(view)
