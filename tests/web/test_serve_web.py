"""``leastscore serve --web``: the address printed, the page served whole and small."""

from __future__ import annotations

import subprocess
import urllib.request
from pathlib import Path

import pytest

from ..support.cli import leastscore, started, stop

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

STATIC = Path(__file__).parents[2] / "kit" / "static"
VENDORED = {"msgpack.min.js", "morphdom.js"}


def test_the_page_needs_no_build_and_no_cdn_and_weighs_under_150_kb() -> None:
    files = list(STATIC.iterdir())
    assert sum(f.stat().st_size for f in files) < 150_000
    for f in files:
        text = f.read_text()
        for name in ('xmlns="http://www.w3.org/2000/svg"', "'http://www.w3.org/1999/xhtml'"):
            text = text.replace(name, "")  # a namespace's name, not a fetch
        if f.name == "morphdom.js":  # vendored: its comments cite pages
            lines = text.splitlines()
            text = "\n".join(ln for ln in lines if not ln.lstrip().startswith(("//", "*")))
        assert "http://" not in text and "https://" not in text, f
        if f.name not in VENDORED:
            assert "innerHTML" not in text, f  # names and chat go in as text
    # morphdom reads markup from a string only when handed one: only redraw() calls
    # it, and with elements built off the page
    callers = [f.name for f in STATIC.glob("*.js") if 'from "./morphdom.js"' in f.read_text()]
    assert callers == ["redraw.js"]


def test_serve_web_prints_the_address_and_serves_the_view(tmp_path: Path) -> None:
    server = started("serve", "--port=0", "--no-db", "--web=0", stderr=subprocess.DEVNULL)
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
        stop(server)


def test_a_bad_web_address_is_refused_clearly() -> None:
    done = leastscore("serve", "--port=0", "--no-db", "--web=here")
    assert done.returncode == 2 and "--web wants [HOST:]PORT" in done.stderr


def test_the_pages_scripts_are_checked_es_modules_sharing_no_globals() -> None:
    """Each script (the vendored codec and morphdom aside) is an ES module tsc checks
    (``// @ts-check``, ``make lint``), and the board page loads one entry module: they
    share what they import, not globals."""
    scripts = [f for f in STATIC.glob("*.js") if f.name not in VENDORED]
    assert {"view.js", "board.js", "play.js", "arena.js", "live.js"} <= {f.name for f in scripts}
    for f in scripts:
        assert f.read_text().startswith("// @ts-check\n"), f
    page = (STATIC.parent / "templates" / "board.html").read_text()
    assert page.count("<script") == 1 and '<script type="module" src="/static/view.js">' in page
