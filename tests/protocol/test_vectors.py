"""The shipped test vectors: current, complete, and true of the code that runs."""

from __future__ import annotations

import asyncio
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import msgspec
import pytest
from leastscore.game import (
    Match,
    MatchStarted,
    Move,
    Reshuffled,
    RoundStarted,
    Rules,
    View,
    legal_discards,
    parse_cards,
)
from leastscore.protocol import encode
from leastscore.protocol.messages import CLIENT_TYPES, SERVER_TYPES
from leastscore.protocol.transcript import load
from leastscore.protocol.vectorgen import (
    FILES,
    TRANSCRIPT_KILLED_AT,
    TRANSCRIPT_NAMES,
    TRANSCRIPT_RULES,
    TRANSCRIPT_SEED,
    build,
    check_sample,
    shipped,
)
from leastscore.seats.core import Policy
from leastscore.seats.driver import MatchDriver
from leastscore.seats.program import ProgramSeat

VECTORS = shipped()
RECORDER = Path(__file__).parent.parent / "programs" / "recorder.py"


def vectors(name: str) -> Any:
    return json.loads((VECTORS / name).read_text(encoding="utf-8"))


def test_regenerating_changes_no_byte() -> None:
    """Run ``make vectors`` when this fails (and look at what changed)."""
    for name, data in build().items():
        assert (VECTORS / name).read_bytes() == data, f"{name} is out of date: make vectors"
    assert sorted(p.name for p in VECTORS.iterdir()) == sorted(FILES)


MESSAGES = vectors("messages.json")["messages"]


@pytest.mark.parametrize("entry", MESSAGES, ids=[m["name"] for m in MESSAGES])
def test_each_message_decodes_and_encodes_back(entry: dict[str, Any]) -> None:
    frame = bytes.fromhex(entry["frame"])
    assert int.from_bytes(frame[:4], "big") == len(frame) - 4
    assert msgspec.msgpack.decode(frame[4:]) == entry["message"]
    message = check_sample(entry)
    if "same_as" in entry:
        (same,) = [m for m in MESSAGES if m["name"] == entry["same_as"]]
        assert message == check_sample(same)
        assert None in entry["message"].values()
    else:
        assert encode(message) == frame


def _observed(struct: msgspec.Struct, seen: dict[type, dict[str, set[bool]]]) -> None:
    """For each field of each struct met: whether it was seen at its default, and off it."""
    info = msgspec.inspect.type_info(type(struct))
    assert isinstance(info, msgspec.inspect.StructType)
    for f in info.fields:
        value = getattr(struct, f.name)
        default = f.default if f.default is not msgspec.NODEFAULT else object()
        if f.default_factory is not msgspec.NODEFAULT:
            default = f.default_factory()
        seen[type(struct)][f.name].add(value == default)
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if isinstance(item, msgspec.Struct):
                _observed(item, seen)


LOG_ONLY = {(MatchStarted, "seed"), (RoundStarted, "deck"), (Reshuffled, "deck")}
"""Fields of the match log that no frame carries."""


def test_every_field_is_present_somewhere_and_every_optional_one_absent_somewhere() -> None:
    seen: dict[type, dict[str, set[bool]]] = defaultdict(lambda: defaultdict(set))
    for entry in MESSAGES:
        _observed(check_sample(entry), seen)
    assert {m["name"] for m in MESSAGES if m["from"] == "client"} >= set(CLIENT_TYPES)
    assert {type(check_sample(m)) for m in MESSAGES if m["from"] == "server"} == set(
        SERVER_TYPES.values()
    )
    for cls, fields in seen.items():
        info = msgspec.inspect.type_info(cls)
        assert isinstance(info, msgspec.inspect.StructType)
        if not cls.__struct_config__.omit_defaults:
            continue  # every field is always there (the rules in match_start)
        for f in info.fields:
            if (cls, f.name) in LOG_ONLY:
                continue
            assert False in fields[f.name], f"{cls.__name__}.{f.name} never has a value"
            if not f.required:
                assert True in fields[f.name], f"{cls.__name__}.{f.name} is never absent"


def test_ids_reach_both_64_bit_limits_and_nil_is_sampled() -> None:
    ids = {m["message"].get("id") for m in MESSAGES}
    assert {2**64 - 1, -(2**63)} <= ids
    assert {m["same_as"] for m in MESSAGES if "same_as" in m} >= {"hello", "play", "declare"}


def test_messages_txt_is_messages_json_in_lines() -> None:
    lines = [
        line.split()
        for line in (VECTORS / "messages.txt").read_text().splitlines()
        if not line.startswith("#")
    ]
    assert lines == [[m["from"], m["name"], m["frame"]] for m in MESSAGES]


def test_hands_list_every_legal_group_as_the_engine_does() -> None:
    same_suit = Rules(runs_same_suit=True)
    for hand in vectors("hands.json")["hands"]:
        cards = parse_cards(hand["hand"])
        for key, rules in (("legal", Rules()), ("legal_runs_same_suit", same_suit)):
            assert hand[key] == [[str(c) for c in g] for g in legal_discards(cards, rules)]
            assert all(g == sorted(g, key=lambda c: parse_cards(c)[0]) for g in hand[key])
            assert len({tuple(g) for g in hand[key]}) == len(hand[key])


# -- the transcript is what a real host sends -----------------------------------------


class AutoSeat:
    """The transcript's other player: always the automatic move."""

    def __init__(self, match: Match) -> None:
        self.match = match

    def send(self, events: object) -> None:
        pass

    def send_turn(self, mover: int, time_limit: float, view: object) -> None:
        pass

    async def choose(self, view: View, time_limit: float) -> Move:
        return self.match.auto_move(self.match.to_move)

    def verdict(self, error: object) -> None:
        pass


def _comparable(frames: bytes) -> list[Any]:
    """Frames as data, without what a live host fills in (the time left, its version)."""
    out = []
    at = 0
    while at < len(frames):
        size = int.from_bytes(frames[at : at + 4], "big")
        message = msgspec.msgpack.decode(frames[at + 4 : at + 4 + size])
        at += 4 + size
        if message["type"] == "welcome":
            message["server"] = "-"
        if "time_ms" in message:
            message["time_ms"] = 0
        if "time_ms" in message.get("match", {}):
            message["match"]["time_ms"] = 0
        out.append(message)
    return out


async def test_the_transcript_is_what_a_program_seat_sends(tmp_path: Path) -> None:
    match = Match(list(TRANSCRIPT_NAMES), TRANSCRIPT_RULES, seed=TRANSCRIPT_SEED)
    program = ProgramSeat(
        [sys.executable, str(RECORDER), str(tmp_path), str(TRANSCRIPT_KILLED_AT)], "recorded"
    )
    await program.start()
    try:
        referee = MatchDriver(
            match,
            [program, AutoSeat(match)],
            time_limit=lambda _seat: 60.0,  # a timeout would change the transcript
            policy=Policy(retry_illegal=False, max_faults=5),
        )
        await asyncio.wait_for(referee.run(), 60)
    finally:
        await program.close()
    assert referee.faults[0].crashes == 1 and program.starts == 2
    transcript = load()
    first, second = transcript.sessions
    recorded = _comparable((tmp_path / "session-1").read_bytes())
    assert recorded[:-1] == _comparable(b"".join(s.frame for s in first.steps if s.host))
    assert recorded[-1]["type"] == "turn" and "hand" in recorded[-1]  # the turn it died on
    again = _comparable((tmp_path / "session-2").read_bytes())
    assert again == _comparable(b"".join(s.frame for s in second.steps if s.host))
    snapshot, turn = again[1], again[2]
    assert snapshot["type"] == "state" and snapshot["you"] == 0
    assert snapshot["table"]["rules"] == TRANSCRIPT_RULES.changes() == transcript.rules
    assert (turn["round"], turn["turn"]) == (snapshot["match"]["round"], snapshot["match"]["turn"])
