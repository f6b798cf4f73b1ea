"""What a person types, read forgivingly: a move, a lobby command, or one clear line why not.

Pure: no connection, no terminal. A move is read against what the player can
see (hand, open cards, table rules), so that ``ks 8s`` can mean "discard KS,
take 8S" and a mistake is explained before anything is sent.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from leastscore.game import Card, Declare, Play, Rules, explain_discard, parse_card
from leastscore.game.cards import NAMES, RANK
from leastscore.game.rules import STANDARD

from leastscore.lang import _, current, heard


class ParseError(ValueError):
    """Typed text that is not a command or not a legal move; the message says why in one line."""


@dataclass(frozen=True)
class Context:
    """What the player can see when a move is read."""

    hand: tuple[Card, ...] = ()
    open: tuple[Card, ...] = ()
    rules: Rules = STANDARD
    can_draw: bool = True


# -- commands ---------------------------------------------------------------------


@dataclass(frozen=True)
class Hint:
    pass


@dataclass(frozen=True)
class Help:
    pass


@dataclass(frozen=True)
class ShowRules:
    pass


@dataclass(frozen=True)
class Redraw:
    """Draw the table again (``look``, ``table``)."""


@dataclass(frozen=True)
class Quit:
    pass


@dataclass(frozen=True)
class Say:
    text: str


@dataclass(frozen=True)
class ListTables:
    pass


@dataclass(frozen=True)
class CreateTable:
    name: str = ""
    seats: int = 4
    rules: dict[str, Any] = field(default_factory=dict)
    password: str | None = None


@dataclass(frozen=True)
class JoinTable:
    table: str
    """A table id, a number from the last ``tables`` list, or a table's name."""
    watch: bool = False
    password: str | None = None


@dataclass(frozen=True)
class AddBots:
    level: str = "greedy"
    count: int = 1


@dataclass(frozen=True)
class StartMatch:
    pass


@dataclass(frozen=True)
class LeaveTable:
    pass


Command = (
    Play
    | Declare
    | Hint
    | Help
    | ShowRules
    | Redraw
    | Quit
    | Say
    | ListTables
    | CreateTable
    | JoinTable
    | AddBots
    | StartMatch
    | LeaveTable
)

OWN_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "tl": {"deck": ("kubyerta",), "take": ("kunin",), "declare": ("ipahayag", "magdeklara")},
    "nl": {"deck": ("dek", "stapel"), "take": ("pak", "neem"), "declare": ("verklaar",)},
    "fr": {
        "deck": ("paquet", "pioche"),
        "take": ("prends", "prendre"),
        "declare": ("déclare", "déclarer", "declarer"),
    },
    "zu": {"deck": ("emphemeni", "umpheme"), "take": ("thatha",), "declare": ("memezela",)},
}
"""Each language's own words for ``deck``, ``take`` and ``declare``: every one of them is
understood whatever the language (the English words too), and the help names its own."""


def own_words(code: str | None = None) -> list[str]:
    """The first word of the language for each of ``deck``, ``take``, ``declare``."""
    words = OWN_WORDS.get(code or current(), {})
    return [words[key][0] for key in ("deck", "take", "declare") if key in words]


def _words_for(key: str) -> set[str]:
    return {word for words in OWN_WORDS.values() for word in words.get(key, ())}


_SIMPLE: dict[str, Command] = {
    **dict.fromkeys(_words_for("declare"), Declare()),
    "declare": Declare(),
    "d": Declare(),
    "hint": Hint(),
    "help": Help(),
    "?": Help(),
    "rules": ShowRules(),
    "look": Redraw(),
    "table": Redraw(),
    "quit": Quit(),
    "exit": Quit(),
    "q": Quit(),
    "tables": ListTables(),
    "start": StartMatch(),
    "leave": LeaveTable(),
}

COMMAND_WORDS = (
    "hint",
    "help",
    "rules",
    "look",
    "chat",
    "quit",
    "tables",
    "create",
    "join",
    "watch",
    "bot add",
    "start",
    "leave",
)
"""What completion offers besides moves (``declare`` only when it is allowed)."""

_FILLER = frozenset({"discard", "drop", "put", "down", "play", "and", "then", "from", "the"})
_DECK = frozenset({"deck", "draw", "closed", *_words_for("deck")})
_TAKE = frozenset({"take", "pick", "pickup", "grab", *_words_for("take")})
_SPLIT = re.compile(r"[\s,+]+")


def parse(text: str, ctx: Context | None = None) -> Command:
    """Read one line; raises ``ParseError`` with a one-line reason."""
    line = text.strip()
    if not line:
        raise ParseError(_("Type a move (like 7H deck), or help."))
    word, _gap, rest = line.partition(" ")
    key = word.lower()
    rest = rest.strip()
    if key in _SIMPLE and not rest:
        return _SIMPLE[key]
    if key in ("chat", "say"):
        if not rest:
            raise ParseError(_("Chat what? Type chat and then your message."))
        return Say(rest[:500])
    if key in ("create", "new"):
        return _create(rest)
    if key in ("join", "sit", "watch"):
        return _join(key, rest)
    if key in ("bot", "bots", "add", "addbot"):
        return _bots(rest)
    if key in _SIMPLE:
        raise ParseError(_("{word} takes nothing after it.").format(word=key))
    return parse_move(line, ctx)


# -- moves --------------------------------------------------------------------------


def parse_move(text: str, ctx: Context | None = None) -> Play:
    """``7h 7d deck``, ``7h 7d take 8s``, ``ks 8s``, ``10d draw``: cards to put down, then
    what to take. With ``ctx``, the move is checked against the hand and the open cards."""
    tokens = [c for t in _SPLIT.split(text.strip().lower()) if t for c in _unglue(t)]
    cards: list[Card] = []
    take: Card | None = None
    deck = False
    explicit = False
    i = 0
    while i < len(tokens):
        token = tokens[i]
        i += 1
        if token in _FILLER:
            continue
        if token in _DECK:
            deck = True
            continue
        if token in _TAKE:
            if i >= len(tokens):
                raise ParseError(_("Take what? Name an open card, or deck."))
            target = tokens[i]
            i += 1
            if explicit or deck:
                raise ParseError(_("Take only one card: an open card, or deck."))
            explicit = True
            if target in _DECK:
                deck = True
            else:
                take = _card(target, first=False)
            continue
        cards.append(_card(token, first=not cards and i == 1))
    if deck and take is not None:
        raise ParseError(_("Take only one card: an open card, or deck."))
    if not cards:
        raise ParseError(_("Put down at least one card from your hand, then take one."))
    if ctx is None:
        if take is None and not deck:
            if len(cards) < 2:
                raise ParseError(_take_what(cards, ()))
            take = cards.pop()
        return _checked(cards, take, None)
    if take is None and not deck:
        strangers = [c for c in cards if c not in ctx.hand]
        if strangers and len(strangers) == len(cards) and all(c in ctx.open for c in cards):
            mine = NAMES[ctx.hand[-1]] if ctx.hand else "KS"
            raise ParseError(
                _(
                    "Put down a card from your hand too, then take {cards}: "
                    "like {mine} take {card}."
                ).format(cards=_names(cards), mine=mine, card=NAMES[cards[-1]])
            )
        stranger = strangers[0] if len(strangers) == 1 else None
        if (
            stranger is not None
            and len(cards) > 1
            and (stranger in ctx.open or stranger == cards[-1])
        ):
            take = stranger  # the one card not in the hand is what to take
            cards.remove(take)
        elif not strangers:
            reason = explain_discard(cards, ctx.rules)
            if reason is not None:
                raise ParseError(
                    _("{reason} (and then take deck or an open card).").format(
                        reason=_sentence(reason)
                    )
                )
            raise ParseError(_take_what(cards, ctx.open))
    return _checked(cards, take, ctx)


_GLUED = re.compile(r"(?:(?:10|[a2-9tjqk])[cdhs♣♦♥♠]){2,5}")
_ONE = re.compile(r"(?:10|[a2-9tjqk])[cdhs♣♦♥♠]")


def _unglue(token: str) -> list[str]:
    """``7h7d`` is two cards."""
    return _ONE.findall(token) if _GLUED.fullmatch(token) else [token]


def _checked(cards: list[Card], take: Card | None, ctx: Context | None) -> Play:
    if len(cards) > 5:
        raise ParseError(_("At most five cards go down at once."))
    if ctx is not None:
        for c in cards:
            if c not in ctx.hand:
                alike = [NAMES[h] for h in ctx.hand if RANK[h] == RANK[c]]
                if c in ctx.open:
                    line = _("You do not hold {card} (it is an open card).")
                elif alike:
                    line = _("You do not hold {card} (you hold {cards}).")
                else:
                    line = _("You do not hold {card}.")
                raise ParseError(line.format(card=NAMES[c], cards=" ".join(alike)))
        reason = explain_discard(cards, ctx.rules)
        if reason is not None:
            raise ParseError(_sentence(reason) + ".")
        if take is not None and take not in ctx.open:
            if take in ctx.hand:
                raise ParseError(
                    _("You already hold {card}: take an open card, or deck.").format(
                        card=NAMES[take]
                    )
                )
            raise ParseError(
                _("{card} is not an open card; the open cards are {cards}.").format(
                    card=NAMES[take], cards=_names(ctx.open)
                )
            )
        if take is None and not ctx.can_draw:
            raise ParseError(
                _("The deck and the dead pile are empty: take an open card ({cards}).").format(
                    cards=_names(ctx.open)
                )
            )
    else:
        reason = explain_discard(cards)  # the standard rules allow the most
        if reason is not None:
            raise ParseError(_sentence(reason) + ".")
    return Play(tuple(sorted(cards)), take)


def _card(token: str, first: bool) -> Card:
    try:
        return parse_card(token)
    except ValueError as e:
        if first and not re.fullmatch(r"(10|[a2-9tjqk]).?", token):
            raise ParseError(
                _("I do not know {word}: type help to see what you can do.").format(
                    word=repr(token)
                )
            ) from None
        raise ParseError(_sentence(str(e)) + ".") from None


def _take_what(cards: Sequence[Card], open_cards: Sequence[Card]) -> str:
    down = " ".join(NAMES[c] for c in cards)
    if open_cards:
        return _("Take what? Add deck or an open card: {cards} deck or {cards} {card}.").format(
            cards=down, card=NAMES[open_cards[0]]
        )
    return _("Take what? Add deck or an open card: {cards} deck.").format(cards=down)


def _names(cards: Sequence[Card]) -> str:
    return " ".join(NAMES[c] for c in cards) or _("none")


def _sentence(text: str) -> str:
    text = text.rstrip(".")
    return text[:1].upper() + text[1:]


def move_text(move: Play | Declare) -> str:
    """A move as the player would type it: ``7H 7D deck``, ``KS take 8S``, ``declare``."""
    if isinstance(move, Declare):
        return "declare"
    down = " ".join(NAMES[c] for c in move.discard)
    return f"{down} deck" if move.take is None else f"{down} take {NAMES[move.take]}"


# -- lobby ----------------------------------------------------------------------------

_RULE_FIELDS = set(Rules.__struct_fields__)
_BOOL_RULES = {"runs_same_suit", "tie_loses", "first_out_ends"}
_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}
HOUSE_RULES_HELP = (
    "runs_same_suit, tie_loses, first_out_ends, false_declare_penalty=N, declare_limit=N"
)


def _create(rest: str) -> CreateTable:
    try:
        words = shlex.split(rest)
    except ValueError as e:
        raise ParseError(_("create: {problem}.").format(problem=e)) from None
    name: list[str] = []
    seats = 4
    rules: dict[str, Any] = {}
    password: str | None = None
    i = 0
    while i < len(words):
        word = words[i]
        i += 1
        option = word.startswith("--")
        key, eq, value = word.lstrip("-").partition("=")
        key = key.lower().replace("-", "_")
        if key == "password":
            if not eq:
                if i >= len(words):
                    raise ParseError(_("password needs a word after it."))
                value = words[i]
                i += 1
            password = _password(value)
            continue
        if key not in _RULE_FIELDS and key != "seats":
            if option or eq:
                raise ParseError(
                    _("Unknown table option {option}; house rules: {rules}.").format(
                        option=repr(word), rules=HOUSE_RULES_HELP
                    )
                )
            name.append(word)
            continue
        if key in _BOOL_RULES:
            if not eq:
                rules[key] = True
            elif value.lower() in _TRUE | _FALSE:
                rules[key] = value.lower() in _TRUE
            else:
                raise ParseError(
                    _("{rule} is on or off, not {value}.").format(rule=key, value=repr(value))
                )
            continue
        if not eq:
            if i >= len(words):
                raise ParseError(_("{rule} needs a number, like {rule}=25.").format(rule=key))
            value = words[i]
            i += 1
        try:
            number = int(value)
        except ValueError:
            raise ParseError(
                _("{rule} needs a whole number, not {value}.").format(rule=key, value=repr(value))
            ) from None
        if key == "seats":
            if not 2 <= number <= 8:
                raise ParseError(_("A table has 2 to 8 seats."))
            seats = number
        else:
            rules[key] = number
    try:
        Rules.from_dict(rules)
    except ValueError as e:
        raise ParseError(_sentence(heard(str(e).removeprefix("bad rules: "))) + ".") from None
    table_name = " ".join(name)
    if len(table_name) > 40:
        raise ParseError(_("A table name has at most 40 characters."))
    return CreateTable(table_name, seats, rules, password)


def _join(key: str, rest: str) -> JoinTable:
    """``join ID [--password WORD]`` (or ``join ID WORD``)."""
    words = rest.split()
    if words[1:2] in (["--password"], ["password"]):
        del words[1]
    elif words[1:] and words[1].startswith(("--password=", "password=")):
        words[1] = words[1].partition("=")[2]
    if not 1 <= len(words) <= 2:
        raise ParseError(
            _(
                "{command} which table? Type {command} and a table id (see tables), "
                "then its password if it has one."
            ).format(command=key)
        )
    return JoinTable(
        words[0], watch=key == "watch", password=_password(words[1]) if words[1:] else None
    )


def _password(word: str) -> str:
    if not word or len(word) > 64:
        raise ParseError(_("A password is 1 to 64 characters."))
    return word


def _bots(rest: str) -> AddBots:
    words = rest.lower().split()
    if words and words[0] in ("add", "bot", "bots"):
        words = words[1:]
    level = "greedy"
    count = 1
    for word in words:
        if word.isdigit():
            count = int(word)
        else:
            level = word
    if not 1 <= count <= 7:
        raise ParseError(_("Add 1 to 7 bots at a time."))
    return AddBots(level, count)
