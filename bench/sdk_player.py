"""The program ``bench.tournament`` times on stdio as a bot author would write it:
a class on the SDK, played by the SDK's own stdio loop (``bot run FILE --stdio``).

    python bench/sdk_player.py

It plays as ``tests/programs/stdio_player.py`` does (the last legal discard, a
card from the deck), so that both play the same moves as ``LastLegal`` in-process.
"""

from __future__ import annotations

import sys

from leastscore.bots.sdk import Bot, BotView, Move, Play
from leastscore.bots.stdio import run_stdio


class LastLegal(Bot):
    """The last legal discard, and a card from the deck (an open card when it must)."""

    name = "last-legal"

    def choose(self, view: BotView) -> Move:
        take = None if view.can_draw else view.open[0]
        return Play(view.legal_discards[-1], take)


if __name__ == "__main__":
    sys.exit(run_stdio(LastLegal()))
