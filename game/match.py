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
        self.now = Round(rules, range(n), [0] * n, [], [], 0, [0] * n, 0, 0, shuffler)
        """This round's cards and turns: every move is played on it, so that a bot's
        imagined rest of a round (``Round`` too) follows exactly the rules of play."""
        self.sizes = [0] * n
        self.turned_up: Card | None = None
        """The card turned face up at this round's deal."""
        self.history: tuple[Played, ...] = ()
        self.started = False
        self.over = False
        self.end_reason: str | None = None
        self.standings: tuple[Standing, ...] = ()
        self.log: list[Event] = []

    @property
    def seat_count(self) -> int:
        return len(self.names)

    # -- this round, as ``now`` holds it --------------------------------------

    @property
    def hands(self) -> list[int]:
        """Each seat's hand, as a mask (0 for seats out of the match)."""
        return self.now.hands

    @hands.setter
    def hands(self, hands: list[int]) -> None:
        self.now.hands = hands

    @property
    def deck(self) -> list[int]:
        """The closed deck, the next card to draw last."""
        return self.now.deck

    @deck.setter
    def deck(self, deck: list[int]) -> None:
        self.now.deck = deck

    @property
    def dead(self) -> list[int]:
        return self.now.dead

    @dead.setter
    def dead(self, dead: list[int]) -> None:
        self.now.dead = dead

    @property
    def open(self) -> tuple[Card, ...]:
        """The open cards, lowest index first."""
        return group_cards(self.now.open)

    @open.setter
    def open(self, cards: Iterable[int]) -> None:
        self.now.open = sum(BIT[c] for c in cards)

    @property
    def turns_taken(self) -> list[int]:
        """Turns each seat has played this round."""
        return self.now.turns

    @turns_taken.setter
    def turns_taken(self, turns: list[int]) -> None:
        self.now.turns = turns

    @property
    def turn(self) -> int:
        """Moves played this round."""
        return self.now.turn

    @turn.setter
    def turn(self, turn: int) -> None:
        self.now.turn = turn

    @property
    def to_move(self) -> int:
        return self.now.to_move

    @to_move.setter
    def to_move(self, seat: int) -> None:
        self.now.to_move = seat

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
        self.now = Round(self.rules, sorted(seats), hands, deck, [], BIT[top], [0] * n, first,
                         0, self._shuffle)  # fmt: skip
        self.sizes = [HAND_SIZE if self.active[s] else 0 for s in range(n)]
        self.turned_up = top
        self.history = ()
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
        to_move = self.now.to_move
        if seat != to_move:
            raise NotYourTurn(f"it is {self.names[to_move]}'s turn, not {self._name(seat)}'s")
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
        """The move checked here, to say exactly what is wrong with it, then played on
        ``now``; the events told from what it did."""
        now = self.now
        hand = now.hands[seat]
        info = hand_info(hand, self._same_suit)
        discard = move.discard
        mask = DISCARD_MASK.get(discard, 0) if type(discard) is tuple else 0
        if mask not in info.group_index:
            mask = self._group_mask(hand, info, discard)
        names = group_names(mask)
        take = move.take
        events: list[Event] = []
        if take is None:
            if not now.deck:
                if not now.dead:
                    raise IllegalMove(
                        "no card can be drawn (the deck and the dead pile are empty): "
                        "take an open card"
                    )
                self._reshuffle(events)
            drawn = NAMES[now.deck[-1]]
            now.play(seat, mask)
            played = Played(seat, names, None, drawn, auto)
            public = Played(seat, names, None, None, auto)
        else:
            bit = BIT.get(take) if type(take) is Card or type(take) is int else None
            if bit is None or not now.open & bit:
                shown = " ".join(NAMES[c] for c in group_cards(now.open))
                raise IllegalMove(f"{_card_name(take)} is not an open card (open: {shown})")
            now.play(seat, mask, take)
            played = public = Played(seat, names, NAMES[take], None, auto)
        self.sizes[seat] += 1 - mask.bit_count()
        self.history += (public,)
        events.append(played)
        if now.void:
            events.append(RoundVoid(self.round, now.turn))
            self._end_round(events, ())
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
        now = self.now
        order = now.dead
        now.dead = []
        self._shuffle(order)
        now.deck = order[::-1]
        events.append(Reshuffled(len(order), tuple(NAMES[c] for c in order)))

    def _declare(self, seat: int) -> list[Event]:
        hands = self.now.hands
        if not self.now.turns[seat]:
            raise CannotDeclare("nobody declares on their first turn of a round")
        total = hand_info(hands[seat], self._same_suit).total
        limit = self.rules.declare_limit
        if limit is not None and total > limit:
            raise CannotDeclare(f"your total is {total}; declaring needs {limit} or less")
        n = len(self.names)
        playing = [s for s in range(n) if self.active[s]]
        totals = [hand_info(hands[s], self._same_suit).total for s in playing]
        settled = settle_round(hands, playing, seat, self.rules)
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
                    tuple(NAMES[c] for c in hand_info(hands[s], self._same_suit).cards)
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
        self.now.leave(seat)
        self.sizes[seat] = 0
        events: list[Event] = [Resigned(seat, reason)]
        if self.rules.first_out_ends:
            self._finish(events, "first_out")
        elif sum(self.active) <= 1:
            self._finish(events, "winner")
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
        now = self.now
        if seat is None:
            info = hand_info(0, self._same_suit)
            mine = False
            taken = 0
        else:
            info = hand_info(now.hands[seat], self._same_suit)
            mine = seat == now.to_move and not self.over
            taken = now.turns[seat]
        limit = self.rules.declare_limit
        return self.view_kind(
            seat,
            self.names,
            self.rules,
            self.round,
            now.turn,
            self.dealer,
            now.to_move,
            info.cards,
            info.mask,
            info.total,
            group_cards(now.open),
            tuple(self.sizes),
            tuple(self.scores),
            tuple(self.active),
            len(now.deck),
            len(now.dead),
            bool(now.deck or now.dead),
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
        state = self.now.copy()
        if shuffle is not None:
            state.shuffle = shuffle
        return state

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
