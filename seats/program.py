"""A seat played by an external program that speaks protocol v1 on stdin/stdout.

The program is a client like any other: it says ``hello``, gets ``welcome``,
then receives the same events and ``turn`` messages it would get over TCP and
answers with ``play``/``declare``. The program stays alive across matches; if
it dies or writes garbage it is killed, counted, and started again (with a
``state`` snapshot to catch up) the next time it has to move.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import shlex
import tempfile
from collections.abc import Awaitable, Callable, Sequence
from functools import partial
from typing import IO

import leastscore.protocol as wire
import msgspec
from leastscore.game import Event, IllegalMove, MatchStarted, Move, View
from leastscore.protocol import ProtocolError, encode, errors
from leastscore.protocol.convert import program_snapshot, stamp_of, turn_for
from leastscore.protocol.messages import (
    Bye,
    DeclareMove,
    Error,
    Hello,
    Message,
    Ok,
    Ping,
    PlayMove,
    Pong,
)
from leastscore.protocol.peer import STDIO, HostPeer

from .core import TooLate
from .sandbox import Containment, Jail, Usage, spawn
from .seat import (
    Crashed,
    DidNotStart,
    GarbledOutput,
    MoveSlot,
    OverLimit,
    ProtocolViolation,
    SeatFailed,
)

log = logging.getLogger("leastscore.program")

WRITE_LIMIT = 1 << 20
"""Bytes waiting in a program's stdin before it counts as not reading (a fault)."""
GATHER_TIME = 0.005
"""Seconds frames for a program may wait to be written together with the next ones.

A write wakes the program; gathering the frames of other players' moves and
writing them with the next turn wakes it once per turn instead of once per frame,
which is most of the cost of a move over a pipe. A program asked to move gets
everything at once, without waiting."""
GATHER_LIMIT = 1 << 16


class ProgramSeat:
    """A seat played by an external program over stdin and stdout (PROTOCOL.md, stdio).

    Why it is the largest seat: a program is a stranger's process. It is started
    contained, given its hello, snapshot and turns as frames, and everything it may
    do wrong is caught here and turned into a fault the referee can judge: it does
    not start or say hello in time, it crashes (and is started again with a
    snapshot), it writes garbled or oversized frames, it floods its output, it
    outlives its match. Its stderr goes where the caller says, never to the host's.
    """

    def __init__(
        self,
        command: str | Sequence[str],
        name: str = "",
        *,
        startup_time: float = 10.0,
        stderr: IO[bytes] | int | None = asyncio.subprocess.DEVNULL,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        trace: Callable[[str, bytes], None] | None = None,
        containment: Containment | None = None,
        exit_time: float = 1.0,
    ) -> None:
        """``trace`` hears every frame body, both ways: ("host", body) for a frame
        written to the program, ("program", body) for one it wrote."""
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        self.name = name or os.path.basename(self.argv[0])
        self.startup_time = startup_time
        self._stderr = stderr
        self._cwd = cwd
        self._env = env
        self._trace = trace
        self.containment = containment or Containment(mode="none")
        self.usage = Usage()
        """Its faults by kind (limits gone over) and CPU seconds, over all its starts."""
        self.proc: asyncio.subprocess.Process | None = None
        self._jail: Jail | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self._asking: asyncio.Task[Move] | None = None
        """A move asked through ``choose`` for a caller that listens (``listen``)."""
        self._output: _ProgramOutput | None = None
        """Who hears the running program's output (a new one for each start)."""
        self._hello: asyncio.Future[Hello] | None = None
        self._peer = HostPeer(STDIO)
        """The host's end of the conversation with the running program (one a start)."""
        self.slot = MoveSlot()
        self._restart: asyncio.Future[None] | None = None
        self._fresh = False
        """Started but told nothing yet: it needs a ``state`` snapshot before it moves."""
        self._outbox_size = 0
        self._gathering: asyncio.TimerHandle | None = None
        self.failure: str | None = None
        self.failure_kind: type[SeatFailed] = Crashed
        """How the last failure came about (``SeatFailed``'s subclasses)."""
        """Why the running program was given up, if it was."""
        self.starts = 0
        self.problems: list[str] = []
        """Everything that went wrong, in plain words (for reports and ``bot check``)."""
        self.hello: Hello | None = None
        """The program's last ``hello``: its name, its client string, its versions."""
        self.version: int | None = None
        """The protocol version agreed with the running program."""
        self.exit_time = exit_time
        """Seconds a program has to exit after ``bye`` and a closed stdin before it is killed."""
        self.lingered = False
        """The last goodbye had to kill the program: it outstayed ``exit_time``."""
        self._leaving = False
        """Told ``bye``: a clean exit from now on is no failure."""

    # -- the process ----------------------------------------------------------------

    @property
    def alive(self) -> bool:
        return self.proc is not None and self.proc.returncode is None and self.failure is None

    async def start(self) -> None:
        """Start the program and complete its handshake, or raise ``SeatFailed``."""
        await self.close(quick=True)
        self.failure = None
        self.failure_kind = Crashed
        self._leaving = False
        self.starts += 1
        # Nothing but the welcome until it is asked to move (then it gets a snapshot),
        # or a new match starts: no frame before the welcome, no turn twice.
        self._fresh = True
        self._peer = HostPeer(STDIO, on_output=self._gather)
        self._hello = asyncio.get_running_loop().create_future()
        self._reader_task = None
        output = self._output = _ProgramOutput(self)
        try:
            self._jail = await spawn(
                self.containment,
                self.argv,
                self.usage,
                cwd=self._cwd,
                env=self._env,
                stderr=self._stderr,
                output=output,
            )
            self.proc = self._jail.proc
            output.started(self.proc)
        except OSError as e:
            raise self._fail(
                f"cannot start {self.argv[0]}: {e.strerror or e}", DidNotStart
            ) from None
        try:
            hello = await asyncio.wait_for(asyncio.shield(self._hello), self.startup_time)
        except TimeoutError:
            raise self._fail(
                f"no hello within {self.startup_time:g} s of starting", DidNotStart
            ) from None
        except Crashed as e:  # it ended before its hello: it did not start
            self.failure_kind = DidNotStart
            raise DidNotStart(str(e)) from None
        self.hello = hello
        self.version = self._peer.version
        self._flush()  # the welcome, or the refusal as its last word
        if self.version is None:
            spoken = ", ".join(map(str, wire.SUPPORTED))  # read now: a test may change it
            raise self._fail(f"speaks protocol {hello.protocol}, not {spoken}", DidNotStart)

    def _fail(self, why: str, kind: type[SeatFailed] = Crashed) -> SeatFailed:
        """Give up on the running program: kill it and remember why, and how (``kind``)."""
        if self.failure is None:
            self.failure = why
            self.failure_kind = kind
            self.problems.append(why)
            log.info("%s: %s", self.name, why)
        if self.proc is not None and self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.kill()
        if self._hello is not None and not self._hello.done():
            self._hello.set_exception(kind(why))
            self._hello.exception()  # seen: no one may be waiting any more (a timeout)
        self.slot.fail(kind(why))
        return kind(f"{self.name}: {why}")

    def _over(self, code: int | None = None) -> str | None:
        """Why it is ended when it went over a limit (each counted once), else None."""
        jail = self._jail
        if jail is None:
            return None
        jail.check(code)
        if not jail.kinds:
            return None
        return f"went over its {' and '.join(sorted(jail.kinds))} limit"

    def police(self) -> None:
        """Between matches: end it if it went over a limit that did not end it yet
        (a fork refused, memory reclaimed), and bring its CPU time up to date."""
        if self._jail is None:
            return
        self._jail.cpu_seconds()
        over = self._over()
        if over is not None and self.alive:
            self._fail(over, OverLimit)

    def worn(self) -> bool:
        """Whether the running start has used half of a limit that counts over a start
        (CPU seconds, stderr): a long-lived program is best started afresh between
        matches than ended at the limit in the middle of one."""
        jail = self._jail
        if jail is None or self.containment.mode == "none":
            return False
        limits = self.containment.limits
        half_stderr = limits.stderr_kb * 512
        return jail.stderr_bytes >= half_stderr or jail.cpu_seconds() >= limits.cpu_seconds / 2

    @property
    def cpu_seconds(self) -> float:
        """CPU seconds over all its starts, the running one included."""
        running = self._jail.cpu_seconds() if self._jail is not None else 0.0
        return self.usage.cpu_seconds + running

    async def _ended(self, proc: asyncio.subprocess.Process) -> None:
        """Its output closed: count how it ended once it has exited."""
        code = await proc.wait()
        if self.proc is proc:
            over = self._over(code)
            if over is None and code == 0 and self._leaving:
                return  # it left when told ``bye``: as it should
            if over is not None:
                self._fail(over, OverLimit)
            else:
                self._fail(f"exited with code {code}" if code else "closed its output")

    def _handle(self, message: Message) -> None:
        """A message the peer heard (it took care of what comes before the welcome)."""
        if isinstance(message, Hello):  # the first: answered in the pass that read it
            version = self._peer.agree(message)
            if version is not None:
                self._peer.welcome(version, message.id)
            if self._hello is not None and not self._hello.done():
                self._hello.set_result(message)
        elif isinstance(message, PlayMove | DeclareMove):
            move = self._peer.read_move(message)
            if move is None:  # no card: refused, and the seat's turn fails
                why = self._peer.refused.message if self._peer.refused else "bad move"
                self.problems.append(why)
                self.slot.fail(ProtocolViolation(why))
            elif not self.slot.offer(move, message.id, stamp_of(message)):
                self.problems.append("moved when it was not its turn")
                self._peer.out_of_turn(stamp_of(message), message.id)
        elif isinstance(message, Ping):
            self._write(Pong(message.id))
        else:
            kind = type(message).__name__
            self._write(Error(errors.NOT_ALLOWED, f"{kind} means nothing over stdio", None))

    def _write(self, message: msgspec.Struct) -> None:
        self._write_bytes(encode(message))

    def _write_bytes(self, data: bytes) -> None:
        if self.failure is not None or self.proc is None:
            return  # (one whose process ended unnoticed is written nothing at the flush)
        self._peer.send_bytes(data)
        self._outbox_size += len(data)
        if self._outbox_size > GATHER_LIMIT:
            self._flush()

    def _gather(self) -> None:
        """A frame is queued where none was: write it with those that follow it soon."""
        if self._gathering is None:
            self._gathering = asyncio.get_running_loop().call_later(GATHER_TIME, self._gathered)

    def _gathered(self) -> None:
        """The gathering time is up: write what waits (often nothing: it went with a turn)."""
        self._gathering = None
        self._flush()

    def _flush(self) -> None:
        """Write the gathered frames now.

        A gathering timer still running is left to run out rather than cancelled:
        frames that come after this wait a little less than ``GATHER_TIME``, and
        the moves of a match share one timer every ``GATHER_TIME`` instead of
        starting and cancelling one each."""
        outbox = self._peer.data_to_send()
        if not outbox:
            return
        data = b"".join(outbox)
        self._outbox_size = 0
        if self._trace is not None and self.alive:
            for frame in outbox:
                self._trace("host", frame[4:])
        proc = self.proc
        if proc is None or proc.stdin is None or not self.alive:
            return
        try:
            proc.stdin.write(data)
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            self._fail("stopped reading its input")
            return
        transport = proc.stdin.transport
        if transport.get_write_buffer_size() > WRITE_LIMIT:
            self._fail("does not read its input")

    def _drop_outbox(self) -> None:
        self._peer.data_to_send()
        self._outbox_size = 0
        if self._gathering is not None:
            self._gathering.cancel()
            self._gathering = None

    async def ready(self) -> bool:
        """Have the program running before a match, off any move's clock.

        Finishes a restart under way (after a failure already counted when it
        was asked to move), or starts the program if it is not running. True
        when it was found dead with no restart under way: a failure nobody has
        counted yet. Raises ``SeatFailed`` if it cannot be started.
        """
        uncounted = self.starts > 0 and not self.alive and self._restart is None
        with contextlib.suppress(SeatFailed):
            await self._restarted()
        if not self.alive:
            await self.start()
        return uncounted

    async def close(self, quick: bool = False) -> None:
        """Say goodbye and stop the program (killed if it lingers)."""
        if self._restart is not None and not quick:
            with contextlib.suppress(Exception):
                await self._restart
            self._restart = None
        proc = self.proc
        if proc is None:
            return
        if proc.returncode is None and not quick:
            self._leaving = True
            self._write(Bye("the match is over"))
            self._flush()
            if proc.stdin is not None:
                with contextlib.suppress(Exception):
                    proc.stdin.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), self.exit_time)
            self.lingered = proc.returncode is None
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            await proc.wait()
        if self._jail is not None:
            await self._jail.end()
            self._jail = None
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader_task
        self.proc = None
        self._output = None  # what it still writes counts for nothing
        self._reader_task = None
        self._drop_outbox()

    # -- the seat interface -------------------------------------------------------------

    def send(self, events: Sequence[Event]) -> None:
        if self._fresh:
            welcomed = self._peer.version is not None
            if not (welcomed and events and isinstance(events[0], MatchStarted)):
                return
            self._fresh = False  # it will see the match from its start
        for event in events:
            self._write(event)

    def send_turn(self, mover: int, time_limit: float, view: Callable[[], View]) -> None:
        mine = view()
        if mover == mine.seat:
            self.slot.open((mine.round, mine.turn))
        else:
            self.slot.close()
        if not self._fresh:  # a fresh program gets a snapshot and its turn when asked
            self._write(turn_for(mine, int(time_limit * 1000), mover))

    def choose(self, view: View, time_limit: float) -> Awaitable[Move]:
        """The move as a coroutine (``bot check``); a match's driver uses ``listen``."""
        return self._choose(view, time_limit)

    def listen(
        self,
        view: View,
        time_limit: float,
        moved: Callable[[Move], None],
        failed: Callable[[SeatFailed], None],
    ) -> None:
        """The usual move answers by calling back (``AnswersLater``): the program's
        answer is judged in the pass that read it. A program being started afresh, or
        not yet told of the match, is asked through ``choose`` and called back when
        that is done."""
        if self._restart is None and not self._fresh and self.alive:
            self.slot.listen(moved, partial(self._lost_while_asked, failed))
            self._flush()
            return
        asking = self._asking = asyncio.ensure_future(self._choose(view, time_limit))
        asking.add_done_callback(partial(self._chosen, moved, failed))

    def unlisten(self) -> None:
        self.slot.unlisten()
        asking, self._asking = self._asking, None
        if asking is not None:
            asking.cancel()

    def _chosen(
        self,
        moved: Callable[[Move], None],
        failed: Callable[[SeatFailed], None],
        asking: asyncio.Task[Move],
    ) -> None:
        if asking is not self._asking or asking.cancelled():
            return
        self._asking = None
        error = asking.exception()
        if error is None:
            moved(asking.result())
        else:
            if not isinstance(error, SeatFailed):  # this host's fault: said, and the seat lost
                asking.get_loop().call_exception_handler(
                    {"message": f"asking {self.name} for a move failed", "exception": error}
                )
                error = Crashed(f"{self.name}: {error}")
            failed(error)

    def _lost_while_asked(self, failed: Callable[[SeatFailed], None], error: SeatFailed) -> None:
        self._died_while_asked()
        failed(error)

    def _died_while_asked(self) -> None:
        if not self.alive and self._restart is None:
            # It died while asked (counted now): have a fresh one ready next time.
            self._restart = asyncio.ensure_future(self.start())

    async def _choose(self, view: View, time_limit: float) -> Move:
        try:
            await self._restarted()
        except SeatFailed:
            # The restart failed, which counts again: try once more for next time.
            self._restart = asyncio.ensure_future(self.start())
            raise
        if not self.alive:
            if self.starts:
                # It died since it last moved: count it, and have a fresh one ready next time.
                why = self.failure or "stopped"
                self._restart = asyncio.ensure_future(self.start())
                raise self.failure_kind(f"{self.name}: {why}")
            await self.start()
        if self._fresh:
            self._fresh = False
            self._write(program_snapshot(view, int(time_limit * 1000)))
            self.slot.open((view.round, view.turn))
            self._write(turn_for(view, int(time_limit * 1000), view.to_move))
        taking = self.slot.take()
        self._flush()
        try:
            return await taking
        except SeatFailed:
            self._died_while_asked()
            raise

    async def _restarted(self) -> None:
        """Wait for a restart under way; one that outlasts a move goes on for the next."""
        restart = self._restart
        if restart is None:
            return
        try:
            await asyncio.shield(restart)
        finally:
            if restart.done() and self._restart is restart:
                self._restart = None

    def verdict(self, error: IllegalMove | None) -> None:
        if error is None:
            self.slot.close()
            self._write(Ok(id=self.slot.move_id))
        else:
            if isinstance(error, TooLate):
                self.slot.close()
                self.problems.append("moved when it was not its turn")
            else:
                self.problems.append(f"illegal move: {error.reason}")
            self._write(Error(error.code, error.reason, self.slot.move_id))


async def greet(
    command: str | Sequence[str],
    *,
    cwd: str | None = None,
    env: dict[str, str] | None = None,
    startup_time: float = 10.0,
    containment: Containment | None = None,
) -> str | None:
    """Start the program, complete its handshake (``hello``, ``welcome``) and say
    ``bye``: None when it answered, else why not, with its last lines on stderr."""
    with tempfile.TemporaryFile() as stderr:
        program = ProgramSeat(
            command,
            startup_time=startup_time,
            stderr=stderr,
            cwd=cwd,
            env=env,
            containment=containment,
        )
        try:
            await program.start()
            why = None
        except SeatFailed:
            why = program.failure or "it did not start"
        finally:
            await program.close()
        if why is None:
            return None
        stderr.seek(0)
        words = last_lines(stderr.read(), GREETING_LINES)
    if not words:
        return f"{why} (nothing on stderr)"
    return why + "; its last lines on stderr:\n" + "\n".join(f"  {w}".rstrip() for w in words)


GREETING_LINES = 20
"""Lines of stderr shown for a program that failed its greeting: enough for the
message above a stack trace (node's is 17 lines for a missing package)."""


def last_lines(data: bytes, lines: int = 12) -> list[str]:
    """The last lines a program wrote on stderr (of its last 8 KiB), as text."""
    text = data[-8192:].decode("utf-8", "replace")
    return text.rstrip().splitlines()[-lines:]


class _ProgramOutput:
    """What a program writes, heard in the callback that read it (``sandbox.Output``).

    A stream reader's task would cost a future and a pass of the loop per answer
    before the move even reached the driver: the bytes are cut into frames and
    handled here, in the pass that read them. One per start of the program: what a
    program started before writes counts for nothing.
    """

    def __init__(self, seat: ProgramSeat) -> None:
        self.seat = seat
        self.proc: asyncio.subprocess.Process | None = None
        """The process, once started (its output may come before ``spawn`` returns)."""
        self._deaf = False
        """It broke the stream: not listened to, and its end counts for nothing more."""
        self._closed = False

    def _heard(self) -> bool:
        return not self._deaf and self.seat._output is self

    def _stop(self, why: str, kind: type[SeatFailed]) -> None:
        self._deaf = True
        self.seat._fail(why, kind)

    def received(self, data: bytes) -> None:
        if not self._heard():
            return
        seat = self.seat
        peer = seat._peer
        bodies = peer.receive_data(data)
        if peer.last_word is not None and peer.last_word.code == errors.FRAME_TOO_LARGE:
            if seat._jail is not None:
                seat._jail.count("output")
            self._stop(f"sent an oversized frame ({peer.last_word.message})", GarbledOutput)
            return
        for body in bodies:
            if seat._trace is not None:
                seat._trace("program", body)
            message = peer.hear(body)
            if message is not None:
                seat._handle(message)
            elif peer.refused is not None and self._refused(peer.refused):
                return

    def _refused(self, e: ProtocolError) -> bool:
        """What the peer refused (its answer queued): a fault noted, or the end of the
        program when the error is fatal (True: nothing more is heard)."""
        if e.fatal:
            kind = GarbledOutput if e.code == errors.BAD_FRAME else ProtocolViolation
            self._stop(f"broke the protocol: {e.code}: {e.message}", kind)
            return True
        self.seat.problems.append(f"{e.code}: {e.message}")
        return False

    def started(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc
        if self._closed:  # its output closed before ``spawn`` returned
            self.ended(None)

    def ended(self, error: BaseException | None) -> None:
        self._closed = True
        seat, proc = self.seat, self.proc
        if self._heard() and proc is not None and seat._reader_task is None:
            seat._reader_task = asyncio.get_running_loop().create_task(seat._ended(proc))
