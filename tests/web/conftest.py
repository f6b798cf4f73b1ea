"""A real browser for the web view's tests: Debian's headless Chromium through Playwright.

Playwright drives the system's ``chromium`` (never a downloaded one). Without either,
the tests are skipped and say why. Set ``LEASTSCORE_SCREENSHOTS`` to a folder to have
the tests save the pictures docs/playing.md shows.

One Chromium serves every browser test of a test process (starting it and its driver
costs a CPU second), and each test's contexts and pages are closed after it, so the
next test starts as in a new browser. The async tests here share the browser's event
loop (the session's): Playwright's objects belong to the loop that made them.

Every call to the browser is bounded (see ``tests.support.browser``), and so is a
browser test as a whole: it fails a little before its pytest-timeout, saying the line
it was at and what each page showed, so that its pages are closed and the next test
starts clean instead of the worker being killed.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import os
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from ..support.browser import Bounded, pages_shown

CHROMIUM = next(
    (p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium")) if p and Path(p).exists()),
    None,
)
HERE = Path(__file__).parent
MARGIN = 15.0
"""Seconds before its pytest-timeout at which a browser test is failed here."""


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium() -> AsyncIterator[Any]:
    """One Chromium for every browser test a test process runs: starting the driver and
    the browser costs a CPU second, and each test gets pages of its own (``browser``)."""
    if CHROMIUM is None:
        pytest.skip("no browser: install Debian's chromium (apt-get install chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.skip("no browser driver: pip install playwright (it uses the system chromium)")
    async with async_playwright() as p:
        chromium = await p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox"], timeout=60_000
        )
        try:
            yield chromium
        finally:
            await _closed(chromium)  # or left: leaving async_playwright ends the driver too


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium: Any) -> AsyncIterator[Bounded]:
    """The browser, as a test sees it: every context and page the test opened is closed
    after it (cookies, storage and all), so the next test starts as in a new browser."""
    try:
        yield Bounded(chromium, "browser")
    finally:
        for context in chromium.contexts:
            await _closed(context)


async def _closed(thing: Any) -> None:
    """Close a browser or a context, or give up on it after 30 s: a test's teardown must
    not hang on a browser that stopped answering."""
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(30):
            await thing.close()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Run the async tests here in the browser's loop, and give every one that uses the
    browser its deadline (see the docstring)."""
    default = float(config.getini("timeout") or 0)
    for item in items:
        function = getattr(item, "obj", None)
        if not inspect.iscoroutinefunction(function):
            continue
        if HERE in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.asyncio(loop_scope="session"), append=False)
        if "browser" not in getattr(item, "fixturenames", ()):
            continue
        marker = item.get_closest_marker("timeout")
        limit = float(marker.args[0]) if marker and marker.args else default
        if limit > MARGIN:
            item.obj = _within(function, limit - MARGIN)  # type: ignore[attr-defined]


def _within(test: Callable[..., Any], seconds: float) -> Callable[..., Any]:
    @functools.wraps(test)
    async def bounded(*args: Any, **kwargs: Any) -> None:
        deadline = asyncio.timeout(seconds)
        try:
            async with deadline:
                await test(*args, **kwargs)
        except TimeoutError as e:
            if not deadline.expired():
                raise
            browser = kwargs.get("browser")
            shown = await pages_shown(browser) if isinstance(browser, Bounded) else ""
            raise AssertionError(
                f"the test did not end in {seconds:g} s (the line it was at is in the "
                f"traceback above); the pages showed:\n{shown}"
            ) from e

    return bounded
