"""Protocol v1 over a WebSocket on the web port (PROTOCOL.md, "Over a WebSocket").

Real sockets on loopback: a real server with its web view, aiohttp's WebSocket
client for the player, and the raw TCP client beside it at the same table.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import msgspec
import pytest
import pytest_asyncio
from leastscore.game.cards import BY_NAME, VALUE
from leastscore.protocol import decode_server
from leastscore.server.app import Server

from ..support.browser import web_server
from ..support.cards import cards_in, visible_to
from ..support.server import Raw, raw_player

pytest.importorskip("aiohttp", reason="the web view needs aiohttp: pip install leastscore[web]")

import aiohttp
from leastscore.server.web.view import WebView

VECTORS = Path(__file__).parents[2] / "protocol" / "vectors" / "messages.json"
MALFORMED = {"bad_frame", "bad_message", "unknown_type", "hello_required", "frame_too_large"}


@pytest_asyncio.fixture(loop_scope="session")
async def served() -> AsyncIterator[tuple[Server, WebView]]:
    async with web_server(bot_delay=0.0, grace_period=5.0) as both:
        yield both


class Socket:
    """A protocol v1 client over a WebSocket: a MessagePack map per binary message."""

    def __init__(self, http: Any, ws: Any) -> None:
        self.http, self.ws = http, ws
        self.pending: list[dict[str, Any]] = []
        self.bodies: list[bytes] = []
        self.sending: set[asyncio.Future[None]] = set()

    @classmethod
    async def open(cls, view: WebView, **headers: str) -> Socket:
        http = aiohttp.ClientSession()
        try:
            ws = await http.ws_connect(view.address + "play", headers=headers)
        except BaseException:
            await http.close()
            raise
        return cls(http, ws)

    def send(self, message: dict[str, Any]) -> None:
        sending = asyncio.ensure_future(self.ws.send_bytes(msgspec.msgpack.encode(message)))
        self.sending.add(sending)
        sending.add_done_callback(self.sending.discard)

    async def recv(self, timeout: float = 30) -> dict[str, Any] | None:
        """The next message; None once the server closed."""
        if self.pending:
            return self.pending.pop(0)
        message = await self.ws.receive(timeout=timeout)
        if message.type is not aiohttp.WSMsgType.BINARY:
            return None
        self.bodies.append(message.data)
        assert decode_server(message.data) is not None, message.data  # a message of v1
        decoded: dict[str, Any] = msgspec.msgpack.decode(message.data)
        return decoded

    async def until(self, kind: str, **match: Any) -> dict[str, Any]:
        while True:
            message = await self.recv()
            assert message is not None, f"closed before {kind}"
            if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                return message

    async def close(self) -> None:
        await self.ws.close()
        await self.http.close()


async def play_to_the_end(player: Socket) -> dict[str, Any]:
    """Play as ``raw_player`` does: the last legal group from the deck, declare at 4."""
    next_id = 100
    while True:
        message = await player.recv()
        assert message is not None
        if message["type"] == "match_end":
            return message
        if message["type"] != "turn" or "hand" not in message:
            continue
        next_id += 1
        if message["can_declare"] and sum(VALUE[BY_NAME[c]] for c in message["hand"]) <= 4:
            player.send({"type": "declare", "id": next_id})
        else:
            take = "deck" if message["can_draw"] else message["open"][0]
            player.send(
                {"type": "play", "id": next_id, "discard": message["legal"][-1], "take": take}
            )


async def test_a_whole_match_is_played_over_the_websocket(served: tuple[Server, WebView]):
    _, view = served
    ann = await Socket.open(view)
    ann.send({"type": "hello", "protocol": [1], "name": "Ann", "id": 1})
    welcome = await ann.until("welcome", id=1)
    assert welcome["protocol"] == 1 and welcome["token"]
    ann.send({"type": "create", "seats": 2, "rules": {"threshold": 20}, "id": 2})
    await ann.until("ok", id=2)
    ann.send({"type": "add_bot", "level": "greedy", "id": 3})
    end = await asyncio.wait_for(play_to_the_end(ann), 120)
    assert sorted(s["seat"] for s in end["standings"]) == [0, 1]
    await ann.close()


async def test_a_websocket_player_and_a_tcp_player_share_a_table(served: tuple[Server, WebView]):
    server, view = served
    ann = await Socket.open(view)
    ann.send({"type": "hello", "protocol": [1], "name": "Ann", "id": 1})
    await ann.until("welcome", id=1)
    ann.send({"type": "create", "seats": 2, "rules": {"threshold": 20}, "id": 2})
    table = (await ann.until("ok", id=2))["table"]
    bea = await Raw.connect(server.port)
    await bea.hello("Bea")
    bea.send({"type": "join", "table": table, "id": 1})
    await bea.until("ok", id=1)
    ends = await asyncio.wait_for(asyncio.gather(play_to_the_end(ann), raw_player(bea)), 120)
    assert ends[0]["standings"] == ends[1]["standings"]
    frames = [msgspec.msgpack.decode(body) for body in ann.bodies]
    (start,) = [m for m in frames if m["type"] == "match_start"]
    assert start["seats"] == ["Ann", "Bea"]
    match = server.lobby.tables[table].match
    assert match is not None and match.over
    seen = visible_to(list(match.log), seat=0)
    round_ = 0
    for frame in frames:  # every frame Ann got, against the engine's full log
        if frame["type"] == "round_start":
            round_ = frame["round"]
        leaked = cards_in(frame) - seen[round_]
        assert not leaked, f"Ann saw {leaked} in {frame}"
    assert any(f["type"] == "turn" and f.get("hand") for f in frames)  # her own hand, only
    await ann.close()
    bea.close()


async def test_a_token_from_a_websocket_resumes_over_tcp(served: tuple[Server, WebView]):
    server, view = served
    ann = await Socket.open(view)
    ann.send({"type": "hello", "protocol": [1], "name": "Ann", "id": 1})
    token = (await ann.until("welcome", id=1))["token"]
    ann.send({"type": "create", "seats": 3, "id": 2})
    table = (await ann.until("ok", id=2))["table"]
    await ann.close()  # a phone that slept
    back = await Raw.connect(server.port)
    back.send({"type": "hello", "protocol": [1], "token": token, "id": 1})
    assert (await back.until("welcome", id=1))["resumed"] is True
    assert (await back.until("state"))["table"]["id"] == table
    back.close()


async def test_a_page_of_another_site_is_refused_and_the_server_s_own_is_not(
    served: tuple[Server, WebView],
):
    _, view = served
    with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
        await Socket.open(view, Origin="http://elsewhere.example")
    assert refused.value.status == 403
    own = await Socket.open(view, Origin=view.address.rstrip("/"))
    own.send({"type": "hello", "protocol": [1], "id": 1})
    await own.until("welcome", id=1)
    await own.close()


async def test_the_first_message_must_be_hello_and_then_the_socket_closes(
    served: tuple[Server, WebView],
):
    _, view = served
    client = await Socket.open(view)
    client.send({"type": "ping", "id": 9})
    error = await client.until("error")
    assert (error["code"], error["id"]) == ("hello_required", 9)
    assert await client.recv() is None  # then closed
    await client.close()


async def test_a_text_message_is_no_frame(served: tuple[Server, WebView]):
    _, view = served
    client = await Socket.open(view)
    await client.ws.send_str(json.dumps({"type": "hello", "protocol": [1]}))
    assert (await client.until("error"))["code"] == "bad_frame"
    assert await client.recv() is None
    await client.close()


async def test_a_frame_over_the_limit_gets_frame_too_large(served: tuple[Server, WebView]):
    server, view = served
    client = await Socket.open(view)
    client.send({"type": "hello", "protocol": [1], "id": 1})
    await client.until("welcome", id=1)
    big = {"type": "chat", "text": "x" * (server.config.max_frame + 10), "id": 2}
    client.send(big)
    error = await client.until("error")
    assert error["code"] == "frame_too_large", error
    await client.close()


async def test_every_client_message_of_the_vectors_is_understood_over_the_websocket(
    served: tuple[Server, WebView],
):
    _, view = served
    vectors = json.loads(VECTORS.read_text())["messages"]
    client = await Socket.open(view)
    client.send({"type": "hello", "protocol": [1], "name": "vectors", "id": 1})
    await client.until("welcome", id=1)
    sent = 0
    for vector in vectors:
        kind = vector["message"]["type"]
        if vector["from"] != "client" or kind in ("hello", "bye", "leave"):
            continue
        await client.ws.send_bytes(bytes.fromhex(vector["frame"])[4:])  # the body alone
        sent += 1
    client.send({"type": "ping", "id": 424242})
    codes = []
    while (message := await client.recv()) is not None:
        if message["type"] == "error":
            codes.append(message["code"])
        if message["type"] == "pong" and message.get("id") == 424242:
            break
    assert sent > 10 and not MALFORMED & set(codes), codes
    await client.close()


async def test_a_server_shutting_down_says_goodbye_over_the_websocket(
    served: tuple[Server, WebView],
):
    server, view = served
    client = await Socket.open(view)
    client.send({"type": "hello", "protocol": [1], "id": 1})
    await client.until("welcome", id=1)
    stopping = asyncio.ensure_future(server.shutdown())
    bye = await client.until("bye")
    assert "shutting down" in bye["reason"]
    assert await client.recv() is None
    await client.close()
    await stopping


async def test_hostile_frames_over_the_websocket_get_errors_and_hurt_nothing(
    served: tuple[Server, WebView],
):
    """The fuzzer's bodies that keep a connection, each as a WebSocket message: every one
    is answered or dropped, none makes the server fail, and the socket stays usable."""
    from bench.fuzz import draw_corpus

    _, view = served
    keeping, _closing = draw_corpus(150, seed=11)
    client = await Socket.open(view)
    client.send({"type": "hello", "protocol": [1], "name": "fz", "id": 1})
    await client.until("welcome", id=1)
    for body in keeping:
        await client.ws.send_bytes(body)
    client.send({"type": "ping", "id": 777})
    codes = []
    while (message := await client.recv()) is not None:
        if message["type"] == "error":
            codes.append(message["code"])
        if message["type"] == "pong" and message.get("id") == 777:
            break
    assert message is not None, "the server closed a socket that sent only keeping frames"
    assert "internal_error" not in codes and codes
    await client.close()


async def against_a_bot(player: Socket) -> dict[str, Any]:
    """Seat ``player`` (said hello) at a new table of two with a bot: its first turn."""
    player.send({"type": "create", "seats": 2, "id": 2})
    await player.until("ok", id=2)
    player.send({"type": "add_bot", "level": "greedy", "id": 3})
    turn = await player.until("turn")
    while "hand" not in turn:
        turn = await player.until("turn")
    return turn


async def test_a_hint_is_for_the_token_s_holder_on_their_own_turn(served: tuple[Server, WebView]):
    _, view = served
    ann = await Socket.open(view)
    ann.send({"type": "hello", "protocol": [1], "name": "Ann", "id": 1})
    token = (await ann.until("welcome", id=1))["token"]
    async with aiohttp.ClientSession() as http:
        url = view.address + "api/hint"
        async with http.post(url, json={"token": "not a token"}) as reply:
            assert reply.status == 404
        async with http.post(url, json={"token": token}) as reply:
            assert reply.status == 409  # at no table: no turn of hers
        turn = await against_a_bot(ann)
        async with http.post(url, json={"token": token}) as reply:
            assert reply.status == 200
            move = await reply.json()
        assert (move["round"], move["turn"]) == (turn["round"], turn["turn"])
        assert move["type"] == "declare" or move["discard"] in turn["legal"]
        async with http.post(url, json={"token": token}) as reply:
            assert await reply.json() == move  # thought out once a turn
        elsewhere = {"Origin": "http://elsewhere.example"}
        async with http.post(url, json={"token": token}, headers=elsewhere) as reply:
            assert reply.status == 403
    await ann.close()


async def test_a_typed_move_is_read_with_the_terminal_s_rules_for_the_seat(
    served: tuple[Server, WebView],
):
    """``/api/move`` reads ``7h 7d deck`` against the asking player's own hand and open
    cards, says in one line in the page's language why a line is no move, and answers
    only the token's holder on their own turn."""
    _, view = served
    ann = await Socket.open(view)
    ann.send({"type": "hello", "protocol": [1], "name": "Ann", "id": 1})
    token = (await ann.until("welcome", id=1))["token"]
    async with aiohttp.ClientSession() as http:
        url = view.address + "api/move"
        async with http.post(url, json={"token": token, "text": "declare"}) as reply:
            assert reply.status == 409  # at no table: no turn of hers
        turn = await against_a_bot(ann)
        hand, group = turn["hand"], turn["legal"][0]
        typed = " ".join(group).lower() + " deck"
        async with http.post(url, json={"token": token, "text": typed}) as reply:
            move = await reply.json()
        assert sorted(move.pop("discard")) == sorted(group)
        assert move == {
            "type": "play",
            "take": "deck",
            "round": turn["round"],
            "turn": turn["turn"],
        }
        move["discard"] = group
        ranks = {name[:-1] for name in hand + turn["open"]}
        stranger = next(name for name in BY_NAME if name[:-1] not in ranks)
        ask = {"token": token, "text": f"{stranger} deck", "lang": "fr"}
        async with http.post(url, json=ask) as reply:
            problem = (await reply.json())["problem"]
        assert problem == f"Vous n'avez pas {stranger}."  # in the page's language
        async with http.post(url, json={"token": token, "text": "d"}) as reply:
            assert (await reply.json())["type"] == "declare"
        elsewhere = {"Origin": "http://elsewhere.example"}
        async with http.post(url, json={"token": token, "text": "d"}, headers=elsewhere) as r:
            assert r.status == 403
        ann.send({**move, "id": 4})  # the move read is the move played
        played = await ann.until("played")
        assert sorted(played["discard"]) == sorted(group) and played["seat"] == turn["seat"]
    await ann.close()


def test_the_server_s_binary_messages_are_framed_as_rfc_6455_says() -> None:
    """Short, 16-bit and 64-bit lengths: each body comes back whole from its header."""
    import struct

    from leastscore.server.net.websocket import binary_messages

    bodies = [b"a" * 5, b"b" * 125, b"c" * 126, b"d" * 300, b"e" * 70_000]
    data = binary_messages([struct.pack(">I", len(b)) + b for b in bodies])
    read, at = [], 0
    while at < len(data):
        assert data[at] == 0x82  # final, binary
        size, at = data[at + 1], at + 2  # unmasked: the mask bit is 0
        if size == 126:
            (size,), at = struct.unpack_from("!H", data, at), at + 2
        elif size == 127:
            (size,), at = struct.unpack_from("!Q", data, at), at + 8
        read.append(data[at : at + size])
        at += size
    assert read == bodies
