"""A snapshot names the seats exactly as the match's events do."""

from __future__ import annotations

from leastscore.server.app import Server

from ..support.server import Raw


async def test_two_bots_of_one_level_have_the_names_the_match_uses(server: Server) -> None:
    ann = await Raw.connect(server.port)
    await ann.hello("Ann")
    ann.send({"type": "create", "id": 1, "seats": 3, "rules": {"threshold": 10}})
    await ann.until("ok", id=1)
    ann.send({"type": "add_bot", "id": 2, "level": "greedy"})
    ann.send({"type": "add_bot", "id": 3, "level": "greedy"})
    start = await ann.until("match_start")
    assert start["seats"] == ["Ann", "Greedy bot", "Greedy bot (2)"]
    ann.send({"type": "state", "id": 4})
    state = await ann.until("state", id=4)
    assert [p["name"] for p in state["table"]["players"]] == start["seats"]
    ann.close()
