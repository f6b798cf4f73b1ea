"""A person alone with bots who goes away: the match waits for them, then gives up.

PROTOCOL.md: while none of the people playing a match is connected, nobody is asked to
move and no clock runs; the first of them back resumes it with their token. After the
server's ``--abandon-after`` with nobody back, the match is stopped, tokens with it.
"""

from __future__ import annotations

import asyncio
import time

from leastscore.server.app import Server
from leastscore.server.config import ServerConfig
from leastscore.server.records.store import MatchDatabase

from ..support.server import Raw, answer, raw_player, serving, wait_for


async def _alone_with_bots(server: Server, name: str = "Ann") -> tuple[Raw, str, str]:
    """A person at a table of three with two built-in bots, the match started."""
    person = await Raw.connect(server.port)
    token = (await person.hello(name))["token"]
    person.send({"type": "create", "seats": 3, "rules": {"threshold": 30}, "id": 1})
    table = (await person.until("ok", id=1))["table"]
    for i in range(2):
        person.send({"type": "add_bot", "level": "greedy", "id": 2 + i})
    await person.until("round_start")
    return person, table, token


async def test_a_match_waits_for_its_person_past_the_grace_period_and_plays_on_when_back():
    # Bots move at once, and the grace period is short: before, the bots played the
    # whole match for nobody, or it was stopped when the grace period ended.
    async with serving(grace_period=0.2, abandon_after=120.0, bot_delay=0.0) as server:
        ann, table_id, token = await _alone_with_bots(server)
        table = server.lobby.tables[table_id]
        match, driver = table.match, table.driver
        assert match is not None and driver is not None
        turn = await ann.until("turn", timeout=30)
        while "hand" not in turn:
            turn = await ann.until("turn", timeout=30)
        ann.writer.transport.abort()  # a laptop shut on her move: no goodbye
        await wait_for(lambda: driver.paused)
        played = len(match.log)
        mine = table.remote[0]
        await wait_for(lambda: driver.seats[0] is not mine)  # the grace is over: a bot sits...
        assert len(match.log) == played, "the bots played on for nobody"  # ...and waits too
        assert server.lobby.tables.get(table_id) is table and not match.over
        assert driver.deadline is None  # no clock runs

        back = await Raw.connect(server.port)
        back.send({"type": "hello", "protocol": [1], "token": token, "id": 1})
        assert (await back.until("welcome", id=1))["resumed"] is True
        snapshot = (await back.until("state"))["match"]
        assert (snapshot["round"], snapshot["turn"]) == (turn["round"], turn["turn"])
        assert snapshot["to_move"] == 0 and snapshot["legal"], "still her move"
        assert 0 < snapshot["time_ms"] <= turn["time_ms"]  # her clock stood still
        assert not driver.paused
        back.send(answer(snapshot, 2))
        assert await back.until_any({"ok", "error"}) == {"type": "ok", "id": 2}
        end = await asyncio.wait_for(raw_player(back), 120)  # her seat is hers again
        assert end["type"] == "match_end" and match.over
        kinds = {m["type"] for m in map(_decode, back.received)}
        assert "turn" in kinds
        back.close()


async def test_a_match_nobody_comes_back_to_is_stopped_after_abandon_after(tmp_path):
    db = str(tmp_path / "m.sqlite3")
    server = Server(ServerConfig(port=0, db=db, grace_period=0.1, abandon_after=0.5))
    await server.start()
    try:
        ann, table_id, token = await _alone_with_bots(server)
        ann.close()
        started = time.monotonic()
        await wait_for(lambda: table_id not in server.lobby.tables, timeout=30)
        assert time.monotonic() - started >= 0.5  # not before its time
        assert len(server.lobby.players) == 0
        again = await Raw.connect(server.port)
        again.send({"type": "hello", "protocol": [1], "token": token, "id": 5})
        assert (await again.until("error", id=5))["code"] == "bad_token"
        again.close()
    finally:
        await server.shutdown()
    (record,) = MatchDatabase(db).matches()
    assert record.status == "aborted"


async def test_while_another_person_plays_on_a_vanished_one_is_replaced_as_before():
    async with serving(grace_period=0.2, abandon_after=120.0, bot_delay=0.0) as server:
        ann, bea = await Raw.connect(server.port), await Raw.connect(server.port)
        await ann.hello("Ann")
        await bea.hello("Bea")
        ann.send({"type": "create", "seats": 3, "rules": {"threshold": 30}, "id": 1})
        table_id = (await ann.until("ok", id=1))["table"]
        bea.send({"type": "join", "table": table_id, "id": 1})
        await bea.until("ok", id=1)
        ann.send({"type": "add_bot", "level": "greedy", "id": 2})
        await bea.until("round_start")
        ann.writer.transport.abort()
        await bea.until("player_replaced", seat=0, timeout=30)  # Bea is here: no waiting
        driver = server.lobby.tables[table_id].driver
        assert driver is not None and not driver.paused
        bea.close()


def _decode(body: bytes) -> dict[str, object]:
    import msgspec

    decoded: dict[str, object] = msgspec.msgpack.decode(body)
    return decoded
