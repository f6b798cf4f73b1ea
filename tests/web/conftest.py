"""A real browser for the web view's tests: Debian's headless Chromium through Playwright.

Playwright drives the system's ``chromium`` (never a downloaded one). Without either,
the tests are skipped and say why. Set ``LEASTSCORE_SCREENSHOTS`` to a folder to have
the tests save the pictures docs/playing.md shows.

Every call to the browser is bounded (see ``tests.support.browser``), and so is a
browser test as a whole: it fails a little before its pytest-timeout, in its own
event loop, saying the line it was at and what each page showed, so that the browser
is closed and the next test starts clean instead of the worker being killed.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import os
import shutil
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from ..support.browser import Bounded, pages_shown

CHROMIUM = next(
    (p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium")) if p and Path(p).exists()),
    None,
)
MARGIN = 15.0
"""Seconds before its pytest-timeout at which a browser test is failed here."""


@pytest.fixture
async def browser() -> AsyncIterator[Bounded]:
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
            yield Bounded(chromium, "browser")
        finally:
            try:
                async with asyncio.timeout(30):
                    await chromium.close()
            except TimeoutError:  # leaving async_playwright ends its driver, and the browser
                pass


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Give every async test that uses the browser its deadline (see the docstring)."""
    default = float(config.getini("timeout") or 0)
    for item in items:
        function = getattr(item, "obj", None)
        if "browser" not in getattr(item, "fixturenames", ()):
            continue
        if not inspect.iscoroutinefunction(function):
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
