"""An entrant's page in a real browser, at a phone's width (390 px) and a desktop's
(1280 px): its rating chart (a point for each fit, the interval a band), its matches
filtered by the form with no script running, its head-to-head table, each match linked
to its replay and its board, and nothing wider than the screen."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

pytest.importorskip("aiohttp", reason="the arena's pages need aiohttp: pip install leastscore[web]")

from aiohttp import web
from leastscore.arena.config import ArenaConfig
from leastscore.arena.service import Arena
from leastscore.arena.web import make_app

from ..support.browser import no_sideways_scroll

LONGEST = "abcdefghijklmnopqrstuvwxyz012345"  # 32 characters, the most a name may have


def seats(*placed: tuple[str, int, int]) -> bytes:
    return msgspec.json.encode(
        {"fixture": 0, "seats": [{"bot": b, "place": p, "score": s} for b, p, s in placed]}
    )


def arena_of(tmp_path: Path) -> Arena:
    """ann (1) meets bo (2) at 6 tables, winning 4, and the longest name (3) at 3, losing
    all; its rating noted at 5 fits, an hour apart."""
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    for name in ("ann", "bo", LONGEST):
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    for t in range(9):
        other, them = (2, "bo") if t < 6 else (3, LONGEST)
        mine = 1 if t < 4 else 2
        table = arena.book.begin_table(t, [1, other])
        stderr = {a: ("stderr", 0, 0) for a in ("ann", them)}
        played = [((1, other), seats(("ann", mine, 10 * t), (them, 3 - mine, 50)))]
        arena.book.end_table(table, played, stderr)
    for hour in range(5):
        at = 1_796_600_000.0 + 3600 * hour
        arena.book.note_ratings(at, [(1, 10.0 * hour, 10.0 * hour - 40, 10.0 * hour + 30, 2)])
    return arena


async def shown_matches(page: Any) -> list[str]:
    return list(await page.locator("#recent li").all_inner_texts())


@pytest.mark.timeout(120)
async def test_an_entrant_s_page_charts_filters_and_meets(tmp_path: Path, browser: Any) -> None:
    arena = arena_of(tmp_path)
    runner = web.AppRunner(make_app(arena))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    url = f"http://127.0.0.1:{runner.addresses[0][1]}/entrant/ann"
    try:
        for width in (390, 1280):
            page = await browser.new_page(
                viewport={"width": width, "height": 800}, java_script_enabled=False
            )
            await page.goto(url, timeout=30_000)
            chart = page.locator("#rating-chart svg")
            assert await chart.locator("circle.point").count() >= 5  # and the page's own fit
            assert await chart.locator("polygon.band").count() == 1
            labels = await chart.locator("text").all_text_contents()
            assert "time (UTC)" in labels and "rating" in labels, labels
            rows = await page.locator("#head-to-head tr").all_inner_texts()
            assert [r.split("\t")[:5] for r in rows[1:]] == [
                ["bo", "6", "4", "2", "0"],
                [LONGEST, "3", "0", "3", "0"],
            ], rows
            assert len(await shown_matches(page)) == 9
            first = page.locator("#recent li").first
            assert await first.locator("a[href^='/replay/']").count() == 1
            assert await first.locator("a[href^='/watch/']").count() == 1
            await no_sideways_scroll(page)
            await page.select_option("#filter select[name=opponent]", "bo")
            await page.select_option("#filter select[name=result]", "lost")
            await page.click("#filter button")
            await page.wait_for_url("**result=lost**")
            lost = await shown_matches(page)
            assert len(lost) == 2 and all("against bo" in m and "place 2" in m for m in lost), lost
            await page.select_option("#filter select[name=opponent]", LONGEST)
            await page.select_option("#filter select[name=result]", "won")
            await page.click("#filter button")
            await page.wait_for_url("**result=won**")
            assert await shown_matches(page) == []
            assert "No finished match with these filters." in await page.inner_text("body")
            await no_sideways_scroll(page)
            await page.close()
    finally:
        await runner.cleanup()
