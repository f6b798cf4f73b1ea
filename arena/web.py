"""The arena's web pages and its small HTTP API.

Anyone may read the leaderboard (``/``, ``/api/leaderboard``), an entrant's page
(``/entrant/NAME``, ``/api/entrant/NAME``) and every finished match's replay
(``/replay/ID`` in words, ``/watch/ID`` on the live view's board, ``/api/replay/ID``:
a spectator's copy of each event, no hand).
With their token (``Authorization: Bearer TOKEN``) an author submits (``POST
/api/submit``, a gzipped tar of the bot's folder), reads the build and check of
their own versions (``/api/mine``) and the standard error their program wrote at a
table (``/api/stderr/TABLE``), and plays an earlier accepted version again (``POST
/api/roll-back/VERSION``); no token opens another author's logs.
"""

from __future__ import annotations

from typing import Any, BinaryIO

import msgspec
from aiohttp import web
from leastscore.game import Event, MatchStarted, RoundStarted, read_log
from leastscore.kit.serve import asset, html_reply, json_reply, page_words, spectator_log
from leastscore.words.narrate import describe

from .book import FAULTS, PlayedMatch
from .service import Arena
from .tables import open_log, stderr_slice
from .upload import UploadRefused

RECENT_TABLES = 200
"""How far back an entrant's page counts faults by kind and CPU time."""

ARENA: web.AppKey[Arena] = web.AppKey("arena", Arena)


def make_app(arena: Arena) -> web.Application:
    app = web.Application(client_max_size=arena.config.max_upload_mb * 1_000_000 + 65_536)
    app[ARENA] = arena
    app.router.add_get("/", leaderboard_page)
    app.router.add_get("/board", board_fragment)
    app.router.add_get("/api/leaderboard", leaderboard_data)
    app.router.add_get("/entrant/{name}", entrant_page)
    app.router.add_get("/api/entrant/{name}", entrant_data)
    app.router.add_post("/api/submit", submit)
    app.router.add_get("/api/mine", mine)
    app.router.add_post("/api/roll-back/{version}", roll_back)
    app.router.add_get("/api/stderr/{table}", stderr)
    app.router.add_get("/replay/{id}", replay_page)
    app.router.add_get("/api/replay/{id}", replay_data)
    app.router.add_get("/watch/{id}", watch_page)
    app.router.add_get("/static/{name}", asset)
    app.router.add_get("/api/words/{code}", page_words)
    return app


async def leaderboard_data(request: web.Request) -> web.Response:
    arena = request.app[ARENA]
    rows = [r.as_json() for r in arena.board()]
    return json_reply({"paused": arena.paused, "waiting": arena.waiting(), "rows": rows})


def _author(request: web.Request) -> str:
    arena = request.app[ARENA]
    scheme, _, token = request.headers.get("Authorization", "").partition(" ")
    author = arena.book.author_of(token.strip()) if scheme == "Bearer" else None
    if author is None:
        raise web.HTTPUnauthorized(text="a valid token is needed (Authorization: Bearer TOKEN)")
    return author


async def submit(request: web.Request) -> web.Response:
    author = _author(request)
    archive = await request.read()
    try:
        sub = await request.app[ARENA].receive(author, archive)
    except UploadRefused as e:
        raise web.HTTPBadRequest(text=f"refused: {e}") from None
    return json_reply({"submission": sub.id, "author": author, "version": sub.version})


async def mine(request: web.Request) -> web.Response:
    author = _author(request)
    subs = request.app[ARENA].book.submissions(author=author)
    return json_reply([{"version": s.version, "state": s.state, "log": s.log} for s in subs])


async def roll_back(request: web.Request) -> web.Response:
    author = _author(request)
    arena = request.app[ARENA]
    try:
        version = int(request.match_info["version"])
        arena.book.roll_back(author, version)
    except ValueError as e:
        raise web.HTTPBadRequest(text=str(e)) from None
    arena.poke()
    return json_reply({"author": author, "version": version})


async def stderr(request: web.Request) -> web.Response:
    author = _author(request)
    arena = request.app[ARENA]
    try:
        table = int(request.match_info["table"])
    except ValueError:
        raise web.HTTPNotFound() from None
    where = arena.book.stderr(table, author)
    if where is None:
        raise web.HTTPNotFound(text=f"{author} did not play at table {table}")
    return web.Response(body=stderr_slice(*where), content_type="text/plain", charset="utf-8")


def _entrant(arena: Arena, name: str) -> dict[str, Any]:
    subs = arena.book.submissions(author=name)
    if not subs:
        raise web.HTTPNotFound(text=f"no entrant {name}")
    ids = {s.id for s in subs}
    recent = []
    faults = dict.fromkeys(FAULTS, 0)
    failures: dict[str, int] = {}
    cpu = 0.0
    for m in arena.book.played_by(name, RECENT_TABLES):
        seat = next((i for i, s in enumerate(m.seats) if s in ids), None)
        result = msgspec.json.decode(m.result)
        if seat is None or not result["seats"]:
            continue
        mine = result["seats"][seat]
        for kind in FAULTS:
            faults[kind] += mine.get(kind, 0)
        for kind, n in mine.get("failures", {}).items():
            failures[kind] = failures.get(kind, 0) + n
        cpu += mine.get("cpu_seconds", 0.0)
        recent.append(
            {
                "match": m.id,
                "table": m.table_id,
                "place": m.places[seat],
                "of": len(m.places),
                "faults": sum(mine.get(k, 0) for k in FAULTS),
            }
        )
    return {
        "author": name,
        "disqualified": arena.disqualified(name),
        "versions": [{"version": s.version, "state": s.state} for s in subs],
        "board": [r.as_json() for r in arena.board() if r.author == name],
        "faults": {**faults, "by_kind": failures},
        "cpu_seconds": round(cpu, 3),
        "recent": recent[-20:],
    }


async def entrant_data(request: web.Request) -> web.Response:
    return json_reply(_entrant(request.app[ARENA], request.match_info["name"]))


def _board(arena: Arena) -> dict[str, Any]:
    """What the leaderboard shows: the page's, and what the page fetches again
    (``/board``) every few seconds to stay live without reloading the form below it."""
    return {"rows": arena.board(), "waiting": arena.waiting(), "paused": arena.paused}


async def board_fragment(request: web.Request) -> web.Response:
    return html_reply("arena_board.html", **_board(request.app[ARENA]))


async def leaderboard_page(request: web.Request) -> web.Response:
    """The leaderboard, and the form that submits a version (``static/arena.js``)."""
    board = _board(request.app[ARENA])
    return html_reply("arena_leaderboard.html", title="Arena", script=True, **board)


async def entrant_page(request: web.Request) -> web.Response:
    """An entrant's figures, versions and recent matches, and a form for its author
    (``static/arena.js``): with their token, the build and check log of each version and
    what the program wrote to stderr at each recent table (the server answers only the
    token's holder, and only about their own programs)."""
    data = _entrant(request.app[ARENA], request.match_info["name"])
    faults = ", ".join(f"{n} {kind}" for kind, n in data["faults"].items() if kind in FAULTS)
    return html_reply(
        "arena_entrant.html",
        title=data["author"],
        script=True,
        disqualified=data["disqualified"],
        board=data["board"],
        recent_tables=RECENT_TABLES,
        faults=faults,
        cpu_seconds=data["cpu_seconds"],
        versions=data["versions"],
        recent=list(reversed(data["recent"])),
    )


def _finished(arena: Arena, ident: str) -> tuple[PlayedMatch, BinaryIO]:
    """A finished match and its full log, open to read; 404 when there is no such match."""
    try:
        match = arena.book.match(int(ident))
    except ValueError:
        match = None
    if match is None:
        raise web.HTTPNotFound(text=f"no finished match {ident}")
    fixture = int(msgspec.json.decode(match.result)["fixture"])
    log = open_log(arena.table_folder(match.table_id), fixture)
    if log is None:
        raise web.HTTPNotFound(text=f"match {ident} has no log")
    return match, log


def _spectated(arena: Arena, ident: str) -> tuple[PlayedMatch, list[Event]]:
    """A finished match and its events as a spectator saw them."""
    match, log = _finished(arena, ident)
    with log:
        return match, [event.seen_by(None) for event in read_log(log)]


async def replay_data(request: web.Request) -> web.Response:
    match, events = _spectated(request.app[ARENA], request.match_info["id"])
    table = {"id": match.id, "table_name": f"table {match.table_id}"}
    return json_reply({"match": table, "steps": spectator_log(events)})


async def watch_page(request: web.Request) -> web.Response:
    """A finished match on the board the server's live view draws (its own scripts, run
    on this one replay), stepped through move by move."""
    match, log = _finished(request.app[ARENA], request.match_info["id"])
    log.close()
    return html_reply("board.html", replay=match.id)


async def replay_page(request: web.Request) -> web.Response:
    """A finished match in words, round by round, as a spectator saw it."""
    match, events = _spectated(request.app[ARENA], request.match_info["id"])
    names: list[str] = []
    rounds: list[dict[str, Any]] = [{"number": None, "lines": []}]
    for event in events:
        if isinstance(event, MatchStarted):
            names = list(event.seats)
        elif isinstance(event, RoundStarted):
            rounds.append({"number": event.round, "lines": []})
        rounds[-1]["lines"].append(describe(event, names))
    return html_reply(
        "arena_replay.html",
        title=f"Match {match.id}",
        script=False,
        match_id=match.id,
        rounds=rounds,
    )
