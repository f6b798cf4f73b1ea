"""The SDK's plain stdio loop (a plain bot on a pipe, no event loop) waits for its
input even on a stdin someone else made non-blocking."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

from leastscore.protocol import FrameReader, decode_client, encode
from leastscore.protocol.convert import program_welcome
from leastscore.protocol.messages import Bye, Hello

from ..support.server import wait_for

SDK_BOTS = str(Path(__file__).parent.parent / "programs" / "sdk_bots.py")


def state_of(pid: int) -> str:
    """The process's scheduler state: R running, S asleep (waiting for input), ..."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


async def test_a_plain_bot_on_a_non_blocking_stdin_sleeps_until_it_is_written_to() -> None:
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    command = [sys.executable, "-m", "leastscore", "bot", "run", f"{SDK_BOTS}:Watcher", "--stdio"]
    bot = subprocess.Popen(command, stdin=read_end, stdout=subprocess.PIPE)
    os.close(read_end)
    try:
        assert bot.stdout is not None
        frames = FrameReader()
        hello: list[bytes] = []
        while not hello:
            hello = frames.feed(os.read(bot.stdout.fileno(), 65536))
        os.write(write_end, encode(program_welcome(1, "test", 1)))
        # Waiting for the next frame, it sleeps (a loop that does not wait never does).
        await wait_for(lambda: state_of(bot.pid) == "S")
        os.write(write_end, encode(Bye("that is all")))
        assert await asyncio.to_thread(bot.wait, 60) == 0
        assert isinstance(decode_client(hello[0]), Hello)
    finally:
        os.close(write_end)
        if bot.poll() is None:
            bot.kill()
            bot.wait()
