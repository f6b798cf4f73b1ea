"""Standings as people and programs read them: a rich table, JSON, CSV and HTML.

The JSON holds nothing that depends on the clock or on how the tournament
was run, so two runs of the same tournament give byte-identical files.
"""

from __future__ import annotations

import csv
import html
import io
import re
from typing import Any, Literal

import msgspec
from leastscore.game.rules import house_rules_text
from rich import box
from rich.table import Table

from .config import Dropped, TournamentConfig
from .per_deal import SprtRun
from .stats import ORDER, EntrantStanding, Tally

SCHEMA = "leastscore.standings/2"
"""2: the rating is fitted on all results at once (``elo``, ``elo_ci``), and ``order`` says
how the standings are ranked; 1 had openskill's ``mu``, ``sigma``, ``ordinal``."""
COLOURS = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
)


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


def output_width() -> int:
    """The width of a table printed to what is not a terminal: ``COLUMNS`` when set,
    else wide enough that no column is cut."""
    import os

    columns = os.environ.get("COLUMNS", "")
    return int(columns) if columns.isdigit() and int(columns) > 0 else 400


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


LIVE_SCRIPT = """<script>
// The live page: fetch the report again and put its body in place. Every name in it
// was escaped when the page was made: it arrives as text, never as markup.
setInterval(async () => {
  try {
    const reply = await fetch(location.pathname, { cache: "no-store" });
    if (!reply.ok) return;
    const page = new DOMParser().parseFromString(await reply.text(), "text/html");
    document.body.replaceChildren(...page.body.childNodes);
  } catch (error) { /* the tournament has ended: the last page stays */ }
}, 2000);
</script>"""


def _progress_html(progress: Progress | None) -> str:
    if progress is None:
        return ""
    share = 100 * progress.counted / progress.scheduled if progress.scheduled else 100.0
    eta = "" if progress.eta is None else f", about {_duration(progress.eta)} to go"
    return (
        f'<p class="progress"><progress max="{progress.scheduled}" value="{progress.counted}">'
        f"</progress> {progress.counted} of {progress.scheduled} matches ({share:.0f}%), "
        f"{_duration(progress.elapsed)} so far{eta}</p>"
    )


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
    "declar&shy;ations held",
    "rating [95% CI]",
    "time&shy;outs",
    "il&shy;legal",
    "crash&shy;es",
    "lost on time",
    "for&shy;feits",
    "limits gone over",
    "CPU s (pro&shy;grams)",
)
"""The standings table's headers: soft hyphens let them wrap, so the table fits 1280 px."""


STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 1em 0; }
.scroll { overflow-x: auto; max-width: 100%; }
svg { max-width: 100%; height: auto; }
@media (max-width: 700px) { body { margin: .5em; font-size: 14px; } }
td, th { border: 1px solid #ccc; padding: 0.2em 0.4em; text-align: right; }
#standings { font-size: 14px; }
#standings td { white-space: nowrap; }
#standings th { font-weight: 600; vertical-align: bottom; }
td:nth-child(2), th:first-child { text-align: left; }
caption { text-align: left; font-weight: bold; }
"""


def _standing_html(s: EntrantStanding) -> str:
    """One row of the standings table."""
    low, high = s.win_rate_ci
    cells = (
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
    tds = "".join(f"<td>{html.escape(str(cell))}</td>" for cell in cells)
    return f'<tr data-bot="{html.escape(s.bot)}">{tds}</tr>'


def _crosstable_html(tally: Tally, names: list[str]) -> list[str]:
    """The head-to-head table's rows, in the standings' order."""
    esc = html.escape
    cross = ["<tr><th></th>" + "".join(f"<th>{esc(n)}</th>" for n in names) + "</tr>"]
    for a in names:
        cells = []
        for b in names:
            h = tally.head_to_head(a, b)
            if a == b or not h.matches:
                cells.append("<td></td>")
            else:
                title = f"{h.ahead} ahead, {h.level} level, {h.behind} behind in {h.matches}"
                cells.append(f'<td title="{esc(title)}">{100 * h.score:.0f}%</td>')
        cross.append(f"<tr><th>{esc(a)}</th>{''.join(cells)}</tr>")
    return cross


def to_html(
    config: TournamentConfig,
    tally: Tally,
    sprt: SprtRun | None = None,
    stages: list[StageReport] | None = None,
    progress: Progress | None = None,
    logs: bool = False,
) -> str:
    """The report page; with ``progress``, the live page of a tournament under way
    (``tournament --web``), which refreshes itself. One function makes both. ``logs``:
    the page lies beside the ``logs/`` folder, and links each match's log."""
    esc = html.escape
    standings = tally.standings()
    rows = [_standing_html(s) for s in standings]
    cross = _crosstable_html(tally, [s.bot for s in standings])
    problems = "".join(
        f"<li><b>{esc(bot or 'runner')}</b><ul>"
        + "".join(f"<li>{_log_link(esc(p)) if logs else esc(p)}</li>" for p in texts)
        + "</ul></li>"
        for bot, texts in sorted(tally.problems.items())
    )
    fmt = config.describe()
    house = house_rules_text(fmt["house_rules"]) or "none"
    kind = f"gauntlet of {config.gauntlet}" if config.gauntlet else "round-robin"
    limits = ", ".join(f"{k} {v}" for k, v in fmt["limits"].items())
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Least Score tournament, seed {config.seed}</title>
<style>
{STYLE}</style></head><body>
<h1>Least Score tournament</h1>
<p>{esc(kind)}, {config.seats} seats, {config.deals} deals × {config.seats} rotations;
threshold {config.rules.threshold}; house rules: {esc(house)};
{esc(time_rule(config))}; more than {config.max_faults} faults forfeit a match.
Programs: sandbox {esc(config.sandbox)}, limits {esc(limits)}.
Seed <b>{config.seed}</b>. {tally.played} of {tally.scheduled} matches played,
{tally.aborted} aborted. Win-rate intervals count each {tally.interval_unit} as one unit.</p>
{_progress_html(progress)}{f"<p><b>{esc(sprt_line(sprt))}</b></p>" if sprt is not None else ""}
{_stages_html(stages or [])}{_dropped_html(config)}
<div class="scroll"><table id="standings"><caption>Standings, ranked by {esc(ORDER)}</caption>
<tr>{"".join(f"<th>{h}</th>" for h in HTML_HEADERS)}</tr>
{"".join(rows)}
</table></div>
<h2>Ratings over the tournament</h2>
{rating_chart(tally)}
<div class="scroll"><table><caption>Head to head: how often the row finished ahead of the column
(level counts half)</caption>
{"".join(cross)}
</table></div>
{f"<h2>Problems</h2><ul>{problems}</ul>" if problems else ""}
{_logs_html(tally) if logs else ""}
{LIVE_SCRIPT if progress is not None else ""}
</body></html>
"""


def _log_name(fixture: int) -> str:
    return f"logs/{fixture:06d}.jsonl"


def _log_link(text: str) -> str:
    """``match 42: ...`` with ``match 42`` linked to its log."""
    found = re.match(r"match (\d+):", text)
    if found is None:
        return text
    return f'<a href="{_log_name(int(found[1]))}">match {found[1]}</a>{text[found.end() - 1 :]}'


def _logs_html(tally: Tally) -> str:
    links = " ".join(f'<a href="{_log_name(i)}">{i}</a>' for i in range(tally.scheduled))
    return (
        "<h2>Match logs</h2><p>Every match's full event log, in <code>logs/</code>: replay "
        "one with <code>leastscore replay DIR/logs/000042.jsonl</code>.</p>"
        f"<details><summary>The {tally.scheduled} matches, by number</summary>"
        f"<p>{links}</p></details>"
    )


def _dropped_html(config: TournamentConfig) -> str:
    if not config.dropped:
        return ""
    esc = html.escape
    items = "".join(
        f"<li><b>{esc(d.bot)}</b> ({esc(d.spec)}): <pre>{esc(d.why)}</pre></li>"
        for d in config.dropped
    )
    return f"<h2>Dropped before the first match</h2><ul>{items}</ul>"


def _stages_html(stages: list[StageReport]) -> str:
    if not stages:
        return ""
    esc = html.escape
    items = []
    for stage in stages:
        cut = "".join(f"<li>{esc(c.bot)}: {esc(c.why)}</li>" for c in stage.cut)
        rows = "".join(
            f"<tr><td>{s.rank}</td><td>{esc(s.bot)}</td><td>{s.matches}</td><td>{s.wins:g}</td>"
            f"<td>{_fixed(s.mean_place)}</td><td>{esc(_rating(s, chr(160)))}</td></tr>"
            for s in stage.standings
        )
        table = (
            "<table><tr><th>#</th><th>bot</th><th>matches</th><th>wins</th>"
            f"<th>mean place</th><th>rating [95% CI]</th></tr>{rows}</table>"
        )
        items.append(
            f"<li>{esc(stage_line(stage))}" + (f"<ul>{cut}</ul>" if cut else "") + table + "</li>"
        )
    return (
        f"<h2>Stages</h2><ol>{''.join(items)}</ol><p>The standings below are the last stage's.</p>"
    )


def rating_chart(tally: Tally, width: int = 820, height: int = 380) -> str:
    """An inline SVG chart: each entrant's rating fitted on the first matches of the
    schedule, against how many."""
    history = tally.history
    if len(history) < 2:
        return "<p>Not enough matches for a chart yet.</p>"
    left, right, top, bottom = 50, 150, 15, 35
    xs = [x for x, _ in history]
    values = [r for _, ratings in history for r in ratings]
    y_low, y_high = min(values), max(values)
    span = (y_high - y_low) or 1.0
    x_max = max(xs) or 1

    def px(x: float) -> float:
        return left + (width - left - right) * x / x_max

    def py(y: float) -> float:
        return top + (height - top - bottom) * (1 - (y - y_low) / span)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-label="ratings over the tournament">',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" '
        f'y2="{height - bottom}" stroke="#999"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="#999"/>',
        f'<text x="{(width - right + left) / 2}" y="{height - 5}" text-anchor="middle" '
        f'font-size="12">matches (schedule order)</text>',
    ]
    for i in range(5):
        value = y_low + span * i / 4
        parts.append(
            f'<text x="{left - 5}" y="{py(value) + 4:.1f}" text-anchor="end" '
            f'font-size="11">{value:.0f}</text>'
        )
    for k, name in enumerate(tally.names):
        colour = COLOURS[k % len(COLOURS)]
        line = " ".join(f"{px(x):.1f},{py(r[k]):.1f}" for x, r in history)
        last = history[-1][1][k]
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts.append(
            f'<text x="{width - right + 8}" y="{top + 16 * (k + 1)}" font-size="12" '
            f'fill="{colour}">{html.escape(name)} {_signed(last)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)
