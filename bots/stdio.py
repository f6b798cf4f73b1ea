"""A bot on stdin/stdout: the program side of what ``ProgramSeat`` hosts.

Only frames go to the real stdout. Before the bot runs, file descriptor 1 is
pointed at stderr (and the frames get a private copy of the old one), so a
``print`` in the bot, or a library writing to fd 1, lands on stderr instead of
breaking the stream. A bot that raises ends the program with status 1: the
host counts a crash and starts it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import os
import select
import stat
import sys
import threading
from collections.abc import Callable

import msgspec
from leastscore.protocol import (
    SERVER_FRAME_LIMIT,
    FrameReader,
    FrameTooLarge,
    ProtocolError,
    decode_server,
    encode,
)
from leastscore.protocol.codec import may_hold_ext
from leastscore.seats.loop import run

from leastscore.about import VERSION

from .base import Bot
from .runner import BotFailed, BotRunner

CLIENT = f"leastscore-sdk/{VERSION} (stdio)"


def claim_stdout() -> int:
    """Keep fd 1 for frames (returns a copy of it) and send everything else to stderr."""
    sys.stdout.flush()
    frames = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return frames


def run_stdio(bot: Bot, name: str | None = None) -> int:
    """Play on stdin/stdout until the host says bye or closes stdin; the exit status."""
    out = claim_stdout()
    try:
        player = StdioPlayer(bot, name or bot.name, out)
        if player.runner is not None:
            return player.play_here()
        return run(player.play_on_loop())
    finally:
        os.close(out)


def _write_all(fd: int, data: bytes) -> None:
    written = os.write(fd, data)  # a frame goes whole into a pipe with room: the usual case
    if written < len(data):
        view = memoryview(data)[written:]
        while view:
            view = view[os.write(fd, view) :]


def _watchable(fd: int) -> bool:
    """Whether ``select`` tells when ``fd`` has something to read (a pipe or a socket,
    not a file, which always reads as ready)."""
    return stat.S_ISFIFO(os.fstat(fd).st_mode) or stat.S_ISSOCK(os.fstat(fd).st_mode)


class StdioPlayer:
    """The program's loop: frames in from fd 0, to the runner, its answers out on fd ``out``.

    A bot whose ``choose`` is plain (not ``heavy``, not a coroutine) and a stdin that
    ``select`` can watch get no event loop at all: each read brings every frame
    waiting in the pipe, the runner handles them in order and the bot chooses right
    there, and the answer goes out in one write. That leaves the cost of a move over
    a pipe to the pipe. Anything else plays on an event loop, the bot thinking on a
    thread of its own when it is ``heavy`` or when stdin is a file."""

    def __init__(self, bot: Bot, name: str, out: int) -> None:
        self.bot, self.name, self.out = bot, name, out
        self.frames = FrameReader(limit=SERVER_FRAME_LIMIT)
        self.broken: list[str] = []
        here = (
            _watchable(0)
            and not getattr(bot, "heavy", False)
            and not inspect.iscoroutinefunction(bot.choose)
        )
        self.runner: BotRunner | None = self._runner(threaded=False) if here else None

    def _runner(self, threaded: bool, poll: Callable[[], None] | None = None) -> BotRunner:
        return BotRunner(
            self.bot,
            self.send,
            say=self.say,
            on_error="stop",
            threaded=threaded,
            poll=self.arrived if poll is None and not threaded else poll,
        )

    def say(self, text: str) -> None:
        print(f"[{self.name}] {text}", file=sys.stderr, flush=True)

    def send(self, message: msgspec.Struct) -> None:
        try:
            _write_all(self.out, encode(message))
        except OSError:
            assert self._active is not None
            self._active.stop("the host closed stdout")

    _active: BotRunner | None = None

    def received(self, data: bytes) -> None:
        runner = self._active
        assert runner is not None
        if not data:
            runner.feed(None)
            return
        # One look at what was read says whether any frame cut from it alone may hold
        # an extension type (most reads: none), instead of one look at each frame.
        plain = not self.frames.pending and not may_hold_ext(data)
        try:
            bodies = self.frames.feed(data)
        except FrameTooLarge as e:
            self.broken.append(f"the host sent an oversized frame: {e}")
            runner.stop("a broken stream")
            return
        messages = []
        for body in bodies:
            try:
                message = decode_server(body, plain=plain)
            except ProtocolError as e:
                self.say(f"ignored a frame from the host that breaks the protocol: {e.message}")
                continue
            if message is not None:  # a type this runner does not know: ignored
                messages.append(message)
        if messages:
            runner.feed_all(messages)

    def readable(self) -> bool | None:
        """Read what is there and hand it on: False at the end of the stream, None
        when nothing was there after all (a stdin made non-blocking), else True."""
        try:
            data = os.read(0, 65536)
        except BlockingIOError:
            return None
        except OSError:
            data = b""
        self.received(data)
        return bool(data)

    def arrived(self) -> None:
        """Read what has arrived, without waiting."""
        if select.select([0], [], [], 0)[0]:
            self.readable()

    def _end(self, why: str | None) -> int:
        for broken in self.broken:
            self.say(broken)
        return 1 if self.broken else 0

    def play_here(self) -> int:
        """The loop of a plain bot on a pipe: block in read, handle, answer, again."""
        runner = self._active = self.runner
        assert runner is not None
        runner.hello(self.name, CLIENT)
        try:
            while runner.handle_arrived() is None:
                if self.readable() is None:
                    select.select([0], [], [])  # a read does not wait: wait here
        except BotFailed as e:
            self.say(f"stopping: {e}")
            return 1
        return self._end(runner.finished)

    async def play_on_loop(self) -> int:
        loop = asyncio.get_running_loop()

        def read_stdin() -> None:
            while True:
                try:
                    data = os.read(0, 65536)
                except OSError:
                    data = b""
                with contextlib.suppress(RuntimeError):  # the loop is already closed
                    loop.call_soon_threadsafe(self.received, data)
                if not data:
                    return

        def readable() -> None:
            if self.readable() is False:
                loop.remove_reader(0)

        poll: Callable[[], None] | None = self.arrived
        try:
            loop.add_reader(0, readable)  # a pipe or a socket: read on the loop
        except (OSError, ValueError):  # a file: epoll cannot watch it
            threading.Thread(target=read_stdin, name="stdin", daemon=True).start()
            poll = None
        # On a pipe, a bot that is not ``heavy`` thinks right here, on the loop that reads.
        threaded = poll is None or bool(getattr(self.bot, "heavy", False))
        runner = self._active = self._runner(threaded, poll)
        runner.hello(self.name, CLIENT)
        try:
            why = await runner.run()
        except BotFailed as e:
            self.say(f"stopping: {e}")
            return 1
        return self._end(why)
