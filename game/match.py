"""The match state machine: deal, turns, declarations, elimination, standings.

``Match`` is pure: it is handed its shuffler (seeded, secure or scripted from a
log) and does no I/O. ``apply`` either changes the state and returns the events
it caused, or raises an ``IllegalMove`` and changes nothing.
"""

from __future__ import annotations

import math
import os
import random
from collections.abc import Iterable, Sequence

from .cards import BIT, BY_NAME, CARDS, NAMES, VALUE, Card
from .events import (
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
)
from .groups import DISCARD_MASK, HandInfo, explain_discard, group_cards, group_names, hand_info
from .moves import CannotDeclare, Declare, IllegalMove, MatchOver, Move, NotYourTurn, Play
from .rollout import Round, Shuffler, settle_round
from .rules import HAND_SIZE, MAX_SEATS, MIN_SEATS, STANDARD, Rules
from .scoring import Standing, place
from .view import View


def secure_shuffle(cards: list[int]) -> None:
    """Shuffle in place from the OS's secure randomness, read in one call.

    A uniform integer below ``n!`` (drawn by rejection, so exactly uniform) is
    read digit by digit in the mixed radix ``n, n-1, ..., 2``: each digit is an
    independent uniform choice for one step of a Fisher-Yates shuffle.
    ``random.SystemRandom().shuffle`` does the same with a system call per card.
    """
    n = len(cards)
    orders = math.factorial(n)
    size = (orders.bit_length() + 7) // 8 + 8  # spare bytes: a retry is all but never needed
    limit = (1 << (8 * size)) // orders * orders
    while True:
        x = int.from_bytes(os.urandom(size))
        if x < limit:
            break
    for i in range(n - 1, 0, -1):
        x, j = divmod(x, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


class ScriptedShuffler:
    """Replays recorded deck orders (from a log) instead of shuffling."""

    def __init__(self, orders: Iterable[Sequence[str]]) -> None:
        self._orders = iter(orders)

    def __call__(self, cards: list[int]) -> None:
        try:
            order = [BY_NAME[name] for name in next(self._orders)]
        except StopIteration:
            raise ValueError("the log has no more recorded deck orders") from None
        if sorted(order) != sorted(cards):
            raise ValueError("a recorded deck order does not hold the cards being shuffled")
        cards[:] = order


class Match:
    """One match of Least Score from the first deal to the standings."""

    view_kind: type[View] = View
    """What ``view`` builds: ``View``, or a subclass with no fields of its own (a bot's
    ``BotView``), so that a seat gets its view in one object, not built twice."""

    def __init__(
        self,
        seats: int | Sequence[str],
        rules: Rules = STANDARD,
        seed: int | None = None,
        *,
        shuffler: Shuffler | None = None,
    ) -> None:
        names = [f"seat {i}" for i in range(seats)] if isinstance(seats, int) else list(seats)
        if not MIN_SEATS <= len(names) <= MAX_SEATS:
            raise ValueError(f"a match needs {MIN_SEATS} to {MAX_SEATS} seats, not {len(names)}")
        if not isinstance(rules, Rules):
            raise TypeError("rules must be a game.Rules")
        n = len(names)
        self.names = tuple(names)
        self.rules = rules
        self.seed = seed
        if shuffler is None:
            shuffler = random.Random(seed).shuffle if seed is not None else secure_shuffle
        self._shuffle = shuffler
        self._same_suit = rules.runs_same_suit
        self.scores = [0] * n
        self.active = [True] * n
        self.out_round: list[int | None] = [None] * n
        self.resigned: list[int] = []
        """Seats that forfeited, in order."""
        self.round = 0
        self.dealer = 0
        self.to_move = 0
        self.hands = [0] * n
        self.sizes = [0] * n
        self.deck: list[int] = []  # the next card to draw is last
        self.dead: list[int] = []
        self.open: tuple[Card, ...] = ()
        self.turned_up: Card | None = None
        """The card turned face up at this round's deal."""
        self.turns_taken = [0] * n
        self.turn = 0
        self.history: tuple[Played, ...] = ()
        self.started = False
        self.over = False
        self.end_reason: str | None = None
        self.standings: tuple[Standing, ...] = ()
        self.log: list[Event] = []

    @property
    def seat_count(self) -> int:
        return len(self.names)

    # -- starting -------------------------------------------------------------

    def start(self) -> list[Event]:
        """Deal round 1; returns the match's first events."""
        if self.started:
            raise RuntimeError("the match has already started")
        self.started = True
        events: list[Event] = [MatchStarted(self.names, self.rules, self.seed)]
        self._deal(events)
        self.log.extend(events)
        return events

    def _next_active(self, seat: int) -> int:
        n = len(self.names)
        seat = (seat + 1) % n
        while not self.active[seat]:
            seat = (seat + 1) % n
        return seat

    def _deal(self, events: list[Event]) -> None:
        self.round += 1
        if self.round > 1:
            self.dealer = self._next_active(self.dealer)
        order = list(range(52))
        self._shuffle(order)
        deck = order[::-1]
        n = len(self.names)
        first = self._next_active(self.dealer)
        seats = [(first + i) % n for i in range(n) if self.active[(first + i) % n]]
        hands = [0] * n
        for _ in range(HAND_SIZE):
            for seat in seats:
                hands[seat] |= BIT[deck.pop()]
        top = CARDS[deck.pop()]
        self.hands = hands
        self.sizes = [HAND_SIZE if self.active[s] else 0 for s in range(n)]
        self.deck = deck
        self.dead = []
        self.open = (top,)
        self.turned_up = top
        self.turns_taken = [0] * n
        self.turn = 0
        self.history = ()
        self.to_move = first
        events.append(
            RoundStarted(
                round=self.round,
                dealer=self.dealer,
                first=first,
                hands=tuple(
                    tuple(NAMES[c] for c in hand_info(h, self._same_suit).cards)
                    if self.active[s]
                    else None
                    for s, h in enumerate(hands)
                ),
                hand_sizes=tuple(self.sizes),
                open=(NAMES[top],),
                deck_size=len(deck),
                deck=tuple(NAMES[c] for c in order),
            )
        )

    # -- moves ----------------------------------------------------------------

    def apply(self, seat: int, move: Move, *, auto: bool = False) -> list[Event]:
        """Play ``move`` for ``seat``; ``auto`` marks the automatic move in the events."""
        if self.over:
            raise MatchOver("the match is over")
        if not self.started:
            raise IllegalMove("the match has not started")
        if seat != self.to_move:
            raise NotYourTurn(f"it is {self.names[self.to_move]}'s turn, not {self._name(seat)}'s")
        if type(move) is Play:
            events = self._play(seat, move, auto)
        elif type(move) is Declare:
            events = self._declare(seat)
        else:
            raise IllegalMove(f"{move!r} is neither a play nor a declaration")
        self.log.extend(events)
        return events

    def _name(self, seat: object) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat!r}"

    def _play(self, seat: int, move: Play, auto: bool) -> list[Event]:
        hand = self.hands[seat]
        info = hand_info(hand, self._same_suit)
        discard = move.discard
        mask = DISCARD_MASK.get(discard, 0) if type(discard) is tuple else 0
        if mask not in info.group_index:
            mask = self._group_mask(hand, info, discard)
        names = group_names(mask)
        take = move.take
        open_cards = self.open
        events: list[Event] = []
        if take is None:
            if not self.deck:
                if not self.dead:
                    raise IllegalMove(
                        "no card can be drawn (the deck and the dead pile are empty): "
                        "take an open card"
                    )
                self._reshuffle(events)
            new = self.deck.pop()
            self.dead.extend(open_cards)
            played = Played(seat, names, None, NAMES[new], auto)
            public = Played(seat, names, None, None, auto)
        else:
            if take not in open_cards:
                shown = " ".join(NAMES[c] for c in open_cards)
                raise IllegalMove(f"{_card_name(take)} is not an open card (open: {shown})")
            new = take
            self.dead.extend([c for c in open_cards if c != take])
            played = public = Played(seat, names, NAMES[take], None, auto)
        self.hands[seat] = (hand ^ mask) | BIT[new]
        self.sizes[seat] += 1 - mask.bit_count()
        self.open = group_cards(mask)
        self.turns_taken[seat] += 1
        self.turn += 1
        self.history += (public,)
        events.append(played)
        if self.turn >= self.rules.max_turns:
            events.append(RoundVoid(self.round, self.turn))
            self._end_round(events, ())
        else:
            nxt = seat + 1
            if nxt == len(self.sizes):
                nxt = 0
            self.to_move = nxt if self.active[nxt] else self._next_active(nxt)
        return events

    def _group_mask(self, hand: int, info: HandInfo, discard: object) -> int:
        """The strict path: any order, any sequence; says exactly what is wrong."""
        if not isinstance(discard, tuple | list):
            raise IllegalMove("a discard is a list of cards")
        mask = 0
        for c in discard:
            bit = BIT.get(c) if type(c) is Card or type(c) is int else None
            if bit is None:
                raise IllegalMove(f"{c!r} is not a card")
            mask |= bit
        if mask not in info.group_index or len(discard) != mask.bit_count():
            for c in discard:
                if not hand & BIT[c]:
                    raise IllegalMove(f"{NAMES[c]} is not in your hand")
            raise IllegalMove(explain_discard(discard, self.rules) or "not a legal discard")
        return mask

    def _reshuffle(self, events: list[Event]) -> None:
        order = self.dead
        self.dead = []
        self._shuffle(order)
        self.deck = order[::-1]
        events.append(Reshuffled(len(order), tuple(NAMES[c] for c in order)))

    def _declare(self, seat: int) -> list[Event]:
        if not self.turns_taken[seat]:
            raise CannotDeclare("nobody declares on their first turn of a round")
        total = hand_info(self.hands[seat], self._same_suit).total
        limit = self.rules.declare_limit
        if limit is not None and total > limit:
            raise CannotDeclare(f"your total is {total}; declaring needs {limit} or less")
        n = len(self.names)
        playing = [s for s in range(n) if self.active[s]]
        totals = [hand_info(self.hands[s], self._same_suit).total for s in playing]
        settled = settle_round(self.hands, playing, seat, self.rules)
        scored = [settled.scores[s] for s in playing]
        round_scores: list[int | None] = [None] * n
        all_totals: list[int | None] = [None] * n
        for s, t, r in zip(playing, totals, scored, strict=True):
            self.scores[s] += r
            round_scores[s] = r
            all_totals[s] = t
        out = tuple(s for s in playing if self.scores[s] > self.rules.threshold)
        for s in out:
            self.active[s] = False
            self.out_round[s] = self.round
        events: list[Event] = [
            Declared(
                seat=seat,
                holds=settled.holds,
                hands=tuple(
                    tuple(NAMES[c] for c in hand_info(self.hands[s], self._same_suit).cards)
                    if all_totals[s] is not None
                    else None
                    for s in range(n)
                ),
                totals=tuple(all_totals),
                round_scores=tuple(round_scores),
                scores=tuple(self.scores),
                eliminated=out,
            )
        ]
        self._end_round(events, out)
        return events

    def resign(self, seat: int, reason: str = "resigned") -> list[Event]:
        """Take ``seat`` out of the match now (a forfeit), whoever is to move.

        Its hand goes face down to the dead pile; it ranks below every player
        eliminated in play. Used for players who leave and for faulty bots.
        """
        if self.over:
            raise MatchOver("the match is over")
        if not self.started:
            raise IllegalMove("the match has not started")
        if not (isinstance(seat, int) and 0 <= seat < len(self.names)) or not self.active[seat]:
            raise IllegalMove(f"{self._name(seat)} is not in the match")
        self.active[seat] = False
        self.out_round[seat] = self.round
        self.resigned.append(seat)
        self.dead.extend(hand_info(self.hands[seat], self._same_suit).cards)
        self.hands[seat] = 0
        self.sizes[seat] = 0
        events: list[Event] = [Resigned(seat, reason)]
        if self.rules.first_out_ends:
            self._finish(events, "first_out")
        elif sum(self.active) <= 1:
            self._finish(events, "winner")
        elif seat == self.to_move:
            self.to_move = self._next_active(seat)
        self.log.extend(events)
        return events

    def _end_round(self, events: list[Event], eliminated: tuple[int, ...]) -> None:
        left = sum(self.active)
        if self.rules.first_out_ends and eliminated:
            reason = "first_out"
        elif left <= 1:
            reason = "winner"
        elif self.round >= self.rules.max_rounds:
            reason = "max_rounds"
        else:
            self._deal(events)
            return
        self._finish(events, reason)

    def _finish(self, events: list[Event], reason: str) -> None:
        self.over = True
        self.end_reason = reason
        self.standings = tuple(self._standings(reason))
        events.append(MatchEnded(reason, self.standings, tuple(self.scores)))

    def _standings(self, reason: str) -> list[Standing]:
        n = len(self.names)
        gone = self.resigned
        forfeits = [[(s, self.scores[s])] for s in reversed(gone)]
        if reason == "first_out":
            return place([[(s, self.scores[s]) for s in range(n) if s not in gone], *forfeits])
        tiers = [[(s, self.scores[s]) for s in range(n) if self.active[s]]]
        for r in sorted({r for r in self.out_round if r is not None}, reverse=True):
            tier = [(s, self.scores[s]) for s in range(n) if self.out_round[s] == r]
            tiers.append([(s, score) for s, score in tier if s not in gone])
        return place([*tiers, *forfeits])

    # -- what players see -----------------------------------------------------

    def view(self, seat: int | None) -> View:
        """Everything ``seat`` may see; ``None`` is a spectator's view (no hand)."""
        if seat is None:
            info = hand_info(0, self._same_suit)
            mine = False
            taken = 0
        else:
            info = hand_info(self.hands[seat], self._same_suit)
            mine = seat == self.to_move and not self.over
            taken = self.turns_taken[seat]
        limit = self.rules.declare_limit
        return self.view_kind(
            seat,
            self.names,
            self.rules,
            self.round,
            self.turn,
            self.dealer,
            self.to_move,
            info.cards,
            info.mask,
            info.total,
            self.open,
            tuple(self.sizes),
            tuple(self.scores),
            tuple(self.active),
            len(self.deck),
            len(self.dead),
            bool(self.deck or self.dead),
            mine and taken > 0 and (limit is None or info.total <= limit),
            info.groups,
            self.history,
            self.over,
            self.turned_up,
        )

    def round_state(self, shuffle: Shuffler | None = None) -> Round:
        """This round's full state, hidden cards and all, as a ``game.rollout.Round``
        that plays on by the same rules (for the engine's tests and tools: a player
        builds its ``Round`` from its own guesses, never from the live match).
        ``shuffle`` defaults to the match's shuffler, so both reshuffle alike."""
        seats = [s for s in range(len(self.names)) if self.active[s]]
        return Round(
            self.rules,
            seats,
            list(self.hands),
            list(self.deck),
            list(self.dead),
            sum(1 << c for c in self.open),
            list(self.turns_taken),
            self.to_move,
            self.turn,
            self._shuffle if shuffle is None else shuffle,
        )

    def auto_move(self, seat: int) -> Play:
        """The move made for a player whose time ran out: shed the highest card, draw."""
        cards = hand_info(self.hands[seat], self._same_suit).cards
        high = max(cards, key=lambda c: (VALUE[c], c))
        if self.deck or self.dead:
            return Play((high,), None)
        return Play((high,), min(self.open, key=lambda c: (VALUE[c], c)))


def _card_name(card: object) -> str:
    if isinstance(card, int) and card in BIT:
        return NAMES[card]
    return repr(card)
