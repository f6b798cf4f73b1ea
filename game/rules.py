"""The table rules and house rules a match is played under, validated once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import msgspec

MIN_SEATS = 2
MAX_SEATS = 8
HAND_SIZE = 5


class Rules(msgspec.Struct, frozen=True, gc=False, forbid_unknown_fields=True, kw_only=True):
    """Every option of rules.md; the defaults are the standard game.

    A bad value raises ``ValueError`` naming the option and what it accepts.
    """

    threshold: int = 100
    """A player whose match score goes strictly above this is eliminated."""
    runs_same_suit: bool = False
    """Runs must be of one suit."""
    tie_loses: bool = False
    """A declarer who only ties for lowest counts as a false declaration."""
    false_declare_penalty: int = 20
    declare_limit: int | None = None
    """Declaring is allowed only at or below this hand total (None: no limit)."""
    first_out_ends: bool = False
    """The match ends as soon as anyone is eliminated."""
    max_turns: int = 500
    """A round that reaches this many turns without a declaration is void."""
    max_rounds: int = 1000
    """A match that reaches this many rounds ends, ranked by match score."""

    def __post_init__(self) -> None:
        for name in ("runs_same_suit", "tie_loses", "first_out_ends"):
            if type(getattr(self, name)) is not bool:
                raise ValueError(f"{name} must be true or false, not {getattr(self, name)!r}")
        _check_int("threshold", self.threshold, 1)
        _check_int("false_declare_penalty", self.false_declare_penalty, 0)
        _check_int("max_turns", self.max_turns, 1)
        _check_int("max_rounds", self.max_rounds, 1)
        if self.declare_limit is not None:
            _check_int("declare_limit", self.declare_limit, 0)

    @classmethod
    def from_dict(cls, options: dict[str, Any]) -> Rules:
        """Rules from plain data (a config file, a wire message); unknown names are refused."""
        try:
            return msgspec.convert(options, cls)
        except msgspec.ValidationError as e:
            raise ValueError(f"bad rules: {e}") from None

    def to_dict(self) -> dict[str, Any]:
        return msgspec.structs.asdict(self)

    def changes(self) -> dict[str, Any]:
        """Only the options that differ from the standard game."""
        default = Rules()
        return {k: v for k, v in self.to_dict().items() if getattr(default, k) != v}


def _check_int(name: str, value: object, low: int) -> None:
    if type(value) is not int:
        raise ValueError(f"{name} must be a whole number, not {value!r}")
    if value < low:
        raise ValueError(f"{name} must be at least {low}, not {value}")


STANDARD = Rules()


def house_rules_text(changes: Mapping[str, object]) -> str:
    """House rules as players type them: ``tie_loses, false_declare_penalty=25``.

    One spelling everywhere (the lobby, the match heading, replays, tournament reports), the
    same one ``create`` accepts, so what is shown can be typed back.
    """
    words = []
    for name, value in changes.items():
        if value is True:
            words.append(name)
        elif value is False:
            words.append(f"{name}=off")
        elif value is None:
            words.append(f"{name}=none")
        else:
            words.append(f"{name}={value}")
    return ", ".join(words)
