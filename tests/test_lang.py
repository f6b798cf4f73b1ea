"""The players' languages: the catalogs are whole, match the code and the shipped .mo
files, and the language is chosen from --lang or the locale."""

from __future__ import annotations

import ast
import gettext
import io
import re
import string
from pathlib import Path

import pytest
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from leastscore import lang
from leastscore.lang import HEARD, LANGUAGES, choose, from_locale, heard, normalize, speaking

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "leastscore" / "locale"
TRANSLATED = [code for code in LANGUAGES if code != lang.DEFAULT]
SOURCES = (
    "game",
    "protocol",
    "kit",
    "words",
    "seats",
    "bots",
    "server",
    "client",
    "tournament",
    "leastscore",
)
"""Where ``make catalogs`` extracts messages from: every folder of the package."""


def test_make_catalogs_extracts_from_every_folder_of_the_package() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    (line,) = [line for line in makefile.splitlines() if line.startswith("SOURCES :=")]
    assert line.split(":=")[1].split() == list(SOURCES)


def catalog(code: str) -> Catalog:
    with (LOCALE / code / "LC_MESSAGES" / "leastscore.po").open("rb") as po:
        return read_po(po, locale=code)


def fields(text: str) -> set[str]:
    """``{name}`` placeholders (and ``%(name)s`` ones) in a message."""
    braces = {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}
    return braces | set(re.findall(r"%\((\w+)\)", text))


def messages(c: Catalog) -> list[tuple[str, tuple[str, ...], tuple[str, ...], bool]]:
    """(msgid, every msgid form, every msgstr form, fuzzy) of each message but the header."""
    out = []
    for m in c:
        if not m.id:
            continue
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        out.append((ids[0], tuple(ids), tuple(strings), m.fuzzy))
    return out


PAGE = ROOT / "kit" / "static"
"""The web page's scripts, whose ``_("...")``, ``_f("...")`` and ``N_("...")`` are
extracted too (the vendored codec is not)."""
KEYWORDS = {**DEFAULT_KEYWORDS, "_f": None, "Phrase": None}


def code_messages() -> set[str]:
    """Every message the code marks for translation, as ``make catalogs`` extracts them."""
    found = set()
    places = [(ROOT / folder, [("**.py", "python")]) for folder in SOURCES]
    places.append((PAGE, [(f"**/{name}.js", "javascript") for name in ("view", "play", "board")]))
    for folder, method_map in places:
        for _file, _line, message, _comments, _context in extract_from_dir(
            folder, method_map=method_map, keywords=KEYWORDS
        ):
            found.add(message[0] if isinstance(message, tuple) else message)
    return found


def test_the_page_marks_its_words_for_the_catalogs() -> None:
    page = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
        PAGE, method_map=[("**/play.js", "javascript")], keywords=KEYWORDS
    ):
        page.add(message)
    assert {"Create a table", "Declare", "Take {card}", "hearts"} <= page


@pytest.mark.parametrize("code", TRANSLATED)
def test_every_message_has_a_translation_with_the_same_placeholders(code: str) -> None:
    c = catalog(code)
    assert not c.fuzzy, f"{code}: the catalog's header is marked fuzzy"
    problems = []
    for msgid, ids, strings, fuzzy in messages(c):
        if fuzzy:
            problems.append(f"fuzzy: {msgid!r}")
        if len(strings) != (c.num_plurals if len(ids) > 1 else 1):
            problems.append(f"{len(strings)} forms: {msgid!r}")
        wanted = set().union(*(fields(i) for i in ids))
        for text in strings:
            if not text.strip():
                problems.append(f"untranslated: {msgid!r}")
            elif fields(text) != wanted:
                problems.append(f"placeholders {sorted(fields(text))} in {text!r} for {msgid!r}")
    assert not problems, f"{code}:\n" + "\n".join(problems)


def test_the_catalogs_hold_every_message_of_the_code_and_no_other() -> None:
    wanted = code_messages()
    assert len(wanted) > 200
    for code in TRANSLATED:
        held = {msgid for msgid, *_ in messages(catalog(code))}
        missing, stale = wanted - held, held - wanted
        assert not missing and not stale, (
            f"{code}: run make catalogs and translate; missing {sorted(missing)}, "
            f"stale {sorted(stale)}"
        )


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_shipped_mo_is_the_po_compiled(code: str) -> None:
    compiled = io.BytesIO()
    write_mo(compiled, catalog(code))
    compiled.seek(0)
    fresh = gettext.GNUTranslations(compiled)
    with (LOCALE / code / "LC_MESSAGES" / "leastscore.mo").open("rb") as mo:
        shipped = gettext.GNUTranslations(mo)
    assert shipped._catalog == fresh._catalog, "run make catalogs"  # type: ignore[attr-defined]
    assert lang.catalog(code)._catalog == fresh._catalog  # type: ignore[attr-defined]


def test_the_language_comes_from_lang_or_the_locale() -> None:
    assert choose("fr", {"LANG": "nl_NL.UTF-8"}) == "fr"
    assert choose("ZU", {}) == "zu"
    assert choose(None, {"LANG": "nl_NL.UTF-8"}) == "nl"
    assert choose(None, {}) == "en"
    with pytest.raises(ValueError, match="not one of en, tl, nl, fr, zu"):
        choose("de", {})
    # The first of LC_ALL, LC_MESSAGES, LANG that is set decides, as for gettext.
    assert from_locale({"LC_ALL": "fr_FR.UTF-8", "LC_MESSAGES": "nl_NL", "LANG": "zu_ZA"}) == "fr"
    assert from_locale({"LC_MESSAGES": "nl_BE.UTF-8", "LANG": "zu_ZA.UTF-8"}) == "nl"
    assert from_locale({"LC_ALL": "", "LANG": "zu_ZA.UTF-8"}) == "zu"
    assert from_locale({"LANG": "fil_PH.UTF-8"}) == "tl"  # Filipino is how systems name it
    assert from_locale({"LANG": "tl_PH"}) == "tl"
    assert from_locale({"LANG": "de_DE.UTF-8"}) == "en"  # a language we do not speak
    assert from_locale({"LC_ALL": "C.UTF-8", "LANG": "fr_FR.UTF-8"}) == "en"
    # LANGUAGE is a list of wishes, heard unless the locale is C.
    assert from_locale({"LANGUAGE": "de:nl:fr", "LANG": "fr_FR.UTF-8"}) == "nl"
    assert from_locale({"LANGUAGE": "nl", "LANG": "C"}) == "en"
    assert normalize("fr-BE") == "fr" and normalize("POSIX") is None


def test_speaking_a_language_for_a_block() -> None:
    assert lang.current() == "en"
    with speaking("nl"):
        assert lang._("Final standings") == "Eindstand"
        with speaking("fr"):
            assert lang._("Final standings") == "Classement final"
        assert lang.current() == "nl"
    assert lang._("Final standings") == "Final standings"
    with pytest.raises(ValueError):
        lang.use("xx")


def sample(message: str) -> tuple[str, dict[str, str]]:
    values = {name: f"V{i}" for i, name in enumerate(sorted(fields(message)))}
    return message.format(**values), values


@pytest.mark.parametrize("code", TRANSLATED)
def test_the_servers_sentences_arrive_in_the_players_language(code: str) -> None:
    with speaking(code):
        for message in HEARD:
            english, values = sample(message)
            assert heard(english) == lang._(message).format(**values), message
        assert heard("something no catalog knows") == "something no catalog knows"
    assert heard("wrong password for that table") == "wrong password for that table"
    with speaking("fr"):
        assert heard("there is no table 'x'") == "il n'y a pas de table 'x'"


def test_every_language_has_its_rules() -> None:
    english = lang.rules_text("en")
    words = {
        "tl": ("magdeklara", "bukas na kard", "saradong kard", "kubyerta", "itapon"),
        "nl": ("verklaren", "open kaart", "gesloten kaart", "dek", "weggooien"),
        "fr": ("déclarer", "carte ouverte", "carte fermée", "paquet", "défausser"),
        "zu": ("memezela", "ikhadi elivulekile", "ikhadi elivaliwe", "emphemeni", "lahla"),
    }
    for code in TRANSLATED:
        text = lang.rules_text(code)
        assert text != english and "Least Score" in text
        assert text.count("\n## ") == english.count("\n## "), code  # the same sections
        for rule in ("runs_same_suit", "tie_loses", "false_declare_penalty", "first_out_ends"):
            assert f"`{rule}`" in text
        for number in ("52", "16", "17", "22", "100"):
            assert number in text, (code, number)
        for word in words[code]:
            assert word in text.lower(), (code, word)
        with speaking(code):
            assert lang.rules_text() == text


def test_no_module_that_translates_hides_the_translation_function() -> None:
    """``for _ in range(n)`` in a function that also says ``_("...")`` makes ``_`` a
    number there: every module that imports ``_`` from leastscore.lang binds it nowhere."""
    wrong = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            imports_it = any(
                isinstance(node, ast.ImportFrom)
                and (node.module or "").endswith("lang")
                and any(alias.name == "_" for alias in node.names)
                for node in ast.walk(tree)
            )
            if not imports_it:
                continue
            for node in ast.walk(tree):
                bound = isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
                if bound and node.id == "_":
                    wrong.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not wrong, "rename the throwaway variable: " + ", ".join(wrong)


def test_every_language_ships_its_catalog_and_its_rules() -> None:
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    packages = setup["setuptools"]["packages"]
    for code in TRANSLATED:
        package = f"leastscore.locale.{code}.LC_MESSAGES"
        assert package in packages and setup["setuptools"]["package-data"][package] == ["*.mo"]
        assert (ROOT / "leastscore" / f"rules.{code}.md").exists()
    assert "*.md" in setup["setuptools"]["package-data"]["leastscore"]
