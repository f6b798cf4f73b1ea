"""Every limit of a client's connection, on a fake clock: the sans-I/O ``Session``.

Times are plain numbers. No socket, no event loop, no sleeping: the session is given
bytes and the time, and says what to send, whether to close and when to look again.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from leastscore.protocol import ProtocolError, decode_server, frame
from leastscore.protocol.messages import Bye, Error, Hello, Ping, Pong
from leastscore.server.config import ServerConfig
from leastscore.server.lobby.players import Player
from leastscore.server.net.session import WARN_EVERY, Phase, Session

CONFIG = ServerConfig(
    handshake_timeout=10.0,
    frame_timeout=10.0,
    idle_timeout=300.0,
    linger=2.0,
    rate=500.0,
    burst=1000.0,
)


def body(message: dict[str, Any]) -> bytes:
    return msgspec.msgpack.encode(message)


HELLO = frame(body({"type": "hello", "protocol": [1], "id": 1}))


def ping(msg_id: int) -> bytes:
    return frame(body({"type": "ping", "id": msg_id}))


def received(session: Session, data: bytes, now: float) -> list[Any]:
    """The messages the session takes from ``data`` arriving at ``now``."""
    taken = (session.take(b, now) for b in session.receive_data(data, now))
    return [m for m in taken if m is not None]


def sent(session: Session) -> list[Any]:
    """What the session queued, decoded."""
    return [decode_server(data[4:]) for data in session.data_to_send()]


def errors_sent(session: Session) -> list[tuple[str, int | None]]:
    return [(m.code, m.id) for m in sent(session) if isinstance(m, Error)]


def greeted(now: float = 0.0, config: ServerConfig = CONFIG) -> Session:
    session = Session(config, 0.0)
    (hello,) = received(session, HELLO, now)
    assert isinstance(hello, Hello)
    session.greeted(Player("Ann", False), 1, now)
    return session


def test_no_hello_within_the_handshake_timeout_closes_with_its_error():
    session = Session(CONFIG, 100.0)
    assert session.deadline == 110.0
    session.time_is(109.9)
    assert not session.closed and not session.queued
    session.time_is(110.0)
    assert errors_sent(session) == [("handshake_timeout", None)]
    assert session.closed and session.to_close and session.phase is Phase.CLOSING


def test_a_hello_in_time_ends_the_handshake_and_starts_the_idle_watch():
    session = Session(CONFIG, 0.0)
    messages = received(session, HELLO, 3.0)
    assert [type(m) for m in messages] == [Hello]
    session.greeted(Player("Ann", False), 1, 3.0)
    assert session.phase is Phase.OPEN and session.version == 1
    assert session.deadline == 303.0
    session.time_is(10.0)  # the handshake timeout no longer applies
    assert not session.closed


def test_the_first_message_must_be_hello():
    session = Session(CONFIG, 0.0)
    assert received(session, ping(4), 1.0) == []
    assert errors_sent(session) == [("hello_required", 4)]
    assert session.closed
    unreadable = Session(CONFIG, 0.0)  # a bad message before hello: hello is what is missing
    assert received(unreadable, frame(body({"type": "nonsense", "id": 2})), 1.0) == []
    assert errors_sent(unreadable) == [("hello_required", 2)]


def test_a_frame_begun_must_be_whole_within_the_frame_timeout():
    session = greeted()
    whole = ping(5)
    assert received(session, whole[:3], 1.0) == []
    assert session.deadline == 11.0
    assert received(session, whole[3:6], 8.0) == []  # more of it: the same deadline
    assert session.deadline == 11.0
    session.time_is(10.9)
    assert not session.closed
    session.time_is(11.0)
    assert errors_sent(session) == [("frame_timeout", None)] and session.closed


def test_a_frame_completed_in_time_is_taken_and_the_next_one_begun_has_its_own_time():
    session = greeted()
    first, second = ping(5), ping(6)
    received(session, first[:3], 1.0)
    messages = received(session, first[3:] + second[:2], 9.0)
    assert [m.id for m in messages if isinstance(m, Ping)] == [5]
    assert session.deadline == 19.0  # the second frame began at 9
    assert [m.id for m in received(session, second[2:], 18.0) if isinstance(m, Ping)] == [6]
    assert session.deadline == 300.0  # no frame begun: only the idle watch
    session.time_is(19.0)
    assert not session.closed


def test_a_frame_over_the_limit_closes_with_its_error():
    session = greeted()
    assert received(session, b"\x00\x10\x00\x01" + b"\x00" * 10, 1.0) == []
    assert errors_sent(session) == [("frame_too_large", None)] and session.closed


def test_a_quiet_connection_in_the_lobby_is_closed_and_one_at_a_table_is_not():
    lobby, table = greeted(), greeted()
    for session in (lobby, table):
        received(session, ping(2), 100.0)
        session.data_to_send()
        session.time_is(300.0)  # the first look: quiet for only 200 s
        assert not session.closed
        assert session.deadline == 400.0
    lobby.time_is(400.0)
    assert errors_sent(lobby) == [("idle_timeout", None)] and lobby.closed
    table.time_is(400.0, at_table=True)
    assert not table.closed and table.deadline == 401.0  # looked at again a second later
    table.time_is(401.0, at_table=False)  # it left the table, still quiet
    assert errors_sent(table) == [("idle_timeout", None)]


def test_a_flood_is_dropped_past_the_burst_and_told_once_a_second():
    config = ServerConfig(rate=10.0, burst=5.0)
    session = greeted(config=config)  # the hello took one token
    flood = b"".join(ping(i) for i in range(100, 110))
    taken = [m.id for m in received(session, flood, 0.0) if isinstance(m, Ping)]
    assert taken == [100, 101, 102, 103]
    assert errors_sent(session) == [("rate_limited", 104)]  # the first dropped, by its id
    more = [m.id for m in received(session, ping(200), 0.5) if isinstance(m, Ping)]
    assert more == [200]  # half a second refilled five tokens
    received(session, b"".join(ping(i) for i in range(300, 310)), 0.6)
    assert errors_sent(session) == []  # dropped again within the second: not told
    received(session, b"".join(ping(i) for i in range(400, 420)), 0.6 + WARN_EVERY)
    assert [code for code, _ in errors_sent(session)] == ["rate_limited"]
    assert not session.closed


def test_an_accepted_move_gives_its_token_back():
    session = greeted(config=ServerConfig(rate=0.001, burst=2.0))  # the hello took one
    assert len(received(session, ping(1), 0.0)) == 1  # the last token
    session.refund()  # ping 1 was a move the server took
    assert [m.id for m in received(session, ping(2) + ping(3), 0.0)] == [2]  # type: ignore[attr-defined]
    assert errors_sent(session) == [("rate_limited", 3)]


def test_a_closing_connection_lingers_then_is_cut():
    session = greeted()
    session.bye("the server is shutting down")
    assert isinstance(sent(session)[0], Bye)
    assert session.to_close and session.deadline is None  # the linger starts at the shutdown
    session.half_closed(50.0)
    assert not session.to_close and session.deadline == 52.0
    assert received(session, ping(9), 51.0) == []  # read and dropped
    assert not session.queued
    session.time_is(51.9)
    assert not session.to_cut
    session.time_is(52.0)
    assert session.to_cut and session.deadline is None


def test_nothing_is_sent_or_taken_once_closed():
    session = greeted()
    session.fail(_error("bad_frame"))
    session.data_to_send()
    session.send(Pong(1))
    assert not session.queued
    session.close()  # once
    session.lost()
    assert session.phase is Phase.CLOSED and session.deadline is None
    assert received(session, ping(1), 1.0) == []


def test_the_first_frame_queued_asks_for_a_write_and_the_rest_join_it():
    writes: list[int] = []
    session = Session(CONFIG, 0.0, on_output=lambda: writes.append(1))
    session.send(Pong(1))
    session.send(Pong(2))
    assert len(writes) == 1  # one write for both
    assert [m.id for m in sent(session)] == [1, 2]
    session.send(Pong(3))
    assert len(writes) == 2
    received(session, ping(1), 1.0)  # an error the session says itself asks for one too
    assert len(writes) == 2 and errors_sent(session) == [("hello_required", 1)]


@pytest.mark.parametrize("fatal", [True, False])
def test_a_refusal_is_an_error_and_a_close_only_when_fatal(fatal: bool):
    session = greeted()
    code = "bad_frame" if fatal else "no_such_table"
    session.refuse(ProtocolError(code, "no", 7))
    assert errors_sent(session) == [(code, 7)]
    assert session.closed is fatal


def _error(code: str) -> ProtocolError:
    return ProtocolError(code, "no")
