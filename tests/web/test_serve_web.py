"""``leastscore serve --web``: the address printed, the page served whole and small."""

from __future__ import annotations

import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

STATIC = Path(__file__).parents[2] / "server" / "web_static"


def test_the_page_needs_no_build_and_no_cdn_and_weighs_under_150_kb() -> None:
    files = list(STATIC.iterdir())
    assert sum(f.stat().st_size for f in files) < 150_000
    for f in files:
        text = f.read_text().replace(
            'xmlns="http://www.w3.org/2000/svg"', ""
        )  # a name, not a fetch
        assert "http://" not in text and "https://" not in text, f
        assert "innerHTML" not in text, f  # names and chat go in as text


def test_serve_web_prints_the_address_and_serves_the_view(tmp_path: Path) -> None:
    server = subprocess.Popen(
        [sys.executable, "-m", "leastscore", "serve", "--port=0", "--no-db", "--web=0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        lines = [server.stdout.readline(), server.stdout.readline()]
        address = lines[1].removeprefix("web view at ").strip()
        assert lines[0].startswith("listening on 127.0.0.1:")
        assert address.startswith("http://127.0.0.1:"), lines  # where the server binds
        with urllib.request.urlopen(address, timeout=30) as reply:
            assert b"/static/view.js" in reply.read()
        with urllib.request.urlopen(address + "api/lobby", timeout=30) as reply:
            assert reply.read() == b'{"tables":[],"history":false}'
    finally:
        server.terminate()
        server.wait(timeout=30)


def test_a_bad_web_address_is_refused_clearly() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "leastscore", "serve", "--port=0", "--no-db", "--web=here"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and "--web wants [HOST:]PORT" in done.stderr
