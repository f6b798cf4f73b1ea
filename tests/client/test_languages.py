"""A whole match's screens in every language: every message translated, nothing wider
than 80 columns, and no sentence left in the code unmarked for translation."""

from __future__ import annotations

import gettext
import re
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from leastscore.bots import BUILTIN, make_bot
from leastscore.bots.view import BotView
from leastscore.client import parse
from leastscore.client.complete import candidates, describe_move
from leastscore.client.screen import (
    Look,
    help_view,
    match_heading,
    narrate,
    render,
    reveal,
    round_heading,
    seating,
    standings,
    status,
    table_view,
    tables_list,
    turn_line,
)
from leastscore.game import (
    Declare,
    Declared,
    Event,
    Match,
    MatchEnded,
    MatchStarted,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
    Rules,
    explain_discard,
    parse_cards,
)
from leastscore.protocol.convert import turn_for
from leastscore.protocol.messages import (
    Chat,
    PlayerBack,
    PlayerLeft,
    PlayerReplaced,
    SeatInfo,
    TableChanged,
    TableInfo,
)
from leastscore.protocol.tracker import Tracker
from leastscore.words.narrate import describe, ordinal
from rich.cells import cell_len
from rich.text import Text

from leastscore import lang

from ..support.terminal import ESCAPES

ROOT = Path(__file__).resolve().parents[2]
SEATS = ["Ann", "Greedy bot", "Greedy bot (2)"]
WIDTH = 80
LOOK = Look(color=False, unicode=True)


def table(playing: bool, rules: dict[str, object] | None = None) -> TableInfo:
    return TableInfo(
        id="t0a1b2",
        name="Friday",
        seats=3,
        players=[SeatInfo(i, n, "human" if i == 0 else "bot") for i, n in enumerate(SEATS)],
        spectators=0,
        playing=playing,
        locked=True,
        rules=rules or {"threshold": 25},
    )


def screens(look: Look = LOOK, seed: int = 21) -> Iterator[str]:
    """Everything seat 0's terminal shows in a match against two bots, rendered as it
    would be at the time, and the lobby, the help and the problems around it."""
    yield render(tables_list([], look), look, WIDTH)
    yield render(tables_list([table(False, {"threshold": 25, "tie_loses": True})], look), look)
    yield render(seating(table(False), 0, look), look, WIDTH)
    yield render(help_view(look), look, WIDTH)
    tracker = Tracker()
    tracker.apply(TableChanged(table(False)))
    yield status(tracker, look, 0.0)
    yield status(Tracker(), look, 0.0)
    yield status(tracker, look, 0.0, connected=False)
    match = Match(SEATS, Rules(threshold=15, tie_loses=True), seed=seed)  # three rounds
    bots = [make_bot("greedy", seed=seat) for seat in range(3)]
    events = match.start()
    seen = 0
    while True:
        for event in events:
            mine = event.seen_by(0)
            tracker.apply(mine)
            for seat, bot in enumerate(bots):
                bot.on_event(event.seen_by(seat))
            yield from _told(mine, tracker, look)
        if match.over:
            break
        mover = match.to_move
        tracker.apply(turn_for(match.view(0), 30_000, mover))
        yield status(tracker, look, 0.0)
        if mover == 0:
            yield render(table_view(tracker, look, moves=5), look, WIDTH)
            yield render(turn_line(tracker, look, 0.0, verbose=seen < 2), look, WIDTH)
            yield from (meta for _, meta in candidates(tracker, ["t0a1b2"]))
            seen += 1
        view = BotView.of(match.view(mover))
        move = bots[mover].choose(view)
        if mover == 0:
            yield describe_move(move)
            yield parse.move_text(move)
        events = match.apply(mover, move)
    assert seen > 3 and tracker.over
    yield status(tracker, look, 0.0)
    # What one match may not show: the rest of the ways the table speaks.
    names = tuple(SEATS)
    for message in (
        Chat("Bea", "hello", 1),
        Chat("Ann", "hi", 0),
        PlayerLeft(1, "Greedy bot", 60_000),
        PlayerBack(1, "Greedy bot"),
        PlayerReplaced(1, "Greedy bot", "greedy"),
        Reshuffled(30),
        RoundVoid(4, 500),
        Resigned(2, "forfeit after 3 faults"),
        Resigned(0, "resigned"),
    ):
        line = narrate(message, tracker, look)
        assert line is not None
        yield render(line, look, WIDTH)
    false = Declared(
        0, False, (("KS",), ("AS",), ("2C",)), (10, 1, 2), (22, 0, 0), (40, 3, 4), (0,)
    )
    yield render(Text(describe(false, names, me=0)), look, WIDTH)
    yield render(Text(describe(false, names, me=1)), look, WIDTH)
    yield render(reveal(false, names, 0, look, 3), look, WIDTH)
    yield render(Text(describe(MatchStarted(names, Rules(threshold=50)), names)), look, WIDTH)
    yield render(
        match_heading(MatchStarted(names, Rules(threshold=50, runs_same_suit=True)), None, look),
        look,
    )
    yield from (ordinal(n) for n in range(1, 25))
    for problem in _problems():
        yield render(Text(problem), look, WIDTH)


def _told(event: Event, tracker: Tracker, look: Look) -> Iterator[str]:
    """What the client prints for one event (as ``Client._on_message`` does)."""
    names = tuple(tracker.names)
    if isinstance(event, MatchStarted):
        yield render(match_heading(event, 0, look), look, WIDTH)
    elif isinstance(event, RoundStarted):
        yield render(round_heading(event, tracker, look), look, WIDTH)
    else:
        line = narrate(event, tracker, look)
        if line is not None:
            yield render(line, look, WIDTH)
    if isinstance(event, Declared):
        yield render(reveal(event, names, 0, look, tracker.round), look, WIDTH)
    if isinstance(event, MatchEnded):
        yield render(standings(event, names, 0, look), look, WIDTH)
        yield render(standings(event, names, None, look), look, WIDTH)
        yield render(standings(event, names, 1, look), look, WIDTH)


def _problems() -> Iterator[str]:
    """Typed lines that are refused, each with its reason."""
    ctx = parse.Context(
        tuple(sorted(parse_cards("7H 7D KS 2C 3C"))), tuple(parse_cards("8S")), Rules()
    )
    for typed in (
        "",
        "xyzzy",
        "7h",
        "7h 8c deck",
        "7h take",
        "7h take 8s deck",
        "deck",
        "8s",
        "9h deck",
        "7h 7h deck",
        "7h 7d ks deck",
        "2c 3c deck",
        "7h 7s",
        "7h ks 8s",
        "7h 7d take ks",
        "ah ad ac as 2c 2d",
        "chat",
        "help me",
        "create --bogus=1",
        "create tie_loses=maybe",
        "create threshold",
        "create threshold=x",
        "create --seats 9",
        "create --threshold 0",
        "create " + "x" * 41,
        "create --password",
        "join",
        "bot add 9",
        "7z deck",
        "zh deck",
    ):
        try:
            parse.parse(typed, ctx)
        except parse.ParseError as e:
            yield str(e)
        else:
            raise AssertionError(f"{typed!r} was accepted")
    assert parse.parse("7h kunin 8s", ctx) == parse.parse("7h take 8s", ctx)
    for cards in ("KS KD KH", "6S 7S 8D 9H", "KS AD 2H", "2H 7H 9H JH", "KS KD QS QD"):
        yield lang.say(explain_discard(parse_cards(cards), Rules(runs_same_suit=True)) or "")
    yield describe_move(Declare())


class Misses(gettext.NullTranslations):
    """Records every message the catalog in front of it did not have."""

    def __init__(self) -> None:
        super().__init__()
        self.missed: set[str] = set()

    def gettext(self, message: str) -> str:
        self.missed.add(message)
        return message

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        self.missed.add(msgid1)
        return msgid1 if n == 1 else msgid2


def too_wide(text: str) -> list[str]:
    return [line for line in ESCAPES.sub("", text).splitlines() if cell_len(line) > WIDTH]


@pytest.mark.parametrize("code", list(lang.LANGUAGES))
def test_a_whole_match_in_every_language(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    misses = Misses()
    if code != lang.DEFAULT:
        path = ROOT / "leastscore" / "locale" / code / "LC_MESSAGES" / "leastscore.mo"
        with path.open("rb") as mo:
            words = gettext.GNUTranslations(mo)
        words.add_fallback(misses)
        monkeypatch.setattr(lang, "_words", words)
        monkeypatch.setattr(lang, "_code", code)
    shown = list(screens())
    assert len(shown) > 200
    if code != lang.DEFAULT:
        assert not misses.missed, f"untranslated in {code}: {sorted(misses.missed)}"
        english = set(screens_in_english())
        same = [s for s in shown if s in english and re.search(r"[a-z]{4}", s)]
        assert len(same) < len(shown) / 10, same  # the words changed, not just the cards
    wide = [line for text in shown for line in too_wide(text)]
    assert not wide, "\n".join(wide)
    assert not [s for s in shown if "…" in s], "a cell or title was cut short"
    for text in shown:  # the status line goes to a toolbar that prompt_toolkit cuts off
        if "\n" not in text:
            assert cell_len(text) < WIDTH, text


_english: list[str] = []


def screens_in_english() -> list[str]:
    if not _english:
        with lang.speaking("en"):
            _english.extend(screens())
    return _english


class Shouting(gettext.NullTranslations):
    """A make-believe language: every translated message in capitals, placeholders kept."""

    @staticmethod
    def loud(message: str) -> str:
        out = []
        for text, name, spec, conversion in string.Formatter().parse(message):
            out.append(text.upper())
            if name is not None:
                out.append("{" + name + ("!" + conversion if conversion else ""))
                out.append((":" + spec if spec else "") + "}")
        return "".join(out)

    def gettext(self, message: str) -> str:
        return self.loud(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        return self.loud(msgid1 if n == 1 else msgid2)


DATA = {
    *(word for name in [*SEATS, "Bea", "Friday"] for word in name.lower().split()),
    *(word for command in parse.COMMAND_WORDS for word in command.split()),
    *Rules.__struct_fields__,
    *BUILTIN,  # the levels, typed after bot add
    *("deck", "take", "declare", "d", "password", "quit"),
    *("hello", "hi", "xyzzy", "bogus", "maybe", "x", "zh"),  # typed in the screens above
}
"""Lowercase words that are data (names, typed words, house rules), not messages."""


def test_every_word_on_screen_is_in_a_message(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a language where every message is in capitals, a lowercase word on the screen
    is one that no message carries: text the code never marked for translation."""
    monkeypatch.setattr(lang, "_words", Shouting())
    monkeypatch.setattr(lang, "_code", "shouting")
    unmarked: set[str] = set()
    for text in screens():
        for word in re.findall(r"\b[A-Za-z]?[a-z_]+\b", ESCAPES.sub("", text)):
            if word.lower() not in DATA:
                unmarked.add(word)
    assert not unmarked, f"shown but never translated: {sorted(unmarked)}"
