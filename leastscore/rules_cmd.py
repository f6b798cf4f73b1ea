"""``leastscore rules``: the player-facing rules, rendered for the terminal."""

from __future__ import annotations

from importlib.resources import files

import click


def rules_text() -> str:
    return files("leastscore").joinpath("rules.md").read_text(encoding="utf-8")


@click.command()
@click.option("--plain", is_flag=True, help="Print the Markdown source as it is.")
def rules(plain: bool) -> None:
    """Print the rules of Least Score."""
    text = rules_text()
    if plain:
        click.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text))
