"""The server: listens, admits connections, and shuts down cleanly."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
from collections import Counter
from collections.abc import Coroutine
from typing import TYPE_CHECKING

from leastscore.protocol import ProtocolError, errors

from leastscore.heap import HeapTrimmer

from .config import ServerConfig
from .house.bots import HouseBots
from .lan.announce import Announcer
from .lobby.lobby import Lobby
from .net.connection import Connection, TcpConnection
from .records.journal import Journal
from .records.store import AsyncStore

if TYPE_CHECKING:
    from .web.view import WebView

log = logging.getLogger("leastscore.server")


class Server:
    """The whole server in one process: it owns the listening socket, every
    connection, the lobby (players and tables), the built-in bots' thinking
    processes, the match journal and the LAN announcement, and it is the one
    place that shuts them all down in order (stop listening, stop the bots, save
    the matches, say goodbye to every client, close the database)."""

    def __init__(self, config: ServerConfig | None = None) -> None:
        self.config = config or ServerConfig()
        self.loop = asyncio.get_running_loop()  # made in the loop it serves from
        # The database first: a file it refuses (StoreError) leaves nothing started.
        self.store = AsyncStore(self.config.db, self.config.recover) if self.config.db else None
        if self.store is not None and self.store.interrupted:
            log.warning(
                "the last server died during match(es) %s: marked interrupted",
                ", ".join(map(str, self.store.interrupted)),
            )
        self.journal = Journal(self.store, keep_aborted=self.config.keep_aborted)
        """Every match is written down as it is played (see ``journal``)."""
        self.lobby = Lobby(self)
        self.bots = HouseBots(self.config)
        self.connections: set[Connection] = set()
        self._per_address: Counter[str] = Counter()
        self.closing: set[Connection] = set()
        """Connections that said their last word and wait for the client to hang up."""
        self._server: asyncio.Server | None = None
        self._unflushed: list[Connection] = []
        self._matches: set[asyncio.Task[None]] = set()
        self.announcer: Announcer | None = None
        """Set when the server announces itself on the LAN (``serve --lan``)."""
        self.web: WebView | None = None
        """The web view, when the server shows itself in browsers (``serve --web``)."""
        self.stopped = asyncio.Event()
        self.heap: HeapTrimmer | None = None

    @property
    def port(self) -> int:
        assert self._server is not None
        return int(self._server.sockets[0].getsockname()[1])

    @property
    def serving(self) -> bool:
        """Listening, and not shutting down."""
        return self._server is not None and self._server.is_serving()

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._server = await self.loop.create_server(
            lambda: TcpConnection(self), self.config.host, self.config.port, backlog=1024
        )
        self.heap = HeapTrimmer(self.loop, self.config.trim_every)
        self.heap.start()

    async def serve_forever(self) -> None:
        """Serve until SIGINT/SIGTERM or ``shutdown``."""
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError, RuntimeError):  # not on Unix
                self.loop.add_signal_handler(sig, self._signalled, sig)
        await self.stopped.wait()

    def _signalled(self, sig: signal.Signals) -> None:
        log.info("%s: shutting down", sig.name)
        self.loop.create_task(self.shutdown())

    async def shutdown(self, reason: str = "the server is shutting down") -> None:
        """Stop listening, save unfinished matches as aborted, tell every client, close."""
        if self.stopped.is_set():
            return
        if self._server is not None:
            self._server.close()
        if self.heap is not None:
            self.heap.stop()
        if self.announcer is not None:
            await self.announcer.stop()  # the LAN hears the goodbye first
        self.bots.close()  # whatever the bots are thinking, it ends now
        for task in list(self._matches):  # tables closed a moment ago are still saving too
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        for conn in list(self.connections):
            conn.bye(reason)
        if self.web is not None:  # its players have their goodbye on the way
            await self.web.stop()
        await self.journal.close()
        if self.store is not None:
            await self.loop.run_in_executor(None, self.store.close)
        # A pass of the loop sends the goodbyes and reads what clients sent before them;
        # then the server does not wait for clients to hang up, it cuts.
        await asyncio.sleep(0)
        for conn in list(self.closing):
            conn.cut()
        await asyncio.sleep(0)
        self.stopped.set()
        log.info("stopped")

    # -- connections ----------------------------------------------------------------

    def admit(self, conn: Connection) -> ProtocolError | None:
        """None when ``conn`` may stay (it is counted from now on); otherwise why not."""
        limit = self.config.max_connections_per_peer
        if self._per_address[conn.address] >= limit:
            return ProtocolError(
                errors.TOO_MANY_CONNECTIONS,
                f"{conn.address} already has {limit} connections to this server",
            )
        if len(self.connections) >= self.config.max_connections:
            return ProtocolError(errors.SERVER_FULL, "the server has too many connections")
        self.connections.add(conn)
        self._per_address[conn.address] += 1
        return None

    def flush_soon(self, conn: Connection) -> None:
        """Have ``conn`` write its queued frames at the end of this pass of the loop:
        one callback for every connection with something to send, not one each."""
        if not self._unflushed:
            self.loop.call_soon(self._flush)
        self._unflushed.append(conn)

    def _flush(self) -> None:
        unflushed, self._unflushed = self._unflushed, []
        for conn in unflushed:
            conn.flush()

    def forget(self, conn: Connection) -> None:
        if conn in self.connections:
            self.connections.remove(conn)
            self._per_address[conn.address] -= 1
            if not self._per_address[conn.address]:
                del self._per_address[conn.address]
        player = conn.player
        if player is not None and player.conn is conn:
            self.lobby.lost(player)

    def play(self, match: Coroutine[None, None, None]) -> asyncio.Task[None]:
        """Run a table's match; a shutdown waits for it to be saved, wherever its table is."""
        task = self.loop.create_task(match)
        self._matches.add(task)
        task.add_done_callback(self._matches.discard)
        return task
