"""``leastscore protocol``: the wire protocol, for people who write clients."""

from __future__ import annotations

import click


@click.group()
def protocol() -> None:
    """The wire protocol (PROTOCOL.md): its machine-readable description."""


@protocol.command()
@click.option("--indent", default=2, show_default=True, help="Spaces per level; 0 for one line.")
def schema(indent: int) -> None:
    """Print the JSON Schema of every client and server message."""
    from .schema import schema_json

    click.echo(schema_json(indent))
