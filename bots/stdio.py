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
import os
import select
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
        return asyncio.run(_play(bot, name or bot.name, out))
    finally:
        os.close(out)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


async def _play(bot: Bot, name: str, out: int) -> int:
    loop = asyncio.get_running_loop()

    def say(text: str) -> None:
        print(f"[{name}] {text}", file=sys.stderr, flush=True)

    def send(message: msgspec.Struct) -> None:
        try:
            _write_all(out, encode(message))
        except OSError:
            runner.stop("the host closed stdout")

    frames = FrameReader(limit=SERVER_FRAME_LIMIT)
    broken: list[str] = []

    def received(data: bytes) -> None:
        if not data:
            runner.feed(None)
            return
        try:
            bodies = frames.feed(data)
        except FrameTooLarge as e:
            broken.append(f"the host sent an oversized frame: {e}")
            runner.stop("a broken stream")
            return
        for body in bodies:
            try:
                message = decode_server(body)
            except ProtocolError as e:
                say(f"ignored a frame from the host that breaks the protocol: {e.message}")
                continue
            if message is not None:  # a type this runner does not know: ignored
                runner.feed(message)

    def read_stdin() -> None:
        while True:
            try:
                data = os.read(0, 65536)
            except OSError:
                data = b""
            with contextlib.suppress(RuntimeError):  # the loop is already closed
                loop.call_soon_threadsafe(received, data)
            if not data:
                return

    def readable() -> None:
        try:
            data = os.read(0, 65536)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            loop.remove_reader(0)
        received(data)

    def arrived() -> None:
        """Read what has arrived, without waiting."""
        if select.select([0], [], [], 0)[0]:
            readable()

    poll: Callable[[], None] | None = arrived
    try:
        loop.add_reader(0, readable)  # a pipe or a socket: read on the loop
    except (OSError, ValueError):  # a file: epoll cannot watch it
        threading.Thread(target=read_stdin, name="stdin", daemon=True).start()
        poll = None
    # A bot that is not ``heavy`` thinks right here, on the loop that reads: no thread
    # to hand each turn to and back, which is most of a move's cost over a pipe.
    threaded = poll is None or bool(getattr(bot, "heavy", False))
    runner = BotRunner(bot, send, say=say, on_error="stop", threaded=threaded, poll=poll)
    runner.hello(name, CLIENT)
    try:
        await runner.run()
    except BotFailed as e:
        say(f"stopping: {e}")
        return 1
    for why in broken:
        say(why)
    return 1 if broken else 0
