"""The server's end of one client, as a state machine: no socket, no timer, no loop.

A ``Session`` is given what arrives (bytes of a stream, or whole frames) and the
time, and keeps what follows: the client's messages to handle, in order; the
frames to send; whether to close, and when to look at it again. What is said on
the wire (frames, the hello first, the welcome, refusals, the outbox) is the
conversation's, ``protocol.peer.HostPeer``, the same as a stdio host's; the session
adds the server's limits in time and rate. Its asyncio shell over TCP is
``server.net.connection.TcpConnection``; another transport (a WebSocket, whose
messages are whole frames) is another shell over the same session, with the same
limits and errors.
"""

from __future__ import annotations

import enum
import logging
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec
from leastscore.protocol import ProtocolError, decode_client, errors
from leastscore.protocol.messages import Bye, Error, Message
from leastscore.protocol.peer import SERVER, HostPeer

from ..config import ServerConfig

if TYPE_CHECKING:
    from ..lobby.players import Player

log = logging.getLogger("leastscore.server")

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


class Phase(enum.Enum):
    GREETING = "greeting"
    """No ``hello`` yet: only one is taken, within the handshake timeout."""
    OPEN = "open"
    CLOSING = "closing"
    """Its last word said (an error, a goodbye): what the client still sends is
    dropped until it hangs up or the linger time passes."""
    CLOSED = "closed"


class Session:
    """One client's connection to the server, from its first byte to its last.

    Why a state machine with no I/O: every limit a bad client meets (a
    handshake that never comes, a frame begun and never finished, silence in
    the lobby, a flood of messages, a client that will not hang up) is a rule
    about time, and here each is tested with plain numbers for a clock; and the
    same rules hold whatever carries the bytes. What is said to the client, and
    what it may say when, is its conversation's (``wire``, a ``HostPeer``).

    The shell feeds it ``receive_data`` (a byte stream, cut into frame bodies
    here; a transport of whole frames skips it) and hands each body to ``take``,
    handing the message to the lobby before taking the next; calls ``time_is``
    once ``deadline`` comes; writes ``data_to_send``; and, when ``to_close`` or
    ``to_cut`` says so, half-closes (then ``half_closed``) or ends the transport.
    """

    def __init__(
        self, config: ServerConfig, now: float, on_output: Callable[[], None] | None = None
    ) -> None:
        """``on_output``: called when a frame is queued and none was: the shell arranges
        a write (and everything queued until it happens goes out at once)."""
        self.config = config
        self.wire = HostPeer(SERVER, limit=config.max_frame, on_output=on_output)
        """The conversation: frames, the hello, refusals, the outbox."""
        self.limit = RateLimit(config.rate, config.burst, now)
        self.phase = Phase.GREETING
        self.player: Player | None = None
        self.peer = "?"
        """Who is at the other end, for the log."""
        self.opened = now
        self.last_seen = now
        """When the last whole frame came."""
        self._frame_begun: float | None = None
        """When the frame now arriving began, while one is not yet whole."""
        self._idle_check: float | None = None
        """When to look whether a greeted client has been quiet too long."""
        self._linger_until: float | None = None
        self.to_close = False
        """The session said its last word: flush, then half-close the transport."""
        self.to_cut = False
        """The linger is over: end the transport now."""
        self.closed = False
        """Closing or closed: nothing more is taken from the client, nor sent to it."""
        self.deadline: float | None = now + config.handshake_timeout
        """When ``time_is`` must next be called (None: not until something else happens)."""

    @property
    def version(self) -> int | None:
        """The protocol version agreed in this connection's ``hello``."""
        return self.wire.version

    @property
    def queued(self) -> list[bytes]:
        """Frames to send, each with its length prefix (``data_to_send`` takes them)."""
        return self.wire.outbox

    # -- what arrives -------------------------------------------------------------

    def receive_data(self, data: bytes, now: float) -> list[bytes]:
        """Bytes of a stream transport: the bodies of the frames they complete, to hand
        to ``take`` one at a time."""
        if self.closed:
            return []
        wire = self.wire
        bodies = wire.receive_data(data)
        if wire.closed:
            self._said_last_word()
            return []
        if wire.pending:
            if bodies or self._frame_begun is None:  # a new frame begun: it has its own time
                self._frame_begun = now
                self._update_deadline()
        elif self._frame_begun is not None:
            self._frame_begun = None
            self._update_deadline()
        return bodies

    def receive_frame(self, body: bytes, now: float) -> Message | None:
        """A whole frame from a transport that frames messages itself (a WebSocket):
        its message, as ``take`` gives it, after the same size limit as a stream's."""
        if self.closed:
            return None
        if not self.wire.fits(body):
            self._said_last_word()
            return None
        return self.take(body, now)

    def take(self, body: bytes, now: float) -> Message | None:
        """A whole frame's body (from ``receive_data``, or a transport of whole frames):
        its message to handle, or None when it was dropped or refused (said so in
        ``data_to_send``). Each is handled before the next is taken: a ``hello``
        handled changes what the next may be."""
        if self.closed:
            return None
        self.last_seen = now
        limit = self.limit
        if limit.allow(now):
            wire = self.wire
            message = wire.hear(body)
            if wire.closed:
                self._said_last_word()
            return message
        if limit.warn(now):
            self._refuse(body)
        return None

    def _said_last_word(self) -> None:
        """The conversation ended itself on a fatal error (said already): close."""
        error = self.wire.last_word
        if error is not None:
            log.info("closing %s: %s (%s)", self.peer, error.code, error.message)
        self.close()

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

    def greeted(self, player: Player, version: int, now: float) -> None:
        """The handshake is done: the session now speaks ``version`` for ``player``."""
        self.player = player
        self.wire.greeted(version)
        if self.phase is Phase.GREETING:
            self.phase = Phase.OPEN
        self._idle_check = now + self.config.idle_timeout
        self._update_deadline()

    def refund(self) -> None:
        """Give back the rate-limit token of a message that did useful work (an accepted
        move): the limit is for floods, and a fast bot at a fast table is not one."""
        self.limit.refund()

    # -- the time ---------------------------------------------------------------------

    def _update_deadline(self) -> None:
        if self.phase is Phase.CLOSED:
            self.deadline = None
            return
        if self.phase is Phase.CLOSING:
            self.deadline = self._linger_until
            return
        when = math.inf
        if self.phase is Phase.GREETING:
            when = self.opened + self.config.handshake_timeout
        elif self._idle_check is not None:
            when = self._idle_check
        if self._frame_begun is not None:
            when = min(when, self._frame_begun + self.config.frame_timeout)
        self.deadline = when

    def time_is(self, now: float, at_table: bool = False) -> None:
        """The time is ``now``: a limit may have run out. ``at_table``: the player sits
        or watches at a table, where a quiet connection is no idle one."""
        self._look(now, at_table)
        self._update_deadline()

    def _look(self, now: float, at_table: bool) -> None:
        config = self.config
        if self.phase is Phase.CLOSING:
            if self._linger_until is not None and now >= self._linger_until:
                self._linger_until = None
                self.to_cut = True
            return
        if self.phase is Phase.CLOSED:
            return
        if self._frame_begun is not None and now >= self._frame_begun + config.frame_timeout:
            timeout = config.frame_timeout
            self.fail(
                ProtocolError(errors.FRAME_TIMEOUT, f"a frame begun was not whole in {timeout:g} s")
            )
        elif self.phase is Phase.GREETING:
            if now >= self.opened + config.handshake_timeout:
                limit = config.handshake_timeout
                self.fail(ProtocolError(errors.HANDSHAKE_TIMEOUT, f"no hello within {limit:g} s"))
        elif self._idle_check is not None and now >= self._idle_check:
            timeout = config.idle_timeout
            quiet = now - self.last_seen
            if quiet >= timeout and not at_table:
                self.fail(ProtocolError(errors.IDLE_TIMEOUT, f"nothing received for {timeout:g} s"))
            else:
                self._idle_check = now + max(1.0, timeout - quiet)

    # -- what goes out -------------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None:
        self.wire.send(message)

    def send_bytes(self, data: bytes) -> None:
        """Queue a frame (with its length prefix); dropped once closed."""
        self.wire.send_bytes(data)

    @property
    def pending(self) -> bool:
        """Frames are queued to be sent."""
        return bool(self.wire.outbox)

    def data_to_send(self) -> list[bytes]:
        """The frames queued, in order (each with its length prefix), taken out."""
        return self.wire.data_to_send()

    def refuse(self, error: ProtocolError) -> None:
        """Answer a message the server refused: an error, and a close if it is fatal."""
        if error.fatal:
            self.fail(error)
        else:
            self.wire.refuse(error)

    def fail(self, error: ProtocolError) -> None:
        """Send a fatal error and close."""
        log.info("closing %s: %s (%s)", self.peer, error.code, error.message)
        self.wire.fail(error)
        self.close()

    def bye(self, reason: str) -> None:
        self.send(Bye(reason))
        self.close()

    def close(self) -> None:
        """Say nothing more: what is queued goes out, then the transport half-closes
        (``to_close``) and what the client still sends is dropped for a while."""
        if self.closed:
            return
        self.phase = Phase.CLOSING
        self.closed = True
        self.wire.close()
        self._frame_begun = self._idle_check = None
        self.to_close = True
        self._update_deadline()

    def half_closed(self, now: float) -> None:
        """The shell shut the write side at ``now``: the linger runs from here."""
        self.to_close = False
        if self.phase is Phase.CLOSING:
            self._linger_until = now + self.config.linger
            self._update_deadline()

    def lost(self) -> None:
        """The transport is gone (the client hung up, or the shell ended it)."""
        self.phase = Phase.CLOSED
        self.closed = True
        self.wire.drop()  # nothing more goes out (and the shell is free to go)
        self.to_close = self.to_cut = False
        self._linger_until = self._frame_begun = self._idle_check = None
        self.deadline = None
