"""A bare echo server with the game server's framing: the ceiling ``bench.server`` compares to.

    python -m bench.echo [--no-uvloop]

Prints ``listening on 127.0.0.1:PORT`` like ``leastscore serve``.
"""

from __future__ import annotations

import asyncio
import sys

from leastscore.protocol import FrameReader, frame
from leastscore.seats.loop import run


class Echo(asyncio.Protocol):
    def __init__(self) -> None:
        self.frames = FrameReader()
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        assert self.transport is not None
        for body in self.frames.feed(data):
            self.transport.write(frame(body))


async def serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Echo, "127.0.0.1", 0, backlog=1024)
    print(f"listening on 127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.Event().wait()


def main() -> None:
    run(serve(), fast="--no-uvloop" not in sys.argv)


if __name__ == "__main__":
    main()
