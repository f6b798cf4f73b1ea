"""A real browser for the web view's tests: Debian's headless Chromium through Playwright.

Playwright drives the system's ``chromium`` (never a downloaded one). Without either,
the tests are skipped and say why. Set ``LEASTSCORE_SCREENSHOTS`` to a folder to have
the tests save the pictures docs/playing.md shows.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from leastscore.server.app import Server
from leastscore.server.config import ServerConfig

CHROMIUM = next(
    (p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium")) if p and Path(p).exists()),
    None,
)


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    if CHROMIUM is None:
        pytest.skip("no browser: install Debian's chromium (apt-get install chromium)")
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        pytest.skip("no browser driver: pip install playwright (it uses the system chromium)")
    async with async_playwright() as p:
        chromium = await p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield chromium
        finally:
            await chromium.close()


def screenshot_path(name: str) -> Path | None:
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
