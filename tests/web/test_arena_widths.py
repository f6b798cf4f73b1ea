"""The arena's leaderboard and an entrant's page fit a phone (390 px) and a desktop
(1280 px), with the longest name an author may take."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest
from aiohttp import web
from leastscore.arena.config import ArenaConfig
from leastscore.arena.service import Arena
from leastscore.arena.web import make_app

LONGEST = "abcdefghijklmnopqrstuvwxyz012345"  # 32 characters, the most a name may have


def result(places: list[int]) -> bytes:
    return msgspec.json.encode({"fixture": 0, "seats": [{"place": p} for p in places]})


@pytest.mark.timeout(120)
async def test_the_pages_do_not_scroll_sideways(tmp_path: Path, browser: Any) -> None:
    """With a 32-letter name the leaderboard was wider than a phone's screen."""
    arena = Arena(tmp_path, ArenaConfig(seats=2))
    for name in (LONGEST, "counter-ref", "greedy-ref"):
        arena.book.invite(name)
        arena.book.judged(arena.book.submit(name).id, True, "ok", "./bot")
    for seed in range(20):
        table = arena.book.begin_table(seed, [1, 2, 3])
        games = [((1, 2), result([1, 2])), ((2, 3), result([2, 1])), ((3, 1), result([1, 2]))]
        arena.book.end_table(table, games)
    runner = web.AppRunner(make_app(arena))
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        for width in (390, 1280):
            page = await browser.new_page(viewport={"width": width, "height": 800})
            for path in ("/", f"/entrant/{LONGEST}"):
                await page.goto(f"http://127.0.0.1:{port}{path}", timeout=30_000)
                wide = await page.evaluate("document.documentElement.scrollWidth")
                assert wide <= width, f"{path} is {wide} px wide at {width} px"
            await page.close()
    finally:
        await runner.cleanup()
