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
import struct
from functools import partial
from urllib.parse import urlsplit

from aiohttp import WSCloseCode, WSMsgType, web
from leastscore.protocol import ProtocolError, errors

from .connection import Connection, Switchboard

log = logging.getLogger("leastscore.server")

BIGGEST_MESSAGE = 4
"""Times the frame limit a WebSocket message may have before the WebSocket itself
refuses it (close code 1009); up to there, the protocol's ``frame_too_large`` says so."""


SHORT = tuple(bytes((0x82, size)) for size in range(126))
"""The header of a binary message of each size under 126 bytes: most of them."""


def binary_messages(frames: list[bytes]) -> bytes:
    """Server WebSocket binary messages (RFC 6455: final, unmasked), one for the body of
    each TCP frame (its 4-byte length left out), in one string to write."""
    parts: list[bytes] = []
    add = parts.append
    for frame in frames:
        size = len(frame) - 4
        if size < 126:
            add(SHORT[size])
        elif size < 65536:
            add(struct.pack("!BBH", 0x82, 126, size))
        else:
            add(struct.pack("!BBQ", 0x82, 127, size))
        add(frame[4:])
    return b"".join(parts)


class WebSocketConnection(Connection):
    """A client's connection over a WebSocket: what a browser at a table, or any
    program that would rather, plays through.

    Reading is a loop over the socket's messages, each handed to the session
    whole. Writing is the TCP shell's: what the session queued in a pass of the
    loop goes out in one write to the socket, each frame as one binary message
    (framed here, as aiohttp would, without a task or an await per message), and a
    client that reads too slowly is cut past the server's send limit. A last word
    (an error, a goodbye) is sent and then the WebSocket is closed by aiohttp, with
    the linger as the time the client has to answer the close.
    """

    def __init__(
        self, server: Switchboard, ws: web.WebSocketResponse, request: web.Request
    ) -> None:
        super().__init__(server, on_output=partial(server.flush_soon, self))
        self.ws = ws
        self.request = request
        self._closing: asyncio.Future[bool] | None = None

    async def run(self) -> None:
        """Read until the client or the server closes."""
        try:
            if self._opened((self.request.remote or "?", 0)):
                await self._read()
        finally:
            self._gone()
        if self._closing is not None:
            await self._closing

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

    def _open_transport(self) -> asyncio.Transport | None:
        transport = self.request.transport
        if transport is None or transport.is_closing() or self.ws.closed:
            return None
        return transport

    def _on_the_wire(self, frames: list[bytes]) -> bytes:
        return binary_messages(frames)  # each frame a binary message

    def _half_close(self) -> None:
        self.flush()  # the last word goes out, then the close
        self.session.to_close = False
        if self._closing is None and not self.ws.closed:
            self._closing = asyncio.ensure_future(self.ws.close(code=WSCloseCode.OK))

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


async def play_socket(server: Switchboard, request: web.Request) -> web.StreamResponse:
    """``GET /play``: a protocol v1 connection over a WebSocket."""
    if not same_origin(request):
        log.info(
            "refused a WebSocket from %s: origin %s", request.remote, request.headers["Origin"]
        )
        raise web.HTTPForbidden(text="this server plays only with its own pages")
    config = server.config
    ws = web.WebSocketResponse(  # no compression: frames are small, and written as they are
        heartbeat=30,
        timeout=config.linger,
        max_msg_size=config.max_frame * BIGGEST_MESSAGE,
        compress=False,
    )
    await ws.prepare(request)
    await WebSocketConnection(server, ws, request).run()
    return ws
