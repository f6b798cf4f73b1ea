"""The page tells the events in the terminal's words (``kit/static/narrate.js`` against
``words/narrate.py``), in every language, for a spectator and for each seat.

Run in node, the same ES modules the browser loads (``words.js``, ``narrate.js``), given
the words ``/api/words/CODE`` sends: every event of whole matches, each in every copy
a reader may get, must read exactly as the terminal reads it in that language.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import msgspec
import pytest
from leastscore.bots import make_bot
from leastscore.bots.local import play_match
from leastscore.game import Declared, Event, MatchEnded, Played, Resigned, RoundVoid, Rules
from leastscore.game.events import MatchStarted, Standing
from leastscore.words.narrate import describe

from leastscore.lang import HEARD, LANGUAGES, speaking, words

STATIC = Path(__file__).parents[2] / "kit" / "static"

SCRIPT = r"""
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
const [cases, words, narrate] = process.argv.slice(2);
const given = JSON.parse(readFileSync(cases, "utf8"));
const { useWords } = await import(pathToFileURL(words).href);
const { describe } = await import(pathToFileURL(narrate).href);
const out = {};
for (const [code, lang] of Object.entries(given.languages)) {
  useWords(lang.words, lang.heard);
  out[code] = given.cases.map(([event, names, me]) => describe(event, names, me));
}
console.log(JSON.stringify(out));
"""


NAMES = ("Ann", "Bea", "Cy")
MANY = tuple(f"P{i}" for i in range(23))


def rare_events() -> list[tuple[Event, tuple[str, ...]]]:
    """What whole matches between bots rarely show: a move out of time, a void round,
    resignations with and without a reason, the reader out, places past 10th."""
    return [
        (Played(1, ("QH",), None, auto=True), NAMES),
        (Played(0, ("KS",), "4C", auto=True), NAMES),
        (RoundVoid(7, 500), NAMES),
        (Resigned(1, "Bea left"), NAMES),
        (Resigned(2, "forfeit after 3 faults"), NAMES),
        (Resigned(0, "the server closed the connection"), NAMES),
        (
            Declared(0, False, ((), ("2C",), ("3C",)), (9, 2, 3), (29, 0, 3), (129, 0, 3), (0,)),
            NAMES,
        ),
        (MatchStarted(MANY, Rules(threshold=75)), MANY),
        (
            MatchEnded("winner", tuple(Standing(s, s + 1, s) for s in range(23)), tuple(range(23))),
            MANY,
        ),
    ]


def cases() -> list[tuple[Event, tuple[str, ...], int | None]]:
    """Each event of two whole matches and the rare ones, in every copy a reader gets."""
    events: list[tuple[Event, tuple[str, ...]]] = []
    for seed in (3, 4):
        match = play_match(make_bot("greedy", 1), ("counter", "random"), seed=seed).match
        events += [(event, match.names) for event in match.log]
    events += rare_events()
    return [(event.seen_by(me), names, me) for event, names in events for me in (None, 0, 1, 2)]


def test_the_page_tells_every_event_as_the_terminal_does_in_every_language(
    tmp_path: Path,
) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed (apt-get install nodejs)")
    given = cases()
    languages = {code: {"words": words(code), "heard": HEARD} for code in LANGUAGES}
    languages["en"] = {"words": {}, "heard": []}  # as the page has it: English needs no words
    (tmp_path / "cases.json").write_text(
        msgspec.json.encode({"languages": languages, "cases": given}).decode()
    )
    (tmp_path / "run.mjs").write_text(SCRIPT)
    scripts = (STATIC / "words.js", STATIC / "narrate.js")
    done = subprocess.run(
        [node, *map(str, (tmp_path / "run.mjs", tmp_path / "cases.json", *scripts))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    told = json.loads(done.stdout)
    for code in LANGUAGES:
        with speaking(code):
            expected = [describe(event, names, me) for event, names, me in given]
        wrong = [(e, t) for e, t in zip(expected, told[code], strict=True) if e != t]
        assert not wrong, (code, len(wrong), wrong[:5])
    assert len({line for line in told["fr"]}) > 50  # whole matches, every kind of line
