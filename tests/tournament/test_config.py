"""Entrant specs, the TOML file, and flags that override it."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest
from leastscore.tournament.pure.config import build, dump, load, read_toml, read_tomls
from leastscore.tournament.pure.entrants import bot_factory, parse_entrant
from leastscore.tournament.pure.report import document
from leastscore.tournament.pure.stats import Tally

from ..support.contest import MISBEHAVING, tournament


def test_entrant_specs():
    assert parse_entrant("g=builtin:greedy").kind == "builtin"
    cmd = parse_entrant('p=cmd:"./bot --fast"', base="/somewhere")
    assert cmd.kind == "cmd" and cmd.argv() == ["./bot", "--fast"] and cmd.base == "/somewhere"
    assert parse_entrant("p=cmd:./bot -q").argv() == ["./bot", "-q"]
    assert parse_entrant("far=remote").kind == "remote"
    tuned = bot_factory(parse_entrant("fast=builtin:expert:samples=6"))(1)
    assert tuned.samples == 6  # type: ignore[attr-defined]
    assert parse_entrant("far=remote").token is None
    chosen = parse_entrant("far=remote:Xy-3_abcdefghijklmnop")
    assert chosen.token == "Xy-3_abcdefghijklmnop" and chosen.public_spec == "remote"
    python = parse_entrant(f"x=python:{MISBEHAVING}:Raiser")
    bot = bot_factory(python)(5)
    assert type(bot).__name__ == "Raiser"
    for text, message in [
        ("nameless", "NAME=SPEC"),
        ("=builtin:greedy", "name"),
        ("x=builtin:godlike", "no built-in bot"),
        ("x=builtin:expert:depth=2", "expert has no option 'depth'"),
        ("x=perl:bot.pl", "not an entrant"),
        ("x=cmd:", "nothing after"),
        ("x=remote:secret", "at least 16"),  # too short to be a secret
        ("x=remote:has spaces in the token", "letters, digits"),
    ]:
        with pytest.raises(ValueError, match=message):
            parse_entrant(text)
    config = build({"seed": 1}, [parse_entrant("g=builtin:greedy"), chosen], {})
    shown = msgspec.json.encode(document(config, Tally(config.names, 0))).decode()
    assert "Xy-3_" not in shown and '"remote"' in shown  # reports keep the token secret
    twins = [parse_entrant(f"{n}=remote:{'a' * 20}") for n in ("far", "near")]
    with pytest.raises(ValueError, match="same token"):
        build({"seed": 1}, twins, {})
    with pytest.raises(ValueError, match="3 Bot subclasses"):
        bot_factory(parse_entrant(f"x=python:{MISBEHAVING}"))
    with pytest.raises(ValueError, match="no Python file"):
        bot_factory(parse_entrant("x=python:nowhere.py"))


def test_a_config_file_and_its_round_trip(tmp_path: Path):
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "mine.py").write_text(
        "from leastscore.bots import GreedyBot\n\nclass Mine(GreedyBot):\n    pass\n"
    )
    path = tmp_path / "cup.toml"
    path.write_text(
        """
seed = 12
seats = 3
deals = 2
threshold = 50
move_time = 1.5
max_faults = 3
out = "runs/cup"

[rules]
tie_loses = true

[bots]
greedy = "builtin:greedy"
random = "builtin:random"
mine = "python:bots/mine.py"
"""
    )
    settings, entrants, rules = read_toml(path)
    assert settings["out"] == str(tmp_path / "runs" / "cup")
    config = build(settings, entrants, rules)
    assert config.seats == 3 and config.deals == 2 and config.max_faults == 3
    assert config.rules.threshold == 50 and config.rules.tie_loses
    assert config.names == ("greedy", "random", "mine")
    assert bot_factory(config.entrant("mine"))(1).name == "greedy"  # found relative to the file
    assert load(dump(config)) == config
    path.write_text("seed = 1\ncolour = 'red'\n")
    with pytest.raises(ValueError, match="unknown setting colour"):
        read_toml(path)


def test_bad_definitions_are_refused():
    two = [parse_entrant("a=builtin:greedy"), parse_entrant("b=builtin:greedy")]
    with pytest.raises(ValueError, match="need at least 4 entrants"):
        build({"seed": 1, "seats": 4}, two, {})
    with pytest.raises(ValueError, match="tie_lose"):
        build({"seed": 1}, two, {"tie_lose": True})
    with pytest.raises(ValueError, match="needs entrants"):
        build({"seed": 1}, [], {})
    assert build({"seed": 1}, two, {}).seats == 2  # fewer entrants than 4: that many seats


def test_flags_override_the_file(tmp_path: Path):
    path = tmp_path / "cup.toml"
    path.write_text(
        'seed = 3\ndeals = 5\nseats = 2\n[bots]\na = "builtin:greedy"\nb = "builtin:random"\n'
    )
    done = tournament(
        f"--config={path}", "--deals=1", "--bot=c=builtin:greedy", "--format=json", "--workers=1"
    )
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert document["seed"] == 3
    assert document["format"]["deals"] == 1 and document["format"]["seats"] == 2
    assert [e["bot"] for e in document["entrants"]] == ["a", "b", "c"]
    assert document["matches_played"] == 3 * 2
    wrong = tournament("--bot=a=builtin:greedy", "--bot=a=builtin:random")
    assert wrong.returncode != 0 and "unique" in wrong.stderr and "Traceback" not in wrong.stderr


def test_several_config_files_are_merged_and_none_is_dropped(tmp_path: Path):
    """``--config a.toml --config b.toml``: entrants gathered, later settings win, the
    same entrant in two files refused (before, the last file silently replaced the rest)."""
    (tmp_path / "a.toml").write_text(
        "seed = 3\ndeals = 5\n[limits]\nmemory_mb = 256\ncpu_seconds = 9\n"
        '[bots]\na = "builtin:greedy"\n'
    )
    (tmp_path / "b.toml").write_text(
        'deals = 1\nseats = 2\n[limits]\nmemory_mb = 300\n[bots]\nb = "builtin:random"\n'
    )
    settings, entrants, _ = read_tomls([tmp_path / "a.toml", tmp_path / "b.toml"])
    assert [e.name for e in entrants] == ["a", "b"]
    assert settings["deals"] == 1 and settings["seed"] == 3
    assert settings["limits"] == {"memory_mb": 300, "cpu_seconds": 9}
    done = tournament(
        f"--config={tmp_path / 'a.toml'}", f"--config={tmp_path / 'b.toml'}", "--format=json"
    )
    assert done.returncode == 0, done.stderr
    assert [e["bot"] for e in json.loads(done.stdout)["entrants"]] == ["a", "b"]
    (tmp_path / "c.toml").write_text('[bots]\na = "builtin:random"\n')
    twice = tournament(f"--config={tmp_path / 'a.toml'}", f"--config={tmp_path / 'c.toml'}")
    assert twice.returncode != 0 and "Traceback" not in twice.stderr
    assert "the entrant a is in both" in twice.stderr


def test_an_entrant_table_gives_its_folder_and_limits(tmp_path: Path):
    (tmp_path / "entrants" / "x").mkdir(parents=True)
    path = tmp_path / "cup.toml"
    path.write_text(
        'seed = 1\n[bots]\ng = "builtin:greedy"\n'
        '[bots.x]\ncmd = "sh -c \'cd entrants/x && ./bot\'"\ndir = "entrants/x"\n'
        "limits = { memory_mb = 128 }\n"
    )
    _, entrants, _ = read_toml(path)
    x = entrants[1]
    assert x.dir == str(tmp_path / "entrants" / "x") and x.limits == ("memory_mb=128",)
    assert x.placed().folder == x.dir
    config = build({"seed": 1}, entrants, {})
    assert load(dump(config)) == config  # a worker gets the same entrant
    for table, why in (
        ('[bots.x]\nspec = "builtin:greedy"\ndir = "a"\n', "only a cmd: entrant"),
        ('[bots.x]\ncmd = "./bot"\ncolour = "red"\n', "unknown key colour"),
        ('[bots.x]\ncmd = "./bot"\nlimits = { memory = 1 }\n', "limits"),
        ('[bots.x]\ndir = "a"\n', "cmd"),
    ):
        path.write_text(table)
        with pytest.raises(ValueError, match=why):
            read_toml(path)


def test_each_setting_is_a_flag_of_the_same_name_and_the_flags_are_those_settings() -> None:
    """A setting is named once (``config.SETTINGS``): the command has an option by that
    name for each, none defining a tournament that the list does not know, and the
    options a resume refuses are the settings that define it."""
    from leastscore.tournament.edges.cli import tournament as command
    from leastscore.tournament.pure.config import (
        AS_GIVEN,
        DEFINING,
        FLAGS,
        RUN_SETTINGS,
        TournamentConfig,
    )

    options = {p.name for p in command.params}
    run_flags = {"output" if s == "format" else s for s in RUN_SETTINGS}
    assert options >= FLAGS and run_flags <= options
    command_only = {"resume", "quiet", "web", "schema"}
    assert options - FLAGS - run_flags - DEFINING == command_only
    assert options >= DEFINING
    fields = {f.name for f in msgspec.structs.fields(TournamentConfig)}
    assert fields >= AS_GIVEN  # what build() copies is a field of the config
