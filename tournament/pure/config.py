"""A tournament's whole definition: entrants, format, rules, limits and seed.

It is what ``--config FILE`` (TOML) and the flags build, what ``--out DIR``
stores as ``tournament.json``, and what ``--resume DIR`` reads back: the same
definition always gives the same schedule.
"""

from __future__ import annotations

import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Literal

import msgspec
from leastscore.game import MAX_SEATS, MIN_SEATS, Rules
from leastscore.protocol.address import parse_address
from leastscore.seats.core import TimeControl
from leastscore.seats.limits import Limits, Mode

from .deals import derive
from .entrants import Entrant, make_entrant
from .hall import OpenHall
from .per_deal import SprtSettings
from .schedule import Schedule

SCHEMA = "leastscore.tournament/1"


class Stage(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """One stage of a contest played in stages: its format, then who goes on."""

    kind: Literal["round_robin", "gauntlet", "swiss"] = "round_robin"
    deals: int = 2
    """Deals per table (per round, in a Swiss stage)."""
    seats: int | None = None
    """Seats per table (None: the contest's)."""
    gauntlet: str | None = None
    """With ``gauntlet``: the entrant who plays every table."""
    rounds: int = 3
    """Swiss: rounds; each seats the entrants by their standing so far, best together."""
    keep: int | None = None
    """The cut: the best ``keep`` go on..."""
    below: float | None = None
    """...or everyone goes on but those whose 95 % win-rate interval lies wholly
    below this rate (never a cut on noise alone)."""

    def __post_init__(self) -> None:
        if self.deals < 1 or self.rounds < 1:
            raise ValueError("a stage needs at least 1 deal and 1 round")
        if self.keep is not None and self.below is not None:
            raise ValueError("a stage cuts by keep= or by below=, not both")
        if self.keep is not None and self.keep < 1:
            raise ValueError("keep must be at least 1")
        if self.below is not None and not 0 < self.below < 1:
            raise ValueError("below is a win rate between 0 and 1")
        if (self.kind == "gauntlet") != (self.gauntlet is not None):
            raise ValueError("a gauntlet stage names its entrant (gauntlet=NAME), and only it")

    @classmethod
    def parse(cls, text: str) -> Stage:
        """``swiss:rounds=2,deals=1,keep=12`` (the kind, then options); ``ValueError``."""
        kind, _, rest = text.strip().partition(":")
        fields: dict[str, Any] = {"kind": kind.strip().replace("-", "_")}
        for item in filter(None, (part.strip() for part in rest.split(","))):
            key, eq, value = (part.strip() for part in item.partition("="))
            if not eq:
                raise ValueError(f"stage {text!r}: write KEY=VALUE, not {item!r}")
            fields[key] = value if key == "gauntlet" else _number(value)
        try:
            return msgspec.convert(fields, cls)
        except msgspec.ValidationError as e:
            raise ValueError(f"stage {text!r}: {e}") from None


def _number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            raise ValueError(f"{text!r} is not a number") from None


class Dropped(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """An entrant left out of the tournament before its first match, and why."""

    bot: str
    spec: str
    why: str


class TournamentConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """Everything that defines a tournament, and nothing about how it is run.

    Why a frozen struct: it is what a resumed run must find unchanged (it is stored
    with the results, and a resume refuses flags that would redefine it), what the
    workers and the cluster are handed, and what the reports print; the number of
    workers, the cluster and the output folder are not in it, as they change no
    result.
    """

    entrants: tuple[Entrant, ...]
    seed: int
    seats: int = 4
    deals: int = 20
    rules: Rules = Rules()
    gauntlet: str | None = None
    move_time: float = 5.0
    """Seconds a bot has for each move (not applied with a ``time_control``)."""
    time_control: str | None = None
    """``BASE+INC`` in seconds: a chess clock per match instead of ``move_time``."""
    startup_time: float = 10.0
    """Seconds an external program has to start and say hello."""
    max_faults: int = 5
    """Faults (timeouts, illegal moves, crashes) a bot may make in one match; one
    more and it forfeits the match."""
    listen: str = "127.0.0.1:0"
    """Where remote entrants connect (``HOST:PORT``)."""
    sprt: str | None = None
    """``elo0=A,elo1=B[,alpha=P,beta=P]``: a gauntlet that stops as soon as the
    sequential probability ratio test decides (``deals`` is then the most it plays)."""
    groups: tuple[tuple[str, ...], ...] | None = None
    """The tables to play, named, instead of every combination (a Swiss round)."""
    stages: tuple[Stage, ...] = ()
    """A contest in stages: each plays the survivors of the one before (see stages.py)."""
    sandbox: Mode = "auto"
    """How ``cmd:`` programs are contained: ``bwrap``, ``limits`` only, ``none``, or
    ``auto`` (bubblewrap when it works here, else limits)."""
    limits: Limits = Limits()
    """What each ``cmd:`` program may use (see ``seats/sandbox.py``)."""
    unready: Literal["stop", "drop"] = "stop"
    """An entrant that fails its start check stops the tournament, or is dropped."""
    dropped: tuple[Dropped, ...] = ()
    """Entrants dropped before the first match (``unready = "drop"``), with why."""

    def __post_init__(self) -> None:
        if not self.entrants:
            raise ValueError("a tournament needs entrants (--bot NAME=SPEC)")
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be {MIN_SEATS} to {MAX_SEATS}, not {self.seats}")
        if self.move_time <= 0 or self.startup_time <= 0:
            raise ValueError("move_time and startup_time must be positive")
        if self.max_faults < 0:
            raise ValueError("max_faults must be 0 or more")
        if self.time_control is not None:
            TimeControl.parse(self.time_control)
        listen_address(self.listen)
        chosen = [t for t in self.remote_tokens().values() if t is not None]
        if len(set(chosen)) < len(chosen):
            raise ValueError("two remote entrants have the same token: give each its own")
        if self.stages:
            self._check_stages()  # each stage's schedule: the contest has none of its own
        else:
            self.schedule()  # every other check: names, seats against entrants, the gauntlet
        if self.sprt is not None:
            SprtSettings.parse(self.sprt)
            if self.gauntlet is None:
                raise ValueError("--sprt tests a gauntlet: name its candidate with --gauntlet")

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entrants)

    def entrant(self, name: str) -> Entrant:
        for e in self.entrants:
            if e.name == name:
                return e
        raise KeyError(name)

    def _check_stages(self) -> None:
        """Refuse (``ValueError``) stages that cannot be played with the contest's entrants."""
        count = len(self.entrants)
        for number, stage in enumerate(self.stages, 1):
            seats = stage.seats or self.seats
            where = f"stage {number} ({stage.kind})"
            if count < seats:
                raise ValueError(
                    f"{where}: {seats} seats need at least {seats} entrants, not {count}"
                )
            if stage.kind == "swiss" and count % seats:
                raise ValueError(
                    f"{where}: a Swiss stage seats everyone at full tables: {count} entrants "
                    f"is not a multiple of {seats} (cut with keep= to a multiple before it)"
                )
            if stage.kind == "gauntlet" and stage.gauntlet not in self.names:
                raise ValueError(f"{where}: {stage.gauntlet!r} is not an entrant")
            if stage.kind != "swiss":
                groups = self.stage_config(number - 1, list(self.names)[:count])
                groups.schedule()  # the size limit, seats against entrants
            if stage.keep is not None:
                if stage.keep >= count:
                    raise ValueError(f"{where}: keep={stage.keep} cuts nobody from {count}")
                count = stage.keep
            elif stage.below is not None and number < len(self.stages):
                following = self.stages[number]
                if following.kind == "swiss":
                    raise ValueError(
                        f"stage {number + 1} (swiss) needs a known number of entrants: "
                        f"cut stage {number} with keep= rather than below="
                    )

    def stage_config(
        self,
        index: int,
        entrants: list[str],
        groups: tuple[tuple[str, ...], ...] | None = None,
        round_number: int = 0,
    ) -> TournamentConfig:
        """The ordinary tournament that stage ``index`` (or one round of it) plays."""
        stage = self.stages[index]
        chosen = tuple(e for e in self.entrants if e.name in entrants)
        return msgspec.structs.replace(
            self,
            entrants=chosen,
            seats=stage.seats or self.seats,
            deals=stage.deals,
            gauntlet=stage.gauntlet,
            seed=derive(self.seed, "stage", index, round_number),
            groups=groups,
            stages=(),
            sprt=None,
        )

    def schedule(self) -> Schedule:
        return Schedule(self.names, self.seats, self.deals, self.seed, self.gauntlet, self.groups)

    @property
    def clock(self) -> TimeControl | None:
        """Each match's time control, if the tournament has one."""
        return None if self.time_control is None else TimeControl.parse(self.time_control)

    @property
    def remote(self) -> frozenset[str]:
        return frozenset(e.name for e in self.entrants if e.kind == "remote")

    def remote_tokens(self) -> dict[str, str | None]:
        """Each remote entrant's chosen token (None: the runner makes one)."""
        return {e.name: e.token for e in self.entrants if e.kind == "remote"}

    def describe(self) -> dict[str, Any]:
        """The format as reports show it."""
        return {
            "kind": "gauntlet" if self.gauntlet else "round_robin",
            "gauntlet": self.gauntlet,
            "seats": self.seats,
            "deals": self.deals,
            "rotations": self.seats,
            "threshold": self.rules.threshold,
            "house_rules": {k: v for k, v in self.rules.changes().items() if k != "threshold"},
            "move_time": None if self.time_control is not None else self.move_time,
            "startup_time": self.startup_time,
            "max_faults": self.max_faults,
            "time_control": self.time_control,
            "sandbox": self.sandbox,
            "limits": msgspec.to_builtins(self.limits),
        }


def listen_address(text: str) -> tuple[str, int]:
    """Where the runner's server listens for remote entrants: ``HOST:PORT`` (0: any port)."""
    return parse_address(text, listening=True)


# -- from a TOML file and flags ------------------------------------------------------

SETTINGS = {
    "seed",
    "seats",
    "deals",
    "threshold",
    "gauntlet",
    "move_time",
    "time_control",
    "startup_time",
    "max_faults",
    "listen",
    "sprt",
    "stage",
    "sandbox",
    "limits",
    "unready",
    "workers",
    "affinity",
    "cluster",
    "format",
    "out",
}
"""Top-level keys of a config file besides ``[bots]`` and ``[rules]``."""
RUN_SETTINGS = {"workers", "affinity", "cluster", "format", "out"}
"""Of those, how to run a tournament rather than what it is."""


class Running(msgspec.Struct, frozen=True):
    """How a tournament is run, as against what it is (``TournamentConfig``): where its
    fixtures are played and what the command shows. Carried whole from the command to
    the runner, so that a new way to run is one field here, not a keyword through
    every layer; none of it changes the results (a resume may run it another way)."""

    workers: int = 1
    """Worker processes on this machine."""
    affinity: bool = True
    """Each worker (and its programs) on a core of its own, where the system allows."""
    cluster: str | None = None
    """A Dask cluster to play on instead (``tcp://HOST:PORT`` or ``local:N``)."""
    output: str = "table"
    """What the command prints at the end: table, json or csv."""
    quiet: bool = False
    """No progress display, no warnings on the way."""
    open_hall: OpenHall | None = None
    """How to open the hall remote entrants connect to (a server's): without it, a
    tournament with remote entrants cannot run."""


FLAGS = (SETTINGS - RUN_SETTINGS - {"limits"}) | {"limit"}
"""The tournament command's flags that are settings of the tournament, by the same names
(``--limit NAME=VALUE`` items beside a file's ``[limits]`` table)."""
DEFINING = (FLAGS - {"listen"}) | {"bots", "config_file", "rule"}
"""The command's options that define a tournament, so cannot change when one is
resumed: its settings, entrants and rules (where remote entrants connect may)."""
AS_GIVEN = SETTINGS - RUN_SETTINGS - {"seed", "seats", "threshold", "stage", "time_control",
                                      "limits"}  # fmt: skip
"""The settings a config takes as they are given (the others are read or checked)."""


def read_toml(path: str | Path) -> tuple[dict[str, Any], list[Entrant], dict[str, Any]]:
    """A config file as (settings, entrants, house rules); paths in it are relative to it."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e.strerror or e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"{path} is not valid TOML: {e}") from None
    base = str(path.resolve().parent)
    bots = data.pop("bots", {})
    rules = data.pop("rules", {})
    if not isinstance(bots, dict) or not isinstance(rules, dict):
        raise ValueError(f"{path}: [bots] and [rules] must be tables")
    unknown = set(data) - SETTINGS
    if unknown:
        raise ValueError(
            f"{path}: unknown setting {', '.join(sorted(unknown))}; "
            f"known: bots, rules, {', '.join(sorted(SETTINGS))}"
        )
    entrants = [_entrant(path, name, spec, base) for name, spec in bots.items()]
    if "out" in data:
        data["out"] = str(Path(base, data["out"]))
    return data, entrants, rules


_ENTRANT_KEYS = {"cmd", "spec", "dir", "limits"}


def _entrant(path: Path, name: str, spec: Any, base: str) -> Entrant:
    """``NAME = "SPEC"``, or a ``[bots.NAME]`` table: ``cmd`` (or ``spec``), ``dir``, ``limits``."""
    try:
        if isinstance(spec, str):
            return make_entrant(name, spec, base)
        if not isinstance(spec, dict) or len({"cmd", "spec"} & set(spec)) != 1:
            raise ValueError(
                'write NAME = "SPEC", or a [bots.NAME] table with cmd = "COMMAND" (or spec), '
                "and dir, limits if it needs them"
            )
        unknown = set(spec) - _ENTRANT_KEYS
        if unknown:
            known = ", ".join(sorted(_ENTRANT_KEYS))
            raise ValueError(f"unknown key {', '.join(sorted(unknown))}; known: {known}")
        limits = spec.get("limits", {})
        folder = spec.get("dir")
        if not isinstance(limits, dict) or not (folder is None or isinstance(folder, str)):
            raise ValueError("dir is a string (a folder) and limits a table (memory_mb = 512)")
        text = f"cmd:{spec['cmd']}" if "cmd" in spec else str(spec["spec"])
        items = [f"{k}={v}" for k, v in limits.items()]
        return make_entrant(name, text, base, folder=folder, limits=items)
    except ValueError as e:
        raise ValueError(f"{path}: bots.{name}: {str(e).removeprefix(f'{name}: ')}") from None


def read_tomls(
    paths: Sequence[str | Path],
) -> tuple[dict[str, Any], list[Entrant], dict[str, Any]]:
    """Several config files as one: settings and house rules from later files override
    earlier ones (``[limits]`` key by key); entrants are gathered, and a name given in
    two files is refused rather than one of them dropped."""
    settings: dict[str, Any] = {}
    entrants: list[Entrant] = []
    rules: dict[str, Any] = {}
    where: dict[str, Path] = {}
    for path in map(Path, paths):
        more, found, house = read_toml(path)
        limits, before = more.pop("limits", None), settings.get("limits")
        settings.update(more)
        if isinstance(limits, dict) and isinstance(before, dict):
            settings["limits"] = {**before, **limits}
        elif limits is not None:
            settings["limits"] = limits
        rules.update(house)
        for entrant in found:
            if entrant.name in where:
                raise ValueError(
                    f"the entrant {entrant.name} is in both {where[entrant.name]} and {path}"
                )
            where[entrant.name] = path
            entrants.append(entrant)
    return settings, entrants, rules


def build(
    settings: dict[str, Any], entrants: list[Entrant], rules: dict[str, Any]
) -> TournamentConfig:
    """A config from merged settings (file, then flags); raises ``ValueError`` on any mistake."""
    options = dict(rules)
    if settings.get("threshold") is not None:
        options["threshold"] = settings["threshold"]
    seats = settings.get("seats")
    if seats is None:
        seats = min(4, max(len(entrants), MIN_SEATS))
    fields: dict[str, Any] = {
        "entrants": entrants,
        "seed": settings["seed"],
        "seats": seats,
        "rules": Rules.from_dict(options),
    }
    stages = settings.get("stage") or ()  # --stage TEXT, or [[stage]] tables in the file
    if stages:
        fields["stages"] = [Stage.parse(s) if isinstance(s, str) else s for s in stages]
    for key in sorted(AS_GIVEN):
        if settings.get(key) is not None:
            fields[key] = settings[key]
    if settings.get("time_control") is not None:
        fields["time_control"] = time_control(settings["time_control"], settings)
    table = settings.get("limits") or {}  # a [limits] table, then --limit NAME=VALUE items
    if not isinstance(table, dict):
        raise ValueError("limits must be a table: [limits] memory_mb = 512, ...")
    items = [f"{k}={v}" for k, v in table.items()] + list(settings.get("limit") or ())
    if items:
        try:
            fields["limits"] = Limits().with_text(items)
        except ValueError as e:
            raise ValueError(f"limits: {e}") from None
    try:
        return msgspec.convert(fields, TournamentConfig)
    except msgspec.ValidationError as e:
        raise ValueError(str(e)) from None


def without(
    config: TournamentConfig,
    dropped: dict[str, str],
    settings: dict[str, Any],
    rules: dict[str, Any],
) -> TournamentConfig:
    """``config`` built again without the entrants in ``dropped`` (name -> why), and
    with them noted; ``ValueError`` when what is left cannot be played."""
    if config.gauntlet in dropped:
        raise ValueError(f"the gauntlet's candidate {config.gauntlet} cannot play")
    left = [e for e in config.entrants if e.name not in dropped]
    noted = tuple(Dropped(e.name, e.public_spec, dropped[e.name]) for e in config.entrants
                  if e.name in dropped)  # fmt: skip
    try:
        rebuilt = build(settings, left, rules)
    except ValueError as e:
        raise ValueError(f"without {', '.join(dropped)}: {e}") from None
    return msgspec.structs.replace(rebuilt, dropped=config.dropped + noted)


def time_control(text: Any, settings: dict[str, Any]) -> str:
    """The ``time_control`` setting, checked and written the one way (``60+0.5``)."""
    if not isinstance(text, str):
        raise ValueError(f'time_control must be a string like "60+0.5", not {text!r}')
    if settings.get("move_time") is not None:
        raise ValueError(
            "time_control replaces move_time: give one of them (--time-control or --move-time)"
        )
    try:
        return str(TimeControl.parse(text))
    except ValueError as e:
        raise ValueError(f"time_control {e}") from None


_encoder = msgspec.json.Encoder()


def dump(config: TournamentConfig) -> bytes:
    body = msgspec.to_builtins(config)
    return msgspec.json.format(_encoder.encode({"schema": SCHEMA, "config": body}), indent=2)


class _Stored(msgspec.Struct):
    schema: str
    config: TournamentConfig


def load(data: bytes) -> TournamentConfig:
    try:
        stored = msgspec.json.decode(data, type=_Stored)
    except msgspec.ValidationError as e:
        raise ValueError(f"not a tournament definition: {e}") from None
    if stored.schema != SCHEMA:
        raise ValueError(f"a tournament definition of schema {stored.schema!r}, not {SCHEMA!r}")
    return stored.config
