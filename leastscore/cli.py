"""The ``leastscore`` command. Each subcommand lives with its package and loads lazily,
so ``leastscore --help`` stays fast."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

import click

from .about import VERSION

COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module:attribute, one-line help shown by --help without importing it)
    "rules": ("leastscore.rules_cmd:rules", "Print the rules of Least Score."),
    "demo": ("leastscore.demo:demo", "Watch built-in bots play one match."),
    "replay": ("leastscore.replay_cmd:replay", "Show a recorded match round by round."),
    "play": (
        "leastscore.client.cli:play",
        "Play in the terminal (--local: against bots, no server needed).",
    ),
    "serve": ("leastscore.server.cli:serve", "Run a Least Score server."),
    "servers": ("leastscore.client.cli:servers", "List the servers announced on the LAN."),
    "frame": (
        "leastscore.protocol.frame_cmd:frame",
        "Decode and encode protocol frames; find the test vectors.",
    ),
    "history": ("leastscore.server.cli:history", "List recorded matches."),
    "bot": ("leastscore.bots.cli:bot", "Run, create and check bots (see BOTS.md)."),
    "tournament": ("leastscore.tournament.edges.cli:tournament", "Play a tournament between bots."),
    "arena": ("leastscore.arena.cli:arena", "Run or enter a standing competition (ARENA.md)."),
    "protocol": (
        "leastscore.protocol.cli:protocol",
        "The wire protocol: print its JSON Schema (protocol schema).",
    ),
}


class LazyGroup(click.Group):
    """The ``leastscore`` command group, importing a subcommand's module only when it
    runs, so ``leastscore --help`` and a quick command do not load the server, the
    web view and Dask."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = COMMANDS.get(cmd_name)
        if target is None:
            return None
        module, _, attr = target[0].partition(":")
        command = getattr(importlib.import_module(module), attr)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, COMMANDS[name][1]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


OPEN_HALL = "leastscore.open_hall"
"""Where the command hands the tournament the server's hall for remote entrants, in
click's shared ``Context.meta`` (the tournament imports no part of the server)."""


async def open_hall(host: str, port: int, rules: Any, entrants: Mapping[str, str | None]) -> Any:
    """The server's hall for a tournament's remote entrants (``server.entrants``), loaded
    only when a tournament has some."""
    from leastscore.server.entrants import open_hall as served

    return await served(host, port, rules, entrants)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(VERSION, prog_name="leastscore")
@click.pass_context
def main(ctx: click.Context) -> None:
    """Least Score: a low-count shedding card game for the terminal, bots and tournaments."""
    ctx.meta[OPEN_HALL] = open_hall
