"""The table drawn for a person: pure functions from a ``Tracker`` to rich renderables.

Nothing here touches a terminal or a socket, so every picture can be rendered
to a string in a test. ``Look`` says what the terminal can show: colour or
not, suit symbols and box lines or plain ASCII.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

import msgspec
from leastscore.bots import BUILTIN
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
from leastscore.game.rules import house_rules_text
from leastscore.protocol.messages import Chat, PlayerBack, PlayerLeft, PlayerReplaced, TableInfo
from leastscore.protocol.text import shown
from leastscore.protocol.tracker import Tracker
from leastscore.words.narrate import describe, ordinal
from rich import box
from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from leastscore.lang import _

from .parse import HOUSE_RULES_HELP, own_words


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
        out.append(safe(line[at : m.start()], look))
        out.append_text(card(m.group(1), look))
        at = m.end()
    out.append(safe(line[at:], look))
    return out


def safe(text: str, look: Look) -> str:
    """Text that came over the network (names, table names, chat, a server's reasons), as
    a terminal may be sent it: control characters written out, never obeyed, and only
    ASCII on a terminal that shows no more. (Markup is never read: the console has it off,
    and every such text goes into a ``Text``, never a string rich would parse.)"""
    return fit(shown(text), look)


def fit(text: str, look: Look) -> str:
    """``text`` as a terminal that is not UTF-8 gets it: letters lose their accents
    (``é`` is ``e``), anything else beyond ASCII becomes ``?``."""
    if look.unicode or text.isascii():
        return text
    text = text.translate(_LIGATURES)
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return bare.encode("ascii", "replace").decode("ascii")


_LIGATURES = str.maketrans({"œ": "oe", "Œ": "OE", "æ": "ae", "Æ": "AE", "ß": "ss"})


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
        who = _("You") if message.seat is not None and message.seat == me else message.name
        return Text.assemble((safe(who, look), "bold cyan" if look.color else ""), ": ") + Text(
            safe(message.text, look)
        )
    if isinstance(message, PlayerLeft):
        return _note(
            _("{name} lost the connection; the seat waits {seconds} s for them").format(
                name=message.name, seconds=message.grace_ms // 1000
            ),
            look,
        )
    if isinstance(message, PlayerBack):
        return _note(_("{name} is back").format(name=message.name), look)
    if isinstance(message, PlayerReplaced):
        return _note(
            _("A {level} bot now plays for {name}").format(level=message.level, name=message.name),
            look,
        )
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
    return Text(safe(line, look), style="yellow" if look.color else "")


def heading(text: str, look: Look) -> Text:
    """A rule-like heading line that needs no box characters."""
    bar = "──" if look.unicode else "--"
    return Text(f"{bar} {safe(text, look)} {bar}", style="bold" if look.color else "")


def match_heading(event: MatchStarted, me: int | None, look: Look) -> Text:
    others = [n for i, n in enumerate(event.seats) if i != me]
    who = ", ".join(others) if me is not None else ", ".join(event.seats)
    line = (
        _("New match: you against {players}; out above {threshold} points")
        if me is not None
        else _("New match: {players}; out above {threshold} points")
    ).format(players=who, threshold=event.rules.threshold)
    changes = event.rules.changes()
    changes.pop("threshold", None)
    if changes:
        line = _("{match}; house rules: {rules}").format(
            match=line, rules=house_rules_text(changes)
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
            notes[m.seat] = _("away")
        elif isinstance(m, PlayerReplaced):
            notes[m.seat] = _("away, a bot plays")
        elif isinstance(m, PlayerBack):
            notes.pop(m.seat, None)
        elif isinstance(m, MatchStarted):
            notes.clear()
    for seat, ok in enumerate(tracker.connected):
        if not ok and seat not in notes:
            notes[seat] = _("away")
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
    grid.add_column(_("player"))
    grid.add_column(_("cards"), justify="right")
    grid.add_column(_("score"), justify="right")
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
            notes.append(_("bot"))
        if playing and seat == tracker.dealer:
            notes.append(_("dealer"))
        if seat in away:
            notes.append(away[seat])
        style = ""
        if look.color:
            style = "bold" if moving else ("dim" if not active else "")
        who = _("{name} (you)").format(name=safe(name, look)) if mine else safe(name, look)
        grid.add_row(
            Text(look.arrow if moving else "", style="bold green" if look.color else ""),
            Text(who, style=style + (" cyan" if mine and look.color else "")),
            _("out") if not active else (str(size) if tracker.in_match else ""),
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
    out = Text(_("Groups") + "  ", style="dim" if look.color else "")
    for i, ((kind, ranks), union) in enumerate(alike.items()):
        if i:
            out.append(look.dot)
        if len(union) == len(ranks):
            out.append_text(cards(sorted(union), look))
            out.append(f" {kind}")
        else:
            out.append(_("{kind}: {count} of").format(kind=kind, count=len(ranks)) + " ")
            out.append_text(cards(sorted(union), look))
    return out


def _kind(group: Sequence[Card]) -> str:
    ranks = {RANK[c] for c in group}
    if len(ranks) == 1:
        return _("pair") if len(group) == 2 else _("four of a kind")
    if len(group) == 5 and len({NAMES[c][1] for c in group}) == 1 and len(ranks) == 5:
        return _("flush")
    return _("run")


def table_view(tracker: Tracker, look: Look, moves: int = 0) -> RenderableType:
    """The whole table: players, deck, open cards, your hand; ``moves`` recent moves too."""
    parts: list[RenderableType] = []
    names = names_of(tracker)
    if moves and tracker.history:
        parts.append(Text(_("Last moves"), style="dim" if look.color else ""))
        for m in tracker.history[-moves:]:
            parts.append(with_cards("  " + describe(m, names, tracker.you), look))
        parts.append(Text(""))
    parts.append(players(tracker, look))
    parts.append(Text(""))
    label = "dim" if look.color else ""
    row = Text.assemble(
        (_("Deck") + " ", label), str(tracker.deck_size), ("   " + _("Open") + "  ", label)
    )
    row.append_text(cards(tracker.open, look))
    parts.append(row)
    if tracker.you is not None and tracker.hand:
        hand = Text.assemble((_("Hand") + "  ", label))
        hand.append_text(cards(tracker.hand, look))
        hand.append(
            "   " + _("total {total}").format(total=hand_total(tracker.hand)),
            style="bold" if look.color else "",
        )
        parts.append(hand)
        groups = _groups(tracker, look)
        if groups is not None:
            parts.append(groups)
    title = _("Round {round}").format(round=tracker.round) + look.dot
    title += _("out above {threshold}").format(threshold=tracker.rules.threshold)
    if tracker.table is not None:
        title = f"{safe(tracker.table.name, look)}{look.dot}{title}"
    return Panel(
        Group(*parts),
        title=Text(title),  # a string title would be read as markup
        title_align="left",
        box=look.box,
        expand=False,
        padding=(0, 1),
    )


def turn_line(tracker: Tracker, look: Look, now: float, verbose: bool = False) -> Text:
    """Printed once when it becomes your turn (``now`` on the tracker's clock)."""
    out = Text(
        _("Your turn: {seconds} s to move.").format(seconds=round(tracker.time_left(now))),
        style="bold green" if look.color else "",
    )
    total = hand_total(tracker.hand)
    limit = tracker.rules.declare_limit
    if tracker.can_declare:
        out.append(" " + _("You may declare (your total is {total}).").format(total=total))
    elif limit is not None and total > limit:
        out.append(" " + _("Declaring needs {limit} points or less.").format(limit=limit))
    else:
        out.append(" " + _("No declaring on your first turn of a round."))
    if verbose:
        high = max(tracker.hand, key=lambda c: (min(10, RANK[c]), c)) if tracker.hand else None
        example = NAMES[high] if high is not None else "KS"
        opened = NAMES[tracker.open[0]] if tracker.open else "8S"
        out.append(
            "\n"
            + _(
                "Type the cards to put down, then deck or an open card to take, "
                "like {card} deck or {card} {open}. Tab lists every legal move; "
                "also: declare, hint, help."
            ).format(card=example, open=opened)
        )
    return out


# -- the end of a round and of a match ---------------------------------------------------


def reveal(
    event: Declared, names: Sequence[str], me: int | None, look: Look, round: int = 0
) -> Table:
    """Every hand at a declaration: totals, round scores, match scores, who is out."""
    grid = Table(
        title=_("The hands of round {round}").format(round=round) if round else _("The hands"),
        title_justify="left",
        box=look.box,
        show_header=True,
        header_style="bold" if look.color else "",
        pad_edge=True,
    )
    for column, justify in (
        (_("player"), "left"),
        (_("hand"), "left"),
        (_("total"), "right"),
        (_("round"), "right"),
        (_("match"), "right"),
        ("", "left"),
    ):
        grid.add_column(column, justify=justify)  # type: ignore[arg-type]
    for seat, hand in enumerate(event.hands):
        if hand is None:
            continue
        who = (
            _("{name} (you)").format(name=safe(names[seat], look))
            if seat == me
            else safe(names[seat], look)
        )
        note = []
        if seat == event.seat:
            note.append(_("declared") if event.holds else _("declared, not lowest"))
        if seat in event.eliminated:
            note.append(_("out"))
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


def standings(
    event: MatchEnded,
    names: Sequence[str],
    me: int | None,
    look: Look,
    out_in: Mapping[int, int] | None = None,
    left_in: Mapping[int, int] | None = None,
) -> Group:
    """The final order, and why it is that order: who was still in, who went out when."""
    out_in, left_in = out_in or {}, left_in or {}
    grid = Table(
        title=_("Final standings"),
        title_justify="left",
        box=look.box,
        header_style="bold" if look.color else "",
        pad_edge=True,
    )
    grid.add_column(_("place"), justify="right")
    grid.add_column(_("player"))
    grid.add_column(_("score"), justify="right")
    grid.add_column("")
    for s in event.standings:
        name = safe(names[s.seat], look)
        who = _("{name} (you)").format(name=name) if s.seat == me else name
        style = "bold" if look.color and s.place == 1 else ""
        if s.seat in left_in:
            why = _("left in round {round}").format(round=left_in[s.seat])
        elif s.seat in out_in:
            why = _("out in round {round}").format(round=out_in[s.seat])
        else:
            why = _("still in")
        grid.add_row(ordinal(s.place), Text(who, style=style), str(s.score), why)
    winner = event.standings[0]
    winner_name = safe(names[winner.seat], look)
    if me is None:
        verdict = _("{name} wins the match.").format(name=winner_name)
    elif winner.seat == me:
        verdict = _("You win the match!")
    else:
        mine = next((s.place for s in event.standings if s.seat == me), None)
        verdict = _("{name} wins the match.").format(name=winner_name)
        if mine is not None:
            verdict = _("{name} wins the match. You finished {place}.").format(
                name=winner_name, place=ordinal(mine)
            )
    return Group(grid, Text(verdict, style="bold green" if look.color else ""))


# -- the lobby ---------------------------------------------------------------------------


def rules_note(rules: Mapping[str, object]) -> str:
    return house_rules_text(rules)


def tables_list(tables: Sequence[TableInfo], look: Look) -> RenderableType:
    if not tables:
        return Text(_("No tables yet. Open one with: create [NAME] [--seats N] [--threshold T]"))
    grid = Table(box=look.box, header_style="bold" if look.color else "")
    for column in ("#", _("id"), _("name"), _("seated"), _("state"), _("house rules")):
        grid.add_column(column)
    for i, t in enumerate(tables, start=1):
        state = (
            _("playing") if t.playing else (_("open") if len(t.players) < t.seats else _("full"))
        )
        if t.locked:
            state = _("{state}, password").format(state=state)
        grid.add_row(
            str(i),
            safe(t.id, look),
            safe(t.name, look),
            f"{len(t.players)}/{t.seats}",
            state,
            safe(rules_note(t.rules), look),
        )
    return Group(
        grid,
        Text(_("join ID (or its #) [--password P] to sit down, watch ID to look on.")),
    )


def seating(table: TableInfo, you: int | None, look: Look) -> Text:
    """Who sits at a table before its match starts."""
    who = [
        _("{name} (you)").format(name=safe(p.name, look)) if p.seat == you else safe(p.name, look)
        for p in table.players
    ]
    line = _("Table {name} ({id}): {players}").format(
        name=safe(table.name, look), id=safe(table.id, look), players=", ".join(who) or _("nobody")
    )
    line += look.dot + _("{seated} of {seats} seats").format(
        seated=len(table.players), seats=table.seats
    )
    if table.rules:
        line += f"{look.dot}{safe(rules_note(table.rules), look)}"
    return Text(line)


# -- the status line ---------------------------------------------------------------------


def status(tracker: Tracker, look: Look, now: float, connected: bool = True) -> str:
    """One line, redrawn every second: whose turn it is and the time left at ``now``
    (on the tracker's clock)."""
    dot = look.dot
    if not connected:
        return _("Connection lost: reconnecting...")
    if tracker.table is None:
        return _("Lobby{dot}tables, create, join ID, watch ID{dot}help").format(dot=dot)
    if not tracker.in_match:
        return _("Table {name}{dot}{seated}/{seats} seated{dot}bot add greedy, start").format(
            name=safe(tracker.table.name, look),
            dot=dot,
            seated=len(tracker.table.players),
            seats=tracker.table.seats,
        )
    if tracker.over:
        return _("Match over{dot}start for another (the creator starts), leave, quit").format(
            dot=dot
        )
    names = names_of(tracker)
    left = round(tracker.time_left(now))
    where = _("Round {round}{dot}deck {size}").format(
        round=tracker.round, dot=dot, size=tracker.deck_size
    )
    if tracker.my_turn:
        line = (
            _("{where}{dot}YOUR TURN: {seconds} s left{dot}you may declare{dot}hint, help")
            if tracker.can_declare
            else _("{where}{dot}YOUR TURN: {seconds} s left{dot}hint, help")
        )
        return line.format(where=where, dot=dot, seconds=left)
    mover = names[tracker.to_move] if 0 <= tracker.to_move < len(names) else "?"
    return _("{where}{dot}{name} to move ({seconds} s)").format(
        where=where, dot=dot, name=safe(mover, look), seconds=left
    )


# -- help ------------------------------------------------------------------------------


def help_view(look: Look) -> Panel:
    lines = [
        (_("On your turn"), ""),
        ("  KS deck", _("put down KS, draw the top card of the deck")),
        ("  7H 7D take 8S", _("put down a pair, take the open 8S")),
        ("  KS 8S", _("the same in short: the card you do not hold is the one you take")),
        ("  declare, d", _("end the round: lowest hand wins (not on your first turn)")),
    ]
    words = own_words()
    if words:
        lines.append(("  " + ", ".join(words), _("your own words for deck, take and declare")))
    lines += [
        ("  hint", _("suggest a move (Enter plays it)")),
        (_("Any time"), ""),
        ("  chat TEXT", _("talk to the table")),
        ("  look", _("draw the table again")),
        ("  rules", _("the full rules")),
        ("  quit", _("leave")),
        (_("Lobby"), ""),
        ("  tables", _("list the tables on the server")),
        (
            "  create NAME",
            _("open a table: --seats N, --threshold T, --password P, house rules"),
        ),
        ("", HOUSE_RULES_HELP),
        (
            "  join ID, watch ID [--password P]",
            _("sit at a table (add its password if it has one), or look on"),
        ),
        (
            "  bot add LEVEL [N]",
            _("fill seats with built-in bots ({levels})").format(levels=", ".join(BUILTIN)),
        ),
        ("  start, leave", _("start the match (table creator), leave the table")),
    ]
    grid = Table(box=None, show_header=False, pad_edge=False, padding=(0, 1))
    grid.add_column(style="bold" if look.color else "")
    grid.add_column()
    for left, right in lines:
        grid.add_row(left, right)
    summary = Text(
        _(
            "Legal groups: one card; a pair or four of a kind (never three); a run of exactly "
            "3 or 5 in a row (suits free, A low or high, no wrapping); five of one suit (flush). "
            "Cards count A=1, 2-10 face value, J Q K = 10. Declare when you think your hand is "
            "the lowest: if it is, the others score the difference; if not, you score 20 plus "
            "the difference. Above the threshold you are out; the last one in wins."
        )
    )
    return Panel(
        Group(grid, Text(""), summary),
        title=_("How to play"),
        title_align="left",
        box=look.box,
        expand=False,
    )
