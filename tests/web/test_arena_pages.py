"""The arena's pages in a real browser: the leaderboard, an entrant's page and a replay,
reached by clicking as a visitor would; the replay shows no card a spectator could not
have seen (checked against the match's full log)."""

from __future__ import annotations

import re
import tarfile
from pathlib import Path
from typing import Any

import msgspec
import pytest

pytest.importorskip("aiohttp", reason="the arena's pages need aiohttp: pip install leastscore[web]")

from leastscore.arena.book import Book
from leastscore.arena.tables import open_log
from leastscore.game import Event, Played, RoundStarted, read_log

from ..support.arena import Served, contest, enter_references, reference
from ..support.browser import screenshot_path
from ..support.cli import leastscore


def secret_in_each_line(events: list[Event]) -> list[set[str]]:
    """By event of the full log: the cards it holds that its spectator copy does not (the
    hands at a deal, the card drawn from the deck)."""
    out = []
    for event in events:
        secret: set[str] = set()
        if isinstance(event, RoundStarted):
            secret = {c for hand in event.hands if hand for c in hand} - set(event.open)
        elif isinstance(event, Played) and event.drawn:
            secret = {event.drawn}
        public = msgspec.json.encode(event.seen_by(None)).decode()
        out.append({c for c in secret if f'"{c}"' not in public})
    return out


@pytest.mark.timeout(300)
async def test_a_visitor_clicks_from_the_leaderboard_to_a_replay(
    browser: Any, tmp_path: Path
) -> None:
    folder = contest(tmp_path, "seats = 2\nthreshold = 40\ncheck_matches = 1\n")
    served = Served(folder)
    try:
        tokens = enter_references(served, folder, tmp_path)
        served.wait_for(lambda b: len(b) == 2 and min(r["matches"] for r in b.values()) > 3)
        page = await browser.new_page(viewport={"width": 390, "height": 844})
        await page.goto(served.url + "/")
        played = int((await page.locator("table tr").nth(1).all_inner_texts())[0].split("\t")[4])
        await page.wait_for_function(  # live: the board is fetched again as tables end
            f"Number(document.querySelectorAll('table tr')[1].cells[4].textContent) > {played}",
            polling=100,
            timeout=30_000,
        )
        leastscore("arena", "pause", str(folder))
        await page.locator("text=The arena is paused.").wait_for(timeout=30_000)
        rows = await page.locator("table tr").all_inner_texts()
        assert rows[1].split("\t")[1].startswith("greedy-ref"), rows
        assert "The arena is paused." in await page.inner_text("body")
        await page.click("text=greedy-ref")
        await page.wait_for_selector("text=Recent matches")
        shown = await page.inner_text("body")
        recent = r"In its last 200 tables, every version: faults \d+ timeouts"
        assert re.search(recent, shown), shown
        await page.fill("input[name=token]", tokens["greedy-ref"])
        await page.click("button:has-text('Show')")
        await page.locator("h3", has_text="version 1: accepted").wait_for()
        await page.locator("h3", has_text="standard error").first.wait_for()
        await page.locator("a[href^='/replay/']").first.click()
        await page.wait_for_selector("h2:has-text('Round 1')")
        text = await page.inner_text("body")
        lines = await page.locator("li").all_inner_texts()
        assert "Match of greedy-ref, random-ref to 40 points" in text or "Match of random" in text
        match_id = int(page.url.rsplit("/", 1)[1])
        if (shot := screenshot_path("arena-replay")) is not None:
            await page.screenshot(path=str(shot), full_page=True)
        await page.click("text=Watch it on the board")
        await page.wait_for_selector("button.next")
        steps = await page.evaluate(
            "Number(document.querySelector('.step').textContent.split(' ').pop())"
        )
        boards = await page.evaluate(STEP_THROUGH, steps)
        if (shot := screenshot_path("arena-board")) is not None:
            await page.keyboard.press("ArrowLeft")  # the last move, before the match's end
            await page.screenshot(path=str(shot), full_page=True)
    finally:
        served.stop()
    played = Book(folder / "arena.sqlite").match(match_id)
    assert played is not None
    fixture = msgspec.json.decode(played.result)["fixture"]
    log = open_log(folder / "tables" / str(played.table_id), fixture)
    assert log is not None
    with log:
        events = read_log(log)
    secrets = secret_in_each_line(events)
    assert len(secrets) == len(lines) and any(secrets)
    leaked = [
        (line, sorted(c for c in secret if re.search(rf"\b{c}\b", line)))
        for line, secret in zip(lines, secrets, strict=True)
        if any(re.search(rf"\b{c}\b", line) for c in secret)
    ]
    assert not leaked, f"the replay shows cards a spectator could not see: {leaked[:3]}"
    public = public_so_far(events)
    assert len(boards) == steps + 1 == len(public) and any(boards)
    shown_unseen = [
        (i, sorted(set(b) - public[i])) for i, b in enumerate(boards) if set(b) - public[i]
    ]
    assert not shown_unseen, f"the board shows cards not yet public: {shown_unseen[:3]}"


STEP_THROUGH = """(steps) => {
  document.querySelector("button.first").click();
  const boards = [];
  for (let i = 0; i <= steps; i++) {
    boards.push([...document.querySelectorAll("#main [data-card]")].map((c) => c.dataset.card));
    document.querySelector("button.next").click();
  }
  return boards;
}"""
"""Every step of the board's replay, first to last: the cards it shows at each."""


def public_so_far(events: list[Event]) -> list[set[str]]:
    """By number of events played: every card a spectator has been shown by then."""
    seen: set[str] = set()
    out = [set(seen)]
    for event in events:
        public = msgspec.json.encode(event.seen_by(None)).decode()
        seen |= set(re.findall(r'"([AKQJT2-9][CDHS])"', public))
        out.append(set(seen))
    return out


def tarball(folder: Path, out: Path, link: bool = False) -> Path:
    with tarfile.open(out, "w:gz") as tar:
        tar.add(folder, arcname=".")
        if link:
            info = tarfile.TarInfo("./peek")
            info.type, info.linkname = tarfile.SYMTYPE, "/etc/passwd"
            tar.addfile(info)
    return out


@pytest.mark.timeout(300)
async def test_an_author_uploads_from_the_page(browser: Any, tmp_path: Path) -> None:
    folder = contest(tmp_path, "seats = 2\nthreshold = 40\ncheck_matches = 1\n")
    token = leastscore("arena", "invite", str(folder), "ann").stdout.strip()
    made = reference(tmp_path / "ann", "greedy")
    good, bad = tarball(made, tmp_path / "ann.tgz"), tarball(made, tmp_path / "bad.tgz", True)
    served = Served(folder)
    try:
        page = await browser.new_page(viewport={"width": 390, "height": 844})
        await page.goto(served.url + "/")
        verdict = page.locator("#verdict")
        await page.fill("input[name=token]", "not-my-token")
        await page.set_input_files("input[name=archive]", str(good))
        await page.click("button:has-text('Submit')")
        await verdict.filter(has_text="a valid token is needed").wait_for()
        await page.fill("input[name=token]", token)
        await page.set_input_files("input[name=archive]", str(bad))
        await page.click("button:has-text('Submit')")
        await verdict.filter(has_text="is a link").wait_for()
        await page.set_input_files("input[name=archive]", str(good))
        await page.click("button:has-text('Submit')")
        await verdict.filter(has_text="accepted: it plays from now on").wait_for(timeout=120_000)
        assert "version 2 accepted" in await verdict.inner_text()  # the refused one was v1
        for box in await page.locator("input, button").all():
            size = await box.bounding_box()
            assert size is not None and size["height"] >= 44
    finally:
        served.stop()
