"""The JSON Schema and PROTOCOL.md's tables say the same thing, field by field."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import msgspec
import pytest
from leastscore.game import Rules
from leastscore.protocol.messages import CLIENT_TYPES, SERVER_TYPES
from leastscore.protocol.schema import schema

from ..support.cli import leastscore

PROTOCOL = Path(__file__).resolve().parents[2] / "PROTOCOL.md"
MAPS = {"table": "TableInfo", "seat_info": "SeatInfo", "match_state": "MatchState"}
MAPS["standing"] = "Standing"


def sections(text: str) -> dict[str, str]:
    """The document's ``## `` sections by title."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {title.strip(): body for title, body in zip(parts[1::2], parts[2::2], strict=True)}


def cells(row: str) -> list[str]:
    """A table row's cells; ``\\|`` inside a cell is not a separator."""
    return [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]


def tables(section: str, first: str) -> dict[str, str]:
    """Every row of the tables headed ``| first | fields |``: its name -> its fields cell."""
    rows: dict[str, str] = {}
    heading = False
    for line in section.splitlines():
        if not line.startswith("|"):
            heading = False
            continue
        row = cells(line)
        if row[:2] == [first, "fields"]:
            heading = True
        elif heading and not set(row[0]) <= {"-", " "}:
            name = row[0].strip("`")
            assert name not in rows, f"{name} is in two rows"
            rows[name] = row[1]
    return rows


def fields(cell: str) -> dict[str, bool]:
    """``name: type`` fields of a fields cell -> whether the document says optional.

    Items are split on ``;`` outside parentheses and backticks; a parenthesis
    that follows fields and starts with "optional" makes them all optional
    (``round: int``, ``turn: int`` (optional, together)).
    """
    items, depth, quoted, current = [], 0, False, ""
    for ch in cell:
        if ch == "`":
            quoted = not quoted
        elif not quoted and ch == "(":
            depth += 1
        elif not quoted and ch == ")":
            depth -= 1
        if ch == ";" and depth == 0 and not quoted:
            items.append(current)
            current = ""
        else:
            current += ch
    items.append(current)
    found: dict[str, bool] = {}
    for item in items:
        outside = re.sub(r"\([^()]*(?:\([^()]*\)[^()]*)*\)", "", item)
        names = re.findall(r"`(\w+): [^`]+`", outside)
        note = re.search(r"\(\s*([^()]*)", item)
        optional = bool(note and note.group(1).startswith("optional"))
        for name in names:
            found[name] = optional
    return found


def described(struct: dict[str, Any]) -> dict[str, bool]:
    """A schema object's fields -> whether each is optional (not required)."""
    required = set(struct.get("required", ()))
    return {name: name not in required for name in struct["properties"] if name != "type"}


@pytest.fixture(scope="module")
def doc() -> dict[str, str]:
    return sections(PROTOCOL.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def defs() -> dict[str, Any]:
    return schema()["$defs"]


def by_tag(defs: dict[str, Any], union: str) -> dict[str, dict[str, Any]]:
    mapping = defs[union]["discriminator"]["mapping"]
    return {tag: defs[ref.rsplit("/", 1)[1]] for tag, ref in mapping.items()}


def test_the_tables_parse_as_expected():
    cell = "`a: int`; `b: str` (optional, ≤ 3; x); `c: int`, `d: int` (optional, together)"
    assert fields(cell) == {"a": False, "b": True, "c": True, "d": True}
    assert fields("`e: [[card] \\| null]` (by seat: `f` (optional)); `g: bool`") == {
        "e": False,
        "g": False,
    }


def test_client_messages_match_the_schema(doc, defs):
    rows = tables(doc["Messages from the client"], "type")
    schemas = by_tag(defs, "ClientMessage")
    assert set(rows) == set(schemas) == set(CLIENT_TYPES)
    for kind, cell in rows.items():
        documented = {"id": True, **fields(cell)}  # "Every client message may carry `id`"
        assert documented == described(schemas[kind]), kind


def test_server_messages_and_events_match_the_schema(doc, defs):
    rows = tables(doc["Messages from the server"], "type")
    events = tables(doc["Game events"], "type")
    assert not set(rows) & set(events)
    rows.update(events)
    schemas = by_tag(defs, "ServerMessage")
    assert set(rows) == set(schemas) == set(SERVER_TYPES)
    for kind, cell in rows.items():
        assert fields(cell) == described(schemas[kind]), kind


def test_the_maps_inside_messages_match_the_schema(doc, defs):
    rows = tables(doc["Messages from the server"], "map")
    assert set(rows) == set(MAPS)
    for name, cell in rows.items():
        assert fields(cell) == described(defs[MAPS[name]]), name


def test_the_house_rules_table_names_every_rule(doc, defs):
    names = set()
    for line in doc["Messages from the client"].splitlines():
        row = cells(line) if line.startswith("|") else []
        if len(row) == 4 and row[1].startswith(("int", "bool")):
            names.add(row[0].strip("`"))
    assert names == set(defs["Rules"]["properties"]) == set(msgspec.structs.asdict(Rules()))


def test_optional_client_fields_accept_null_and_moves_name_both_round_and_turn(defs):
    validator = jsonschema.Draft202012Validator(schema())
    assert validator.is_valid({"type": "create", "seats": None, "name": None})
    assert not validator.is_valid({"type": "create", "seats": 9})
    assert validator.is_valid({"type": "declare", "round": 1, "turn": 2})
    assert not validator.is_valid({"type": "declare", "round": 1})
    assert not validator.is_valid({"type": "join"})  # the table is required
    validator.check_schema(schema())


def test_the_command_prints_the_schema():
    out = leastscore("protocol", "schema")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == schema()
