"""A bot author's own modules next to their bot never stand in for ours, nor ours for theirs.

The bot folder holds ``server.py``, ``game.py``, ``protocol.py`` and ``bots.py``,
names that were once the project's own top-level packages: the bot imports
its own, and the runner, ``bot run`` and ``bot check`` keep importing theirs.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ..support.cli import leastscore

BOT = '''
"""A bot that leans on four modules of its own."""

import bots
import game
import protocol
import server

from leastscore.bots.sdk import Bot, BotView, Move


class Mine(Bot):
    name = "mine"

    def choose(self, view: BotView) -> Move:
        assert (bots.MINE, game.MINE, protocol.MINE, server.MINE) == (1, 2, 3, 4)
        return view.legal_plays()[0]
'''


def bot_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "author"
    folder.mkdir()
    for number, name in enumerate(("bots", "game", "protocol", "server"), 1):
        guard = f"if __name__ != {name!r}:\n    raise SystemExit('{name}.py as ' + __name__)\n"
        (folder / f"{name}.py").write_text(f"MINE = {number}\n{guard}")
    (folder / "mine.py").write_text(BOT)
    return folder


def test_a_bot_with_its_own_server_game_protocol_and_bots_plays_a_tournament(tmp_path):
    folder = bot_folder(tmp_path)
    run = leastscore(
        "tournament",
        f"--bot=mine=python:{folder / 'mine.py'}",
        "--bot=g=builtin:greedy",
        "--seats",
        "2",
        "--deals",
        "2",
        "--threshold",
        "15",
        "--format",
        "json",
        "--workers",
        "1",
        cwd=tmp_path,
    )
    assert run.returncode == 0, run.stderr
    standings = {row["bot"]: row for row in json.loads(run.stdout)["standings"]}
    assert standings["mine"]["matches"] == 4
    mine = standings["mine"]
    assert mine["timeouts"] == mine["illegal"] == mine["crashes"] == mine["forfeits"] == 0, mine


def test_such_a_bot_passes_bot_check_under_bot_run(tmp_path):
    folder = bot_folder(tmp_path)
    command = f"{sys.executable} -m leastscore bot run {folder / 'mine.py'} --stdio"
    roomy = ["--move-time", "60", "--budget", "20", "--startup-time", "60"]  # busy cores
    run = leastscore(
        "bot", "check", command, "--matches", "1", "--threshold", "15", *roomy, cwd=tmp_path
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "Result: compliant." in run.stdout
