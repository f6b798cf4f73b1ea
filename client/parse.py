"""What a person types at the terminal, read forgivingly: a move, a lobby command, or one
clear line why not.

Pure: no connection, no terminal. Moves are read by ``leastscore.words.typed`` (the
server reads a browser player's typed moves with it too); this adds the commands.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from leastscore.game import Declare, Play, Rules
from leastscore.words.typed import (
    DECLARE_WORDS,
    Context,
    ParseError,
    move_text,
    own_words,
    parse_move,
    sentence,
)

from leastscore.lang import _, heard

__all__ = [  # what the terminal's other modules read here, moves' parts included
    "COMMAND_WORDS",
    "HOUSE_RULES_HELP",
    "Command",
    "Context",
    "ParseError",
    "move_text",
    "own_words",
    "parse",
    "parse_move",
]


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


_SIMPLE: dict[str, Command] = {
    **dict.fromkeys(DECLARE_WORDS, Declare()),
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


_RULE_FIELDS = set(Rules.__struct_fields__)
_BOOL_RULES = {"runs_same_suit", "tie_loses", "first_out_ends"}
_TRUE = {"yes", "true", "on", "1"}
_FALSE = {"no", "false", "off", "0"}
HOUSE_RULES_HELP = (
    "runs_same_suit, tie_loses, first_out_ends, false_declare_penalty=N, declare_limit=N"
)


def _create(rest: str) -> CreateTable:
    """``create Friday --seats 3 threshold=50 runs_same_suit --password x``: the
    words that are no option make the table's name."""
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
        key, eq, value = word.lstrip("-").partition("=")
        key = key.lower().replace("-", "_")
        if key not in _RULE_FIELDS and key not in ("seats", "password"):
            if word.startswith("--") or eq:
                raise ParseError(
                    _("Unknown table option {option}; house rules: {rules}.").format(
                        option=repr(word), rules=HOUSE_RULES_HELP
                    )
                )
            name.append(word)
            continue
        if key in _BOOL_RULES:
            rules[key] = _on_or_off(key, value) if eq else True
            continue
        if not eq:  # the value is the next word
            if i >= len(words):
                raise ParseError(_value_missing(key))
            value = words[i]
            i += 1
        if key == "password":
            password = _password(value)
        elif key == "seats":
            seats = _whole(key, value)
            if not 2 <= seats <= 8:
                raise ParseError(_("A table has 2 to 8 seats."))
        else:
            rules[key] = _whole(key, value)
    return _new_table(" ".join(name), seats, rules, password)


def _on_or_off(rule: str, value: str) -> bool:
    if value.lower() not in _TRUE | _FALSE:
        raise ParseError(
            _("{rule} is on or off, not {value}.").format(rule=rule, value=repr(value))
        )
    return value.lower() in _TRUE


def _value_missing(key: str) -> str:
    if key == "password":
        return _("password needs a word after it.")
    return _("{rule} needs a number, like {rule}=25.").format(rule=key)


def _whole(key: str, value: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise ParseError(
            _("{rule} needs a whole number, not {value}.").format(rule=key, value=repr(value))
        ) from None


def _new_table(name: str, seats: int, rules: dict[str, Any], password: str | None) -> CreateTable:
    """The table asked for, once its rules are known to make a game."""
    try:
        Rules.from_dict(rules)
    except ValueError as e:
        raise ParseError(sentence(heard(str(e).removeprefix("bad rules: "))) + ".") from None
    if len(name) > 40:
        raise ParseError(_("A table name has at most 40 characters."))
    return CreateTable(name, seats, rules, password)


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
