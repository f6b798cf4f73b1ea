"""Every option of every command says what it does, and its default one way."""

from __future__ import annotations

import re
from collections.abc import Iterator

import click
from leastscore.server.config import ServerConfig

from leastscore.cli import main


def commands(
    command: click.Command = main, path: tuple[str, ...] = ("leastscore",)
) -> Iterator[tuple[tuple[str, ...], click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        ctx = click.Context(command)
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            assert sub is not None
            yield from commands(sub, (*path, name))


def options(path: tuple[str, ...]) -> dict[str, click.Option]:
    found = dict(commands())
    return {
        o.name or "": o
        for o in found[path].params
        if isinstance(o, click.Option)  # (arguments are named in the usage line)
    }


def test_every_option_in_every_help_has_a_description():
    missing = [
        f"{' '.join(path)} {'/'.join(o.opts)}"
        for path, command in commands()
        for o in command.params
        if isinstance(o, click.Option) and not o.hidden and not (o.help or "").strip()
    ]
    assert missing == []


def test_defaults_are_written_one_way():
    """As click writes them, ``[default: ...]``, never in the description's own words."""
    odd = re.compile(r"\(default|default:|\[[^]]*\]\s*\.?$", re.I)
    written = [
        f"{' '.join(path)} {o.opts[0]}: {o.help}"
        for path, command in commands()
        for o in command.params
        if isinstance(o, click.Option) and o.help and odd.search(o.help)
    ]
    assert written == []


def test_play_and_serve_agree_on_the_bot_delay():
    play = options(("leastscore", "play"))["bot_delay"].default
    serve = options(("leastscore", "serve"))["bot_delay"].default
    assert play == serve == ServerConfig.bot_delay


def test_demo_level_lists_the_levels():
    from leastscore.bots import BUILTIN

    text = options(("leastscore", "demo"))["level"].help or ""
    assert all(level in text for level in BUILTIN)
