"""SDK bots for the tests: one that plays well, and one for each kind of fault.

leastscore bot run tests/programs/sdk_bots.py:CLASS --stdio
"""

from __future__ import annotations

import asyncio
import os
import sys
import time

from leastscore.bots.sdk import Bot, BotView, Declare, Event, Move, Play


class Watcher(Bot):
    """Plays the lowest-total game it can see, using every helper, and checks them."""

    name = "watcher"

    def __init__(self) -> None:
        self.events: list[str] = []
        self.resets = 0
        self.views = 0

    def reset(self) -> None:
        self.resets += 1
        self.events.clear()

    def on_event(self, event: Event) -> None:
        self.events.append(type(event).__name__)

    def choose(self, view: BotView) -> Move:
        assert isinstance(view, BotView) and view.my_turn
        for seat in view.opponents:
            assert view.hidden_count(seat) + len(view.known_cards(seat)) == view.hand_sizes[seat]
        assert not set(view.unseen) & set(view.hand)
        self.views += 1
        print(f"thinking about turn {view.turn}")  # must not break a stdio stream
        if view.can_declare and view.hand_total <= 5:
            return Declare()
        discard = max(view.legal_discards, key=lambda g: (sum(c.value for c in g), len(g)))
        low = min(view.open, key=lambda c: c.value)
        return Play(discard, low if low.value <= 3 or not view.can_draw else None)


class Thinker(Watcher):
    """The same play from a coroutine."""

    name = "thinker"

    async def choose(self, view: BotView) -> Move:  # type: ignore[override]
        await asyncio.sleep(0)
        return super().choose(view)


class Raiser(Watcher):
    """Raises on its first move (a seat always moves before anyone may declare: a later
    move might never come, in a round another player ends)."""

    name = "raiser"

    def choose(self, view: BotView) -> Move:
        if self.views == 0:
            self.views += 1
            raise ZeroDivisionError("planted: division by zero in choose")
        return super().choose(view)


class Hanger(Watcher):
    """Hangs on its second move of a match: 2 s, far past the tests' move time."""

    name = "hanger"

    def choose(self, view: BotView) -> Move:
        if self.views == 1:
            self.views += 1
            time.sleep(2)
        return super().choose(view)


class HeavyWatcher(Watcher):
    """The same play, on a thread of its own (and the runner on an event loop)."""

    name = "heavy-watcher"
    heavy = True


class HeavyHanger(Hanger):
    """Hangs as ``Hanger`` does, thinking on a thread of its own."""

    name = "heavy-hanger"
    heavy = True


class Slowpoke(Watcher):
    """In time, but slow: its second and third moves of a match take 0.3 s."""

    name = "slowpoke"

    def choose(self, view: BotView) -> Move:
        if self.views in (1, 2):
            time.sleep(0.3)
        return super().choose(view)


class Cheater(Watcher):
    """Discards a card it does not hold on its first move (as ``Raiser``, for the same reason)."""

    name = "cheater"

    def choose(self, view: BotView) -> Move:
        if self.views == 0:
            self.views += 1
            return Play.of(
                [c for c in ("AS", "AH", "AD", "AC") if c not in map(str, view.hand)][:1]
            )
        return super().choose(view)


class Liar(Watcher):
    """Returns something that is not a move."""

    name = "liar"

    def choose(self, view: BotView) -> Move:
        return "7H take deck"  # type: ignore[return-value]


class Scribbler(Watcher):
    """Writes straight to file descriptor 1, past print: the runner must keep it off the stream."""

    name = "scribbler"

    def choose(self, view: BotView) -> Move:
        sys.stdout.buffer.write(b"\x00\x00\x00\x03abc")
        sys.stdout.flush()
        os.write(1, b"raw bytes on fd 1\n")
        return super().choose(view)
