"""A tournament's whole definition: entrants, format, rules, limits and seed.

It is what ``--config FILE`` (TOML) and the flags build, what ``--out DIR``
stores as ``tournament.json``, and what ``--resume DIR`` reads back: the same
definition always gives the same schedule.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import msgspec
from leastscore.game import MAX_SEATS, MIN_SEATS, Rules
from leastscore.protocol.address import parse_address

from .entrants import Entrant, make_entrant
from .per_deal import SprtSettings
from .schedule import Schedule

SCHEMA = "leastscore.tournament/1"


class TournamentConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    entrants: tuple[Entrant, ...]
    seed: int
    seats: int = 4
    deals: int = 20
    rules: Rules = Rules()
    gauntlet: str | None = None
    move_time: float = 5.0
    """Seconds a bot has for each move."""
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

    def __post_init__(self) -> None:
        if not self.entrants:
            raise ValueError("a tournament needs entrants (--bot NAME=SPEC)")
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be {MIN_SEATS} to {MAX_SEATS}, not {self.seats}")
        if self.move_time <= 0 or self.startup_time <= 0:
            raise ValueError("move_time and startup_time must be positive")
        if self.max_faults < 0:
            raise ValueError("max_faults must be 0 or more")
        listen_address(self.listen)
        chosen = [t for t in self.remote_tokens().values() if t is not None]
        if len(set(chosen)) < len(chosen):
            raise ValueError("two remote entrants have the same token: give each its own")
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

    def schedule(self) -> Schedule:
        return Schedule(self.names, self.seats, self.deals, self.seed, self.gauntlet)

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
            "move_time": self.move_time,
            "startup_time": self.startup_time,
            "max_faults": self.max_faults,
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
    "startup_time",
    "max_faults",
    "listen",
    "sprt",
    "workers",
    "affinity",
    "format",
    "out",
}
"""Top-level keys of a config file besides ``[bots]`` and ``[rules]``."""


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
    entrants = []
    for name, spec in bots.items():
        if not isinstance(spec, str):
            raise ValueError(f'{path}: bots.{name} must be a string like "builtin:greedy"')
        entrants.append(make_entrant(name, spec, base))
    if "out" in data:
        data["out"] = str(Path(base, data["out"]))
    return data, entrants, rules


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
    for key in ("deals", "gauntlet", "move_time", "startup_time", "max_faults", "listen", "sprt"):
        if settings.get(key) is not None:
            fields[key] = settings[key]
    try:
        return msgspec.convert(fields, TournamentConfig)
    except msgspec.ValidationError as e:
        raise ValueError(str(e)) from None


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
