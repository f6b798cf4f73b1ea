"""Protocol v1 over a WebSocket, on the web port: one binary message, one frame.

A browser cannot open a TCP connection, but it can open a WebSocket: so the
server speaks the same protocol on ``/play`` of its web port, each binary
message carrying one frame's body (the MessagePack map, without the 4-byte
length a TCP frame starts with). Same messages, limits, rate limits and errors:
the same ``Session`` decides, behind a second shell.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web
from leastscore.protocol import ProtocolError, errors

from .connection import Connection

if TYPE_CHECKING:
    from .app import Server

log = logging.getLogger("leastscore.server")

BIGGEST_MESSAGE = 4
"""Times the frame limit a WebSocket message may have before the WebSocket itself
refuses it (close code 1009); up to there, the protocol's ``frame_too_large`` says so."""


class WebSocketConnection(Connection):
    """A client's connection over a WebSocket: what a browser at a table, or any
    program that would rather, plays through.

    Reading is a loop over the socket's messages, each handed to the session
    whole; writing is a task of its own that sends what the session queued as
    soon as it is woken (a WebSocket write may wait for the client to read: the
    backlog is counted, and past the server's send limit the client is cut as a
    slow reader is over TCP). A last word (an error, a goodbye) is sent and then
    the WebSocket is closed, with the linger as the time the client has to answer
    the close.
    """

    def __init__(self, server: Server, ws: web.WebSocketResponse, request: web.Request) -> None:
        super().__init__(server, on_output=self._wake)
        self.ws = ws
        self.request = request
        self._ready = asyncio.Event()
        self._closing = False
        self._backlog = 0
        """Bytes queued and not yet handed to the WebSocket."""
        session_send = self.session.send_bytes

        def send_bytes(data: bytes) -> None:
            session_send(data)
            self._backlog += len(data)
            if self._backlog > server.config.send_limit and not self.closed:
                log.info("%s reads too slowly: cut off", self.peer)
                self.session.lost()
                self.cut()

        self.send_bytes = send_bytes

    async def run(self) -> None:
        """Read and write until the client or the server closes."""
        writer = asyncio.ensure_future(self._write())
        try:
            if self._opened((self.request.remote or "?", 0)):
                await self._read()
        finally:
            writer.cancel()
            self._gone()

    async def _read(self) -> None:
        async for message in self.ws:
            if message.type is WSMsgType.BINARY:
                self._frame(message.data)
            elif message.type is WSMsgType.TEXT:
                self.fail(
                    ProtocolError(
                        errors.BAD_FRAME, "a frame is a binary WebSocket message, not a text one"
                    )
                )
            else:
                break

    def _frame(self, body: bytes) -> None:
        session = self.session
        if session.closed:
            return  # read and dropped, as a closing TCP connection's input is
        now = self.server.loop.time()
        message = session.receive_frame(body, now)
        if message is not None:
            self._handle(message)
        self._after()

    def _wake(self) -> None:
        self._ready.set()

    async def _write(self) -> None:
        session, ws = self.session, self.ws
        while True:
            await self._ready.wait()
            self._ready.clear()
            while session.queued:
                out = session.data_to_send()
                self._backlog = 0
                for data in out:
                    await ws.send_bytes(data[4:])  # the WebSocket frames it
            if self._closing:
                await ws.close(code=WSCloseCode.OK)
                return

    def flush(self) -> None:
        self._ready.set()

    def _half_close(self) -> None:
        self.session.to_close = False
        self._closing = True
        self._ready.set()

    def cut(self) -> None:
        self.session.to_cut = False
        transport = self.request.transport
        if transport is not None and not transport.is_closing():
            transport.close()


def same_origin(request: web.Request) -> bool:
    """Whether a page may drive this WebSocket: no ``Origin`` (a program, not a
    browser), or one naming the host the request was sent to. A page of another
    site must not be able to play, chat or join from a visitor's browser."""
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and parts.netloc.lower() == request.host.lower()


async def play_socket(server: Server, request: web.Request) -> web.StreamResponse:
    """``GET /play``: a protocol v1 connection over a WebSocket."""
    if not same_origin(request):
        log.info(
            "refused a WebSocket from %s: origin %s", request.remote, request.headers["Origin"]
        )
        raise web.HTTPForbidden(text="this server plays only with its own pages")
    config = server.config
    ws = web.WebSocketResponse(
        heartbeat=30, timeout=config.linger, max_msg_size=config.max_frame * BIGGEST_MESSAGE
    )
    await ws.prepare(request)
    await WebSocketConnection(server, ws, request).run()
    return ws
