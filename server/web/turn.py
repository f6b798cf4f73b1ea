"""What a browser player asks the server about their own move: a hint, a typed move read.

A page at the table holds its seat's token; with it, and only on that player's own
turn, it may ask for the move the house's strongest bot would make (``/api/hint``)
or have a move typed the terminal's way read into the wire move (``/api/move``),
with the terminal's own reader and its one-line reasons, in the page's language.
Both answer with a wire move the page then sends over its WebSocket like any other,
so nothing here plays: the protocol stays the one way in.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from aiohttp import web
from leastscore.game import Event, View
from leastscore.kit.serve import json_reply
from leastscore.protocol.convert import move_to_wire
from leastscore.words.typed import Context, ParseError
from leastscore.words.typed import read_move as read_typed

from leastscore.lang import LANGUAGES, current, speaking

from ..lobby.table import Table
from ..net.websocket import same_origin
from .served import Served

if TYPE_CHECKING:
    from ..lobby.players import Player


@dataclass(frozen=True)
class OnTurn:
    """A page's question on its player's own turn: who asks, at which table, seeing what."""

    table: Table
    player: Player
    events: list[Event]
    view: View
    body: dict[str, Any]


async def on_turn(request: web.Request, server: Served) -> OnTurn:
    """The asking player's turn, or the HTTP refusal: a foreign page (403), no token
    (400), a token no seat has (404), not their move (409)."""
    if not same_origin(request):
        raise web.HTTPForbidden(text="this server answers only its own pages")
    try:
        body = await request.json()
        token = str(body["token"])
    except Exception:
        raise web.HTTPBadRequest(text='send {"token": "..."}') from None
    player = server.lobby.players.by_token(token)
    if player is None:
        raise web.HTTPNotFound(text="no seat has that token")
    table = player.room
    seen = table.seen_on_turn(player) if isinstance(table, Table) else None
    if seen is None or not isinstance(table, Table):
        raise web.HTTPConflict(text="only on your own turn")
    return OnTurn(table, player, seen[0], seen[1], body)


async def hint(server: Served, request: web.Request) -> web.Response:
    """``POST /api/hint`` with ``{"token": ...}``: the move a built-in bot would make in
    the seat of the player the token is (the wire move, ready to send)."""
    asked = await on_turn(request, server)
    view, table = asked.view, asked.table
    turn = (view.round, view.turn)
    known = table.hints.get(asked.player)
    if known is None or known[0] != turn:  # one hint a turn, however often it is asked for
        known = (turn, asyncio.ensure_future(server.bots.hint(asked.events, view)))
        table.hints[asked.player] = known
    move = await asyncio.shield(known[1])
    return json_reply(move_to_wire(move, round=view.round, turn=view.turn))


async def read_move(server: Served, request: web.Request) -> web.Response:
    """``POST /api/move`` with ``{"token", "text", "lang"}``: ``7h 7d deck`` read against
    the player's hand and the open cards into the wire move, or ``{"problem": line}``
    saying in one line, in ``lang``, why it is not a move."""
    asked = await on_turn(request, server)
    view = asked.view
    text = str(asked.body.get("text", ""))[:200]
    lang = asked.body.get("lang")
    context = Context(view.hand, view.open, view.rules, view.can_draw)
    with speaking(lang if lang in LANGUAGES else current()):
        try:
            move = read_typed(text, context)
        except ParseError as e:
            return json_reply({"problem": str(e)})
    return json_reply(move_to_wire(move, round=view.round, turn=view.turn))
