"""The tournament's live page and report.html in a real browser: the same page, the
standings the JSON has, legible on a phone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from leastscore.tournament.pure import report
from leastscore.tournament.pure.stats import Tally
from leastscore.tournament.running.store import Store

from ..support.browser import screenshot_path
from ..support.contest import bots, tournament

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

from leastscore.tournament.edges.web import Clock, TournamentView

HOSTILE = "<script>alert(1)</script>"  # a name may not hold "="


HOSTILE_FIELD = {"a": "builtin:greedy", "b": "builtin:random", "c": "builtin:greedy"}
LEVELS = {level: f"builtin:{level}" for level in ("expert", "counter", "greedy", "random")}
"""The built-in ladder: a real field, for the report and its picture in docs/playing.md."""
QUICK = {"counter": "builtin:counter", "greedy": "builtin:greedy", "greedy-2": "builtin:greedy",
         "random": "builtin:random"}  # fmt: skip
"""Four entrants without ``expert``'s search: the same report at a sixth of the cost, when
no picture is being made."""


def played_tournament(tmp_path: Path, field: dict[str, str] | None = None) -> Path:
    """A short round-robin of ``field``; by default three bots and one with a hostile name."""
    out = tmp_path / "run"
    entrants = (
        bots(**field) if field else [*bots(**HOSTILE_FIELD), f"--bot={HOSTILE}=builtin:random"]
    )
    done = tournament(
        *entrants,
        "--seats=3",
        "--threshold=40",
        "--deals=2",
        "--seed=5",
        "--workers=1",
        "--quiet",
        f"--out={out}",
    )
    assert done.returncode == 0, done.stderr
    return out


async def page_standings(page: Any) -> list[list[str]]:
    rows = page.locator("#standings tr[data-bot]")
    return [await row.locator("td").all_inner_texts() for row in await rows.all()]


def json_standings(document: dict[str, Any]) -> list[list[str]]:
    """The rows the page should show, from the JSON: rank, bot, matches, wins."""
    return [[str(s["rank"]), s["bot"], str(s["matches"]), f"{s['wins']:g}"] for s in document]


async def test_the_live_page_follows_the_tally_and_agrees_with_the_json(
    tmp_path: Path, browser: Any
) -> None:
    store, config = Store.resume(played_tournament(tmp_path))
    results = store.results()
    schedule = config.schedule()
    tally = Tally(config.names, len(schedule), lambda i: (schedule[i].deal, schedule[i].group))
    clock = Clock(len(schedule), 0)
    view = TournamentView(
        "127.0.0.1",
        0,
        page=lambda: report.to_html(config, tally, progress=clock.progress(tally.counted)),
        standings=lambda: report.to_json(config, tally),
    )
    await view.start()
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        dialogs: list[str] = []
        page.on("dialog", lambda d: dialogs.append(d.message))
        await page.goto(view.address)
        for count, result in enumerate(results, start=1):
            tally.add(result)
            if count % 4 and count != len(results):
                continue
            # the page fetches itself again: wait for it to count this result
            await page.wait_for_function(
                f"document.querySelector('progress').value == {count}", timeout=60_000
            )
            document = json.loads(report.to_json(config, tally))
            shown = [row[:4] for row in await page_standings(page)]
            assert shown == json_standings(document["standings"])
        assert HOSTILE in await page.locator("#standings").inner_text()
        assert await page.locator("svg polyline").count() == len(config.names)
        assert await page.locator("#standings script").count() == 0 and not dialogs
        await page.set_viewport_size({"width": 390, "height": 844})
        wide = await page.evaluate("document.documentElement.scrollWidth")
        assert wide <= await page.evaluate("window.innerWidth")
    finally:
        await view.stop()


async def test_report_html_shows_the_standings_json_holds(tmp_path: Path, browser: Any) -> None:
    shot = screenshot_path("tournament")
    out = played_tournament(tmp_path, LEVELS if shot else QUICK)
    document = json.loads((out / "standings.json").read_text())
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.goto((out / "report.html").as_uri())
    shown = await page_standings(page)
    assert [row[:4] for row in shown] == json_standings(document["standings"])
    for row, s in zip(shown, document["standings"], strict=True):
        low, high = s["win_rate_ci"]
        assert f"[{100 * low:.1f}–{100 * high:.1f}]" in row[4]  # the interval
    assert await page.locator("progress").count() == 0  # the report is not live
    links = [await a.get_attribute("href") for a in await page.locator("details a").all()]
    assert len(links) == document["matches_scheduled"] and all((out / h).is_file() for h in links)
    # at 1280 px the whole table is in view, each row on one line (intervals unbroken)
    box = page.locator("#standings").first
    scroll = await page.evaluate(
        "[...document.querySelectorAll('.scroll')].map(d => d.scrollWidth - d.clientWidth)"
    )
    assert max(scroll) <= 0
    heights = {
        round((await row.bounding_box())["height"])
        for row in await box.locator("tr[data-bot]").all()
    }
    cell = await box.locator("tr[data-bot] td").first.bounding_box()
    assert heights == {round(cell["height"])} and cell["height"] < 30
    assert await page.locator("#standings script").count() == 0
    if shot is not None:
        await page.screenshot(path=str(shot))
