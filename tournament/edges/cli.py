"""``leastscore tournament``: play a tournament between bots and print the standings."""

from __future__ import annotations

import asyncio
import os
import secrets
import sys
import tomllib
from typing import TYPE_CHECKING, Any

import click
import msgspec
from click.core import ParameterSource
from leastscore.seats.limits import MODES

from ..pure.config import DEFINING, FLAGS, Running, TournamentConfig
from ..pure.hall import OPEN_HALL
from ..running.ready import NotReady

if TYPE_CHECKING:
    from ..running.store import Store

SHOWN = {f.name: f.default for f in msgspec.structs.fields(TournamentConfig)}
"""The defaults the help shows: those a tournament gets when a flag is not given."""


def _rule(text: str) -> tuple[str, Any]:
    name, eq, value = text.partition("=")
    if not eq or not name.strip():
        raise click.BadParameter(f"{text!r}: write NAME=VALUE, for example tie_loses=true")
    try:
        parsed = tomllib.loads(f"v = {value.strip()}")["v"]
    except tomllib.TOMLDecodeError:
        parsed = value.strip()
    return name.strip(), parsed


def _time_control(ctx: click.Context, param: click.Parameter, text: str | None) -> str | None:
    """``--time-control BASE+INC``, checked: a bad one is one line that names the flag."""
    if text is None:
        return None
    from leastscore.seats.core import TimeControl

    try:
        return str(TimeControl.parse(text))
    except ValueError as e:
        raise click.ClickException(f"--time-control {e}") from None


@click.command()
@click.option(
    "--bot",
    "bots",
    multiple=True,
    metavar="NAME=SPEC",
    help='An entrant: builtin:LEVEL, python:PATH[:CLASS], cmd:"COMMAND" or remote. Repeat.',
)
@click.option(
    "--config",
    "config_file",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="A TOML file with the tournament; repeat to add files (later ones override "
    "settings, entrants are gathered); flags override them.",
)
@click.option(
    "--seats",
    type=click.IntRange(2, 8),
    show_default=str(SHOWN["seats"]),
    help="Players per match.",
)
@click.option(
    "--threshold",
    type=click.IntRange(1),
    show_default=str(SHOWN["rules"].threshold),
    help="Elimination threshold.",
)
@click.option(
    "--rule", multiple=True, metavar="NAME=VALUE", help="A house rule, e.g. tie_loses=true."
)
@click.option(
    "--deals", type=click.IntRange(1), show_default=str(SHOWN["deals"]), help="Deals per group."
)
@click.option("--seed", type=click.IntRange(0), show_default="random", help="Tournament seed.")
@click.option("--gauntlet", metavar="NAME", help="Play NAME against all the others only.")
@click.option("--workers", type=click.IntRange(1), show_default="cores", help="Worker processes.")
@click.option(
    "--affinity/--no-affinity",
    default=None,
    show_default="on, Linux",
    help="Give each worker (and its programs) a core of its own.",
)
@click.option(
    "--cluster",
    metavar="tcp://HOST:PORT|local:N",
    help="Play on a Dask cluster (pip install leastscore[cluster]): a running scheduler, "
    "or N local worker processes. See TOURNAMENTS.md.",
)
@click.option(
    "--move-time",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    show_default=f"{SHOWN['move_time']:g}",
    help="Time for each move.",
)
@click.option(
    "--time-control",
    metavar="BASE+INC",
    callback=_time_control,
    help="A chess clock per match instead of --move-time: BASE seconds for each bot, "
    "INC more after each of its moves; out of time loses the match. See TOURNAMENTS.md.",
)
@click.option(
    "--startup-time",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    show_default=f"{SHOWN['startup_time']:g}",
    help="Time for a program to start, or a remote bot to connect.",
)
@click.option(
    "--max-faults",
    type=click.IntRange(0),
    show_default=str(SHOWN["max_faults"]),
    help="Faults a bot may make in a match.",
)
@click.option("--listen", metavar="HOST:PORT", help="Where remote bots connect.")
@click.option(
    "--sandbox",
    type=click.Choice(MODES),
    show_default=str(SHOWN["sandbox"]),
    help="How cmd: programs are contained: bubblewrap, resource limits only, or nothing; "
    "auto: bubblewrap when it works here. See TOURNAMENTS.md.",
)
@click.option(
    "--unready",
    type=click.Choice(["stop", "drop"]),
    show_default=str(SHOWN["unready"]),
    help="An entrant that fails its start check: stop the tournament, or drop it "
    "(named with its reason in every report) and play without it.",
)
@click.option(
    "--limit",
    multiple=True,
    metavar="NAME=VALUE",
    help="A limit for each cmd: program (repeat): memory_mb, cpu_seconds, processes, "
    "open_files, file_size_mb, stderr_kb. See TOURNAMENTS.md.",
)
@click.option(
    "--stage",
    multiple=True,
    metavar="KIND:OPTIONS",
    help="A stage of a contest (repeat, in order), e.g. swiss:rounds=2,deals=1,keep=12; "
    "kinds: round_robin, gauntlet, swiss; cuts: keep=N or below=RATE. See TOURNAMENTS.md.",
)
@click.option(
    "--sprt",
    metavar="elo0=A,elo1=B[,alpha=P,beta=P]",
    help="With --gauntlet: stop as soon as the SPRT accepts H0 or H1 (--deals is the most).",
)
@click.option(
    "--out", type=click.Path(file_okay=False), help="Store results, match logs and reports here."
)
@click.option(
    "--resume",
    type=click.Path(exists=True, file_okay=False),
    metavar="DIR",
    help="Continue the tournament stored in DIR.",
)
@click.option(
    "--format",
    "output",
    type=click.Choice(["table", "json", "csv"]),
    show_default="table",
    help="What to print at the end.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress display.")
@click.option(
    "--web",
    metavar="[HOST:]PORT",
    help="Show the standings live in browsers on this port (read-only; the host is --listen's,"
    " else 127.0.0.1), and the final report after the end until Ctrl-C. Needs"
    " leastscore[web] (aiohttp).",
)
@click.option("--schema", is_flag=True, help="Print the JSON Schema of the JSON standings.")
@click.pass_context
def tournament(
    ctx: click.Context,
    bots: tuple[str, ...],
    config_file: tuple[str, ...],
    seats: int | None,
    threshold: int | None,
    rule: tuple[str, ...],
    deals: int | None,
    seed: int | None,
    gauntlet: str | None,
    workers: int | None,
    affinity: bool | None,
    cluster: str | None,
    move_time: float | None,
    time_control: str | None,
    startup_time: float | None,
    max_faults: int | None,
    listen: str | None,
    sandbox: str | None,
    limit: tuple[str, ...],
    unready: str | None,
    sprt: str | None,
    stage: tuple[str, ...],
    out: str | None,
    resume: str | None,
    output: str | None,
    quiet: bool,
    web: str | None,
    schema: bool,
) -> None:
    """Play a round-robin (or gauntlet) tournament between bots and report the standings.

    Every group of SEATS entrants plays every deal in every seat rotation, with
    the same cards at every table of a deal. See TOURNAMENTS.md.
    """
    if schema:
        return print_schema()

    file_settings: dict[str, Any] = {}
    store: Store | None
    if resume is not None:
        store, config = _resumed(ctx, resume, out)
        if listen is not None:
            config = msgspec.structs.replace(config, listen=listen)
    else:
        flags = {name: ctx.params[name] for name in sorted(FLAGS)}
        flags.update(stage=list(stage) or None, limit=list(limit) or None)
        store, config, file_settings = _fresh(config_file, bots, rule, flags, out)
    running = _how_to_run(file_settings, workers, affinity, cluster, output, quiet)
    web_at = None if web is None else _web_address(web, config)
    try:
        code = run_tournament(config, store, running, web=web_at)
    except NotReady as e:
        # Nothing was played: a fresh folder goes, so that the same command runs once fixed.
        if store is not None and resume is None:
            store.undo()
        raise click.ClickException(f"the tournament stopped before {e.when}: {e}") from None
    ctx.exit(code)


def print_schema() -> None:
    """``--schema``: the JSON Schema of the JSON standings."""
    from ..pure.report import json_schema

    click.echo(msgspec.json.format(msgspec.json.encode(json_schema()), indent=2))


def _fresh(
    config_file: tuple[str, ...],
    bots: tuple[str, ...],
    rule: tuple[str, ...],
    flags: dict[str, Any],
    out: str | None,
) -> tuple[Store | None, TournamentConfig, dict[str, Any]]:
    """A new tournament from its files and flags: its folder (when it has one, made
    here), its config, and the file's settings of how to run it."""
    from ..running.store import Store

    try:
        config, file_settings = _defined(config_file, bots, rule, flags, out)
    except ValueError as e:
        raise click.ClickException(str(e)) from None
    out = out or file_settings.get("out")
    if out is None:
        return None, config, file_settings
    try:
        return Store.create(out, config), config, file_settings
    except ValueError as e:
        raise click.ClickException(str(e)) from None


def _how_to_run(
    file_settings: dict[str, Any],
    workers: int | None,
    affinity: bool | None,
    cluster: str | None,
    output: str | None,
    quiet: bool,
) -> Running:
    """How to run it (workers, affinity, cluster, output): the flags, else the file's."""
    workers = workers or file_settings.get("workers") or os.cpu_count() or 1
    if affinity is None:
        affinity = file_settings.get("affinity", True)
        if not isinstance(affinity, bool):
            raise click.ClickException("affinity must be true or false")
    cluster = cluster or file_settings.get("cluster")
    if cluster is not None:
        cluster = _cluster(cluster)
    output = output or file_settings.get("format") or "table"
    if output not in ("table", "json", "csv"):
        raise click.ClickException(f"format must be table, json or csv, not {output!r}")
    open_hall = click.get_current_context().meta.get(OPEN_HALL)  # the command's: the server's
    return Running(workers, affinity, cluster, output, quiet, open_hall)


def _web_address(web: str, config: TournamentConfig) -> tuple[str, int]:
    """Where ``--web`` serves the live page (the host of ``listen`` when it names none)."""
    from leastscore.kit.address import parse_web

    try:
        web_at = parse_web(web, config.listen.rpartition(":")[0])
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--web") from None
    try:
        import aiohttp  # noqa: F401
    except ImportError:
        raise click.ClickException(
            "the web view needs aiohttp: pip install leastscore[web]"
        ) from None
    return web_at


def _resumed(ctx: click.Context, resume: str, out: str | None) -> tuple[Store, TournamentConfig]:
    """``--resume DIR``: the stored tournament, refusing flags that would redefine it."""
    from ..running.store import Store

    given = [
        param.opts[0]
        for param in ctx.command.params
        if param.name in DEFINING
        and ctx.get_parameter_source(param.name) is ParameterSource.COMMANDLINE
    ]
    if given or out is not None:
        wrong = ", ".join([*given, *(["--out"] if out is not None else [])])
        raise click.UsageError(f"--resume continues a stored tournament: drop {wrong}")
    try:
        return Store.resume(resume)
    except ValueError as e:
        raise click.ClickException(str(e)) from None


def _defined(
    config_files: tuple[str, ...],
    bots: tuple[str, ...],
    rule: tuple[str, ...],
    flags: dict[str, Any],
    out: str | None,
) -> tuple[TournamentConfig, dict[str, Any]]:
    """A new tournament from its config files and flags (flags win), its entrants
    checked (and with ``--unready drop`` greeted); with the files' other settings."""
    from ..pure import config as configs
    from ..pure.entrants import Entrant, load_bot_class, parse_entrant

    entrants: list[Entrant] = []
    rules: dict[str, Any] = {}
    file_settings: dict[str, Any] = {}
    if config_files:
        file_settings, entrants, rules = configs.read_tomls(config_files)
    flagged = [parse_entrant(text) for text in bots]
    names = [e.name for e in flagged]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"entrant names must be unique: {', '.join(twice)} given twice")
    # An entrant given as a flag replaces the config file's of the same name.
    entrants = [e for e in entrants if e.name not in names] + flagged
    rules.update(_rule(text) for text in rule)
    settings = {**file_settings, **{k: v for k, v in flags.items() if v is not None}}
    if settings.get("seed") is None:
        settings["seed"] = secrets.randbelow(2**31)
    config = configs.build(settings, entrants, rules)
    for entrant in config.entrants:
        if entrant.kind == "python":
            load_bot_class(entrant)
    if config.unready == "drop":
        config = _drop_unready(config, settings, rules, out or file_settings.get("out"))
    return config, file_settings


def _drop_unready(
    config: TournamentConfig, settings: dict[str, Any], rules: dict[str, Any], out: str | None
) -> TournamentConfig:
    """``--unready drop``: greet every entrant now, before the schedule is fixed, and
    build the tournament again without those that cannot play, saying so."""
    from ..pure import config as configs
    from ..running.lineup import contain
    from ..running.ready import problems

    found = asyncio.run(problems(config, contain(config, [out])))
    for name, why in found.items():
        click.echo(f"dropped {name}: {why}", err=True)
    return configs.without(config, found, settings, rules) if found else config


def run_tournament(
    config: TournamentConfig,
    store: Store | None,
    running: Running,
    web: tuple[str, int] | None = None,
) -> int:
    """Play what is left, show progress, write the reports; the exit code."""
    from rich.console import Console

    from ..running.ready import NotReady
    from .live import play_live, write_reports

    err = Console(stderr=True)
    if config.stages and web is not None:
        raise click.UsageError("--web follows a tournament without stages")
    what = "contest" if config.stages else "tournament"
    try:
        if config.stages:
            from .stages import run_contest

            return run_contest(config, store, running, err)
        played = play_live(config, store, running, err, web=web)
    except NotReady:
        raise
    except (OSError, RuntimeError, ValueError) as e:
        raise click.ClickException(f"the {what} stopped: {e}") from None
    if store is not None:
        write_reports(config, store, played)
    print_standings(config, played, running.output)
    code = finish_message(err, played, store, len(config.schedule()))
    keep_serving(config, played, err)
    return code


def print_standings(config: TournamentConfig, played: Any, output: str) -> None:
    """The standings on standard output: JSON, CSV, or the table (with the SPRT's
    verdict and, past two entrants, the crosstable)."""
    from ..pure import report

    tally, sprt = played.tally, played.sprt
    if output == "json":
        sys.stdout.buffer.write(report.to_json(config, tally, sprt))
        sys.stdout.flush()
        return
    if output == "csv":
        sys.stdout.write(report.to_csv(tally))
        return
    console = report.output_console()
    console.print(report.rich_table(config, tally, console.width))
    if sprt is not None:
        console.print(report.sprt_line(sprt))
    if len(config.entrants) > 2:
        console.print(report.crosstable(tally))


def keep_serving(config: TournamentConfig, played: Any, err: Any) -> None:
    """With ``--web``, a run played to its end keeps its final report served until Ctrl-C."""
    if played.web_address is None or played.interrupted:
        return
    from ..pure import report
    from .web import serve_final

    tally, sprt = played.tally, played.sprt
    host, port = played.web_address
    page, standings = report.to_html(config, tally, sprt), report.to_json(config, tally, sprt)
    serve_final(host, port, page, standings, say=lambda line: err.print(line, highlight=False))


def _cluster(text: Any) -> str:
    """The ``--cluster`` address, checked, and Dask installed to reach it."""
    import importlib.util

    from ..running.cluster import parse_cluster

    try:
        address = parse_cluster(str(text))
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="--cluster") from None
    if importlib.util.find_spec("distributed") is None:
        raise click.ClickException(
            "--cluster needs Dask's distributed: pip install 'leastscore[cluster]'"
        )
    return address


def finish_message(err: Any, played: Any, store: Store | None, scheduled: int) -> int:
    """The last lines on standard error, and the exit code."""
    rate = ""
    if played.played and played.elapsed > 0:
        rate = f", {played.played / played.elapsed:.1f} matches/s"
    err.print(f"{played.played} matches in {played.elapsed:.1f} s{rate}", highlight=False)
    if played.interrupted:
        where = f"; continue with: leastscore tournament --resume {store.path}" if store else ""
        err.print(f"stopped after {played.tally.counted} of {scheduled} matches{where}")
        return 130
    if store is not None:
        err.print(f"results, logs and report.html in {store.path}")
    return 0
