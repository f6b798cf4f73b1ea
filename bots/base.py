"""The one thing every player implements: given a view, choose a move."""

from __future__ import annotations

from game import Event, Move, View


class Bot:
    """Base class for bots. Override ``choose``; the hooks are optional."""

    name = "bot"

    def choose(self, view: View) -> Move:
        raise NotImplementedError

    def on_event(self, event: Event) -> None:
        """Called with every event this seat sees, in order (its own copy)."""

    def reset(self) -> None:
        """Called before a new match: forget everything learned in the last one."""
