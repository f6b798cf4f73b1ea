"""The players' language: which one it is, and the client's words in it.

The words are gettext catalogs, ``locale/<code>/LC_MESSAGES/leastscore.po``
beside this module, compiled with Babel to the ``.mo`` files shipped next to
them (``make catalogs`` extracts, updates and compiles). The language belongs
to the process: ``use`` sets it once, from ``--lang`` or the locale. A server
never sets one, so whatever it puts on the wire stays English; a client turns
the fixed sentences it knows into its player's language as they arrive.

Imports nothing of the project, so that every part that speaks may ask it. The
engine speaks no language: the reasons it gives are English phrases (``game.phrase.Phrase``), which
``say`` puts in the current language where a person reads them.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import cache

DEFAULT = "en"
LANGUAGES: dict[str, str] = {
    "en": "English",
    "tl": "Tagalog",
    "nl": "Nederlands",
    "fr": "français",
    "zu": "isiZulu",
}
"""Code: the language's name in itself."""
DOMAIN = "leastscore"

_ALIASES = {"fil": "tl"}  # Filipino, the locale name most systems give Tagalog

_code = DEFAULT
_words: gettext.NullTranslations = gettext.NullTranslations()


def normalize(tag: str) -> str | None:
    """A language code we speak from a locale name or a tag: ``fr_FR.UTF-8`` and ``fr-BE``
    are ``fr``, ``fil_PH`` is ``tl``; ``C``, ``POSIX`` and the unknown are None."""
    base = tag.split(".")[0].split("@")[0].replace("-", "_").split("_")[0].lower()
    base = _ALIASES.get(base, base)
    return base if base in LANGUAGES else None


def from_locale(environ: Mapping[str, str]) -> str:
    """The language the locale asks for, as gettext reads it: the first of ``LC_ALL``,
    ``LC_MESSAGES`` and ``LANG`` that is set decides, and unless it is ``C``, the
    list in ``LANGUAGE`` comes first. English when none of them names a language
    we speak."""
    locale = next((environ[v] for v in ("LC_ALL", "LC_MESSAGES", "LANG") if environ.get(v)), "")
    if not locale or locale.split(".")[0] in ("C", "POSIX"):
        return DEFAULT
    for wanted in environ.get("LANGUAGE", "").split(":"):
        code = normalize(wanted) if wanted else None
        if code is not None:
            return code
    return normalize(locale) or DEFAULT


def choose(option: str | None, environ: Mapping[str, str]) -> str:
    """``--lang`` when it is given, the locale otherwise."""
    if option:
        code = normalize(option)
        if code is None:
            raise ValueError(f"{option!r} is not one of {', '.join(LANGUAGES)}")
        return code
    return from_locale(environ)


@cache
def catalog(code: str) -> gettext.NullTranslations:
    """The compiled catalog of ``code``; English is the messages themselves."""
    if code == DEFAULT:
        return gettext.NullTranslations()
    # Imported here: the engine imports this module, and nothing that only plays
    # (a server, a bot's worker process) should pay for importlib.resources.
    from importlib.resources import files

    path = files("leastscore").joinpath("locale", code, "LC_MESSAGES", f"{DOMAIN}.mo")
    with path.open("rb") as mo:
        return gettext.GNUTranslations(mo)


def use(code: str) -> None:
    """Speak ``code`` from now on, in this whole process."""
    global _code, _words
    if code not in LANGUAGES:
        raise ValueError(f"{code!r} is not one of {', '.join(LANGUAGES)}")
    _code, _words = code, catalog(code)


def current() -> str:
    return _code


@contextmanager
def speaking(code: str) -> Iterator[None]:
    """``code`` for the length of a block, then the language before it."""
    before = _code
    use(code)
    try:
        yield
    finally:
        use(before)


def _(message: str) -> str:
    """``message`` in the current language (itself when the catalog lacks it)."""
    return _words.gettext(message)


def say(text: str) -> str:
    """A sentence the engine made (a ``game.phrase.Phrase``: it keeps its message and
    values) in the current language; any other text as it is."""
    message = getattr(text, "message", None)
    if message is None:
        return text
    return _(message).format(**getattr(text, "values", {}))


def ngettext(singular: str, plural: str, n: int) -> str:
    return _words.ngettext(singular, plural, n)


def N_(message: str) -> str:
    """Marks a message for the catalogs where it is translated later, by ``_``."""
    return message


def rules_text(code: str | None = None) -> str:
    """``leastscore rules`` in ``code`` (the current language by default)."""
    from importlib.resources import files

    code = code or _code
    name = "rules.md" if code == DEFAULT else f"rules.{code}.md"
    return files("leastscore").joinpath(name).read_text(encoding="utf-8")


# -- the words of others -------------------------------------------------------------

HEARD = (
    # the engine's refusals
    N_("the match is over"),
    N_("the match has not started"),
    N_("it is {mover}'s turn, not {player}'s"),
    N_("{card} is not an open card (open: {cards})"),
    N_("a discard is a list of cards"),
    N_("{card} is not in your hand"),
    N_("not a legal discard"),
    N_("nobody declares on their first turn of a round"),
    N_("your total is {total}; declaring needs {limit} or less"),
    N_("{player} is not in the match"),
    N_("{rule} must be at least {low}, not {value}"),
    N_("{rule} must be a whole number, not {value}"),
    N_("{rule} must be true or false, not {value}"),
    N_("resigned"),
    N_("forfeit after {count} faults"),
    # the server's
    N_("the server is shutting down"),
    N_("the server has too many connections"),
    N_("the server has too many tables"),
    N_("the server could not handle that"),
    N_("too many messages: slow down"),
    N_("nothing received for {seconds} s"),
    N_("this player connected again elsewhere"),
    N_("that token is unknown or expired: say hello without it to start afresh"),
    N_("leave your table first"),
    N_("there is no table {table}"),
    N_("wrong password for that table"),
    N_("that table needs a password: join ID --password P"),
    N_("only the table's creator adds bots"),
    N_("only the table's creator starts it"),
    N_("you are not at a table"),
    N_("it is not your turn"),
    N_("it is not your turn (round {round}, turn {turn} is not the one being played)"),
    N_("a match is being played: you may watch"),
    N_("a match is being played"),
    N_("every seat is taken"),
    N_("the match has already started"),
    N_("a match needs at least 2 players"),
    N_("no match is being played at your seat"),
    N_("you are not in this match"),
    N_("no built-in bot {level}; choose from {levels}"),
    # the connection's
    N_("the server closed the connection"),
    N_("not connected"),
    N_("reconnecting"),
)
"""Sentences the engine and the server write in English, as they write them: a client
says each one in its player's language when it arrives (``heard``)."""


@cache
def words(code: str) -> dict[str, str]:
    """Every singular message of ``code``'s catalog, translated: what a page that
    speaks the language is sent (it looks its words up; English needs none)."""
    table = getattr(catalog(code), "_catalog", {})
    return {k: v for k, v in table.items() if isinstance(k, str) and k and isinstance(v, str)}


@cache
def _pattern(message: str) -> re.Pattern[str]:
    """``there is no table {table}`` as a regular expression that finds the values."""
    regex, named = [], set()
    for i, part in enumerate(re.split(r"\{(\w+)\}", message)):
        if i % 2 == 0:
            regex.append(re.escape(part))
        else:
            regex.append(f"(?P={part})" if part in named else f"(?P<{part}>.+?)")
            named.add(part)
    return re.compile("".join(regex))


def heard(text: str) -> str:
    """A sentence from the engine or the server in the current language, when it is one
    of ``HEARD`` (its values kept as they came); as it came otherwise."""
    if _code == DEFAULT:
        return text
    for message in HEARD:
        found = _pattern(message).fullmatch(text)
        if found is not None:
            return _(message).format(**found.groupdict())
    return text
