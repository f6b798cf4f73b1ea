"""Whole matches over real TCP: raw clients, the secrecy scan, spectators, resume."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
from leastscore.game import (
    Declared,
    Event,
    MatchEnded,
    MatchStarted,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
)
from leastscore.game.cards import NAMES
from leastscore.server.app import Server
from leastscore.server.records.store import MatchDatabase

from ..support.server import Raw, answer, raw_player, serving, wait_for

EVENT_TYPES = {
    "match_start",
    "round_start",
    "played",
    "reshuffled",
    "declared",
    "round_void",
    "resigned",
    "match_end",
}


async def seat_four(
    server: Server, threshold: int = 25, watcher: Raw | None = None
) -> tuple[list[Raw], str]:
    """Four raw clients at a new table (the fourth to sit starts the match)."""
    clients = [await Raw.connect(server.port) for _ in range(4)]
    for i, c in enumerate(clients):
        await c.hello(f"p{i}")
    clients[0].send(
        {"type": "create", "id": 1, "name": "four", "seats": 4, "rules": {"threshold": threshold}}
    )
    ok = await clients[0].until("ok", id=1)
    table = ok["table"]
    if watcher is not None:
        watcher.send({"type": "join", "id": 5, "table": table, "watch": True})
        await watcher.until("ok", id=5)
    for i, c in enumerate(clients[1:], start=1):
        c.send({"type": "join", "id": 1, "table": table})
        assert (await c.until("ok", id=1))["seat"] == i
    return clients, table


def strings(obj: Any) -> set[str]:
    if isinstance(obj, str):
        return {obj}
    if isinstance(obj, dict):
        return set().union(*(strings(v) for v in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(strings(v) for v in obj)) if obj else set()
    return set()


class Secrets:
    """An independent model of who holds what, walked along the full log."""

    def __init__(self, seats: int) -> None:
        self.hands: list[set[str]] = [set() for _ in range(seats)]
        self.public: set[str] = set()
        self.revealed = False

    def apply(self, event: Event) -> None:
        if isinstance(event, RoundStarted):
            self.hands = [set(h or ()) for h in event.hands]
            self.public = set(event.open)
            self.revealed = False
        elif isinstance(event, Played):
            hand = self.hands[event.seat]
            hand -= set(event.discard)
            hand.add(event.took or event.drawn or "")
            self.public |= set(event.discard)
        elif isinstance(event, Declared):
            self.revealed = True
        elif isinstance(event, Resigned):
            self.hands[event.seat] = set()

    def hidden_from(self, seat: int | None) -> set[str]:
        if self.revealed:
            return set()
        others = set().union(*(h for i, h in enumerate(self.hands) if i != seat))
        return others - self.public


def scan(frames: list[bytes], log: list[Event], seat: int | None) -> int:
    """Check every frame one receiver got against the full log; returns frames checked."""
    model = Secrets(len(log[0].seats))  # type: ignore[attr-defined]
    position = 0
    checked = 0
    for body in frames:
        message = msgspec.msgpack.decode(body)
        if message["type"] in EVENT_TYPES:
            if checked and not position:  # joined late: find where this receiver came in
                while msgspec.msgpack.encode(log[position].seen_by(seat)) != body:
                    model.apply(log[position])
                    position += 1
            event = log[position]
            assert message["type"] == type(event).__struct_config__.tag
            position += 1
            model.apply(event)
            if message["type"] == "declared":
                continue
        leaked = strings(message) & model.hidden_from(seat)
        assert not leaked, f"seat {seat} saw {leaked} in {message}"
        checked += 1
    return checked


async def test_a_full_four_seat_match_of_raw_clients(server: Server):
    watcher = await Raw.connect(server.port)
    await watcher.hello("watcher")
    clients, _ = await seat_four(server, watcher=watcher)
    results = await asyncio.gather(*(raw_player(c) for c in clients))
    end = results[0]
    assert all(r == end for r in results)
    places = [s["place"] for s in end["standings"]]
    assert places[0] == 1 and sorted(s["seat"] for s in end["standings"]) == [0, 1, 2, 3]
    await watcher.until("match_end")

    assert server.store is not None
    store = MatchDatabase(server.config.db or "")
    # the store writes on its own thread
    await wait_for(lambda: any(r.status == "finished" for r in store.matches()))
    record = store.matches()[0]
    assert record.status == "finished" and record.players == ["p0", "p1", "p2", "p3"]
    log = store.log(record.id)
    assert log is not None and isinstance(log[-1], MatchEnded)

    # Secrecy: no frame to any seat (or the spectator) holds a card it may not see.
    for seat, client in enumerate(clients):
        assert scan(client.received, log, seat) > 50
    assert scan(watcher.received, log, None) > 50
    for c in [*clients, watcher]:
        c.close()


async def test_tracker_follows_the_server_exactly(server: Server):
    """A client-side Tracker, fed only frames, equals the engine's own view at every turn."""
    from leastscore.bots import GreedyBot
    from leastscore.bots.link import ServerLink
    from leastscore.protocol.convert import move_to_wire
    from leastscore.protocol.messages import AddBot, Create, Start, Turn

    conn = await ServerLink.open("127.0.0.1", server.port, "tracked", bot=True)
    ok = await conn.request(Create(name="t", seats=3, rules={"threshold": 30}))
    await conn.request(AddBot(level="greedy"))
    await conn.request(AddBot(level="random"))
    table = server.lobby.tables[ok.table]  # type: ignore[attr-defined]
    bot = GreedyBot()
    compared = 0
    while True:
        message = await asyncio.wait_for(conn.inbox.get(), 30)
        if isinstance(message, MatchEnded):
            if compared >= 30:
                break
            await conn.request(Start())  # one more match: enough turns to compare
            continue
        if isinstance(message, Turn) and message.seat == conn.tracker.you:
            assert table.match is not None
            mine = conn.tracker.view()
            truth = table.match.view(conn.tracker.you)
            assert mine == truth
            compared += 1
            await conn.request(move_to_wire(bot.choose(mine)))
    assert compared >= 30
    await conn.close()


async def test_killed_mid_turn_and_resumed_with_the_token(server: Server):
    watcher = await Raw.connect(server.port)
    await watcher.hello("watcher")
    clients, _ = await seat_four(server, threshold=15, watcher=watcher)
    # seat 0 waits for its turn, then vanishes without moving
    others = [asyncio.ensure_future(raw_player(c)) for c in clients[1:]]
    welcome_token = None
    first = clients[0]
    first.send({"type": "ping", "id": 9})
    await first.until("pong", id=9)
    turn = await first.until_any({"turn"})
    while "hand" not in turn:
        turn = await first.until_any({"turn"})
    tokens = [
        m for m in (msgspec.msgpack.decode(b) for b in first.received) if m["type"] == "welcome"
    ]
    welcome_token = tokens[0]["token"]
    first.writer.transport.abort()  # killed: no goodbye
    left = await watcher.until("player_left", seat=0)
    assert left["grace_ms"] == 1000
    back = await Raw.connect(server.port)
    back.send({"type": "hello", "protocol": [1], "token": welcome_token})
    welcome = await back.until("welcome")
    assert welcome["resumed"] is True
    state = await back.until("state")
    assert state["you"] == 0 and state["match"]["hand"]
    assert len(state["match"]["hand"]) == state["match"]["hand_sizes"][0]
    await watcher.until("player_back", seat=0)
    # the seat plays on from the snapshot
    if state["match"]["to_move"] == 0:
        back.send(
            {
                "type": "play",
                "id": 1,
                "discard": state["match"]["legal"][-1],
                "take": "deck" if state["match"]["can_draw"] else state["match"]["open"][0],
            }
        )
        await back.until("ok", id=1)
    end = await raw_player(back)
    await asyncio.gather(*others)
    assert end["type"] == "match_end"


async def test_a_vanished_player_is_replaced_by_a_bot_after_the_grace_period(server: Server):
    watcher = await Raw.connect(server.port)
    await watcher.hello("watcher")
    clients, _ = await seat_four(server, threshold=15, watcher=watcher)
    clients[0].writer.transport.abort()
    await watcher.until("player_left", seat=0)
    replaced = await watcher.until("player_replaced", seat=0)
    assert replaced["level"] == "greedy"
    results = await asyncio.gather(*(raw_player(c) for c in clients[1:]))
    assert results[0]["type"] == "match_end"


async def _own_turn(client: Raw) -> dict[str, Any]:
    turn = await client.until("turn", timeout=30)
    while "hand" not in turn:
        turn = await client.until("turn", timeout=30)
    return turn


async def test_resumed_after_a_bot_took_the_seat_the_snapshot_is_answered_as_it_says():
    """PROTOCOL.md: after a bot played your seat, the snapshot of a resume says you are to
    move at round R, turn T; answering it with round R, turn T is your move."""
    # The bot that takes the seat waits long before each move (it is paced: a person sits
    # here), so the seat is still being asked when its player comes back.
    async with serving(grace_period=0.2, bot_delay=60.0, human_move_time=120.0) as server:
        ann, bea = await Raw.connect(server.port), await Raw.connect(server.port)
        token = (await ann.hello("ann"))["token"]
        await bea.hello("bea")
        ann.send({"type": "create", "seats": 2, "id": 1})
        table = (await ann.until("ok", id=1))["table"]
        bea.send({"type": "join", "table": table, "id": 1})
        await bea.until("ok", id=1)
        first = await bea.until("turn", timeout=30)
        if first["seat"] == 1:  # bea moves first: once, then ann is told of her turn
            bea.send(answer(first, 2))
            await bea.until("ok", id=2)
        turn = await _own_turn(ann)  # ann is told of a turn and answers it...
        ann.send(answer(turn, 10))
        await ann.until("ok", id=10)
        bea_turn = await _own_turn(bea)  # ...and vanishes while bea is to move
        ann.writer.transport.abort()
        await bea.until("player_left", seat=0)
        await bea.until("player_replaced", seat=0)  # the grace is over: a bot has the seat
        bea.send(answer(bea_turn, 3))
        await bea.until("ok", id=3)
        asked = await bea.until("turn", seat=0)  # the bot is asked for ann's seat
        back = await Raw.connect(server.port)
        back.send({"type": "hello", "protocol": [1], "token": token, "id": 1})
        assert (await back.until("welcome", id=1))["resumed"] is True
        match = (await back.until("state"))["match"]
        assert (match["to_move"], match["round"], match["turn"]) == (
            0,
            asked["round"],
            asked["turn"],
        )
        assert match["legal"], "the snapshot says it is ann's move"
        back.send(answer(match, 4))
        assert await back.until_any({"ok", "error"}) == {"type": "ok", "id": 4}
        await bea.until("played", seat=0)
        back.close()
        bea.close()


async def test_spectators_see_only_public_information(server: Server):
    clients, table = await seat_four(server, threshold=15)
    watcher = await Raw.connect(server.port)
    await watcher.hello("eve")
    watcher.send({"type": "join", "id": 2, "table": table, "watch": True})
    assert (await watcher.until("ok", id=2)).get("seat") is None
    state = await watcher.until("state")
    assert state["match"].get("hand", []) == [] and state.get("you") is None
    watcher.send({"type": "play", "id": 3, "discard": ["AS"], "take": "deck"})
    assert (await watcher.until("error", id=3))["code"] == "no_match"
    await asyncio.gather(*(raw_player(c) for c in clients))
    await watcher.until("match_end")
    for body in watcher.received:
        m = msgspec.msgpack.decode(body)
        if m["type"] == "round_start":
            assert all(h is None for h in m["hands"]) and "deck" not in m
        if m["type"] == "turn":
            assert "hand" not in m and "legal" not in m
        if m["type"] == "played":
            assert "drawn" not in m


def test_event_types_cover_the_log() -> None:
    kinds = {
        MatchStarted,
        RoundStarted,
        Played,
        Reshuffled,
        Declared,
        RoundVoid,
        Resigned,
        MatchEnded,
    }
    assert {k.__struct_config__.tag for k in kinds} == EVENT_TYPES
    assert NAMES[0] == "AC"
