"""The report's words: columns that say what they count, house rules as players type them."""

from __future__ import annotations

import io

import pytest
from leastscore.game.rules import Rules, house_rules_text
from leastscore.tournament.pure.config import TournamentConfig
from leastscore.tournament.pure.entrants import Entrant
from leastscore.tournament.pure.report import output_console, rich_table, to_html
from leastscore.tournament.pure.stats import Tally
from rich.console import Console

from ..support.contest import defined, played


def config() -> TournamentConfig:
    entrants = (Entrant("a", "builtin:greedy"), Entrant("b", "builtin:random"))
    rules = Rules(tie_loses=True, false_declare_penalty=25)
    return TournamentConfig(entrants=entrants, seed=1, seats=2, rules=rules)


def text(width: int = 200) -> str:
    out = io.StringIO()
    Console(file=out, width=width, color_system=None).print(
        rich_table(config(), Tally(["a", "b"], 2), width=width)
    )
    return out.getvalue()


def test_the_declarations_column_says_it_counts_the_ones_that_held():
    assert "declarations held" in text()


def test_house_rules_are_written_as_create_accepts_them():
    assert house_rules_text({"tie_loses": True, "false_declare_penalty": 25}) == (
        "tie_loses, false_declare_penalty=25"
    )
    for shown in (text(), to_html(config(), Tally(["a", "b"], 2))):
        assert "tie_loses, false_declare_penalty=25" in shown
        assert "tie_loses=True" not in shown


def test_a_table_printed_to_a_pipe_is_not_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    """Piped, the table keeps every name and interval whole (it was cut at 110 columns:
    ``hosti…``, ``67-…``); ``COLUMNS`` still narrows it when set."""
    long = "a-long-entrant-name-from-a-contest"
    config = defined({long: "builtin:greedy", "r": "builtin:random"}, deals=2)
    run = played(config)

    def printed(columns: str) -> str:
        monkeypatch.setenv("COLUMNS", columns)
        out = io.StringIO()  # not a terminal, as a pipe is not
        console = output_console(out)
        console.print(rich_table(config, run.tally, console.width))
        return out.getvalue()

    row = next(line for line in printed("").splitlines() if long in line)
    assert "…" not in row and row.count("[") == 1 and row.rstrip().endswith("-")
    assert max(map(len, printed("60").splitlines())) <= 60


def test_a_bot_named_with_markup_is_shown_as_its_characters_in_the_html_report() -> None:
    """Every place the report names a bot (standings, head to head, chart, progress
    page) escapes it: the template environment does, no line of the report by hand."""
    from leastscore.tournament.pure.report import Progress

    evil = "<script>alert(1)</script>"
    config = defined({evil: "builtin:greedy", "b&b": "builtin:random"}, deals=2)
    run = played(config)
    page = to_html(config, run.tally, progress=Progress(1, 2, 3.0, 4.0), logs=True)
    assert "<script>alert" not in page and "b&b" not in page
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") >= 4  # standings, cross, chart
    assert 'data-bot="b&amp;b"' in page and "<polyline" in page
    assert '<script type="module" src="/static/live.js"></script>' in page
    assert "<script" not in to_html(config, run.tally).replace("&lt;script", "")
