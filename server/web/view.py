"""The web view: the lobby, tables live, the match history and replays, in a browser.

A spectator on the LAN opens a page and needs nothing installed. The view lives in the
server's own event loop (aiohttp serves HTTP and WebSockets from one asyncio loop, the
same one the game server runs in). What it shows is read-only: it sees a table as a
spectator does and no more: it listens on the table's ``onlookers`` hook, which hands
it the spectator's copy of each event (``seen_by(None)``) and the public ``turn``; a
replay is the spectator's copies of the stored log. No hidden card can reach a
watching browser because none is ever given to this module. Players are another
matter: ``/play`` is protocol v1 over a WebSocket (``server.net.websocket``), where a
seat gets what it would get over TCP, from the same session and lobby.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import functools
import logging
from collections.abc import Sequence
from typing import Any

import msgspec
from aiohttp import WSMsgType, web
from leastscore.game import Event
from leastscore.kit.serve import WebSite, asset, html_reply, json_reply, page_words, spectator_log
from leastscore.protocol.convert import match_state
from leastscore.protocol.messages import Turn

from ..lobby.table import Table
from ..net.websocket import play_socket
from .served import Served
from .turn import hint, read_move

log = logging.getLogger("leastscore.server.web")

_json = msgspec.json.Encoder()
SERVER: web.AppKey[Served] = web.AppKey("server")


def _snapshot(table: Table) -> dict[str, Any]:
    """The table as a spectator's ``state`` shows it."""
    match = table.match
    out: dict[str, Any] = {"table": table.info(), "web_watchers": len(table.onlookers)}
    if match is not None:
        time_ms = 0
        driver = table.driver
        if driver is not None and driver.deadline is not None:
            time_ms = max(0, int((driver.deadline - table.host.loop.time()) * 1000))
        standings = list(match.standings) if match.over else None
        view = match.view(None)
        out["match"] = match_state(view, time_ms, standings)
        out["seats"] = list(match.names)
    return out


class TableFeed:
    """One browser watching one table: the spectator's copies, queued as JSON text."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=4096)

    def __call__(self, messages: Sequence[msgspec.Struct]) -> None:
        for message in messages:
            if isinstance(message, Turn):
                item: dict[str, Any] = {"turn": message}
            elif isinstance(message, Event):
                item = {"event": message}
            else:  # pragma: no cover - the hook carries events and turns only
                continue
            self._put(_json.encode(item))

    def _put(self, data: bytes | None) -> None:
        try:
            self.queue.put_nowait(data)
        except asyncio.QueueFull:  # a browser that does not read is let go
            self.table.onlookers.discard(self)
            with contextlib.suppress(asyncio.QueueEmpty):
                self.queue.get_nowait()
            self.queue.put_nowait(None)


async def index(request: web.Request) -> web.Response:
    return html_reply("board.html", replay=None)


async def lobby(request: web.Request) -> web.Response:
    server = request.app[SERVER]
    tables = [
        {"info": t.info(), "web_watchers": len(t.onlookers)} for t in server.lobby.tables.values()
    ]
    return json_reply({"tables": tables, "history": server.store is not None})


async def table_socket(request: web.Request) -> web.StreamResponse:
    server = request.app[SERVER]
    table = server.lobby.tables.get(request.match_info["id"])
    if table is None:
        raise web.HTTPNotFound(text="no such table")
    ws = web.WebSocketResponse(heartbeat=30)
    await ws.prepare(request)
    feed = TableFeed(table)
    await ws.send_str(_json.encode({"state": _snapshot(table)}).decode())
    table.onlookers.add(feed)

    async def drain() -> None:  # the view is read-only: whatever a browser sends is dropped
        async for message in ws:
            if message.type in (WSMsgType.ERROR, WSMsgType.CLOSE):
                break
        feed.queue.put_nowait(None)

    reader = asyncio.ensure_future(drain())
    try:
        while True:
            data = await feed.queue.get()
            if data is None or ws.closed:
                break
            await ws.send_str(data.decode())
    finally:
        table.onlookers.discard(feed)
        reader.cancel()
        await ws.close()
    return ws


async def matches(request: web.Request) -> web.Response:
    server = request.app[SERVER]
    if server.store is None:
        return json_reply([])
    records = await server.store.run(lambda s: s.matches(200))
    live = {  # a match being played links to its table, where it is watched
        t.recording.id: t.info().id
        for t in server.lobby.tables.values()
        if t.recording is not None and t.recording.id is not None and not t.recording.ended
    }
    return json_reply([{**dataclasses.asdict(r), "live": live.get(r.id)} for r in records])


async def replay(request: web.Request) -> web.Response:
    server = request.app[SERVER]
    try:
        match_id = int(request.match_info["id"])
    except ValueError:
        raise web.HTTPNotFound() from None
    if server.store is None:
        raise web.HTTPNotFound(text="this server keeps no matches")
    record = await server.store.run(lambda s: s.match(match_id))
    if record is None:
        raise web.HTTPNotFound(text=f"no match {match_id}")
    if record.status == "running":  # its stored events hold the hands: it is watched live
        raise web.HTTPForbidden(text=f"match {match_id} is being played: watch it live")
    events = await server.store.run(lambda s: s.log(match_id))
    return json_reply({"match": record, "steps": spectator_log(events or [])})


async def play(request: web.Request) -> web.StreamResponse:
    return await play_socket(request.app[SERVER], request)


def make_app(server: Served) -> web.Application:
    app = web.Application()
    app[SERVER] = server
    app.router.add_get("/", index)
    app.router.add_get("/static/{name}", asset)
    app.router.add_get("/api/lobby", lobby)
    app.router.add_get("/api/words/{code}", page_words)
    app.router.add_post("/api/hint", functools.partial(hint, server))
    app.router.add_post("/api/move", functools.partial(read_move, server))
    app.router.add_get("/api/matches", matches)
    app.router.add_get("/api/replay/{id}", replay)
    app.router.add_get("/ws/table/{id}", table_socket)
    app.router.add_get("/play", play)
    return app


class WebView(WebSite):
    """The web edge of a running server, started and stopped with it."""

    def __init__(self, server: Served, host: str, port: int) -> None:
        super().__init__(host, port)
        self.server = server

    async def start(self) -> None:
        await self.serve(make_app(self.server))
