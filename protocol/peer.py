"""The host's end of one conversation with a player: bytes in, messages and refusals
out, and the frames to send back. No socket, no process, no clock.

A server talks with each client (over TCP or a WebSocket) and a tournament host with
each program it runs on stdio; both are the host's end of the same conversation, and
``HostPeer`` is it, once: the frames of a byte stream, the hello that must come first,
the version both sides speak and the ``welcome``, a move read from the wire, a move
out of turn refused, and the outbox of frames to send, each refusal with the code and
the words PROTOCOL.md gives it. ``SeatTurn`` is the turn a seat is to answer, as its
player was told. The shells (``server.net.session``, ``seats.program``) move the bytes and
the time in and out, and decide what a refusal costs their player.

Never: opens a socket, starts a process, reads a clock, or imports anything but the
game and the protocol.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

import msgspec
from leastscore.game import Move, View

from leastscore.about import VERSION as RELEASE

from . import errors, negotiate, version_refusal
from .codec import decode_client, encode
from .convert import move_from_wire, turn_for
from .errors import ProtocolError
from .framing import MAX_FRAME, FrameReader, FrameTooLarge
from .messages import DeclareMove, Error, Hello, Message, PlayMove, Turn, Welcome

SERVER_NAME = f"leastscore {RELEASE}"
"""What a host says it is in its ``welcome``."""


@dataclass(frozen=True, slots=True)
class Manner:
    """Where the server and the stdio host answer a player differently: the only
    differences there are, named, so that everything else is one rule for both."""

    strict_hello: bool
    """Before the first ``welcome``, a frame that breaks the schema (and is no
    ``hello``) is ``hello_required``, closed; otherwise it is refused as itself and a
    ``hello`` is still awaited. (A well-formed message that is no ``hello`` is
    ``hello_required`` either way.)"""
    hello_once: bool
    """A second ``hello`` is refused (``bad_message``); otherwise it goes unanswered."""
    turn_named: bool
    """A move out of turn that names its turn is told which turn it named."""


SERVER = Manner(strict_hello=True, hello_once=True, turn_named=True)
"""The server's manner with its clients (PROTOCOL.md, Versions)."""
STDIO = Manner(strict_hello=False, hello_once=False, turn_named=False)
"""The stdio host's manner with the program it runs (PROTOCOL.md, Stdio programs)."""


class Phase(enum.Enum):
    GREETING = "greeting"
    """No ``hello`` welcomed yet: only a ``hello`` is taken."""
    TALKING = "talking"
    """Welcomed: the conversation speaks ``version``."""
    DONE = "done"
    """Its last word said (an error after which the host closes, a goodbye): nothing
    more is heard or queued; what is queued still goes out."""


def hello_required(msg_id: int | None) -> ProtocolError:
    return ProtocolError(errors.HELLO_REQUIRED, "the first message must be hello", msg_id)


def not_your_turn(stamp: tuple[int, int] | None, msg_id: int | None, named: bool = True) -> Error:
    """The refusal of a move from a seat that is not to move (or that answered already,
    or that names another turn than the one being played)."""
    if stamp is None or not named:
        return Error(errors.NOT_YOUR_TURN, "it is not your turn", msg_id)
    return Error(
        errors.NOT_YOUR_TURN,
        f"it is not your turn (round {stamp[0]}, turn {stamp[1]} is not the one being played)",
        msg_id,
    )


class HostPeer:
    """The host's end of one conversation with a player, as a state machine.

    Why it exists: the server's ``Session`` and the stdio host's ``ProgramSeat``
    each had their own hello, version negotiation, move reading, out-of-turn refusal
    and outbox, and kept them alike by hand; one object that is given bytes or
    messages and answers with what to send and what happened holds both to the same
    rules (and their few named differences, ``Manner``), tested with plain values.

    Fed ``receive_data`` (a byte stream; a transport of whole frames checks them with
    ``fits``) and each body to ``hear``, which gives the message to act on, or None
    when there is none (a refusal queued, in ``refused``). A ``hello`` is answered with
    ``agree`` and then ``welcome``; a move is read with ``read_move`` and, when its
    seat is not to move, refused with ``out_of_turn``. ``data_to_send`` takes what is
    queued. Once ``closed`` (``last_word`` says why, if an error did) nothing more is
    heard or queued.
    """

    __slots__ = (
        "closed",
        "last_word",
        "limit",
        "manner",
        "on_output",
        "outbox",
        "phase",
        "reader",
        "refused",
        "server",
        "version",
    )

    def __init__(
        self,
        manner: Manner = SERVER,
        *,
        limit: int = MAX_FRAME,
        server: str = SERVER_NAME,
        on_output: Callable[[], None] | None = None,
    ) -> None:
        """``limit``: the largest frame body taken; ``on_output``: called when a frame is
        queued where none was (the shell arranges a write)."""
        self.manner = manner
        self.server = server
        self.on_output = on_output
        self.limit = limit
        self.reader = FrameReader(limit)
        self.phase = Phase.GREETING
        self.version: int | None = None
        """The protocol version agreed, once welcomed."""
        self.outbox: list[bytes] = []
        """Frames to send, each with its length prefix (``data_to_send`` takes them)."""
        self.closed = False
        """The last word is said: nothing more is heard or queued."""
        self.last_word: ProtocolError | None = None
        """The error the conversation ended on, when one did."""
        self.refused: ProtocolError | None = None
        """What the last ``hear`` or ``read_move`` refused, if it refused."""

    # -- what arrives --------------------------------------------------------------------

    def receive_data(self, data: bytes) -> list[bytes]:
        """Bytes of a stream: the bodies of the frames they complete, each for ``hear``.
        A length prefix over the limit ends the conversation (``frame_too_large``)."""
        if self.closed:
            return []
        try:
            return self.reader.feed(data)
        except FrameTooLarge as e:
            self.fail(ProtocolError(errors.FRAME_TOO_LARGE, str(e)))
            return []

    @property
    def pending(self) -> int:
        """Bytes received that are not yet a whole frame."""
        return self.reader.pending

    def fits(self, body: bytes) -> bool:
        """Whether a whole frame from a transport that frames messages itself (a
        WebSocket) is within the limit; one that is not ends the conversation."""
        limit = self.limit
        if len(body) <= limit:
            return True
        self.fail(ProtocolError(errors.FRAME_TOO_LARGE, str(FrameTooLarge(len(body), limit))))
        return False

    def hear(self, body: bytes) -> Message | None:
        """A whole frame's body: its message to act on, or None when there is none to
        act on (refused, and the refusal queued; or a second ``hello`` not answered)."""
        self.refused = None
        if self.closed:
            return None
        try:
            message = decode_client(body)
        except ProtocolError as e:
            greeting = self.phase is Phase.GREETING and self.manner.strict_hello
            if greeting and not e.fatal and e.kind != "hello":
                e = hello_required(e.id)
            self.refuse(e)
            return None
        if self.phase is Phase.TALKING:
            if type(message) is Hello:
                if self.manner.hello_once:
                    self.refuse(
                        ProtocolError(
                            errors.BAD_MESSAGE, "hello was already said", message.id, "hello"
                        )
                    )
                return None
            return message
        if type(message) is Hello:
            return message
        msg_id: int | None = getattr(message, "id", None)
        self.refuse(hello_required(msg_id))
        return None

    # -- the handshake -------------------------------------------------------------------

    def agree(self, hello: Hello) -> int | None:
        """The version to speak with the player who said ``hello``: the highest both
        speak. None when there is none: ``version_unsupported`` is queued, the last word."""
        version = negotiate(hello.protocol)
        if version is None:
            refusal = version_refusal(hello.protocol, hello.id)
            self.send(refusal)
            self.close(ProtocolError(refusal.code, refusal.message, hello.id))
        return version

    def greeted(self, version: int) -> None:
        """The handshake is done: the conversation speaks ``version`` from now on."""
        self.version = version
        if self.phase is Phase.GREETING:
            self.phase = Phase.TALKING

    def welcome(
        self,
        version: int,
        msg_id: int | None,
        player: str = "stdio",
        token: str = "",
        resumed: bool = False,
    ) -> None:
        """Say ``welcome`` (a stdio program's has no player and no token) and speak
        ``version`` from now on."""
        self.greeted(version)
        self.send(Welcome(version, self.server, player, token, resumed, msg_id))

    # -- moves ------------------------------------------------------------------------------

    def read_move(self, message: PlayMove | DeclareMove) -> Move | None:
        """The game move of a wire move; None when it names what is no card
        (``bad_message`` queued, and in ``refused``)."""
        self.refused = None
        try:
            return move_from_wire(message)
        except ProtocolError as e:
            self.refuse(e)
            return None

    def out_of_turn(self, stamp: tuple[int, int] | None, msg_id: int | None) -> None:
        """Refuse a move its seat may not make now (``not_your_turn``)."""
        self.send(not_your_turn(stamp, msg_id, self.manner.turn_named))

    # -- what goes out ------------------------------------------------------------------------

    def send(self, message: msgspec.Struct) -> None:
        self.send_bytes(encode(message))

    def send_bytes(self, data: bytes) -> None:
        """Queue a frame (with its length prefix); dropped once closed."""
        if self.closed:
            return
        out = self.outbox
        out.append(data)
        if len(out) == 1 and self.on_output is not None:
            self.on_output()

    def data_to_send(self) -> list[bytes]:
        """The frames queued, in order (each with its length prefix), taken out."""
        out, self.outbox = self.outbox, []
        return out

    def refuse(self, error: ProtocolError) -> None:
        """Answer a message refused: its error, and the end when the error is fatal."""
        self.refused = error
        if error.fatal:
            self.fail(error)
        else:
            self.send(Error(error.code, error.message, error.id))

    def fail(self, error: ProtocolError) -> None:
        """Say a fatal error, the last word."""
        self.send(Error(error.code, error.message, error.id))
        self.close(error)

    def close(self, why: ProtocolError | None = None) -> None:
        """Say nothing more (what is queued still goes out)."""
        if self.closed:
            return
        self.closed = True
        self.phase = Phase.DONE
        self.last_word = why

    def drop(self) -> None:
        """The other end is gone: nothing queued goes out, nothing more is said."""
        self.close()
        self.outbox = []
        self.on_output = None


class SeatTurn:
    """The turn a seat is to answer, as its player was told: whether one is open,
    which (round, turn) it is, and so whether a move that arrives may be taken.

    One per seat, not per conversation: a seat outlives a connection (a player who
    resumes answers the turn the last connection was told of), and a program keeps
    its seat across its restarts. ``seats.seat.MoveSlot`` adds where the move waits.
    """

    __slots__ = ("_open", "_stamp")

    def __init__(self) -> None:
        self._open = False
        self._stamp: tuple[int, int] | None = None

    @property
    def is_open(self) -> bool:
        return self._open

    @property
    def stamp(self) -> tuple[int, int] | None:
        """The (round, turn) of the turn announced last, if it named one."""
        return self._stamp

    def open(self, stamp: tuple[int, int] | None = None) -> None:
        """A turn for this seat was announced; ``stamp`` is its (round, turn)."""
        self._open = True
        self._stamp = stamp

    def close(self) -> None:
        """The turn is over (the move was accepted, or another seat is to move)."""
        self._open = False

    def expect(self, stamp: tuple[int, int]) -> None:
        """The seat is asked for the move of turn ``stamp``: open for it unless it is
        open for it already. A seat handed back to its player in the middle of a turn
        was not told of that turn while a bot held it."""
        if not self._open or self._stamp != stamp:
            self.open(stamp)

    def names_another(self, stamp: tuple[int, int] | None) -> bool:
        """Whether a move naming ``stamp`` answers another turn than the one announced
        (a late answer must never land on a later turn)."""
        return stamp is not None and stamp != self._stamp

    def announce(self, view: View, time_ms: int, mover: int) -> Turn:
        """Someone is to move, as ``view``'s seat is told: open for the seat's own turn,
        closed for anyone else's; the ``turn`` message to tell it with."""
        if mover == view.seat:
            self.open((view.round, view.turn))
        else:
            self.close()
        return turn_for(view, time_ms, mover)


__all__ = [
    "SERVER",
    "SERVER_NAME",
    "STDIO",
    "HostPeer",
    "Manner",
    "Phase",
    "SeatTurn",
    "hello_required",
    "not_your_turn",
]
