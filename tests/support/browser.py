"""The web view in a real browser: Debian's headless Chromium through Playwright, with
every step bounded.

Each of Playwright's waits has a limit of its own, but those limits are kept by its
driver: a browser or driver that stops answering (a CI run once spent 300 s in one
match with no wait failing, and said nothing of where) would hang the test until
pytest-timeout killed it. So every call a test makes to the browser goes through
``Bounded``, which gives it a limit in the test's own event loop: past it the call
fails, naming itself (``page.locator('#board').wait_for()``), and the traceback
points at the test's line.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import pytest
from leastscore.game.cards import BY_NAME, VALUE
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig

STEP = 60.0
"""Seconds one call to the browser may take; a wait given a longer ``timeout`` gets
that. Above Playwright's own limits, so that its own errors (which say more) come
first while its driver answers."""
SLACK = 10.0
"""Seconds past a call's limit before it is failed here."""


class Bounded:
    """A Playwright object (browser, context, page, locator, keyboard) whose calls are
    each bounded in the test's event loop; what they give back is bounded too.

    Why a wrapper rather than a limit at each call: a test makes hundreds of calls,
    and the one left unbounded is the one that hangs."""

    __slots__ = ("_name", "_target")

    def __init__(self, target: Any, name: str) -> None:
        self._target = target
        self._name = name

    def __repr__(self) -> str:
        return self._name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(self._target, attr)
        name = f"{self._name}.{attr}"
        if not callable(value):
            return _wrapped(value, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            said = f"{name}({_arguments(args, kwargs)})"
            result = value(*map(_unwrapped, args), **{k: _unwrapped(v) for k, v in kwargs.items()})
            made = attr.removeprefix("new_") if attr.startswith("new_") else said  # "page"
            if inspect.isawaitable(result):
                return _bounded(result, said, _limit(kwargs), made)
            return _wrapped(result, made)

        return call


def _limit(kwargs: dict[str, Any]) -> float:
    timeout = kwargs.get("timeout")
    asked = timeout / 1000 if isinstance(timeout, int | float) and timeout > 0 else 0.0
    return max(STEP, asked) + SLACK


async def _bounded(awaitable: Awaitable[Any], said: str, limit: float, made: str) -> Any:
    """``awaitable`` (the call ``said``) within ``limit`` seconds; what it gives back is
    bounded too, and named ``made``."""
    deadline = asyncio.timeout(limit)
    try:
        async with deadline:
            result = await awaitable
    except TimeoutError:
        if not deadline.expired():
            raise
        raise AssertionError(f"{said}: no answer from the browser in {limit:g} s") from None
    return _wrapped(result, made)


def _wrapped(value: Any, name: str) -> Any:
    if isinstance(value, list):
        return [_wrapped(v, f"{name}[{i}]") for i, v in enumerate(value)]
    if type(value).__module__.startswith("playwright."):
        return Bounded(value, name)
    return value


def _unwrapped(value: Any) -> Any:
    return value._target if isinstance(value, Bounded) else value


def _arguments(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str:
    def short(v: Any) -> str:
        text = repr(v)
        return text if len(text) <= 60 else text[:57] + "..."

    return ", ".join([*map(short, args), *(f"{k}={short(v)}" for k, v in kwargs.items())])


async def pages_shown(browser: Bounded) -> str:
    """What each open page shows (its address and the start of its text), for a test
    that has stalled to say; a page that does not answer in 5 s is said to."""
    lines = []
    for context in browser._target.contexts:
        for page in context.pages:
            try:
                async with asyncio.timeout(5):
                    text = await page.evaluate("document.body ? document.body.innerText : ''")
            except Exception as e:  # a page that is gone or stuck: say so, do not hang
                text = f"(no answer: {type(e).__name__})"
            lines.append(f"{page.url}: {' '.join(str(text).split())[:600]}")
    return "\n".join(lines) or "(no page open)"


@contextlib.asynccontextmanager
async def stalls_explained(
    page: Any, server: Server, step: str, seconds: float = 120
) -> AsyncIterator[None]:
    """Fail a step of several browser calls (a move) that has not ended in ``seconds``
    with what the server's matches and the page were at."""
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
        except (TimeoutError, AssertionError):
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
    from leastscore.server.web.view import WebView  # aiohttp: the tests that need it skip without

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
