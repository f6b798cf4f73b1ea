"""A client's connection to a server: handshake, requests with ids, resume.

Used by the terminal client and by bots that play over TCP. Every message the
server sends updates ``tracker``; replies resolve the request that asked for
them; everything else waits in ``inbox`` (or goes to ``on_message``).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections.abc import Callable

import msgspec
from leastscore.protocol import (
    SERVER_FRAME_LIMIT,
    VERSION,
    FrameReader,
    ProtocolError,
    decode_server,
    encode,
)
from leastscore.protocol.messages import Error, Hello, Message, Welcome
from leastscore.protocol.tracker import Tracker


class ServerError(Exception):
    """The server refused a request."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionClosed(Exception):
    pass


class ServerLink:
    """A client's one connection to a server, for people (``leastscore play``) and bots
    (the SDK) alike: the handshake, requests matched to replies by id, a ``Tracker``
    that keeps the client's picture of its table (fed the ``time.monotonic()`` clock),
    and coming back with the token when the connection drops. Not to be confused with
    the server's own ``Connection``, the server's end of a client."""

    def __init__(
        self, host: str, port: int, name: str, *, bot: bool = False, client: str = ""
    ) -> None:
        self.host, self.port = host, port
        self.name, self.bot, self.client = name, bot, client
        self.tracker = Tracker()
        self.inbox: asyncio.Queue[msgspec.Struct] = asyncio.Queue()
        self.on_message: Callable[[msgspec.Struct], None] | None = None
        self.welcome: Welcome | None = None
        self._ids = itertools.count(1)
        self._waiting: dict[int, asyncio.Future[msgspec.Struct]] = {}
        self._writer: asyncio.StreamWriter | None = None
        self._reader_task: asyncio.Task[None] | None = None
        self.closed = asyncio.Event()
        self.close_reason = ""

    @classmethod
    async def open(
        cls,
        host: str,
        port: int,
        name: str,
        *,
        bot: bool = False,
        client: str = "",
        timeout: float = 10.0,
    ) -> ServerLink:
        """Connect and say hello; raises ``OSError`` or ``ServerError``."""
        conn = cls(host, port, name, bot=bot, client=client)
        await conn.connect(timeout=timeout)
        return conn

    async def connect(self, *, resume: bool = False, timeout: float = 10.0) -> Welcome:
        """Open the TCP connection and do the handshake; with ``resume``, take back
        this player (its seat, hand and a ``state`` snapshot) with the token."""
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(self.host, self.port), timeout
        )
        self._writer = writer
        self.closed = asyncio.Event()
        self._reader_task = asyncio.create_task(self._read(reader))
        token = self.tracker.token if resume else None
        reply = await asyncio.wait_for(
            self.request(Hello([VERSION], self.name, self.bot, self.client, token)), timeout
        )
        assert isinstance(reply, Welcome)
        self.welcome = reply
        return reply

    async def reconnect(
        self,
        *,
        resume: bool,
        tries: int,
        within: float | None = None,
        pause: float = 0.25,
        max_pause: float = 4.0,
        timeout: float = 10.0,
        on_try: Callable[[int], None] | None = None,
    ) -> Welcome | None:
        """Connect again after the connection dropped: up to ``tries`` attempts (and no
        new one after ``within`` seconds), pausing ``pause`` seconds after a failed one,
        doubling up to ``max_pause``. ``on_try(n)`` is told before the n-th attempt.

        The welcome, or None when no attempt worked. A refusal by a server that answers
        (``ServerError``, e.g. ``bad_token`` from a server that restarted) is raised at
        once: trying again would get the same answer."""
        loop = asyncio.get_running_loop()
        give_up = None if within is None else loop.time() + within
        for attempt in range(1, tries + 1):
            if give_up is not None and attempt > 1 and loop.time() >= give_up:
                break
            if on_try is not None:
                on_try(attempt)
            await self.close()  # whatever is left of the last attempt
            left = timeout if give_up is None else max(1.0, min(timeout, give_up - loop.time()))
            try:
                return await self.connect(resume=resume, timeout=left)
            except (OSError, TimeoutError, ConnectionClosed):
                if attempt < tries:
                    await asyncio.sleep(pause)
                    pause = min(pause * 2, max_pause)
        return None

    async def _read(self, reader: asyncio.StreamReader) -> None:
        frames = FrameReader(limit=SERVER_FRAME_LIMIT)
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    self.close_reason = self.close_reason or "the server closed the connection"
                    return
                for body in frames.feed(data):
                    message = decode_server(body)
                    if message is not None:
                        self._deliver(message)
        except (OSError, ProtocolError) as e:
            self.close_reason = str(e)
        finally:
            self.closed.set()
            for future in self._waiting.values():
                if not future.done():
                    future.set_exception(ConnectionClosed(self.close_reason))
            self._waiting.clear()

    def _deliver(self, message: msgspec.Struct) -> None:
        self.tracker.apply(message, time.monotonic())
        msg_id = getattr(message, "id", None)
        future = self._waiting.pop(msg_id, None) if msg_id is not None else None
        if future is not None and not future.done():
            if isinstance(message, Error):
                future.set_exception(ServerError(message.code, message.message))
            else:
                future.set_result(message)
            return
        if isinstance(message, Error) and message.code in ("bad_token",):
            self.close_reason = message.message
        if self.on_message is not None:
            self.on_message(message)
        else:
            self.inbox.put_nowait(message)

    def send(self, message: Message) -> None:
        if self._writer is None or self.closed.is_set():
            raise ConnectionClosed(self.close_reason or "not connected")
        self._writer.write(encode(message))

    async def request(self, message: Message) -> msgspec.Struct:
        """Send ``message`` with a fresh id and wait for the reply with that id."""
        msg_id = next(self._ids)
        message = msgspec.structs.replace(message, id=msg_id)
        future: asyncio.Future[msgspec.Struct] = asyncio.get_running_loop().create_future()
        self._waiting[msg_id] = future
        try:
            self.send(message)
            return await future
        finally:  # unsent, cancelled or answered: nobody waits for this id any more
            self._waiting.pop(msg_id, None)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            with contextlib.suppress(Exception):
                await self._writer.wait_closed()
        if self._reader_task is not None:
            self._reader_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._reader_task
        self.closed.set()
