"""The web view in a real browser (the ``browser`` fixture of tests/web): a server
with its web view, a seat at the page, a whole move made on it, the checks every page
is held to."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from leastscore.game.cards import BY_NAME, VALUE
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig


@contextlib.asynccontextmanager
async def stalls_explained(
    page: Any, server: Server, step: str, seconds: float = 120
) -> AsyncIterator[None]:
    """Fail a step that has not ended in ``seconds`` with what the server and the page
    were at.

    Each of the browser's waits has its own limit, yet a full run once spent 300 s in a
    match with no wait failing (the browser or its driver stopped answering): this says
    where, instead of a bare timeout."""
    try:
        async with asyncio.timeout(seconds):
            yield
    except TimeoutError:
        tables = [
            (t.match.round, t.match.turn, t.match.to_move, t.match.over)
            for t in server.lobby.tables.values()
            if t.match is not None
        ]
        try:
            async with asyncio.timeout(10):
                shown = await page.evaluate("document.body.innerText")
        except TimeoutError:
            shown = "(the page did not answer in 10 s)"
        pytest.fail(
            f"{step}: no end in {seconds:g} s; (round, turn, to move, over) {tables}; "
            f"page: {shown[:2000]}"
        )


def screenshot_path(name: str) -> Path | None:
    """Where to save the README's picture ``name``: in ``LEASTSCORE_SCREENSHOTS``, if set."""
    folder = os.environ.get("LEASTSCORE_SCREENSHOTS")
    return Path(folder) / f"{name}.png" if folder else None


@contextlib.asynccontextmanager
async def web_server(**config: Any) -> AsyncIterator[tuple[Server, Any]]:
    """A real server on loopback with its web view on a free port, for a test."""
    from leastscore.server.web import WebView  # aiohttp: the tests that need it skip without

    server = Server(ServerConfig(port=0, **config))
    await server.start()
    view = WebView(server, "127.0.0.1", 0)
    await view.start()
    server.web = view
    try:
        yield server, view
    finally:
        await server.shutdown()


async def sit_down(page: Any, address: str, name: str) -> None:
    """Open the page to play and give a name: the tables and the create form come up."""
    await page.goto(address + "#/play")
    await page.get_by_label("Your name").fill(name)
    await page.get_by_role("button", name="Sit down").click()


WIDER = """width => [...document.querySelectorAll("body *")]
    .filter(e => e.getBoundingClientRect().right > width)
    .map(e => `${e.tagName.toLowerCase()}#${e.id}.${e.className}: ${e.outerHTML.slice(0, 160)}`)
    .slice(0, 6)"""


async def no_sideways_scroll(page: Any) -> None:
    """The page fits its width; when not, the message names what sticks out."""
    wide = await page.evaluate("document.documentElement.scrollWidth")
    width = await page.evaluate("window.innerWidth")
    if wide > width:
        wider = await page.evaluate(WIDER, width)
        raise AssertionError(f"the page scrolls sideways ({wide} > {width}): {wider}")


async def my_move(page: Any, typed: bool = False) -> bool:
    """Make one move on the page when it is this player's: declare at 4 or less, else
    discard the highest card alone and draw; by tap and click, or ``typed`` the
    terminal's way. False when the match is over."""
    await page.locator("#standings, #hand.to-move").first.wait_for(timeout=60_000)
    if await page.locator("#standings").count():
        return False
    asked = await page.locator("#hand.to-move").get_attribute("data-move")
    hand = await page.locator("#hand .card-button").evaluate_all("e => e.map(b => b.dataset.card)")
    declare = page.locator("#hand button.declare")
    can_declare = await declare.is_enabled()
    if typed:
        highest = max(hand, key=lambda c: (VALUE[BY_NAME[c]], c))
        can_draw = await page.locator("#hand button.draw").get_attribute("disabled") is None
        take = (
            "deck"
            if can_draw
            else "take " + await page.locator("#hand button.take").first.get_attribute("data-card")
        )
        low = sum(VALUE[BY_NAME[c]] for c in hand) <= 4 and can_declare
        field = page.locator("#hand form.typed input")
        await field.fill("declare" if low else f"{highest.lower()} {take}")
        await field.press("Enter")
    elif sum(VALUE[BY_NAME[c]] for c in hand) <= 4 and can_declare:
        await declare.click()
    else:
        highest = max(hand, key=lambda c: (VALUE[BY_NAME[c]], c))
        await page.locator(f"#hand .card-button[data-card='{highest}']").click()
        assert "take" in (await page.locator("#hand .selection").inner_text()).lower()
        draw = page.locator("#hand button.draw")
        await (draw if await draw.is_enabled() else page.locator("#hand button.take").first).click()
    await page.wait_for_function(  # the move was taken: the page asks another, or none
        "asked => { const h = document.querySelector('#hand.to-move');"
        " return !h || h.dataset.move !== asked; }",
        arg=asked,
        timeout=30_000,
    )
    refused = page.locator(".notice.refused")
    assert not await refused.count(), await refused.inner_text()
    return True
