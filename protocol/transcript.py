"""The recorded stdio transcript (``vectors/transcript.json``) and what makes an answer good.

A transcript is what a host sends a stdio program, session by session (one
session per copy of the program), with the places where it waits for an
answer. Pure: ``bots.replay`` plays it to a real program.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import msgspec

from .messages import DeclareMove, Hello, PlayMove


class Expected(msgspec.Struct, frozen=True):
    """The turn an answer is for."""

    round: int
    turn: int
    open: list[str]
    can_declare: bool
    can_draw: bool
    legal: list[list[str]]
    recorded: dict[str, Any]
    """What the recorded program answered (one good answer of many)."""


class Step(msgspec.Struct, frozen=True, omit_defaults=True):
    """A frame the host sends (``host``, in hex), or a wait for an answer (``answer``)."""

    host: str | None = None
    message: Any = None
    answer: Expected | None = None

    @property
    def frame(self) -> bytes:
        assert self.host is not None
        return bytes.fromhex(self.host)


class Session(msgspec.Struct, frozen=True):
    steps: list[Step]
    ends: Literal["killed", "bye"]
    """``killed``: the host stops this copy (closes its stdin) after the last step."""

    @property
    def expected(self) -> list[Expected]:
        return [s.answer for s in self.steps if s.answer is not None]


class Transcript(msgspec.Struct, frozen=True):
    about: str
    seats: list[str]
    you: int
    rules: dict[str, Any]
    sessions: list[Session]


def load(path: Path | str | None = None) -> Transcript:
    """The shipped transcript, or the one at ``path``."""
    if path is None:
        from .vectorgen import shipped

        path = shipped() / "transcript.json"
    return msgspec.json.decode(Path(path).read_bytes(), type=Transcript)


def judge_hello(message: msgspec.Struct) -> str | None:
    """Why this first frame is not a good ``hello``, or None."""
    if not isinstance(message, Hello):
        return f"its first frame was {_kind(message)}, not hello"
    if 1 not in message.protocol:
        return f"its hello lists protocol {message.protocol}, without 1"
    return None


def judge_answer(expected: Expected, message: msgspec.Struct) -> str | None:
    """Why ``message`` is not a good answer to the turn ``expected``, or None."""
    where = f"round {expected.round}, turn {expected.turn}"
    if not isinstance(message, PlayMove | DeclareMove):
        return f"{where}: it sent {_kind(message)}, not play or declare"
    if (message.round, message.turn) not in ((None, None), (expected.round, expected.turn)):
        return (
            f"{where}: its answer says round {message.round}, turn {message.turn} "
            "(answered another turn, or one turn twice?)"
        )
    if isinstance(message, DeclareMove):
        return None if expected.can_declare else f"{where}: it declared, which was not allowed"
    if sorted(message.discard) not in [sorted(g) for g in expected.legal]:
        return f"{where}: it discarded {message.discard}, not one of the legal groups"
    if message.take == "deck":
        return None if expected.can_draw else f"{where}: it drew, with no card to draw"
    if message.take not in expected.open:
        return f"{where}: it took {message.take!r}, not an open card {expected.open} or 'deck'"
    return None


def _kind(message: msgspec.Struct) -> str:
    tag = type(message).__struct_config__.tag
    return repr(tag) if tag else type(message).__name__
