"""The table drawn for a person: pure functions from a ``Tracker`` to rich renderables.

Nothing here touches a terminal or a socket, so every picture can be rendered
to a string in a test. ``Look`` says what the terminal can show: colour or
not, suit symbols and box lines or plain ASCII.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

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
    legal_discards,
)
from leastscore.game.cards import BY_NAME, NAMES, RANK, Card, hand_total
from leastscore.game.narrate import describe
from leastscore.protocol.messages import Chat, PlayerBack, PlayerLeft, PlayerReplaced, TableInfo
from leastscore.protocol.tracker import Tracker
from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text


@dataclass(frozen=True)
class Look:
    """What the terminal can show."""

    color: bool = True
    unicode: bool = True

    @property
    def box(self) -> box.Box:
        return box.ROUNDED if self.unicode else box.ASCII

    @property
    def dot(self) -> str:
        return " · " if self.unicode else " - "

    @property
    def arrow(self) -> str:
        return "▶" if self.unicode else ">"


PLAIN = Look(color=False, unicode=False)


_COERCED = {"C.UTF-8", "C.utf8", "UTF-8"}
"""What Python puts in LC_CTYPE when it coerces a C locale (PEP 538)."""


def detect_look(
    plain: bool = False,
    environ: Mapping[str, str] | None = None,
    encoding: str | None = None,
    tty: bool = True,
) -> Look:
    """``--plain``, ``NO_COLOR``, ``TERM=dumb``, a pipe or a non-UTF-8 locale each take
    away what that terminal cannot show."""
    env = os.environ if environ is None else environ
    if plain or env.get("TERM") == "dumb":
        return PLAIN
    locale = env.get("LC_ALL") or env.get("LC_CTYPE") or env.get("LANG") or ""
    if not env.get("LC_ALL") and locale in _COERCED and env.get("LANG"):
        locale = env["LANG"]  # Python itself set LC_CTYPE when the locale was C or missing
    utf8 = (encoding or "utf-8").lower().replace("-", "") == "utf8"
    if locale and not re.search(r"utf-?8", locale, re.IGNORECASE):
        utf8 = False
    return Look(color=tty and not env.get("NO_COLOR"), unicode=utf8)


def make_console(look: Look, width: int = 80, file: IO[str] | None = None) -> Console:
    return Console(
        file=file,
        width=width,
        force_terminal=look.color,
        color_system="standard" if look.color else None,
        no_color=not look.color,
        highlight=False,
        markup=False,
        emoji=False,
        safe_box=True,
        legacy_windows=False,
    )


def render(renderable: RenderableType, look: Look, width: int = 80) -> str:
    """A renderable as the text (with escape codes when in colour) a terminal is sent."""
    console = make_console(look, width)
    with console.capture() as capture:
        console.print(renderable)
    return capture.get()


# -- cards --------------------------------------------------------------------------

_SYMBOL = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}
_RED = {"D", "H"}


def card(c: Card | str, look: Look) -> Text:
    """One card: ``10♥`` in red on a colour terminal, ``TH`` in plain ASCII."""
    name = c if isinstance(c, str) else NAMES[c]
    rank, suit = name[0], name[1]
    shown = ("10" if rank == "T" else rank) + _SYMBOL[suit] if look.unicode else name
    if not look.color:
        return Text(shown)
    return Text(shown, style="bold red" if suit in _RED else "bold")


def cards(cs: Sequence[Card | str], look: Look, sep: str = " ") -> Text:
    out = Text()
    for i, c in enumerate(cs):
        if i:
            out.append(sep)
        out.append_text(card(c, look))
    return out


_CARD = re.compile(r"(?<![\w])([A2-9TJQK][CDHS])(?![\w])")


def with_cards(line: str, look: Look, style: str = "") -> Text:
    """A sentence whose card names are drawn as cards."""
    out = Text(style=style)
    at = 0
    for m in _CARD.finditer(line):
        out.append(_safe(line[at : m.start()], look))
        out.append_text(card(m.group(1), look))
        at = m.end()
    out.append(_safe(line[at:], look))
    return out


def _safe(text: str, look: Look) -> str:
    """Names and chat typed elsewhere, shown on a terminal that may be ASCII only."""
    return text if look.unicode else text.encode("ascii", "replace").decode("ascii")


# -- lines as things happen ------------------------------------------------------------


def names_of(tracker: Tracker) -> tuple[str, ...]:
    if tracker.names:
        return tracker.names
    if tracker.table is not None:
        return tuple(p.name for p in tracker.table.players)
    return ()


def narrate(message: msgspec.Struct, tracker: Tracker, look: Look) -> Text | None:
    """One line for a message as it arrives, or None when it tells a person nothing."""
    names = names_of(tracker)
    me = tracker.you
    if isinstance(message, Chat):
        who = "You" if message.seat is not None and message.seat == me else message.name
        return Text.assemble((_safe(who, look), "bold cyan" if look.color else ""), ": ") + Text(
            _safe(message.text, look)
        )
    if isinstance(message, PlayerLeft):
        return _note(
            f"{message.name} lost the connection; the seat waits "
            f"{message.grace_ms // 1000} s for them",
            look,
        )
    if isinstance(message, PlayerBack):
        return _note(f"{message.name} is back", look)
    if isinstance(message, PlayerReplaced):
        return _note(f"A {message.level} bot now plays for {message.name}", look)
    if isinstance(message, MatchStarted | RoundStarted):
        return None  # drawn as a heading and a table instead
    if isinstance(message, Played | Reshuffled | Declared | RoundVoid | Resigned):
        if not names:
            return None
        line = describe(message, names, me)
        style = "dim" if isinstance(message, Reshuffled) else ""
        if isinstance(message, Played) and message.seat == me:
            style = "bold"
        return with_cards(line, look, style if look.color else "")
    return None


def _note(line: str, look: Look) -> Text:
    return Text(_safe(line, look), style="yellow" if look.color else "")


def heading(text: str, look: Look) -> Text:
    """A rule-like heading line that needs no box characters."""
    bar = "──" if look.unicode else "--"
    return Text(f"{bar} {_safe(text, look)} {bar}", style="bold" if look.color else "")


def match_heading(event: MatchStarted, me: int | None, look: Look) -> Text:
    others = [n for i, n in enumerate(event.seats) if i != me]
    who = ", ".join(others) if me is not None else ", ".join(event.seats)
    line = f"New match: you against {who}" if me is not None else f"New match: {who}"
    line += f"; out above {event.rules.threshold} points"
    changes = event.rules.changes()
    changes.pop("threshold", None)
    if changes:
        line += "; house rules: " + ", ".join(
            k if v is True else f"{k}={v}" for k, v in changes.items()
        )
    return heading(line, look)


def round_heading(event: RoundStarted, tracker: Tracker, look: Look) -> Text:
    names = names_of(tracker)
    line = describe(event, names, tracker.you)
    return with_cards(
        f"{'──' if look.unicode else '--'} {line}", look, "bold" if look.color else ""
    )


# -- the table ---------------------------------------------------------------------


def _presence(tracker: Tracker) -> dict[int, str]:
    """Seats whose player is away, from the latest word about each."""
    notes: dict[int, str] = {}
    for m in tracker.log:
        if isinstance(m, PlayerLeft):
            notes[m.seat] = "away"
        elif isinstance(m, PlayerReplaced):
            notes[m.seat] = "away, a bot plays"
        elif isinstance(m, PlayerBack):
            notes.pop(m.seat, None)
        elif isinstance(m, MatchStarted):
            notes.clear()
    for seat, ok in enumerate(tracker.connected):
        if not ok and seat not in notes:
            notes[seat] = "away"
    return notes


def players(tracker: Tracker, look: Look) -> Table:
    names = names_of(tracker)
    grid = Table(
        box=None,
        show_header=True,
        header_style="dim" if look.color else "",
        pad_edge=False,
        padding=(0, 1),
    )
    grid.add_column("", width=1)
    grid.add_column("player")
    grid.add_column("cards", justify="right")
    grid.add_column("score", justify="right")
    grid.add_column("")
    away = _presence(tracker)
    bots = {p.seat for p in tracker.table.players if p.kind == "bot"} if tracker.table else set()
    playing = tracker.in_match and not tracker.over
    for seat, name in enumerate(names):
        mine = seat == tracker.you
        moving = playing and seat == tracker.to_move
        active = seat >= len(tracker.active) or tracker.active[seat]
        size = tracker.hand_sizes[seat] if seat < len(tracker.hand_sizes) else 0
        score = tracker.scores[seat] if seat < len(tracker.scores) else 0
        notes = []
        if seat in bots and "bot" not in name.lower():
            notes.append("bot")
        if playing and seat == tracker.dealer:
            notes.append("dealer")
        if seat in away:
            notes.append(away[seat])
        style = ""
        if look.color:
            style = "bold" if moving else ("dim" if not active else "")
        who = _safe(name, look) + (" (you)" if mine else "")
        grid.add_row(
            Text(look.arrow if moving else "", style="bold green" if look.color else ""),
            Text(who, style=style + (" cyan" if mine and look.color else "")),
            "out" if not active else (str(size) if tracker.in_match else ""),
            str(score) if tracker.in_match else "",
            Text(", ".join(notes), style="yellow" if look.color and seat in away else ""),
        )
    return grid


def _groups(tracker: Tracker, look: Look) -> Text | None:
    """The multi-card groups in the hand: what a newcomer most easily misses."""
    # Groups alike (the pairs among three 9s, runs that differ by a suit) are told once.
    alike: dict[tuple[str, tuple[int, ...]], set[Card]] = {}
    for g in legal_discards(tracker.hand, tracker.rules):
        if len(g) > 1:
            key = (_kind(g), tuple(sorted(RANK[c] for c in g)))
            alike.setdefault(key, set()).update(g)
    if not alike:
        return None
    out = Text("Groups  ", style="dim" if look.color else "")
    for i, ((kind, ranks), union) in enumerate(alike.items()):
        if i:
            out.append(look.dot)
        if len(union) == len(ranks):
            out.append_text(cards(sorted(union), look))
            out.append(f" {kind}")
        else:
            out.append(f"{kind} from ")
            out.append_text(cards(sorted(union), look))
    return out


def _kind(group: Sequence[Card]) -> str:
    ranks = {RANK[c] for c in group}
    if len(ranks) == 1:
        return "pair" if len(group) == 2 else "four of a kind"
    if len(group) == 5 and len({NAMES[c][1] for c in group}) == 1 and len(ranks) == 5:
        return "flush"
    return "run"


def table_view(tracker: Tracker, look: Look, moves: int = 0) -> RenderableType:
    """The whole table: players, deck, open cards, your hand; ``moves`` recent moves too."""
    parts: list[RenderableType] = []
    names = names_of(tracker)
    if moves and tracker.history:
        parts.append(Text("Last moves", style="dim" if look.color else ""))
        for m in tracker.history[-moves:]:
            parts.append(with_cards("  " + describe(m, names, tracker.you), look))
        parts.append(Text(""))
    parts.append(players(tracker, look))
    parts.append(Text(""))
    label = "dim" if look.color else ""
    row = Text.assemble(("Deck ", label), str(tracker.deck_size), ("   Open  ", label))
    row.append_text(cards(tracker.open, look))
    parts.append(row)
    if tracker.you is not None and tracker.hand:
        hand = Text.assemble(("Hand  ", label))
        hand.append_text(cards(tracker.hand, look))
        hand.append(f"   total {hand_total(tracker.hand)}", style="bold" if look.color else "")
        parts.append(hand)
        groups = _groups(tracker, look)
        if groups is not None:
            parts.append(groups)
    title = f"Round {tracker.round}{look.dot}out above {tracker.rules.threshold}"
    if tracker.table is not None:
        title = f"{_safe(tracker.table.name, look)}{look.dot}{title}"
    return Panel(
        Group(*parts),
        title=title,
        title_align="left",
        box=look.box,
        expand=False,
        padding=(0, 1),
    )


def turn_line(tracker: Tracker, look: Look, now: float, verbose: bool = False) -> Text:
    """Printed once when it becomes your turn (``now`` on the tracker's clock)."""
    out = Text(
        f"Your turn: {round(tracker.time_left(now))} s to move.",
        style="bold green" if look.color else "",
    )
    total = hand_total(tracker.hand)
    limit = tracker.rules.declare_limit
    if tracker.can_declare:
        out.append(f" You may declare (your total is {total}).")
    elif limit is not None and total > limit:
        out.append(f" Declaring needs {limit} points or less.")
    else:
        out.append(" No declaring on your first turn of a round.")
    if verbose:
        high = max(tracker.hand, key=lambda c: (min(10, RANK[c]), c)) if tracker.hand else None
        example = NAMES[high] if high is not None else "KS"
        opened = NAMES[tracker.open[0]] if tracker.open else "8S"
        out.append(
            f"\nType the cards to put down, then deck or an open card to take, "
            f"like {example} deck or {example} {opened}. Tab lists every legal move; "
            "also: declare, hint, help."
        )
    return out


# -- the end of a round and of a match ---------------------------------------------------


def reveal(
    event: Declared, names: Sequence[str], me: int | None, look: Look, round: int = 0
) -> Table:
    """Every hand at a declaration: totals, round scores, match scores, who is out."""
    grid = Table(
        title=f"The hands of round {round}" if round else "The hands",
        title_justify="left",
        box=look.box,
        show_header=True,
        header_style="bold" if look.color else "",
        pad_edge=True,
    )
    for column, justify in (
        ("player", "left"),
        ("hand", "left"),
        ("total", "right"),
        ("round", "right"),
        ("match", "right"),
        ("", "left"),
    ):
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    for seat, hand in enumerate(event.hands):
        if hand is None:
            continue
        who = "You" if seat == me else _safe(names[seat], look)
        note = []
        if seat == event.seat:
            note.append("declared" + ("" if event.holds else ", not lowest"))
        if seat in event.eliminated:
            note.append("out")
        shown = sorted(BY_NAME[c] for c in hand)
        points = event.round_scores[seat]
        grid.add_row(
            Text(who, style="bold" if look.color and seat == event.seat else ""),
            cards(shown, look),
            str(event.totals[seat]),
            f"+{points}" if points else "0",
            str(event.scores[seat]),
            Text(
                ", ".join(note), style="yellow" if look.color and seat in event.eliminated else ""
            ),
        )
    return grid


def _place(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def standings(event: MatchEnded, names: Sequence[str], me: int | None, look: Look) -> Group:
    grid = Table(
        title="Final standings",
        title_justify="left",
        box=look.box,
        header_style="bold" if look.color else "",
        pad_edge=True,
    )
    grid.add_column("place", justify="right")
    grid.add_column("player")
    grid.add_column("score", justify="right")
    for s in event.standings:
        who = "You" if s.seat == me else _safe(names[s.seat], look)
        style = "bold" if look.color and s.place == 1 else ""
        grid.add_row(_place(s.place), Text(who, style=style), str(s.score))
    winner = event.standings[0]
    if me is None:
        verdict = f"{_safe(names[winner.seat], look)} wins the match."
    elif winner.seat == me:
        verdict = "You win the match!"
    else:
        mine = next((s.place for s in event.standings if s.seat == me), None)
        verdict = f"{_safe(names[winner.seat], look)} wins the match."
        if mine is not None:
            verdict += f" You finished {_place(mine)}."
    return Group(grid, Text(verdict, style="bold green" if look.color else ""))


# -- the lobby ---------------------------------------------------------------------------


def rules_note(rules: Mapping[str, object]) -> str:
    return ", ".join(k if v is True else f"{k}={v}" for k, v in rules.items())


def tables_list(tables: Sequence[TableInfo], look: Look) -> RenderableType:
    if not tables:
        return Text("No tables yet. Open one with: create [NAME] [--seats N] [--threshold T]")
    grid = Table(box=look.box, header_style="bold" if look.color else "")
    for column in ("#", "id", "name", "seated", "state", "house rules"):
        grid.add_column(column)
    for i, t in enumerate(tables, start=1):
        state = "playing" if t.playing else ("open" if len(t.players) < t.seats else "full")
        if t.locked:
            state += ", password"
        grid.add_row(
            str(i),
            t.id,
            _safe(t.name, look),
            f"{len(t.players)}/{t.seats}",
            state,
            rules_note(t.rules),
        )
    return Group(
        grid,
        Text("join ID (or its #) [--password P] to sit down, watch ID to look on."),
    )


def seating(table: TableInfo, you: int | None, look: Look) -> Text:
    """Who sits at a table before its match starts."""
    who = [_safe(p.name, look) + (" (you)" if p.seat == you else "") for p in table.players]
    line = (
        f"Table {_safe(table.name, look)} ({table.id}): {', '.join(who) or 'nobody'}"
        f"{look.dot}{len(table.players)} of {table.seats} seats"
    )
    if table.rules:
        line += f"{look.dot}{rules_note(table.rules)}"
    return Text(line)


# -- the status line ---------------------------------------------------------------------


def status(tracker: Tracker, look: Look, now: float, connected: bool = True) -> str:
    """One line, redrawn every second: whose turn it is and the time left at ``now``
    (on the tracker's clock)."""
    dot = look.dot
    if not connected:
        return "Connection lost: reconnecting..."
    if tracker.table is None:
        return f"Lobby{dot}tables, create, join ID, watch ID{dot}help"
    if not tracker.in_match:
        seated = f"{len(tracker.table.players)}/{tracker.table.seats} seated"
        return f"Table {_safe(tracker.table.name, look)}{dot}{seated}{dot}bot add greedy, start"
    if tracker.over:
        return f"Match over{dot}start for another (the creator starts), leave, quit"
    names = names_of(tracker)
    left = f"{round(tracker.time_left(now))} s"
    where = f"Round {tracker.round}{dot}deck {tracker.deck_size}"
    if tracker.my_turn:
        extra = f"{dot}you may declare" if tracker.can_declare else ""
        return f"{where}{dot}YOUR TURN: {left} left{extra}{dot}hint, help"
    mover = names[tracker.to_move] if 0 <= tracker.to_move < len(names) else "?"
    return f"{where}{dot}{_safe(mover, look)} to move ({left})"


# -- help ------------------------------------------------------------------------------


def help_view(look: Look) -> Panel:
    lines = [
        ("On your turn", ""),
        ("  KS deck", "put down KS, draw the top card of the deck"),
        ("  7H 7D take 8S", "put down a pair, take the open 8S"),
        ("  KS 8S", "the same in short: the card you do not hold is the one you take"),
        ("  declare, d", "end the round: lowest hand wins (not on your first turn)"),
        ("  hint", "suggest a move (Enter plays it)"),
        ("Any time", ""),
        ("  chat TEXT", "talk to the table"),
        ("  look", "draw the table again"),
        ("  rules", "the full rules"),
        ("  quit", "leave"),
        ("Lobby", ""),
        ("  tables", "list the tables on the server"),
        ("  create NAME", "open a table: --seats N, --threshold T, --password P, house rules"),
        ("", "runs_same_suit, tie_loses, first_out_ends, penalty=N, limit=N"),
        ("  join ID, watch ID", "sit at a table (add its password if it has one), or look on"),
        ("  bot add LEVEL [N]", "fill seats with built-in bots (random, greedy, counter, expert)"),
        ("  start, leave", "start the match (table creator), leave the table"),
    ]
    grid = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1))
    grid.add_column(style="bold" if look.color else "")
    grid.add_column()
    for left, right in lines:
        grid.add_row(left, right)
    summary = Text(
        "Legal groups: one card; a pair or four of a kind (never three); a run of exactly "
        "3 or 5 in a row (suits free, A low or high, no wrapping); five of one suit (flush). "
        "Cards count A=1, 2-10 face value, J Q K = 10. Declare when you think your hand is "
        "the lowest: if it is, the others score the difference; if not, you score 20 plus "
        "the difference. Above the threshold you are out; the last one in wins."
    )
    return Panel(
        Group(grid, Text(""), summary),
        title="How to play",
        title_align="left",
        box=look.box,
        expand=False,
    )
