"""The host's end of one conversation (``protocol.peer.HostPeer``), in both manners.

The server's sessions and the stdio host's program seats both speak through it; these
tests give it plain bytes and read what it would send, then check that a real program
on stdio is answered by the same rules.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path
from typing import Any

import msgspec
import pytest
from leastscore.protocol import errors
from leastscore.protocol.messages import Hello, PlayMove
from leastscore.protocol.peer import SERVER, STDIO, HostPeer, Manner, Phase
from leastscore.seats.loop import run
from leastscore.seats.program import ProgramSeat


def frame(message: dict[str, Any]) -> bytes:
    body = msgspec.msgpack.encode(message)
    return struct.pack(">I", len(body)) + body


def sent(peer: HostPeer) -> list[dict[str, Any]]:
    return [msgspec.msgpack.decode(f[4:]) for f in peer.data_to_send()]


HELLO = {"type": "hello", "protocol": [1], "name": "ann", "id": 1}


def greeted(manner: Manner) -> HostPeer:
    peer = HostPeer(manner)
    (body,) = peer.receive_data(frame(HELLO))
    hello = peer.hear(body)
    assert isinstance(hello, Hello)
    version = peer.agree(hello)
    assert version == 1
    peer.welcome(version, hello.id)
    assert [m["type"] for m in sent(peer)] == ["welcome"]
    return peer


@pytest.mark.parametrize("manner", [SERVER, STDIO], ids=["server", "stdio"])
def test_a_message_before_hello_is_hello_required_and_the_end(manner: Manner) -> None:
    peer = HostPeer(manner)
    (body,) = peer.receive_data(frame({"type": "ping", "id": 4}))
    assert peer.hear(body) is None
    assert [(m["type"], m["code"], m["id"]) for m in sent(peer)] == [
        ("error", errors.HELLO_REQUIRED, 4)
    ]
    assert peer.closed and peer.phase is Phase.DONE


@pytest.mark.parametrize("manner", [SERVER, STDIO], ids=["server", "stdio"])
def test_no_common_version_is_refused_with_the_versions_spoken(manner: Manner) -> None:
    peer = HostPeer(manner)
    (body,) = peer.receive_data(frame({**HELLO, "protocol": [7]}))
    hello = peer.hear(body)
    assert isinstance(hello, Hello) and peer.agree(hello) is None
    (refusal,) = sent(peer)
    assert refusal["code"] == errors.VERSION_UNSUPPORTED and refusal["supported"] == [1]
    assert peer.closed


def test_a_second_hello_is_refused_by_the_server_and_unanswered_over_stdio() -> None:
    server, stdio = greeted(SERVER), greeted(STDIO)
    for peer in (server, stdio):
        (body,) = peer.receive_data(frame(HELLO))
        assert peer.hear(body) is None
    assert [m["code"] for m in sent(server)] == [errors.BAD_MESSAGE]
    assert sent(stdio) == [] and not stdio.closed


@pytest.mark.parametrize("manner", [SERVER, STDIO], ids=["server", "stdio"])
def test_a_move_naming_no_card_is_bad_message_and_the_talk_goes_on(manner: Manner) -> None:
    peer = greeted(manner)
    move = {"type": "play", "id": 9, "discard": ["XX"], "take": "deck"}
    (body,) = peer.receive_data(frame(move))
    message = peer.hear(body)
    assert isinstance(message, PlayMove)
    assert peer.read_move(message) is None
    assert peer.refused is not None and peer.refused.code == errors.BAD_MESSAGE
    assert [(m["code"], m["id"]) for m in sent(peer)] == [(errors.BAD_MESSAGE, 9)]
    assert not peer.closed


def test_out_of_turn_names_the_turn_to_the_server_s_clients_only() -> None:
    server, stdio = greeted(SERVER), greeted(STDIO)
    for peer in (server, stdio):
        peer.out_of_turn((2, 5), 3)
    (to_client,), (to_program,) = sent(server), sent(stdio)
    assert to_client["code"] == to_program["code"] == errors.NOT_YOUR_TURN
    assert "5" in to_client["message"] and to_program["message"] == "it is not your turn"


def test_an_oversized_length_prefix_ends_the_conversation() -> None:
    peer = HostPeer(STDIO, limit=100)
    assert peer.receive_data(struct.pack(">I", 101)) == []
    assert peer.closed and peer.last_word is not None
    assert peer.last_word.code == errors.FRAME_TOO_LARGE
    assert [m["code"] for m in sent(peer)] == [errors.FRAME_TOO_LARGE]


PIPELINED = """
import struct, sys, msgspec
def frame(m):
    body = msgspec.msgpack.encode(m)
    return struct.pack(">I", len(body)) + body
sys.stdout.buffer.write(frame({"type": "hello", "protocol": [1], "name": "quick", "id": 1})
                        + frame({"type": "ping", "id": 2}))
sys.stdout.buffer.flush()
while sys.stdin.buffer.read(1):
    pass
"""


def test_a_program_may_write_after_its_hello_without_waiting_for_the_welcome(
    tmp_path: Path,
) -> None:
    """Over stdio the hello is answered in the pass that read it, so a program that
    writes its hello and a ping at once is welcomed, then answered."""
    program = tmp_path / "quick.py"
    program.write_text(PIPELINED)
    heard: list[tuple[str, bytes]] = []

    async def talk() -> list[str]:
        seat = ProgramSeat(
            [sys.executable, str(program)], "quick", trace=lambda who, b: heard.append((who, b))
        )
        await seat.start()
        await seat.close()
        return seat.problems

    assert run(talk()) == []
    told = [msgspec.msgpack.decode(b)["type"] for who, b in heard if who == "host"]
    assert told[:2] == ["welcome", "pong"], told
