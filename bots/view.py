"""The view a bot chooses from: ``game.View`` plus what a seat can work out from it."""

from __future__ import annotations

from collections.abc import Callable
from functools import cached_property

import msgspec
from leastscore.game import Card, Event, MatchStarted, Played, RoundStarted, View
from leastscore.game.cards import BY_NAME

from .knowledge import Knowledge, knowledge


class BotView(View, frozen=True, gc=True, dict=True):
    """A seat's ``game.View`` plus what it can work out from it.

    Everything rules.md lets a seat see is a field of ``View`` (hand, open cards,
    hand sizes, scores, this round's public plays in ``history``, the card turned
    up at the deal, ...); the helpers below are computed from those fields alone,
    once per view. It adds no field, so a match can build it directly
    (``Match.view_kind``).
    """

    @classmethod
    def of(cls, view: View, turned_up: Card | None = None) -> BotView:
        """``view`` as a ``BotView`` (itself when it is one), with ``turned_up`` when
        it is given and the view lacks it."""
        make: Callable[..., BotView] = cls  # positional: the fields of View
        if turned_up is None or view.turned_up is not None:
            if type(view) is cls:
                return view
            return make(*msgspec.structs.astuple(view))
        return make(*msgspec.structs.astuple(view)[:-1], turned_up)  # turned_up is last

    @cached_property
    def knowledge(self) -> Knowledge:
        """Where this round's cards are, as far as this seat can tell."""
        return knowledge(self, self.turned_up)

    def known_cards(self, seat: int) -> tuple[Card, ...]:
        """Cards known to be in ``seat``'s hand: the open cards it took and still holds
        (your own seat: your hand)."""
        return self.knowledge.known[seat]

    def hidden_count(self, seat: int) -> int:
        """How many of ``seat``'s cards you cannot name."""
        return self.knowledge.hidden[seat]

    @property
    def unseen(self) -> tuple[Card, ...]:
        """Cards you cannot place: in the deck or hidden in another hand."""
        return self.knowledge.unseen

    @property
    def dead_cards(self) -> tuple[Card, ...]:
        """Cards you saw buried in the dead pile since it was last shuffled into the deck."""
        return self.knowledge.dead

    @property
    def opponents(self) -> tuple[int, ...]:
        """The other seats still in the match, in the order they move after yours."""
        n = len(self.names)
        me = self.seat if self.seat is not None else n - 1
        return tuple(s % n for s in range(me + 1, me + n) if self.active[s % n])


class DealMemory:
    """Remembers each round's turned-up card, for views that lack it (one built from
    the wire after a snapshot, or by hand): the one fact ``view.history`` may lack.

    Feed it the seat's events, its views, or both.
    """

    def __init__(self) -> None:
        self.round = 0
        self.card: Card | None = None

    def on_event(self, event: Event) -> None:
        if type(event) is Played:
            return
        if isinstance(event, MatchStarted):
            self.round, self.card = 0, None
        elif isinstance(event, RoundStarted):
            self.round = event.round
            self.card = BY_NAME[event.open[0]] if len(event.open) == 1 else None

    def view(self, view: View) -> BotView:
        """``view`` as a ``BotView``, with the turned-up card if it is of this round.

        Without the events, the card is still noted from the round's first view.
        """
        if view.turned_up is not None:  # the view has it (the match's own views do)
            return BotView.of(view)
        if view.round != self.round:
            self.round, self.card = view.round, None
        if self.card is None and not view.history and len(view.open) == 1:
            self.card = view.open[0]
        return BotView.of(view, self.card)
