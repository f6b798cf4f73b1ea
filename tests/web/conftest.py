"""A real browser for the web view's tests: Debian's headless Chromium through Playwright.

Playwright drives the system's ``chromium`` (never a downloaded one). Without either,
the tests are skipped and say why. Set ``LEASTSCORE_SCREENSHOTS`` to a folder to have
the tests save the pictures the README shows. The helpers the tests share are in
``tests.support.browser``.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

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
