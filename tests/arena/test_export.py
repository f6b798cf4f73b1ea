"""``arena export``: everything the book knows of the standings, for a statistician."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
from click.testing import CliRunner
from leastscore.arena.book import Book
from leastscore.arena.cli import arena


def result(places: list[int]) -> bytes:
    return msgspec.json.encode({"seats": [{"place": p} for p in places]})


def test_the_export_names_each_seat_s_version_and_when_its_table_ended(tmp_path: Path) -> None:
    """Once it gave only the authors at each match: a version replaced mid-contest could
    not be told from its successor, nor a match placed in time."""
    book = Book.open(tmp_path / "arena.sqlite")
    for name in ("ann", "bo"):
        book.invite(name)
        book.judged(book.submit(name).id, True, "ok", "./bot")
    book.judged(book.submit("ann").id, True, "ok", "./bot")  # ann v2, submission 3
    table = book.begin_table(1, [3, 2])
    book.end_table(table, [((3, 2), result([1, 2])), ((2, 3), result([1, 2]))])
    book.close()
    done = CliRunner().invoke(arena, ["export", str(tmp_path)])
    assert done.exit_code == 0, done.output
    exported = json.loads(done.output)
    assert [(v["author"], v["version"], v["state"]) for v in exported["versions"]] == [
        ("ann", 1, "accepted"),
        ("bo", 1, "accepted"),
        ("ann", 2, "accepted"),
    ]
    first, second = exported["matches"]
    assert first["seats"] == ["ann", "bo"] and first["versions"] == [2, 1]
    assert second["seats"] == ["bo", "ann"] and second["versions"] == [1, 2]
    assert first["table"] == second["table"] == table and first["places"] == [1, 2]
    assert first["finished"] == second["finished"] > 0 and first["match"] < second["match"]
    assert {r["author"] for r in exported["leaderboard"]} == {"ann", "bo"}
