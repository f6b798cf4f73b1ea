"""A snapshot shows a player the hand of the match seat they held, and no other."""

from __future__ import annotations

import asyncio
from typing import Any

from leastscore.server.app import Server

from ..support.server import Raw, raw_player


def _held(client: Raw) -> set[str]:
    """Every card this client was ever shown as its own."""
    import msgspec

    cards: set[str] = set()
    for body in client.received:
        message: dict[str, Any] = msgspec.msgpack.decode(body)
        kind = message["type"]
        if kind == "turn" and "hand" in message:
            cards.update(message["hand"])
        elif kind == "round_start":
            for hand in message["hands"]:
                cards.update(hand or [])
        elif kind == "played" and message.get("drawn"):
            cards.add(message["drawn"])
    return cards


async def test_after_a_leave_nobody_is_shown_a_hand_they_never_held(server: Server):
    a, b, c = [await Raw.connect(server.port) for _ in range(3)]
    for name, client in zip("abc", (a, b, c), strict=True):
        await client.hello(name)
    a.send({"type": "create", "seats": 3, "rules": {"max_turns": 9, "max_rounds": 1}, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    b.send({"type": "join", "table": table, "id": 1})
    await b.until("ok", id=1)
    c.send({"type": "join", "table": table, "id": 1})
    await c.until("ok", id=1)
    # the only round reaches max_turns: it is void and no hand is ever revealed
    ends = await asyncio.wait_for(asyncio.gather(*(raw_player(x) for x in (a, b, c))), 60)
    assert all(end["reason"] == "max_rounds" for end in ends)
    b.send({"type": "leave", "id": 50})
    await b.until("ok", id=50)
    own = _held(c)
    c.send({"type": "state", "id": 51})
    state = await c.until("state", id=51)
    shown = set(state.get("match", {}).get("hand", []))
    assert shown <= own, f"c was shown {sorted(shown - own)}, never its own"

    d = await Raw.connect(server.port)
    await d.hello("d")
    d.send({"type": "join", "table": table, "id": 1})
    await d.until("ok", id=1)
    d.send({"type": "state", "id": 2})
    state = await d.until("state", id=2)
    # d fills the table, so a new match may have begun: d may see its own new hand only
    shown = set(state.get("match", {}).get("hand", []))
    assert shown <= _held(d), "a newcomer was shown a hand of the last match"
    for client in (a, b, c, d):
        client.close()


async def test_a_player_who_left_a_running_match_and_watches_sees_no_hand(server: Server):
    a, b = [await Raw.connect(server.port) for _ in range(2)]
    await a.hello("a")
    await b.hello("b")
    a.send({"type": "create", "seats": 3, "id": 1})
    table = (await a.until("ok", id=1))["table"]
    a.send({"type": "add_bot", "level": "greedy", "id": 2})
    await a.until("ok", id=2)
    b.send({"type": "join", "table": table, "id": 1})
    await b.until("ok", id=1)
    await b.until("round_start")
    b.send({"type": "leave", "id": 2})
    await b.until("ok", id=2)
    b.send({"type": "join", "table": table, "watch": True, "id": 3})
    await b.until("ok", id=3)
    state = await b.until("state")
    assert state.get("you") is None
    assert state["match"].get("hand", []) == []
    a.close()
    b.close()
