"""The server's connection to one client: the asyncio shell of its ``Session``.

``Connection`` is what the lobby, the tables and the players send to and hear
from, whatever carries it; ``TcpConnection`` carries it over TCP and
``server.net.websocket.WebSocketConnection`` over a WebSocket. Every rule about
frames, limits and time is the session's; a shell only moves bytes, keeps one
timer, and ends its transport when the session says so.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Protocol

import msgspec
from leastscore.protocol import ProtocolError, encode, errors
from leastscore.protocol.messages import Error, Hello, Message

from .session import Session

if TYPE_CHECKING:
    from ..config import ServerConfig
    from ..lobby.lobby import Lobby
    from ..lobby.players import Player

log = logging.getLogger("leastscore.server")


LINGER_MAX = 256
"""Connections that may linger closing at once; past that, a closing one is cut at once
(a crowd of refused connections must not hold the server's sockets)."""


class Switchboard(Protocol):
    """What a connection needs of the server it belongs to: its settings and loop,
    the lobby its messages go to, and the server's count of connections (admitted,
    closing, forgotten; their writes gathered into one callback a pass). The server
    is one; a test may be another. The network's room names no server class, so the
    server, above every room, puts the rooms together and none of them holds it."""

    @property
    def config(self) -> ServerConfig: ...

    @property
    def loop(self) -> asyncio.AbstractEventLoop: ...

    @property
    def lobby(self) -> Lobby: ...

    @property
    def closing(self) -> set[Connection]:
        """Connections that said their last word and wait for the client to hang up."""

    def admit(self, conn: Connection) -> ProtocolError | None:
        """None when ``conn`` may stay (it is counted from now on); otherwise why not."""

    def forget(self, conn: Connection) -> None:
        """``conn`` is gone: no longer counted, and its player lost to the lobby."""

    def flush_soon(self, conn: Connection) -> None:
        """Have ``conn`` write what it queued at the end of this pass of the loop."""


class Connection:
    """A client's connection to the server, whichever transport carries it.

    Why a shell around a ``Session``: the session decides (frames, limits,
    timeouts, when to close), so its rules are tested on a fake clock and are
    the same on every transport; a subclass carries them out on its own
    (``flush`` writes what is queued, ``_half_close`` says the last word and
    stops sending, ``cut`` ends the transport).
    """

    def __init__(self, server: Switchboard, on_output: Callable[[], None]) -> None:
        """``on_output``: arrange a write of what is queued (called when a frame is
        queued and none was)."""
        self.server = server
        self.session = Session(server.config, server.loop.time(), on_output=on_output)
        self.send_bytes = self.session.wire.send_bytes
        """Queue a frame; what is queued until the write goes out at once."""
        self.address = "?"
        """The peer's address without its port: what limits per machine count by."""
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = math.inf

    @property
    def player(self) -> Player | None:
        return self.session.player

    @property
    def version(self) -> int | None:
        """The protocol version agreed in this connection's ``hello``."""
        return self.session.version

    @property
    def closed(self) -> bool:
        return self.session.closed

    @property
    def peer(self) -> str:
        return self.session.peer

    def _opened(self, peer: object) -> bool:
        """The transport is up, from ``peer``: counted by the server, or refused."""
        self.session.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        refusal = self.server.admit(self)
        if refusal is not None:
            self.fail(refusal)  # said, then closed: a hello already sent is no reset
            return False
        self._arm()
        log.debug("connection from %s", self.peer)
        return True

    def _gone(self) -> None:
        """The transport is gone: the server forgets the connection."""
        self.session.lost()
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.server.closing.discard(self)
        self.server.forget(self)
        log.debug("connection from %s closed", self.peer)

    # -- messages -----------------------------------------------------------------

    def _take(self, body: bytes, now: float) -> None:
        """Hand a whole frame's message, if the session takes it, to the lobby."""
        message = self.session.take(body, now)
        if message is not None:
            self._handle(message)

    def _handle(self, message: Message) -> None:
        try:
            self.server.lobby.handle(self, message)
        except ProtocolError as e:
            self.session.refuse(e)
        except Exception:
            log.exception("error handling %s from %s", type(message).__name__, self.peer)
            msg_id: int | None = getattr(message, "id", None)
            self.session.refuse(
                ProtocolError(errors.INTERNAL_ERROR, "the server failed to handle that", msg_id)
            )

    def refund(self) -> None:
        """Give back the rate-limit token of an accepted move (see ``Session.refund``)."""
        self.session.refund()

    def agree(self, hello: Hello) -> int | None:
        """The version to speak with the client that said ``hello``; None when there is
        none in common (refused, and the connection closed)."""
        version = self.session.wire.agree(hello)
        if version is None:
            self.close()
        return version

    def greeted(self, player: Player, version: int) -> None:
        """The handshake is done: this connection now speaks ``version`` for ``player``."""
        self.session.greeted(player, version, self.server.loop.time())
        self._arm()

    def welcome(self, player: Player, version: int, resumed: bool, msg_id: int | None) -> None:
        """The handshake is done (``greeted``), and said: ``welcome``."""
        self.greeted(player, version)
        self.session.wire.welcome(version, msg_id, player.id, player.token, resumed)

    # -- carrying out what the session decided ------------------------------------------

    def _after(self) -> None:
        """Carry out what the session now wants: a close, a cut, a look at the time."""
        session = self.session
        if session.to_close:
            self._half_close()
        if session.to_cut:
            self.cut()
        deadline = session.deadline
        if deadline is not None and deadline < self._timer_at:
            self._arm()

    def _arm(self) -> None:
        """See that the timer goes off by the session's deadline: one timer, set again
        only when the deadline comes sooner than the one it is set for."""
        deadline = self.session.deadline
        if deadline is None or deadline >= self._timer_at:
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self.server.loop.call_at(deadline, self._time_up)
        self._timer_at = deadline

    def _time_up(self) -> None:
        self._timer = None
        self._timer_at = math.inf
        player = self.session.player
        at_table = player is not None and player.room is not None
        self.session.time_is(self.server.loop.time(), at_table)
        self._after()

    # -- sending ----------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None:
        self.send_bytes(encode(message))

    def send_error(self, error: ProtocolError) -> None:
        self.send(Error(error.code, error.message, error.id))

    def fail(self, error: ProtocolError) -> None:
        """Send a fatal error and close."""
        self.session.fail(error)
        self._after()

    def bye(self, reason: str) -> None:
        self.session.bye(reason)
        self._after()

    def close(self) -> None:
        """Say nothing more: what is queued goes out, then the transport is closed
        (see ``_half_close``)."""
        self.session.close()
        self._after()

    def flush(self) -> None:
        """Write what is queued, in one write (the server calls this once per pass of
        the loop); a client that reads too slowly is cut past the send limit."""
        session = self.session
        wire = session.wire
        out = wire.outbox
        if not out:
            return
        wire.outbox = []  # as ``data_to_send``, without the call: a write or more a move
        transport = self._open_transport()
        if transport is None:
            return
        transport.write(self._on_the_wire(out))
        if transport.get_write_buffer_size() > self.server.config.send_limit:
            log.info("%s reads too slowly: cut off", self.peer)
            session.lost()
            transport.abort()

    def _open_transport(self) -> asyncio.Transport | None:
        """The transport to write to, None once it is closing."""
        raise NotImplementedError

    def _on_the_wire(self, frames: list[bytes]) -> bytes:
        """Queued frames as this transport carries them."""
        raise NotImplementedError

    def _half_close(self) -> None:
        """The session said its last word: send what is queued, then stop sending."""
        raise NotImplementedError

    def cut(self) -> None:
        """End a connection that is closing: now, even if the client is still sending."""
        raise NotImplementedError


class TcpConnection(Connection, asyncio.Protocol):
    """A client's connection over TCP, from its first byte to the end of its linger.

    Built on ``asyncio.Protocol`` (callbacks, no task per connection): bytes go to
    the session as they arrive, its messages are handled at once, and writes
    never wait (everything queued in one pass of the loop goes out in one write),
    so a slow reader is cut instead of stalling anyone else. A connection that
    ends on an error says why and then half-closes: the error is flushed, the
    write side is shut, and whatever the client still sends is read and dropped
    until it closes too (or the linger passes). Closing at once with the
    client's bytes unread would have the kernel reset the connection, and the
    client would often never read the error.
    """

    def __init__(self, server: Switchboard) -> None:
        # A frame queued where none was asks the server for a write at the end of
        # this pass of the loop: straight to it, as this is done for most frames sent.
        super().__init__(server, on_output=partial(server.flush_soon, self))
        self.transport: asyncio.Transport | None = None

    # -- asyncio callbacks ----------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        self._opened(transport.get_extra_info("peername"))

    def data_received(self, data: bytes) -> None:
        session = self.session
        if session.closed:
            return
        now = self.server.loop.time()
        for body in session.receive_data(data, now):
            self._take(body, now)
        self._after()

    def connection_lost(self, exc: Exception | None) -> None:
        self._gone()

    def pause_writing(self) -> None:
        # The kernel buffer is full; asyncio now queues in user space. ``flush``
        # watches that queue and cuts the connection past ``send_limit``.
        pass

    # -- the transport ---------------------------------------------------------------

    def _open_transport(self) -> asyncio.Transport | None:
        transport = self.transport
        return None if transport is None or transport.is_closing() else transport

    def _on_the_wire(self, frames: list[bytes]) -> bytes:
        return frames[0] if len(frames) == 1 else b"".join(frames)

    def _half_close(self) -> None:
        """Flush, then shut the write side; what the client still sends is dropped
        until it closes its side, or the linger passes."""
        session = self.session
        self.flush()  # what was queued (a last error, a goodbye) still goes out
        session.to_close = False
        transport = self.transport
        if transport is None or transport.is_closing():
            return
        if not transport.can_write_eof() or len(self.server.closing) >= LINGER_MAX:
            transport.close()
            return
        try:
            transport.write_eof()  # sent after the queued frames; reading goes on
        except OSError:  # the client is gone already
            transport.close()
            return
        session.half_closed(self.server.loop.time())
        self.server.closing.add(self)

    def cut(self) -> None:
        self.session.to_cut = False
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()
