"""The JavaScript bot in examples/js-bot, and the one ``bot new --lang js`` writes:
their own tests, a real match against the server, resuming, and ``bot check``.

They need Node.js; the npm dependency is installed here (``npm ci`` against the
committed lock file). Only a machine without ``node`` skips them.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from leastscore.bots import GreedyBot
from leastscore.bots.link import ServerLink
from leastscore.bots.scaffold import new_bot
from leastscore.bots.view import BotView
from leastscore.game import MatchEnded
from leastscore.protocol.convert import move_to_wire
from leastscore.protocol.messages import Join, Turn
from leastscore.server.app import Server

from ..support.server import bot_run, finished_matches, recording, wait_for
from ..support.cli import leastscore
from ..support.tools import NODE, npm_ci

ROOT = Path(__file__).parent.parent.parent
JS_BOT = ROOT / "examples" / "js-bot"
TEMPLATE = ROOT / "bots" / "templates" / "js"
pytestmark = pytest.mark.skipif(NODE is None, reason="Node.js is not installed")


@pytest.fixture(scope="module")
def js_bot() -> Iterator[Path]:
    npm_ci(JS_BOT)
    yield JS_BOT


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[Server]:
    async with recording(tmp_path) as srv:
        yield srv


def node(*args: str) -> list[str]:
    assert NODE is not None
    return [NODE, str(JS_BOT / "bot.js"), *args]


def with_leastscore() -> dict[str, str]:
    """The environment with this leastscore command first on PATH (the tests call it)."""
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def test_its_own_unit_tests_pass(js_bot: Path) -> None:
    """Its own tests, and the shipped vectors and transcript (vectors.test.js)."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--test"],
        cwd=js_bot,
        capture_output=True,
        text=True,
        timeout=180,
        env=with_leastscore(),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# fail 0" in done.stdout and "# pass 8" in done.stdout


def test_the_template_speaks_the_same_protocol_code() -> None:
    for shared in ("leastscore.js", "vectors.test.js"):
        assert (TEMPLATE / shared).read_text() == (JS_BOT / shared).read_text(), shared
    # the one file that differs: which leastscore the tests run
    assert (TEMPLATE / "leastscore-cli.js.tmpl").exists()
    assert (JS_BOT / "leastscore-cli.js").exists()


async def test_a_real_match_against_the_server(js_bot: Path, server: Server) -> None:
    code, said = await bot_run(
        *node(
            "--server",
            f"127.0.0.1:{server.port}",
            "--create",
            "--bots",
            "greedy,random",
            "--threshold",
            "30",
            "--matches",
            "2",
        )
    )
    assert code == 0, said
    assert "2 match(es) played, 0 fault(s)" in said
    assert (await finished_matches(server, 2)).count("js-counter") == 2


async def test_it_joins_a_python_bot_s_table(js_bot: Path, server: Server) -> None:
    sdk_bot = ROOT / "tests" / "programs" / "sdk_bots.py"
    creator = asyncio.ensure_future(
        bot_run(
            sys.executable,
            "-m",
            "leastscore",
            "bot",
            "run",
            f"{sdk_bot}:Watcher",
            "--server",
            f"127.0.0.1:{server.port}",
            "--create",
            "--seats",
            "3",
            "--bots",
            "random",
            "--threshold",
            "25",
        )
    )
    await wait_for(lambda: bool(server.lobby.tables))
    (table,) = server.lobby.tables
    code, said = await bot_run(*node("--server", f"127.0.0.1:{server.port}", "--table", table))
    assert code == 0, said
    assert (await creator)[0] == 0
    assert "js-counter" in await finished_matches(server, 1)


async def test_it_resumes_after_a_dropped_connection(js_bot: Path, server: Server) -> None:
    """The test plays the third seat itself, so the match waits while the bot is cut off;
    the test moves at once, so the bot's turn usually comes while it is away and it
    answers from the snapshot it gets when it resumes."""
    assert NODE is not None
    proc = await asyncio.create_subprocess_exec(
        *node(
            "--server",
            f"127.0.0.1:{server.port}",
            "--create",
            "--seats",
            "3",
            "--bots",
            "greedy",
            "--threshold",
            "30",
        ),
        stderr=asyncio.subprocess.PIPE,
    )
    me = await ServerLink.open("127.0.0.1", server.port, "tester", bot=True)
    try:
        await wait_for(lambda: bool(server.lobby.tables))
        (table,) = server.lobby.tables
        await me.request(Join(table=table))
        (js,) = [p for p in server.lobby.players if p.name == "js-counter"]
        player = GreedyBot()
        moves = 0
        while True:
            message = await asyncio.wait_for(me.inbox.get(), 30)
            if isinstance(message, MatchEnded):
                break
            if isinstance(message, Turn) and message.seat == me.tracker.you:
                moves += 1
                if moves == 3:
                    old = js.conn
                    assert old is not None and old.transport is not None
                    old.transport.abort()  # the network drops it: no goodbye
                await me.request(move_to_wire(player.choose(BotView.of(me.tracker.view()))))
        _, err = await asyncio.wait_for(proc.communicate(), 60)
    finally:
        await me.close()
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    said = err.decode()
    assert proc.returncode == 0, said
    assert "connection lost: resuming" in said and "resumed" in said
    assert "js-counter" in await finished_matches(server, 1)


def test_it_passes_bot_check(js_bot: Path) -> None:
    done = leastscore(
        "bot", "check", f"node {JS_BOT / 'bot.js'} --stdio",
        "--move-time", "60", "--budget", "20", "--startup-time", "60",  # busy cores
        timeout=180,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Result: compliant." in done.stdout and 'name "js-counter"' in done.stdout


def test_bot_new_js_passes_its_own_test(js_bot: Path, tmp_path: Path) -> None:
    project = new_bot("fox", "js", tmp_path)
    assert (project / ".gitignore").read_text().strip() == "node_modules/"
    assert '"name": "fox"' in (project / "package.json").read_text()
    npm_ci(project)
    npm = shutil.which("npm")
    assert npm is not None
    # a plain shell: no environment activated, whatever leastscore the PATH may hold
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env["PATH"] = os.pathsep.join(
        [str(Path(npm).parent), str(Path(NODE or "node").parent), "/usr/bin", "/bin"]
    )
    assert shutil.which("leastscore", path=env["PATH"]) is None
    done = subprocess.run(
        [npm, "test"], cwd=project, capture_output=True, text=True, timeout=180, env=env
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "# pass 6" in done.stdout
