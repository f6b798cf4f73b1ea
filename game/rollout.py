"""A round's full state as plain values, cheap to copy and fast to play on.

``Round`` is what a player imagining the rest of a round needs: every hand, the
deck's order, the dead pile, the open cards, whose turn it is. It plays a round
by the same rules as ``Match`` (the same legal groups, the same draw and
reshuffle, the same turn order, the same ``max_turns`` void, the same
``game.scoring`` settle at a declaration), but keeps no log, builds no events
and no views: a copy is a few list copies, like python-chess's
``Board.copy()``, which copies only what a move changes.

A bot builds its ``Round`` from its own guesses of the hidden cards; the one
a live match gives (``Match.round_state``) holds that match's hidden cards and
is for the engine's tests and tools, never for a player.

Pure: it draws randomness only through the shuffler it is handed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from .cards import cards_of, mask_total
from .groups import _legal_groups, group_cards
from .moves import CannotDeclare, IllegalMove, NotYourTurn
from .rules import Rules
from .scoring import declaration_holds, settle

Shuffler = Callable[[list[int]], None]
"""Shuffles a list of card indices in place."""


class Settled(NamedTuple):
    """How a round ended at a declaration."""

    scores: list[int]
    """Round scores by seat (0 for seats out of the match)."""
    declarer: int
    holds: bool


DRAW = -1
"""The take that draws the deck's top card."""


def next_seat(seats: Sequence[int], seat: int) -> int:
    """Who moves after ``seat`` among ``seats`` (those dealt in, in seat order)."""
    i = seats.index(seat) + 1
    return seats[i if i < len(seats) else 0]


def settle_round(
    hands: Sequence[int], seats: Sequence[int], declarer: int, rules: Rules
) -> Settled:
    """The round's scores by seat when ``declarer`` declares, the hands of ``seats``
    revealed (``hands`` by seat, as masks)."""
    totals = [mask_total(hands[s]) for s in seats]
    me = seats.index(declarer)
    out = [0] * len(hands)
    for s, score in zip(seats, settle(totals, me, rules), strict=True):
        out[s] = score
    return Settled(out, declarer, declaration_holds(totals, me, rules))


class Round:
    """One round's full state, played move by move by the rules of ``Match``."""

    __slots__ = (
        "_after",
        "_legal",
        "dead",
        "deck",
        "hands",
        "open",
        "rules",
        "seats",
        "shuffle",
        "to_move",
        "turn",
        "turns",
    )

    def __init__(
        self,
        rules: Rules,
        seats: Sequence[int],
        hands: list[int],
        deck: list[int],
        dead: list[int],
        open_mask: int,
        turns: list[int],
        to_move: int,
        turn: int,
        shuffle: Shuffler,
    ) -> None:
        self.rules = rules
        self.seats = tuple(seats)
        """The seats dealt in this round, in seat order (shared by copies)."""
        self.hands = hands
        """Card masks by seat (0 for seats out of the match)."""
        self.deck = deck
        """The closed deck, next card last (as ``Match.deck``)."""
        self.dead = dead
        self.open = open_mask
        """The open cards, as a mask."""
        self.turns = turns
        """Turns each seat has played this round."""
        self.to_move = to_move
        self.turn = turn
        """Moves played this round."""
        self.shuffle = shuffle
        """Shuffles the dead pile when the deck runs out (shared by copies)."""
        self._after = {s: next_seat(self.seats, s) for s in self.seats}
        """Who moves after each seat (shared by copies)."""
        self._legal = _legal_groups(rules.runs_same_suit)
        """Every legal group of the pack (the engine's table, shared)."""

    def copy(self) -> Round:
        """An independent copy: the lists a move changes are copied, the rest shared."""
        other = Round.__new__(Round)
        other.rules = self.rules
        other.seats = self.seats
        other.hands = self.hands[:]
        other.deck = self.deck[:]
        other.dead = self.dead[:]
        other.open = self.open
        other.turns = self.turns[:]
        other.to_move = self.to_move
        other.turn = self.turn
        other.shuffle = self.shuffle
        other._after = self._after
        other._legal = self._legal
        return other

    def total(self, seat: int) -> int:
        """The points in ``seat``'s hand."""
        return mask_total(self.hands[seat])

    @property
    def can_draw(self) -> bool:
        """Whether a card can be drawn (from the deck, or the dead pile reshuffled)."""
        return bool(self.deck or self.dead)

    @property
    def void(self) -> bool:
        """The round reached ``max_turns``: nobody scores (as ``Match``'s ``RoundVoid``)."""
        return self.turn >= self.rules.max_turns

    def can_declare(self, seat: int, total: int | None = None) -> bool:
        """Whether ``seat`` may declare now (``total``: its hand's, if known)."""
        if seat != self.to_move or not self.turns[seat] or self.turn >= self.rules.max_turns:
            return False
        limit = self.rules.declare_limit
        return limit is None or (self.total(seat) if total is None else total) <= limit

    def play(self, seat: int, group: int, take: int = DRAW) -> int:
        """``seat`` sheds ``group`` (a mask) and takes open card ``take`` or, with
        ``DRAW``, the deck's top (the dead pile reshuffled first if the deck is out).

        Returns the open card taken, or ``DRAW``. Refuses what ``Match`` refuses
        (``IllegalMove``), changing nothing."""
        if seat != self.to_move or self.turn >= self.rules.max_turns:
            raise NotYourTurn(f"it is seat {self.to_move}'s turn, not seat {seat}'s")
        hand = self.hands[seat]
        if group & hand != group or group not in self._legal:
            raise IllegalMove("not a legal discard from this hand")
        open_mask = self.open
        if take < 0:
            if not self.deck:
                if not self.dead:
                    raise IllegalMove("no card can be drawn: take an open card")
                order = self.dead
                self.dead = []
                self.shuffle(order)
                order.reverse()
                self.deck = order
            card = self.deck.pop()
            self.dead.extend(group_cards(open_mask))
        else:
            if not open_mask >> take & 1:
                raise IllegalMove("not an open card")
            card = take
            self.dead.extend(cards_of(open_mask ^ 1 << take))
        self.hands[seat] = (hand ^ group) | 1 << card
        self.open = group
        self.turns[seat] += 1
        self.turn += 1
        self.to_move = self._after[seat]
        return take if take >= 0 else DRAW

    def declare(self, seat: int) -> Settled:
        """``seat`` declares: the round's scores, settled by ``game.scoring``. The state
        is left as it was (a play-out may score the same deal again)."""
        if seat != self.to_move:
            raise NotYourTurn(f"it is seat {self.to_move}'s turn, not seat {seat}'s")
        if not self.can_declare(seat):
            raise CannotDeclare("this seat may not declare now")
        return settle_round(self.hands, self.seats, seat, self.rules)
