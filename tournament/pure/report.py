"""Standings as people and programs read them: a rich table, JSON, CSV and HTML.

The JSON holds nothing that depends on the clock or on how the tournament
was run, so two runs of the same tournament give byte-identical files.
"""

from __future__ import annotations

import csv
import io
import os
import re
from typing import IO, Any, Literal

import msgspec
from leastscore.game.rules import house_rules_text
from leastscore.kit.chart import Frame, Series, line_chart
from leastscore.kit.pages import render
from rich import box
from rich.console import Console
from rich.table import Table

from .config import Dropped, TournamentConfig
from .per_deal import SprtRun
from .stats import ORDER, EntrantStanding, Tally

SCHEMA = "leastscore.standings/2"
"""2: the rating is fitted on all results at once (``elo``, ``elo_ci``), and ``order`` says
how the standings are ranked; 1 had openskill's ``mu``, ``sigma``, ``ordinal``."""


class Format(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    kind: Literal["round_robin", "gauntlet"]
    gauntlet: str | None
    seats: int
    deals: int
    rotations: int
    threshold: int
    house_rules: dict[str, Any]
    move_time: float | None
    """Seconds a move; None when the time rule was ``time_control``."""
    startup_time: float
    max_faults: int
    time_control: str | None = None
    """``BASE+INC``: the time rule was a chess clock per match, not ``move_time``."""
    sandbox: str = "auto"
    limits: dict[str, int] = msgspec.field(default_factory=dict)


class EntrantInfo(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    bot: str
    spec: str


class Meeting(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Two entrants' matches together: how often the row entrant finished ahead."""

    matches: int
    ahead: int
    level: int
    behind: int
    score: float
    """(ahead + level / 2) / matches."""


class StandingsDocument(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """What ``--format json`` prints and ``standings.json`` holds (TOURNAMENTS.md)."""

    schema: str
    seed: int
    format: Format
    entrants: list[EntrantInfo]
    matches_scheduled: int
    matches_played: int
    matches_aborted: int
    complete: bool
    standings: list[EntrantStanding]
    crosstable: dict[str, dict[str, Meeting]]
    order: str = ORDER
    """How ``standings`` are ranked, in words."""
    dropped: list[Dropped] = []
    """Entrants dropped before the first match (``--unready drop``), with why."""
    interval_unit: Literal["deal", "match"] = "match"
    """What the win-rate intervals count as one unit: a deal (all its rotations, the
    same cards) or a match."""
    sprt: SprtReport | None = None
    """The sequential test, when the tournament ran one (``--sprt``)."""
    stages: list[StageReport] = []
    """A contest in stages: each stage in order (the standings above are the last's)."""


class CutNote(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    bot: str
    why: str


class StageReport(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    number: int
    kind: Literal["round_robin", "gauntlet", "swiss"]
    seats: int | None
    deals: int
    rounds: int
    entrants: list[str]
    matches: int
    rule: str | None
    """The cut, in words (None after the last stage)."""
    standings: list[EntrantStanding]
    kept: list[str]
    """Who went on, best first."""
    cut: list[CutNote]


def stage_line(stage: StageReport) -> str:
    """A stage in one line: its format, and who was cut by which rule."""
    head = (
        f"stage {stage.number}: {stage.kind.replace('_', '-')}, {len(stage.entrants)} "
        f"entrants, {stage.matches} matches"
    )
    if stage.rule is None:
        return head
    cut = ", ".join(c.bot for c in stage.cut) or "nobody"
    return f"{head}; {stage.rule}: cut {cut}"


class SprtReport(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    candidate: str
    elo0: float
    elo1: float
    alpha: float
    beta: float
    llr: float
    lower: float
    upper: float
    deals: int
    """Deals the test took (each a unit)."""
    verdict: Literal["H0", "H1"] | None
    """H1: the candidate is at least ``elo1`` stronger; H0: at most ``elo0``; None: the
    deals ran out first."""


def sprt_report(run: SprtRun) -> SprtReport:
    s = run.test.settings
    return SprtReport(
        run.candidate,
        s.elo0,
        s.elo1,
        s.alpha,
        s.beta,
        round(run.test.llr, 4),
        round(s.lower, 4),
        round(s.upper, 4),
        run.deals_taken,
        run.test.verdict,
    )


def sprt_line(run: SprtRun) -> str:
    """The test in one line: its hypotheses, the LLR between its bounds, the verdict."""
    s = run.test.settings
    head = (
        f"SPRT {run.candidate}: H0 elo {s.elo0:g}, H1 elo {s.elo1:g} "
        f"(alpha {s.alpha:g}, beta {s.beta:g}); LLR {run.test.llr:.2f} "
        f"in [{s.lower:.2f}, {s.upper:.2f}] after {run.deals_taken} deals"
    )
    verdict = run.test.verdict
    if verdict == "H1":
        return f"{head}: H1 accepted ({run.candidate} is at least {s.elo1:g} Elo stronger)"
    if verdict == "H0":
        return f"{head}: H0 accepted ({run.candidate} is at most {s.elo0:g} Elo stronger)"
    return f"{head}: no decision yet"


def document(
    config: TournamentConfig,
    tally: Tally,
    sprt: SprtRun | None = None,
    stages: list[StageReport] | None = None,
) -> StandingsDocument:
    return StandingsDocument(
        schema=SCHEMA,
        seed=config.seed,
        format=msgspec.convert(config.describe(), Format),
        entrants=[EntrantInfo(e.name, e.public_spec) for e in config.entrants],
        matches_scheduled=tally.scheduled,
        matches_played=tally.played,
        matches_aborted=tally.aborted,
        complete=tally.complete,
        standings=tally.standings(),
        crosstable={
            a: {
                b: Meeting(h.matches, h.ahead, h.level, h.behind, round(h.score, 4))
                for b, h in row.items()
            }
            for a, row in tally.crosstable().items()
        },
        interval_unit=tally.interval_unit,
        sprt=None if sprt is None else sprt_report(sprt),
        stages=stages or [],
        dropped=list(config.dropped),
    )


def to_json(
    config: TournamentConfig,
    tally: Tally,
    sprt: SprtRun | None = None,
    stages: list[StageReport] | None = None,
) -> bytes:
    encoded = msgspec.json.encode(document(config, tally, sprt, stages))
    return msgspec.json.format(encoded, indent=2) + b"\n"


def json_schema() -> dict[str, Any]:
    """The JSON Schema of ``standings.json``."""
    return msgspec.json.schema(StandingsDocument)


CSV_COLUMNS = (
    "rank",
    "bot",
    "matches",
    "wins",
    "win_rate",
    "win_rate_low",
    "win_rate_high",
    "mean_place",
    "mean_round_score",
    "declarations",
    "declaration_rate",
    "elo",
    "elo_low",
    "elo_high",
    "timeouts",
    "illegal",
    "crashes",
    "lost_on_time",
    "forfeits",
)


def to_csv(tally: Tally) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for s in tally.standings():
        writer.writerow(
            [
                s.rank,
                s.bot,
                s.matches,
                s.wins,
                s.win_rate,
                *s.win_rate_ci,
                _blank(s.mean_place),
                _blank(s.mean_round_score),
                s.declarations,
                _blank(s.declaration_rate),
                s.rating.elo,
                *(s.rating.elo_ci or ("", "")),
                s.timeouts,
                s.illegal,
                s.crashes,
                s.lost_on_time,
                s.forfeits,
            ]
        )
    return out.getvalue()


def _blank(value: float | None) -> str | float:
    return "" if value is None else value


# -- the terminal --------------------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _fixed(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _rating(s: EntrantStanding, between: str = " ") -> str:
    """``+31 [+12 +50]``: the rating in Elo points and its interval."""
    span = s.rating.elo_ci
    text = _signed(s.rating.elo)
    return text if span is None else f"{text}{between}[{_signed(span[0])} {_signed(span[1])}]"


def _signed(value: float) -> str:
    return f"{round(value):+d}"  # never "-0"


def _faults(s: EntrantStanding, config: TournamentConfig) -> str:
    first = s.timeouts if config.time_control is None else s.lost_on_time
    counts = (first, s.illegal, s.crashes, s.forfeits)
    text = "-" if not any(counts) else "/".join(map(str, counts))
    return text + "".join(f" {kind}×{n}" for kind, n in s.faults.items())


def _limits_gone_over(s: EntrantStanding) -> str:
    return ", ".join(f"{kind} {n}" for kind, n in s.faults.items()) or "-"


def time_rule(config: TournamentConfig) -> str:
    """The time rule in words: a limit per move, or a time control per match."""
    clock = config.clock
    if clock is None:
        return f"{config.move_time:g} s a move"
    return (
        f"time control {clock}: {clock.base:g} s a match for each bot and {clock.increment:g} s"
        " more after each of its moves; a bot out of time loses the match"
    )


def dropped_text(config: TournamentConfig) -> str:
    """Who was dropped before the first match, and why, in one line."""
    reasons = "; ".join(f"{d.bot} ({d.why.splitlines()[0]})" for d in config.dropped)
    return f"dropped before the first match: {reasons}"


def output_console(file: IO[str] | None = None) -> Console:
    """Where the standings are printed (standard output unless ``file``): a terminal
    at its own width; anything else (a pipe, a file) at ``COLUMNS`` when set, else
    wide enough that no column is cut."""
    console = Console(file=file)
    if console.is_terminal:
        return console
    columns = os.environ.get("COLUMNS", "")
    width = int(columns) if columns.isdigit() and int(columns) > 0 else 400
    return Console(file=file, width=width)


WIDE = 110
"""Terminal columns from which the table shows every column."""


def rich_table(config: TournamentConfig, tally: Tally, width: int = WIDE) -> Table:
    """The standings; a terminal narrower than ``WIDE`` gets the main columns only."""
    kind = f"gauntlet of {config.gauntlet}" if config.gauntlet else "round-robin"
    wide = width >= WIDE
    house = house_rules_text(config.describe()["house_rules"])
    clock = config.clock
    table = Table(
        title=f"{kind}, {config.seats} seats, {tally.played}/{tally.scheduled} matches, "
        f"seed {config.seed}"
        + (f"; house rules: {house}" if house else "")
        + (f"; time control {clock}" if clock else ""),
        caption=f"ranked by {ORDER}; win rate and rating with their 95% intervals "
        f"(unit: {tally.interval_unit}); "
        f"faults: {'timeouts' if clock is None else 'lost on time'}/illegal/crashes/forfeits",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
    )
    if config.dropped:
        table.caption = f"{table.caption}; {dropped_text(config)}"
    headers = ["#", "bot", "matches", "wins", "win rate"]
    if wide:
        headers += ["place", "pts/round", "declarations held"]
    headers += ["rating (95%)", "faults"]
    for header in headers:
        table.add_column(header, justify="left" if header == "bot" else "right", no_wrap=True)
    for s in tally.standings():
        low, high = s.win_rate_ci
        cells = [
            str(s.rank),
            s.bot,
            str(s.matches),
            f"{s.wins:g}",
            f"{_percent(s.win_rate)} {100 * low:.0f}-{100 * high:.0f}",
        ]
        if wide:
            cells += [
                _fixed(s.mean_place),
                _fixed(s.mean_round_score, 1),
                _percent(s.declaration_rate),
            ]
        cells += [_rating(s), _faults(s, config)]
        table.add_row(*cells)
    return table


def crosstable(tally: Tally) -> Table:
    """Each row entrant's share of finishes ahead of each column entrant (level counts half)."""
    names = [s.bot for s in tally.standings()]
    table = Table(title="head to head: row finished ahead of column", box=box.SIMPLE_HEAD)
    table.add_column("")
    for name in names:
        table.add_column(name, justify="right")
    for a in names:
        cells = []
        for b in names:
            h = tally.head_to_head(a, b)
            cells.append("" if a == b else "-" if not h.matches else f"{100 * h.score:.0f}%")
        table.add_row(a, *cells)
    return table


# -- the HTML report -----------------------------------------------------------------------


class Progress(msgspec.Struct, frozen=True):
    """A tournament under way, for its live page: matches counted, and time."""

    counted: int
    scheduled: int
    elapsed: float
    eta: float | None
    """Seconds still to go, at the pace so far (None before the first match)."""


def _duration(seconds: float) -> str:
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes} min {seconds:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


HTML_HEADERS = (
    "#",
    "bot",
    "matches",
    "wins",
    "win rate [95% CI]",
    "mean place",
    "mean round score",
    "declar\u00adations held",
    "rating [95% CI]",
    "time\u00adouts",
    "il\u00adlegal",
    "crash\u00ades",
    "lost on time",
    "for\u00adfeits",
    "limits gone over",
    "CPU s (pro\u00adgrams)",
)
"""The standings table's headers: soft hyphens let them wrap, so the table fits 1280 px."""


def _standing_cells(s: EntrantStanding) -> tuple[object, ...]:
    """One row of the standings table."""
    low, high = s.win_rate_ci
    return (
        s.rank,
        s.bot,
        s.matches,
        f"{s.wins:g}",
        f"{_percent(s.win_rate)} [{100 * low:.1f}–{100 * high:.1f}]",
        _fixed(s.mean_place),
        _fixed(s.mean_round_score, 1),
        _percent(s.declaration_rate),
        _rating(s, "\u00a0"),
        s.timeouts,
        s.illegal,
        s.crashes,
        s.lost_on_time,
        s.forfeits,
        _limits_gone_over(s),
        f"{s.cpu_seconds:.2f}",
    )


def _crosstable_cells(tally: Tally, names: list[str]) -> list[tuple[str, list[Any]]]:
    """The head-to-head table's rows, in the standings' order (None: no cell)."""
    rows = []
    for a in names:
        cells: list[Any] = []
        for b in names:
            h = tally.head_to_head(a, b)
            if a == b or not h.matches:
                cells.append(None)
            else:
                title = f"{h.ahead} ahead, {h.level} level, {h.behind} behind in {h.matches}"
                cells.append({"title": title, "score": f"{100 * h.score:.0f}%"})
        rows.append((a, cells))
    return rows


def _problems(tally: Tally, logs: bool) -> list[tuple[str, list[tuple[int | None, str]]]]:
    """Each bot's problems (the runner's as ``runner``), a ``match N:`` linked to its
    log when ``logs``: (N, the rest of the line), else (None, the line)."""
    out = []
    for bot, texts in sorted(tally.problems.items()):
        lines: list[tuple[int | None, str]] = []
        for text in texts:
            found = re.match(r"match (\d+):", text) if logs else None
            if found is None:
                lines.append((None, text))
            else:
                lines.append((int(found[1]), text[found.end() - 1 :]))
        out.append((bot or "runner", lines))
    return out


def _stage_view(stage: StageReport) -> dict[str, Any]:
    rows = [
        (s.rank, s.bot, s.matches, f"{s.wins:g}", _fixed(s.mean_place), _rating(s, chr(160)))
        for s in stage.standings
    ]
    return {"line": stage_line(stage), "cut": stage.cut, "rows": rows}


def _progress_values(progress: Progress | None) -> dict[str, Any]:
    if progress is None:
        return {"progress": None}
    share = 100 * progress.counted / progress.scheduled if progress.scheduled else 100.0
    eta = None if progress.eta is None else _duration(progress.eta)
    return {
        "progress": progress,
        "share": share,
        "elapsed": _duration(progress.elapsed),
        "eta": eta,
    }


def to_html(
    config: TournamentConfig,
    tally: Tally,
    sprt: SprtRun | None = None,
    stages: list[StageReport] | None = None,
    progress: Progress | None = None,
    logs: bool = False,
) -> str:
    """The report page; with ``progress``, the live page of a tournament under way
    (``tournament --web``), which refreshes itself (``kit/static/live.js``). One
    function makes both. ``logs``: the page lies beside the ``logs/`` folder, and links
    each match's log. The template (``kit/templates/report.html``) escapes every name."""
    standings = tally.standings()
    names = [s.bot for s in standings]
    fmt = config.describe()
    return render(
        "report.html",
        config=config,
        tally=tally,
        kind=f"gauntlet of {config.gauntlet}" if config.gauntlet else "round-robin",
        house=house_rules_text(fmt["house_rules"]) or "none",
        time_rule=time_rule(config),
        limits=", ".join(f"{k} {v}" for k, v in fmt["limits"].items()),
        sprt=None if sprt is None else sprt_line(sprt),
        stages=[_stage_view(stage) for stage in stages or []],
        dropped=config.dropped,
        order=ORDER,
        headers=HTML_HEADERS,
        rows=[(s.bot, _standing_cells(s)) for s in standings],
        chart=_chart(tally),
        names=names,
        cross=_crosstable_cells(tally, names),
        problems=_problems(tally, logs),
        logs=logs,
        log_name=_log_name,
        **_progress_values(progress),
    )


def _log_name(fixture: int) -> str:
    return f"logs/{fixture:06d}.jsonl"


def rating_chart(tally: Tally, width: int = 820, height: int = 380) -> str:
    """An inline SVG chart: each entrant's rating fitted on the first matches of the
    schedule, against how many."""
    return render("report_chart.svg", chart=_chart(tally, width, height))


def _chart(tally: Tally, width: int = 820, height: int = 380) -> dict[str, Any] | None:
    """The chart's figures (None: too few matches), for ``report_chart.svg`` (drawn by
    the kit's one chart drawer, ``kit.chart``)."""
    history = tally.history
    if len(history) < 2:
        return None
    series = [
        Series(f"{name} {_signed(history[-1][1][k])}", [(x, r[k]) for x, r in history])
        for k, name in enumerate(tally.names)
    ]
    frame = Frame(width, height, title="ratings over the tournament",
                  x_label="matches (schedule order)")  # fmt: skip
    return line_chart(series, frame)
