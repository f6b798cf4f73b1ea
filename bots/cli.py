"""``leastscore bot``: run a bot (over TCP or stdio), start a new one, check a program."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click
from leastscore.protocol.address import parse_address
from leastscore.seats.limits import MODES

from .scaffold import LANGUAGES
from .settings import CheckSettings

if TYPE_CHECKING:
    from collections.abc import Callable

    from leastscore.seats.limits import Limits, Mode


def checked_level(level: str, option: str = "--level") -> str:
    """``level`` if it names a built-in bot (``expert:samples=24``), else the option's
    error saying why: the one check of every command that takes a level."""
    from leastscore.bots import builtin

    try:
        builtin(level)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint=option) from None
    return level


def level_option(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """A click callback: a ``--level`` that names a built-in bot."""
    return checked_level(value, param.opts[0] if param.opts else "--level")


def _levels(values: tuple[str, ...]) -> list[str]:
    """``--bots greedy,random --bots random`` -> ["greedy", "random", "random"]."""
    levels = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return [checked_level(level, "--bots") for level in levels]


def _address(text: str) -> tuple[str, int]:
    try:
        return parse_address(text)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--server") from None


def _limits(ctx: click.Context, param: click.Parameter, items: tuple[str, ...]) -> Limits:
    from leastscore.seats.limits import Limits

    try:
        return Limits().with_text(items)
    except ValueError as e:
        raise click.BadParameter(str(e)) from None


def _contained(command: Callable[..., None]) -> Callable[..., None]:
    """``--sandbox`` and ``--limit``: contain the program as a tournament does."""
    command = click.option(
        "--limit",
        "limits",
        multiple=True,
        metavar="NAME=VALUE",
        callback=_limits,
        help="A limit for the program (repeat): memory_mb, cpu_seconds, processes, "
        "open_files, file_size_mb, stderr_kb (as a tournament's --limit).",
    )(command)
    return click.option(
        "--sandbox",
        type=click.Choice(MODES),
        default=CheckSettings.sandbox,
        show_default=True,
        help="Contain the program as a tournament does (see TOURNAMENTS.md): it sees "
        "its own folder (the one its command's program file is in), not the rest.",
    )(command)


@click.group()
def bot() -> None:
    """Run, create and check bots (see BOTS.md)."""


@bot.command()
@click.argument("spec", metavar="FILE[:CLASS]")
@click.option("--stdio", is_flag=True, help="Play on stdin/stdout, as tournaments run programs.")
@click.option("--server", metavar="HOST:PORT", help="Play at a server's table over TCP.")
@click.option("--table", metavar="ID", help="Join this table.")
@click.option("--create", is_flag=True, help="Create a table (and fill it with --bots).")
@click.option(
    "--seats", type=click.IntRange(2, 8), show_default="1 + bots", help="Seats at a new table."
)
@click.option("--bots", "levels", multiple=True, metavar="LEVEL,...", help="Built-ins to add.")
@click.option("--threshold", type=click.IntRange(1), help="A new table's threshold.")
@click.option("--token", help="Resume token a host gave this bot (tournament remote entrants).")
@click.option(
    "--matches",
    type=click.IntRange(1),
    show_default="1; with --token: until the host says bye",
    help="Matches to play.",
)
@click.option("--name", show_default="the class's name", help="The name to play under.")
@click.option("--seed", type=int, help="Passed to the bot's constructor if it takes one.")
def run(
    spec: str,
    stdio: bool,
    server: str | None,
    table: str | None,
    create: bool,
    seats: int | None,
    levels: tuple[str, ...],
    threshold: int | None,
    token: str | None,
    matches: int | None,
    name: str | None,
    seed: int | None,
) -> None:
    """Play the bot in FILE over stdin/stdout (--stdio) or at a server (--server).

    FILE's one Bot subclass plays, unless CLASS names one; builtin:LEVEL names
    a built-in bot.
    """
    from .loader import BadBotSpec, load_bot

    if stdio == bool(server):
        raise click.UsageError("say where to play: --stdio, or --server HOST:PORT")
    if server and sum([create, table is not None, token is not None]) != 1:
        raise click.UsageError("with --server, give one of --create, --table ID or --token")
    try:
        player = load_bot(spec, seed)
    except BadBotSpec as e:
        raise click.ClickException(str(e)) from None
    if stdio:
        from .stdio import run_stdio

        sys.exit(run_stdio(player, name))
    from .tcp import TableChoice, play_over_tcp

    assert server is not None
    host, port = _address(server)
    bots = _levels(levels)
    where = TableChoice(
        create=create,
        table=table,
        token=token,
        seats=seats or 1 + max(1, len(bots)),
        bots=bots,
        rules={} if threshold is None else {"threshold": threshold},
    )
    if create and len(bots) >= where.seats:
        raise click.UsageError(f"{len(bots)} bots do not leave a seat free at {where.seats} seats")
    if matches is None and token is None:
        matches = 1
    sys.exit(asyncio.run(play_over_tcp(player, host, port, where, name=name, matches=matches)))


@bot.command()
@click.argument("name")
@click.option(
    "--lang",
    type=click.Choice(LANGUAGES),
    default="python",
    show_default=True,
    help="The language of the project: Python, JavaScript or C.",
)
@click.option(
    "--dir",
    "parent",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    help="Where to make the project's directory.",
)
def new(name: str, lang: str, parent: Path) -> None:
    """Write a small working bot project NAME/, with a README and a test."""
    from .scaffold import first_steps, new_bot

    try:
        target = new_bot(name, lang, parent)  # type: ignore[arg-type]
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    click.echo(f"wrote {target}/")
    for line in first_steps(target, lang):  # type: ignore[arg-type]
        click.echo(f"  {line}")


@bot.command()
@click.argument("command")
@click.option(
    "--matches",
    default=CheckSettings.matches,
    show_default=True,
    type=click.IntRange(1),
    help="Matches to play.",
)
@click.option(
    "--seats",
    default=CheckSettings.seats,
    show_default=True,
    type=click.IntRange(2, 8),
    help="Players per match.",
)
@click.option(
    "--against",
    default=",".join(CheckSettings.opponents),
    show_default=True,
    metavar="LEVEL,...",
    help="Built-in opponents, in turn.",
)
@click.option(
    "--threshold",
    default=CheckSettings.threshold,
    show_default=True,
    type=click.IntRange(1),
    help="A player above this many points is out.",
)
@click.option(
    "--move-time",
    default=CheckSettings.move_time,
    show_default=True,
    type=click.FloatRange(min=0.05),
    help="Seconds.",
)
@click.option(
    "--budget",
    default=CheckSettings.budget,
    show_default=True,
    type=click.FloatRange(min=0.0),
    help="Moves slower than this many seconds are reported.",
)
@click.option(
    "--startup-time",
    default=CheckSettings.startup_time,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds the program has to start and say hello.",
)
@click.option(
    "--seed", default=CheckSettings.seed, show_default=True, type=int, help="Deal from this seed."
)
@click.option(
    "--trace",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write every frame, both ways, to this file as JSON lines.",
)
@_contained
def check(
    command: str,
    matches: int,
    seats: int,
    against: str,
    threshold: int,
    move_time: float,
    budget: float,
    startup_time: float,
    seed: int,
    trace: Path | None,
    sandbox: Mode,
    limits: Limits,
) -> None:
    """Check that the program COMMAND is a bot a tournament can run.

    It starts COMMAND (one quoted argument), checks its handshake and protocol
    version, plays matches against built-ins over stdin/stdout, and reports
    each problem in plain words. Exit status 0: compliant.
    """
    from .check import run_check

    settings = CheckSettings(
        matches=matches,
        seats=seats,
        opponents=tuple(_levels((against,))) or ("greedy",),
        threshold=threshold,
        move_time=move_time,
        budget=budget,
        startup_time=startup_time,
        seed=seed,
        sandbox=sandbox,
        limits=limits,
    )
    click.echo(f"Checking {command}")
    report = run_check(command, settings, progress=click.echo, trace=trace)
    click.echo(report.summary())
    if trace is not None:
        click.echo(f"Every frame is in {trace}")
    sys.exit(0 if report.compliant else 1)


@bot.command()
@click.argument("command")
@click.option(
    "--transcript",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="A transcript of your own (without it, the one shipped: see `leastscore frame vectors`).",
)
@click.option(
    "--timeout",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0.1),
    help="Seconds to wait for each answer.",
)
@_contained
def replay(
    command: str, transcript: Path | None, timeout: float, sandbox: Mode, limits: Limits
) -> None:
    """Play the recorded stdio transcript to the program COMMAND and check each answer.

    The same frames every time: a match with house rules, a restart, a state
    snapshot followed by the turn it must answer once. Exit status 0: every
    answer was a legal move for its turn, none was missing or extra.
    """
    from leastscore.seats.sandbox import Containment

    from .replay import run_replay

    contained = Containment.make(sandbox, limits, warn=lambda text: click.echo(text, err=True))
    click.echo(contained.describe())
    report = run_replay(command, transcript, timeout, contained)
    click.echo(report.text())
    for problem in report.problems:
        click.echo(problem, err=True)
    sys.exit(0 if report.passed else 1)
