"""The table as one client sees it, kept up to date from server messages.

Sans-I/O: feed every message the server sends to ``Tracker.apply``, with the
time it arrived; read the state, or ``view()`` for a ``game.View`` a bot can
choose from, and ``time_left(now)``. It reads no clock: whoever feeds it gives
the time, from one clock of its choosing (a fake one in tests). The terminal
client draws from it; bots over TCP or stdio choose from it. A ``state``
snapshot resets it, so a client that reconnects is whole again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import msgspec
from leastscore.game import (
    Declared,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
    Rules,
    Standing,
    View,
)
from leastscore.game.cards import BY_NAME, Card
from leastscore.game.groups import hand_info

from .messages import (
    Chat,
    PlayerBack,
    PlayerLeft,
    PlayerReplaced,
    State,
    TableChanged,
    TableInfo,
    Turn,
    Welcome,
)


def _cards(names: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    return tuple(sorted(BY_NAME[n] for n in names))


_GROUPS: dict[tuple[str, ...], tuple[Card, ...]] = {}
_GROUP_MASKS: dict[tuple[Card, ...], int] = {}
_GROUPS_HELD = 1 << 15
"""Groups remembered: the pack has some 16,000 legal ones, and each message of a turn
names several (the open cards, the discard, the legal discards); past the bound (a
server sending groups that are not legal) the memory starts afresh."""


def _group(names: list[str] | tuple[str, ...]) -> tuple[Card, ...]:
    """``_cards`` of a group of cards (open cards, a discard, a legal discard), from
    memory: a bot's turn names the same few groups again and again."""
    key = tuple(names)
    cards = _GROUPS.get(key)
    if cards is None:
        if len(_GROUPS) >= _GROUPS_HELD:
            _GROUPS.clear()
        cards = _GROUPS[key] = _cards(key)
    return cards


def _mask(group: tuple[Card, ...]) -> int:
    mask = _GROUP_MASKS.get(group)
    if mask is None:
        if len(_GROUP_MASKS) >= _GROUPS_HELD:
            _GROUP_MASKS.clear()
        mask = 0
        for c in group:
            mask |= 1 << c
        _GROUP_MASKS[group] = mask
    return mask


@dataclass
class Tracker:
    """What one client knows of its table and match, folded from the server's messages.

    Why one fold for every client: the terminal client, the SDK's bots and the
    tournament's remote hall all need the same picture (the hand, the open cards,
    whose turn, the scores, who left) from the same frames, and a picture kept in
    three places would drift apart. Pure: it is given each message and the time it
    came (``apply``), and reads no socket.
    """

    player: str | None = None
    token: str | None = None
    table: TableInfo | None = None
    you: int | None = None
    names: tuple[str, ...] = ()
    rules: Rules = field(default_factory=Rules)
    in_match: bool = False
    round: int = 0
    turn: int = 0
    dealer: int = 0
    to_move: int = -1
    time_ms: int = 0
    turn_received: float = 0.0
    """When the current turn was announced: the ``now`` given to ``apply``."""
    hand: tuple[Card, ...] = ()
    open: tuple[Card, ...] = ()
    turned_up: Card | None = None
    """The card turned up at this round's deal, when this client saw the deal."""
    hand_sizes: list[int] = field(default_factory=list)
    scores: list[int] = field(default_factory=list)
    active: list[bool] = field(default_factory=list)
    connected: list[bool] = field(default_factory=list)
    deck_size: int = 0
    dead_size: int = 0
    history: list[Played] = field(default_factory=list)
    can_declare: bool = False
    can_draw: bool = True
    legal: tuple[tuple[Card, ...], ...] = ()
    over: bool = False
    standings: tuple[Standing, ...] = ()
    out_in: dict[int, int] = field(default_factory=dict)
    """Seats that went over the threshold this match, and the round they went out in."""
    left_in: dict[int, int] = field(default_factory=dict)
    """Seats that left the match (or forfeited), and the round they left in."""
    log: list[msgspec.Struct] = field(default_factory=list)
    """Recent events and chat, oldest first, for display."""
    log_size: int = 200

    # -- reading --------------------------------------------------------------

    @property
    def my_turn(self) -> bool:
        return self.in_match and not self.over and self.to_move == self.you

    def time_left(self, now: float) -> float:
        """Seconds the mover has left at ``now`` (on the clock given to ``apply``)."""
        return max(0.0, self.time_ms / 1000 - (now - self.turn_received))

    def view(self) -> View:
        """The state as a ``game.View``: what a bot chooses from."""
        mask = 0
        for c in self.hand:
            mask |= 1 << c
        info = hand_info(mask, self.rules.runs_same_suit)
        legal_groups = tuple(map(_mask, self.legal)) if self.legal else info.groups
        return View(
            self.you,
            self.names,
            self.rules,
            self.round,
            self.turn,
            self.dealer,
            self.to_move,
            info.cards,
            mask,
            info.total,
            self.open,
            tuple(self.hand_sizes),
            tuple(self.scores),
            tuple(self.active),
            self.deck_size,
            self.dead_size,
            self.can_draw,
            self.can_declare and self.my_turn,
            legal_groups,
            tuple(self.history),
            self.over,
            self.turned_up,
        )

    # -- updating -------------------------------------------------------------

    def apply(self, message: msgspec.Struct, now: float = 0.0) -> None:
        """Take in ``message``, which arrived at ``now`` (only a ``turn`` or a ``state``
        needs it: the mover's time counts from then)."""
        if isinstance(message, Turn):
            self._turn(message, now)
        elif isinstance(message, State):
            self._state(message, now)
        else:
            handler = _HANDLERS.get(type(message))
            if handler is not None:
                handler(self, message)

    def _remember(self, message: msgspec.Struct) -> None:
        self.log.append(message)
        if len(self.log) > self.log_size:
            del self.log[: len(self.log) - self.log_size]

    def _welcome(self, m: Welcome) -> None:
        self.player, self.token = m.player, m.token

    def _table(self, m: TableChanged) -> None:
        self._set_table(m.table)

    def _set_table(self, table: TableInfo) -> None:
        self.table = table
        if not self.in_match or not self.names:
            self.names = tuple(p.name for p in table.players)
        self.connected = [p.connected for p in table.players]

    def _state(self, m: State, now: float) -> None:
        self._set_table(m.table)
        self.you = m.you
        s = m.match
        if s is None:
            self.in_match = False
            return
        self.in_match = True
        self.names = tuple(p.name for p in m.table.players)
        self.rules = Rules.from_dict(m.table.rules)
        if s.round != self.round:
            self.turned_up = None  # dealt while this client was away: it did not see it
        self.round, self.turn, self.dealer, self.to_move = s.round, s.turn, s.dealer, s.to_move
        self.time_ms, self.turn_received = s.time_ms, now
        self.hand, self.open = _cards(s.hand), _group(s.open)
        self.hand_sizes, self.scores, self.active = (
            list(s.hand_sizes),
            list(s.scores),
            list(s.active),
        )
        self.deck_size, self.dead_size = s.deck_size, s.dead_size
        self.history = list(s.history)
        self.can_declare, self.can_draw = s.can_declare, s.can_draw
        self.legal = tuple(map(_group, s.legal)) if s.legal else ()
        self.over = s.over
        self.standings = tuple(s.standings or ())

    def _match_start(self, m: MatchStarted) -> None:
        self.in_match, self.over = True, False
        self.names, self.rules = m.seats, m.rules
        n = len(m.seats)
        self.scores, self.active = [0] * n, [True] * n
        self.standings = ()
        self.out_in, self.left_in = {}, {}
        self._remember(m)

    def _round_start(self, m: RoundStarted) -> None:
        self.round, self.dealer, self.to_move, self.turn = m.round, m.dealer, m.first, 0
        shown = [i for i, h in enumerate(m.hands) if h is not None]
        if len(shown) == 1:  # a seat is dealt its own hand only: that says which seat it is
            self.you = shown[0]  # (over stdio nothing else does, and it may change by match)
        mine = m.hands[self.you] if self.you is not None and self.you < len(m.hands) else None
        self.hand = _cards(mine) if mine else ()
        self.open = _group(m.open)
        self.turned_up = self.open[0] if len(self.open) == 1 else None
        self.hand_sizes = list(m.hand_sizes)
        self.deck_size, self.dead_size = m.deck_size, 0
        self.history, self.legal, self.can_declare = [], (), False
        self._remember(m)

    def _turn(self, m: Turn, now: float) -> None:
        self.to_move, self.round, self.turn = m.seat, m.round, m.turn
        self.time_ms, self.turn_received = m.time_ms, now
        self.open = _group(m.open)
        self.can_draw = m.can_draw
        if m.seat == self.you:
            self.can_declare = m.can_declare
            if m.hand is not None:
                self.hand = _cards(m.hand)
            self.legal = tuple(map(_group, m.legal)) if m.legal is not None else ()
        else:
            self.can_declare, self.legal = False, ()

    def _played(self, m: Played) -> None:
        taken = 0 if m.took is None else 1
        self.dead_size += len(self.open) - taken
        if m.took is None:
            self.deck_size -= 1
        self.hand_sizes[m.seat] += 1 - len(m.discard)
        if m.seat == self.you:
            gone = set(m.discard)
            kept = [c for c in self.hand if str(c) not in gone]
            new = m.took or m.drawn
            if new:
                kept.append(BY_NAME[new])
            self.hand = tuple(sorted(kept))
        self.open = _group(m.discard)
        self.history.append(m if m.drawn is None else msgspec.structs.replace(m, drawn=None))
        self.turn += 1
        self.can_declare, self.legal = False, ()
        self._remember(m)

    def _reshuffled(self, m: Reshuffled) -> None:
        self.deck_size, self.dead_size = m.size, 0
        self._remember(m)

    def _declared(self, m: Declared) -> None:
        self.scores = list(m.scores)
        for seat in m.eliminated:
            self.active[seat] = False
            self.out_in[seat] = self.round
        self._remember(m)

    def _void(self, m: RoundVoid) -> None:
        self._remember(m)

    def _resigned(self, m: Resigned) -> None:
        self.active[m.seat] = False
        self.left_in.setdefault(m.seat, self.round)
        self.dead_size += self.hand_sizes[m.seat]
        self.hand_sizes[m.seat] = 0
        if m.seat == self.you:
            self.hand = ()
        self._remember(m)

    def _match_end(self, m: MatchEnded) -> None:
        self.over, self.standings, self.scores = True, m.standings, list(m.scores)
        self.can_declare, self.legal = False, ()
        self._remember(m)

    def _presence(self, m: PlayerLeft | PlayerBack | PlayerReplaced) -> None:
        if 0 <= m.seat < len(self.connected):
            self.connected[m.seat] = isinstance(m, PlayerBack)
        self._remember(m)

    def _chat(self, m: Chat) -> None:
        self._remember(m)


_HANDLERS: dict[type, Callable[[Tracker, Any], None]] = {
    Welcome: Tracker._welcome,
    TableChanged: Tracker._table,
    MatchStarted: Tracker._match_start,
    RoundStarted: Tracker._round_start,
    Played: Tracker._played,
    Reshuffled: Tracker._reshuffled,
    Declared: Tracker._declared,
    RoundVoid: Tracker._void,
    Resigned: Tracker._resigned,
    MatchEnded: Tracker._match_end,
    PlayerLeft: Tracker._presence,
    PlayerBack: Tracker._presence,
    PlayerReplaced: Tracker._presence,
    Chat: Tracker._chat,
}
