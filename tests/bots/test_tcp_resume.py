"""A TCP bot that resumes answers the snapshot that came with its welcome.

A scripted host on 127.0.0.1 writes each connection's welcome and its ``state``
snapshot in one write, so they arrive in one read: the runner has the snapshot
(and the bot its turn) before the reconnect that brought it has returned.
"""

from __future__ import annotations

import asyncio

import msgspec
from leastscore.bots.sdk import Bot, BotView, Move
from leastscore.bots.tcp import TableChoice, play_over_tcp
from leastscore.game import Match, Rules
from leastscore.protocol import FrameReader, decode_client, encode
from leastscore.protocol.convert import match_state
from leastscore.protocol.messages import (
    Bye,
    Hello,
    PlayMove,
    SeatInfo,
    State,
    TableInfo,
    Welcome,
)

TOKEN = "far-token-0123456789"


class AtOnce(Bot):
    """Answers within the same step of the loop: nothing to wait for, not even a thread."""

    name = "at-once"

    async def choose(self, view: BotView) -> Move:  # type: ignore[override]
        return view.legal_plays()[0]


def snapshot() -> State:
    match = Match(["host", "far"], Rules(threshold=20), seed=1)
    match.start()
    me = match.to_move
    players = [SeatInfo(0, "host", "bot"), SeatInfo(1, "far", "bot")]
    table = TableInfo("t1", "hall", 2, players, 0, True, False, {})
    return State(table, you=me, match=match_state(match.view(me), 60_000))


async def test_the_snapshot_that_comes_with_the_welcome_is_answered_on_the_new_line() -> None:
    state = snapshot()
    moves: list[tuple[int, msgspec.Struct]] = []
    lines = 0

    async def host(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal lines
        lines += 1
        line = lines
        frames = FrameReader()
        pending: list[msgspec.Struct] = []

        async def receive() -> msgspec.Struct:
            while not pending:
                data = await reader.read(65536)
                if not data:
                    raise ConnectionError("the bot hung up")
                pending.extend(decode_client(body) for body in frames.feed(data))
            return pending.pop(0)

        try:
            hello = await receive()
            assert isinstance(hello, Hello) and hello.token == TOKEN
            welcome = Welcome(1, "scripted", "p1", TOKEN, line > 1, hello.id)
            writer.write(encode(welcome) + encode(state))  # one write, one read
            move = await asyncio.wait_for(receive(), 30)
            moves.append((line, move))
            if line > 1:
                writer.write(encode(Bye("that was all")))
                await writer.drain()
        finally:
            writer.close()  # on the first line: the move is lost with the connection

    server = await asyncio.start_server(host, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        code = await asyncio.wait_for(
            play_over_tcp(AtOnce(), "127.0.0.1", port, TableChoice(token=TOKEN), matches=None),
            60,
        )
    finally:
        server.close()
        await server.wait_closed()
    assert [line for line, _ in moves] == [1, 2], moves  # asked again, answered again
    assert all(isinstance(m, PlayMove) for _, m in moves)
    assert moves[0][1] == msgspec.structs.replace(moves[1][1], id=moves[0][1].id)  # type: ignore[attr-defined]
    assert code == 0
