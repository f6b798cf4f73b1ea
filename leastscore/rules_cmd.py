"""``leastscore rules``: the player-facing rules, rendered for the terminal."""

from __future__ import annotations

import os

import click

from .lang import LANGUAGES, choose, rules_text


@click.command()
@click.option("--plain", is_flag=True, help="Print the Markdown source as it is.")
@click.option(
    "--lang",
    type=click.Choice(list(LANGUAGES), case_sensitive=False),
    default=None,
    show_default="the locale's language, else English",
    help="The language: en, tl, nl, fr or zu.",
)
def rules(plain: bool, lang: str | None) -> None:
    """Print the rules of Least Score."""
    text = rules_text(choose(lang, os.environ))
    if plain:
        click.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text))
