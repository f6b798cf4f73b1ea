"""One client connection: bytes in, frames out, and every limit a bad client meets.

Built on ``asyncio.Protocol`` (callbacks, no task per connection) with the
sans-I/O ``FrameReader``: decoding and dispatch run synchronously as bytes
arrive, and writes never wait, so a slow reader is cut instead of stalling
anyone else.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

import msgspec
from leastscore.protocol import (
    FrameReader,
    FrameTooLarge,
    ProtocolError,
    decode_client,
    encode,
    errors,
)
from leastscore.protocol.messages import Bye, Error, Hello

if TYPE_CHECKING:
    from .app import Server
    from .players import Player

log = logging.getLogger("leastscore.server")

TURN_AWAY_LINGER = 1.0
"""Seconds a refused connection waits for its client to close after reading the error."""
TURN_AWAY_MAX = 256
"""Refused connections that may wait so at once; past that, they are closed at once."""


class Connection(asyncio.Protocol):
    def __init__(self, server: Server) -> None:
        self.server = server
        config = server.config
        self.reader = FrameReader(config.max_frame)
        self.transport: asyncio.Transport | None = None
        self.player: Player | None = None
        self.peer = "?"
        self.address = "?"
        """The peer's address without its port: what limits per machine count by."""
        self.closed = False
        self._tokens = config.burst
        self._rate = config.rate
        self._burst = config.burst
        self._last = 0.0
        self._handshake: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._partial: asyncio.TimerHandle | None = None
        """The deadline of a frame begun and not yet whole."""
        self._linger: asyncio.TimerHandle | None = None
        self.last_seen = 0.0
        self._out: list[bytes] = []

    # -- asyncio callbacks ----------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        loop = self.server.loop
        self._last = self.last_seen = loop.time()
        refusal = self.server.admit(self)
        if refusal is not None:
            self.turn_away(refusal)
            return
        self._handshake = loop.call_later(self.server.config.handshake_timeout, self._no_hello)
        log.debug("connection from %s", self.peer)

    def data_received(self, data: bytes) -> None:
        if self.closed:
            return
        try:
            frames = self.reader.feed(data)
        except FrameTooLarge as e:
            self.fail(ProtocolError(errors.FRAME_TOO_LARGE, str(e)))
            return
        if frames or self._partial is None:
            self._watch_partial_frame()
        if not frames:
            return
        now = self.server.loop.time()
        self.last_seen = now
        for body in frames:
            if self.closed:
                return
            self._tokens = min(self._burst, self._tokens + (now - self._last) * self._rate)
            self._last = now
            self._tokens -= 1
            self._frame(body, limited=self._tokens < 0)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if self._linger is not None:
            self.server.turned_away -= 1
        self._cancel_timers()
        self.server.forget(self)
        log.debug("connection from %s closed", self.peer)

    def pause_writing(self) -> None:
        # The kernel buffer is full; asyncio now queues in user space. ``send``
        # watches that queue and cuts the connection past ``send_limit``.
        pass

    # -- frames -----------------------------------------------------------------

    def _frame(self, body: bytes, limited: bool) -> None:
        try:
            message = decode_client(body)
        except ProtocolError as e:
            if self.player is None and not e.fatal and e.kind != "hello":
                e = ProtocolError(errors.HELLO_REQUIRED, "the first message must be hello")
            self.fail(e) if e.fatal else self.send_error(e)
            return
        if limited:
            self._tokens += 1  # a refused message costs nothing more
            msg_id = getattr(message, "id", None)
            self.send(Error(errors.RATE_LIMITED, "too many messages: slow down", msg_id))
            return
        if self.player is None and not isinstance(message, Hello):
            self.fail(ProtocolError(errors.HELLO_REQUIRED, "the first message must be hello"))
            return
        try:
            self.server.lobby.handle(self, message)
        except ProtocolError as e:
            self.fail(e) if e.fatal else self.send_error(e)
        except Exception:
            log.exception("error handling %s from %s", type(message).__name__, self.peer)
            self.send_error(ProtocolError(errors.BAD_MESSAGE, "the server could not handle that"))

    def refund(self) -> None:
        """Give back the rate-limit token of a message that did useful work (an accepted
        move): the limit is for floods, and a fast bot at a fast table is not one."""
        self._tokens = min(self._burst, self._tokens + 1)

    def greeted(self, player: Player) -> None:
        """The handshake is done: this connection now speaks for ``player``."""
        self.player = player
        if self._handshake:
            self._handshake.cancel()
            self._handshake = None
        self._arm_idle()

    def _arm_idle(self) -> None:
        timeout = self.server.config.idle_timeout
        self._idle = self.server.loop.call_later(timeout, self._check_idle)

    def _check_idle(self) -> None:
        if self.closed:
            return
        timeout = self.server.config.idle_timeout
        quiet = self.server.loop.time() - self.last_seen
        at_table = self.player is not None and self.player.table is not None
        if quiet >= timeout and not at_table:
            self.fail(ProtocolError(errors.IDLE_TIMEOUT, f"nothing received for {timeout:g} s"))
            return
        self._idle = self.server.loop.call_later(max(1.0, timeout - quiet), self._check_idle)

    def _watch_partial_frame(self) -> None:
        """Give the frame now begun (if any) ``frame_timeout`` seconds to be whole."""
        if self._partial is not None:
            self._partial.cancel()
            self._partial = None
        if self.reader.pending:
            timeout = self.server.config.frame_timeout
            self._partial = self.server.loop.call_later(timeout, self._frame_late, timeout)

    def _frame_late(self, timeout: float) -> None:
        self._partial = None
        if not self.closed:
            self.fail(
                ProtocolError(errors.FRAME_TIMEOUT, f"a frame begun was not whole in {timeout:g} s")
            )

    def _no_hello(self) -> None:
        self._handshake = None
        if self.player is None and not self.closed:
            limit = self.server.config.handshake_timeout
            self.fail(ProtocolError(errors.HANDSHAKE_TIMEOUT, f"no hello within {limit:g} s"))

    # -- sending ----------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None:
        self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> None:
        """Queue a frame; everything queued in one pass of the loop goes out in one write."""
        if self.closed:
            return
        if not self._out:
            self.server.flush_soon(self)
        self._out.append(data)

    def flush(self) -> None:
        """Write what is queued (the server calls this once per pass of the loop)."""
        transport = self.transport
        out, self._out = self._out, []
        if self.closed or transport is None or transport.is_closing():
            return
        transport.write(out[0] if len(out) == 1 else b"".join(out))
        if transport.get_write_buffer_size() > self.server.config.send_limit:
            log.info("%s reads too slowly: cut off", self.peer)
            self.closed = True
            transport.abort()

    def send_error(self, error: ProtocolError) -> None:
        self.send(Error(error.code, error.message, error.id))

    def fail(self, error: ProtocolError) -> None:
        """Send a fatal error and close."""
        log.info("closing %s: %s (%s)", self.peer, error.code, error.message)
        self.send_error(error)
        self.close()

    def turn_away(self, error: ProtocolError) -> None:
        """Refuse the connection with ``error``. Its client may have sent its hello already,
        and closing with that unread would reset the connection, so the error goes out,
        the sending side is shut, and whatever comes is dropped until the client closes."""
        log.info("turning %s away: %s (%s)", self.peer, error.code, error.message)
        self.send_error(error)
        transport = self.transport
        if transport is None or self.server.turned_away >= TURN_AWAY_MAX:
            self.close()
            return
        self.flush()
        self.closed = True
        if transport.can_write_eof():
            transport.write_eof()
        self.server.turned_away += 1
        self._linger = self.server.loop.call_later(TURN_AWAY_LINGER, transport.close)

    def bye(self, reason: str) -> None:
        self.send(Bye(reason))
        self.close()

    def close(self) -> None:
        if self.closed:
            return
        self.flush()  # what was queued (a last error, a goodbye) still goes out
        self.closed = True
        self._cancel_timers()
        if self.transport is not None:
            self.transport.close()

    def _cancel_timers(self) -> None:
        for timer in (self._handshake, self._idle, self._partial, self._linger):
            if timer is not None:
                timer.cancel()
        self._handshake = self._idle = self._partial = None
