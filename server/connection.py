"""One client connection: bytes in, frames out, and every limit a bad client meets.

Built on ``asyncio.Protocol`` (callbacks, no task per connection) with the
sans-I/O ``FrameReader``: decoding and dispatch run synchronously as bytes
arrive, and writes never wait, so a slow reader is cut instead of stalling
anyone else.
"""

from __future__ import annotations

import asyncio
import logging
import math
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


LINGER_MAX = 256
"""Connections that may linger closing at once; past that, a closing one is cut at once
(a crowd of refused connections must not hold the server's sockets)."""

WARN_EVERY = 1.0
"""Seconds between two ``rate_limited`` errors: a flood is told once a second, not per message."""


class RateLimit:
    """A token bucket for one connection's messages, and how often it says so.

    A message over the limit is dropped. Only the first one dropped in each
    ``WARN_EVERY`` seconds is answered (``rate_limited``): answering every
    dropped message would make the server's replies as big as the flood.
    """

    __slots__ = ("burst", "last", "rate", "tokens", "warned")

    def __init__(self, rate: float, burst: float, now: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.last = now
        self.warned = -math.inf

    def allow(self, now: float) -> bool:
        """Take a token for a message arriving at ``now``; False if there is none."""
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True

    def refund(self) -> None:
        self.tokens = min(self.burst, self.tokens + 1)

    def warn(self, now: float) -> bool:
        """Whether a message dropped at ``now`` is answered: once per ``WARN_EVERY``."""
        if now - self.warned < WARN_EVERY:
            return False
        self.warned = now
        return True


class Connection(asyncio.Protocol):
    """One client's connection, from its first byte to the end of its linger.

    A connection that ends on an error says why and then half-closes: the
    error is flushed, the write side is shut, and whatever the client still
    sends is read and dropped until it closes too (or ``linger`` passes).
    Closing at once with the client's bytes unread would have the kernel reset
    the connection, and the client would often never read the error.
    """

    def __init__(self, server: Server) -> None:
        self.server = server
        config = server.config
        self.reader = FrameReader(config.max_frame)
        self.transport: asyncio.Transport | None = None
        self.player: Player | None = None
        self.version: int | None = None
        """The protocol version agreed in this connection's ``hello``."""
        self.peer = "?"
        self.address = "?"
        """The peer's address without its port: what limits per machine count by."""
        self.closed = False
        self.limit = RateLimit(config.rate, config.burst, server.loop.time())
        self._handshake: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._linger: asyncio.TimerHandle | None = None
        self._partial: asyncio.TimerHandle | None = None
        """The deadline of a frame begun and not yet whole."""
        self.last_seen = 0.0
        self._out: list[bytes] = []

    # -- asyncio callbacks ----------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]  # uvloop's is not a subclass
        peer = transport.get_extra_info("peername")
        self.peer = f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) else str(peer)
        self.address = str(peer[0]) if isinstance(peer, tuple) else str(peer)
        loop = self.server.loop
        self.limit.last = self.last_seen = loop.time()
        refusal = self.server.admit(self)
        if refusal is not None:
            self.fail(refusal)  # said, then half-closed: a hello already sent is no reset
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
        if self._partial is not None:
            if frames:  # the frame it watched is whole: watch the next one begun, if any
                self._watch_partial_frame()
        elif self.reader.pending:
            self._watch_partial_frame()
        if not frames:
            return
        now = self.server.loop.time()
        self.last_seen = now
        limit = self.limit
        for body in frames:
            if self.closed:
                return
            if limit.allow(now):
                self._frame(body)
            elif limit.warn(now):
                self._refuse(body)

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        self._cancel_timers()
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        self.server.closing.discard(self)
        self.server.forget(self)
        log.debug("connection from %s closed", self.peer)

    def pause_writing(self) -> None:
        # The kernel buffer is full; asyncio now queues in user space. ``send``
        # watches that queue and cuts the connection past ``send_limit``.
        pass

    # -- frames -----------------------------------------------------------------

    def _frame(self, body: bytes) -> None:
        try:
            message = decode_client(body)
        except ProtocolError as e:
            if self.player is None and not e.fatal and e.kind != "hello":
                e = ProtocolError(errors.HELLO_REQUIRED, "the first message must be hello", e.id)
            self.fail(e) if e.fatal else self.send_error(e)
            return
        msg_id: int | None = getattr(message, "id", None)
        if self.player is None and not isinstance(message, Hello):
            self.fail(
                ProtocolError(errors.HELLO_REQUIRED, "the first message must be hello", msg_id)
            )
            return
        try:
            self.server.lobby.handle(self, message)
        except ProtocolError as e:
            self.fail(e) if e.fatal else self.send_error(e)
        except Exception:
            log.exception("error handling %s from %s", type(message).__name__, self.peer)
            self.send_error(
                ProtocolError(errors.INTERNAL_ERROR, "the server failed to handle that", msg_id)
            )

    def _refuse(self, body: bytes) -> None:
        """Say ``rate_limited`` for a dropped message, with its ``id`` when it has one."""
        try:
            msg_id = getattr(decode_client(body), "id", None)
        except ProtocolError as e:
            msg_id = e.id
        self.send(
            Error(
                errors.RATE_LIMITED,
                f"too many messages: this one and any more in the next {WARN_EVERY:g} s "
                "are dropped unanswered",
                msg_id,
            )
        )

    def refund(self) -> None:
        """Give back the rate-limit token of a message that did useful work (an accepted
        move): the limit is for floods, and a fast bot at a fast table is not one."""
        self.limit.refund()

    def greeted(self, player: Player, version: int) -> None:
        """The handshake is done: this connection now speaks ``version`` for ``player``."""
        self.player = player
        self.version = version
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

    def bye(self, reason: str) -> None:
        self.send(Bye(reason))
        self.close()

    def close(self) -> None:
        """Flush, then half-close: shut the write side and drop what the client still
        sends until it closes its side, or ``linger`` seconds pass."""
        if self.closed:
            return
        self.flush()  # what was queued (a last error, a goodbye) still goes out
        self.closed = True
        self._cancel_timers()
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
        self._linger = self.server.loop.call_later(self.server.config.linger, self.cut)
        self.server.closing.add(self)

    def cut(self) -> None:
        """End a connection that is closing: now, even if the client is still sending."""
        if self._linger is not None:
            self._linger.cancel()
            self._linger = None
        if self.transport is not None and not self.transport.is_closing():
            self.transport.close()

    def _cancel_timers(self) -> None:
        for timer in (self._handshake, self._idle, self._partial):
            if timer is not None:
                timer.cancel()
        self._handshake = self._idle = self._partial = None
