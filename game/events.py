"""What happens in a match, as plain data.

The engine emits full events (the audit log: every hand, every deck order).
``seen_by(seat)`` gives the copy one seat may receive (``None``: a spectator),
so hidden information is cut here, in the rules core, never at the edges.
Cards are canonical strings so that events encode as JSON or msgpack as they are.
"""

from __future__ import annotations

import msgspec

from .rules import Rules
from .scoring import Standing


class Event(msgspec.Struct, frozen=True, gc=False, tag_field="type", omit_defaults=True):
    """Something that happened in a match, as every seat and the log record it.

    One type per kind, tagged on the wire and in logs; ``seen_by`` cuts the copy a
    seat may see, so hidden cards are removed in one place, by the engine itself."""

    def seen_by(self, seat: int | None) -> Event:
        """The copy of this event that ``seat`` may see (public events are shared)."""
        return self

    def seen_by_all(self, seats: int) -> list[Event]:
        """``seen_by`` for seats ``0 .. seats-1``, then for a spectator (the last item).

        Copies with the same content are the same object, so that an edge can
        encode each distinct copy once.
        """
        if type(self).seen_by is Event.seen_by:
            return [self] * (seats + 1)
        return [self.seen_by(seat) for seat in range(seats)] + [self.seen_by(None)]


class MatchStarted(Event, frozen=True, tag="match_start"):
    """A match began: the seats in order and the rules (the seed only in the full log)."""

    seats: tuple[str, ...]
    rules: Rules
    seed: int | None = None
    """Only in the full log: it would tell the players every deal."""

    def seen_by(self, seat: int | None) -> Event:
        return self if self.seed is None else msgspec.structs.replace(self, seed=None)

    def seen_by_all(self, seats: int) -> list[Event]:
        return [self.seen_by(None)] * (seats + 1)


class RoundStarted(Event, frozen=True, tag="round_start"):
    round: int
    dealer: int
    first: int
    """The seat to move first (the dealer's left)."""
    hands: tuple[tuple[str, ...] | None, ...]
    """By seat; a seat's copy holds only its own hand."""
    hand_sizes: tuple[int, ...]
    open: tuple[str, ...]
    deck_size: int
    deck: tuple[str, ...] | None = None
    """The whole shuffled deck, first dealt first: only in the full log."""

    def seen_by(self, seat: int | None) -> Event:
        hands = tuple(h if i == seat else None for i, h in enumerate(self.hands))
        return msgspec.structs.replace(self, hands=hands, deck=None)


class Played(Event, frozen=True, tag="played"):
    """A seat discarded and took a card: the open card it took, or the deck (whose card
    only the mover's copy and the full log show)."""

    seat: int
    discard: tuple[str, ...]
    took: str | None
    """The open card taken, or None for a card from the deck."""
    drawn: str | None = None
    """The card drawn from the deck: only in the mover's copy and the full log."""
    auto: bool = False
    """Played by the automatic move (time ran out, or a fault)."""

    def seen_by(self, seat: int | None) -> Event:
        if self.drawn is None or seat == self.seat:
            return self
        return msgspec.structs.replace(self, drawn=None)

    def seen_by_all(self, seats: int) -> list[Event]:
        if self.drawn is None:
            return [self] * (seats + 1)
        public: Event = msgspec.structs.replace(self, drawn=None)
        copies = [public] * (seats + 1)
        copies[self.seat] = self
        return copies


class Reshuffled(Event, frozen=True, tag="reshuffled"):
    """The dead pile became the new closed deck."""

    size: int
    deck: tuple[str, ...] | None = None
    """The new order, first drawn first: only in the full log."""

    def seen_by(self, seat: int | None) -> Event:
        return msgspec.structs.replace(self, deck=None)

    def seen_by_all(self, seats: int) -> list[Event]:
        return [self.seen_by(None)] * (seats + 1)


class Declared(Event, frozen=True, tag="declared"):
    seat: int
    holds: bool
    """True when the declarer was lowest; False for a false declaration."""
    hands: tuple[tuple[str, ...] | None, ...]
    """Every hand still in the match, revealed; None for eliminated seats."""
    totals: tuple[int | None, ...]
    round_scores: tuple[int | None, ...]
    scores: tuple[int, ...]
    eliminated: tuple[int, ...]


class RoundVoid(Event, frozen=True, tag="round_void"):
    round: int
    turns: int


class Resigned(Event, frozen=True, tag="resigned"):
    """A player left the match for good (a forfeit): out now, ranked below the rest."""

    seat: int
    reason: str


class MatchEnded(Event, frozen=True, tag="match_end"):
    reason: str
    """``winner`` (one player left), ``first_out`` or ``max_rounds``."""
    standings: tuple[Standing, ...]
    scores: tuple[int, ...]


AnyEvent = (
    MatchStarted | RoundStarted | Played | Reshuffled | Declared | RoundVoid | Resigned | MatchEnded
)
