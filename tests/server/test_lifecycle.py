"""Tables side by side, the server process itself: start, SIGTERM, history and replay."""

from __future__ import annotations

import asyncio
import signal

from leastscore.server.app import Server
from leastscore.server.records.store import MatchDatabase

from ..support.cli import leastscore
from ..support.server import Raw, ServerProcess, raw_player, wait_for


async def test_a_misbehaving_client_never_touches_another_table(server: Server):
    async def table_of_two(name: str) -> tuple[Raw, Raw]:
        a, b = await Raw.connect(server.port), await Raw.connect(server.port)
        await a.hello(f"{name}-a")
        await b.hello(f"{name}-b")
        a.send({"type": "create", "seats": 3, "rules": {"threshold": 25}, "id": 1})
        table = (await a.until("ok", id=1))["table"]
        a.send({"type": "add_bot", "level": "greedy", "id": 2})
        await a.until("ok", id=2)
        b.send({"type": "join", "table": table, "id": 1})
        await b.until("ok", id=1)
        return a, b

    calm = await table_of_two("calm")
    rowdy = await table_of_two("rowdy")
    calm_play = [asyncio.ensure_future(raw_player(c)) for c in calm]
    rowdy_play = asyncio.ensure_future(raw_player(rowdy[1]))
    # one rowdy client floods junk, then garbage that gets it cut off mid-match
    for i in range(200):
        rowdy[0].send({"type": "teleport", "id": i})
        rowdy[0].send({"type": "play", "discard": ["AS"], "take": "deck", "id": 1000 + i})
    rowdy[0].send_raw(b"\x00\x00\x00\x02\xc1\xc1")
    assert await rowdy[0].closed()
    ends = await asyncio.wait_for(asyncio.gather(*calm_play), 60)
    assert all(e["type"] == "match_end" for e in ends)
    for client in calm:
        kinds = {m["type"] for m in map(_decode, client.received)}
        assert "error" not in kinds and "player_left" not in kinds
    # the rowdy table survives too: its other player finishes with a bot in the empty seat
    end = await asyncio.wait_for(rowdy_play, 60)
    assert end["type"] == "match_end"


def _decode(body: bytes) -> dict:
    import msgspec

    return msgspec.msgpack.decode(body)


async def test_serve_on_port_0_names_its_port_in_the_first_line_of_stdout(tmp_path):
    """PROTOCOL.md: ``serve --port 0`` writes ``listening on HOST:PORT`` first, and accepts
    connections from then on."""
    served = ServerProcess(db=tmp_path / "matches.sqlite3")  # reads that first line
    try:
        assert 0 < served.port < 65536
        client = await Raw.connect(served.port)
        welcome = await client.hello("first")
        assert welcome["type"] == "welcome"
    finally:
        served.interrupt()


async def test_sigterm_during_a_match_tells_clients_and_keeps_the_database(tmp_path):
    db = tmp_path / "matches.sqlite3"
    served = ServerProcess("--bot-delay", "0.05", db=db)
    try:
        client = await Raw.connect(served.port)
        await client.hello("ann")
        client.send({"type": "create", "seats": 3, "id": 1})
        await client.until("ok", id=1)
        for i in range(2):
            client.send({"type": "add_bot", "level": "greedy", "id": 2 + i})
        await client.until("round_start")
        served.proc.send_signal(signal.SIGTERM)
        bye = await client.until("bye")
        assert "shutting down" in bye["reason"]
        assert await client.closed()
        assert served.proc.wait(timeout=60) == 0
    finally:
        served.stop()
    history = leastscore("history", "--db", str(db))
    assert history.returncode == 0, history.stderr
    assert "aborted" in history.stdout and "ann" in history.stdout
    shown = leastscore("replay", "1", "--db", str(db))
    assert shown.returncode == 0, shown.stderr
    assert "Round 1" in shown.stdout
    assert "The match was aborted after round 1" in shown.stdout


async def test_a_finished_match_is_recorded_and_replays(tmp_path):
    db = tmp_path / "matches.sqlite3"
    served = ServerProcess("--bot-delay", "0.05", db=db)
    try:
        client = await Raw.connect(served.port)
        await client.hello("bo", bot=True)
        client.send({"type": "create", "seats": 2, "rules": {"threshold": 15}, "id": 1})
        await client.until("ok", id=1)
        client.send({"type": "add_bot", "level": "random", "id": 2})
        end = await raw_player(client)
        assert end["type"] == "match_end"
        store = MatchDatabase(str(db))  # the server's store writes on its own thread
        await wait_for(lambda: any(r.status == "finished" for r in store.matches()))
    finally:
        assert served.interrupt() == 0
    history = leastscore("history", "--db", str(db))
    assert "1. " in history.stdout and "bo" in history.stdout
    checked = leastscore("replay", "1", "--db", str(db), "--check")
    assert checked.returncode == 0 and "replay check: identical" in checked.stdout
    missing = leastscore("replay", "7", "--db", str(db))
    assert missing.returncode != 0 and "no match 7" in missing.stderr


def test_the_lan_address_is_an_ipv4_address():
    import ipaddress

    from leastscore.server.cli import lan_address

    assert ipaddress.ip_address(lan_address()).version == 4  # found without sending a packet


def test_serve_fails_clearly_on_a_busy_port(tmp_path):
    taken = ServerProcess(db=tmp_path / "b.sqlite3")
    try:
        again = leastscore("serve", "--port", str(taken.port), "--no-db")
        assert again.returncode != 0
        assert "cannot listen on 127.0.0.1" in again.stderr and "Traceback" not in again.stderr
    finally:
        taken.stop()
    assert leastscore("history", "--db", str(tmp_path / "none.sqlite3")).returncode != 0


async def test_chat_timeouts_leaving_and_playing_again():
    from leastscore.server.config import ServerConfig

    server = Server(ServerConfig(port=0, human_move_time=0.3, bot_delay=0.0, grace_period=5))
    await server.start()
    try:
        ann, bea = await Raw.connect(server.port), await Raw.connect(server.port)
        await ann.hello("ann")
        await bea.hello("bea")
        ann.send({"type": "create", "seats": 3, "rules": {"threshold": 10}, "id": 1})
        table = (await ann.until("ok", id=1))["table"]
        bea.send({"type": "join", "table": table, "id": 1})
        await bea.until("ok", id=1)
        bea.send({"type": "chat", "text": "good luck", "id": 2})
        await bea.until("ok", id=2)
        said = await ann.until("chat")
        assert said == {"type": "chat", "name": "bea", "text": "good luck", "seat": 1}
        ann.send({"type": "add_bot", "level": "greedy", "id": 3})
        await ann.until("ok", id=3)
        # nobody moves: each of ann's and bea's turns runs out and is played for them
        auto = await ann.until("played", seat=1)
        assert auto["auto"] is True
        # bea leaves for good mid-match: her seat is forfeited, the match goes on
        bea.send({"type": "leave", "id": 4})
        await bea.until("ok", id=4)
        resigned = await ann.until("resigned")
        assert resigned["seat"] == 1 and "bea left" in resigned["reason"]
        end = await ann.until("match_end", timeout=60)
        assert end["standings"][-1]["seat"] == 1
        # the same table plays again
        ann.send({"type": "start", "id": 5})
        await ann.until("ok", id=5)
        again = await ann.until("match_start")
        assert again["seats"] == ["ann", "Greedy bot"]
        ann.send({"type": "leave", "id": 6})
        await ann.until("ok", id=6)
        assert table not in server.lobby.tables  # no people left: the table is gone
    finally:
        await server.shutdown()
