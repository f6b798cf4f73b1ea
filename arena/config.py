"""An arena's settings: ``arena.toml`` in its folder, written once by the organiser.

    seats = 4                 # players at each table
    threshold = 100           # the match ends when someone reaches it
    move_time = 2.0           # seconds a move may take
    tables_at_once = 2        # tables played at the same time
    deal_rotations = true     # each table plays one deal from every seat (duplicate)
    new_version = "fresh"     # or "inherit": a new version's results start empty or
                              # go on from its predecessor's
    sandbox = "auto"          # bwrap, limits or none, as for tournaments
    build_time = 300          # seconds a build may take
    builds_at_once = 2        # submissions built and checked side by side
    max_faults = 0            # faults in a match before it is forfeited (placed last)
    max_upload_mb = 20
    [rules]                   # house rules, as Rules takes them
    [limits]                  # per program, as for tournaments

Every setting has a default, so an empty file (or none) makes a working arena.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

import msgspec
from leastscore.game import Rules
from leastscore.game.rules import MAX_SEATS, MIN_SEATS
from leastscore.seats.limits import Limits, Mode


class ArenaConfig(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """How the arena plays, set by the organiser; the same for every match it runs, so
    that ratings compare like with like."""

    seats: int = 4
    threshold: int = 100
    move_time: float = 2.0
    tables_at_once: int = 2
    deal_rotations: bool = True
    new_version: Literal["fresh", "inherit"] = "fresh"
    sandbox: Mode = "auto"
    build_time: float = 300.0
    builds_at_once: int = 2
    max_faults: int = 0
    """Faults (timeouts, illegal moves, crashes) a program may make in a match; one
    more forfeits it (placed last): a program that crashes must not rate above one
    that plays clean on the automatic moves it is given."""
    check_matches: int = 2
    max_upload_mb: int = 20
    max_files: int = 2000
    rules: dict[str, Any] = msgspec.field(default_factory=dict)
    limits: Limits = Limits()

    def __post_init__(self) -> None:
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            raise ValueError(f"seats must be {MIN_SEATS} to {MAX_SEATS}, not {self.seats}")
        if min(self.tables_at_once, self.builds_at_once) < 1:
            raise ValueError("tables_at_once and builds_at_once must be at least 1")
        if self.max_faults < 0:
            raise ValueError("max_faults must be 0 or more")
        if self.move_time <= 0 or self.build_time <= 0:
            raise ValueError("move_time and build_time must be positive")
        self.game_rules()  # a bad house rule is refused when the file is read

    def game_rules(self) -> Rules:
        return Rules.from_dict({**self.rules, "threshold": self.threshold})


class NoCluster(RuntimeError):
    """The cluster ``--cluster`` names cannot play the arena's tables (no scheduler, no
    worker, or workers with another leastscore); the message says which."""


def load(folder: Path) -> ArenaConfig:
    """The arena's settings from ``folder/arena.toml`` (the defaults when it is absent);
    ``ValueError`` saying what is wrong."""
    path = folder / "arena.toml"
    if not path.exists():
        return ArenaConfig()
    try:
        return msgspec.convert(tomllib.loads(path.read_text(encoding="utf-8")), ArenaConfig)
    except (tomllib.TOMLDecodeError, msgspec.ValidationError) as e:
        raise ValueError(f"{path}: {e}") from None
