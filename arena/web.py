"""The arena's web pages and its small HTTP API.

Anyone may read the leaderboard (``/``, ``/api/leaderboard``), an entrant's page
(``/entrant/NAME``, ``/api/entrant/NAME``: its rating over time, its head-to-head and
its recent matches, filtered by ``?opponent=NAME&result=won|lost|all``) and every
finished match's replay (``/replay/ID`` in words, ``/watch/ID`` on the live view's
board, ``/api/replay/ID``: a spectator's copy of each event, no hand).
With their token (``Authorization: Bearer TOKEN``) an author submits (``POST
/api/submit``, a gzipped tar of the bot's folder), reads the build and check of
their own versions (``/api/mine``) and the standard error their program wrote at a
table (``/api/stderr/TABLE``), and plays an earlier accepted version again (``POST
/api/roll-back/VERSION``); no token opens another author's logs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, BinaryIO

import msgspec
from aiohttp import web
from leastscore.game import Event, MatchStarted, RoundStarted, read_log
from leastscore.kit.chart import Frame, Series, line_chart
from leastscore.kit.serve import asset, html_reply, json_reply, page_words, spectator_log
from leastscore.words.narrate import describe

from .book import FAULTS, RESULTS, PlayedMatch, RatingPoint
from .service import Arena
from .tables import open_log, stderr_slice
from .upload import UploadRefused

RECENT_TABLES = 200
"""How far back an entrant's page counts faults by kind and CPU time."""
RECENT_MATCHES = 20
"""How many of its matches (those the filters let through) an entrant's page lists."""
CHART_VERSIONS = 6
"""How many of an entrant's versions (the newest) its rating chart draws."""

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


def _filters(request: web.Request) -> tuple[str | None, str]:
    """The recent matches' filters a page or the API was asked for: ``?opponent=NAME``
    (empty or none: anyone) and ``?result=won|lost|all`` (none: all)."""
    opponent = request.query.get("opponent", "").strip() or None
    result = request.query.get("result", "").strip() or "all"
    if result not in RESULTS:
        raise web.HTTPBadRequest(text=f"result is one of {', '.join(RESULTS)}, not {result!r}")
    return opponent, result


def _played(arena: Arena, name: str, ids: set[int]) -> dict[str, Any]:
    """Faults by kind and CPU time over ``name``'s last ``RECENT_TABLES`` tables."""
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
    return {"faults": {**faults, "by_kind": failures}, "cpu_seconds": round(cpu, 3)}


def _history(point: RatingPoint) -> dict[str, Any]:
    span = None if point.low is None or point.high is None else [point.low, point.high]
    return {
        "at": round(point.at, 3),
        "version": point.version,
        "rating": round(point.rating, 1),
        "interval": None if span is None else [round(x, 1) for x in span],
        "matches": point.matches,
    }


def _entrant(
    arena: Arena, name: str, opponent: str | None = None, result: str = "all"
) -> dict[str, Any]:
    """Everything an entrant's page and ``/api/entrant/NAME`` give: its figures, its
    rating history, its recent matches (newest first, filtered) and its head-to-head."""
    subs = arena.book.submissions(author=name)
    if not subs:
        raise web.HTTPNotFound(text=f"no entrant {name}")
    recent = [
        {"match": m.match, "table": m.table, "place": m.place, "of": m.of, "faults": m.faults,
         "opponents": list(m.opponents)}
        for m in arena.book.matches_of(name, opponent, result, RECENT_MATCHES)
    ]  # fmt: skip
    return {
        "author": name,
        "disqualified": arena.disqualified(name),
        "versions": [{"version": s.version, "state": s.state} for s in subs],
        "board": [r.as_json() for r in arena.board() if r.author == name],
        **_played(arena, name, {s.id for s in subs}),
        "history": [_history(p) for p in arena.book.rating_history(name)],
        "filters": {"opponent": opponent, "result": result},
        "recent": recent,
        "head_to_head": [
            {**asdict(m), "score_difference": None if m.score_difference is None
             else round(m.score_difference, 2)}
            for m in arena.book.head_to_head(name)
        ],
    }  # fmt: skip


async def entrant_data(request: web.Request) -> web.Response:
    arena = request.app[ARENA]
    return json_reply(_entrant(arena, request.match_info["name"], *_filters(request)))


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


def _clock(first: float, last: float) -> Callable[[float], str]:
    """How the chart's time axis is labelled (UTC): the hour within two days, the day
    past that."""
    form = "%H:%M" if last - first < 2 * 86400 else "%d %b"
    return lambda at: datetime.fromtimestamp(at, UTC).strftime(form)


def rating_chart(name: str, history: list[RatingPoint]) -> dict[str, Any] | None:
    """The figures of ``name``'s rating chart (``kit.chart``): each of its newest
    ``CHART_VERSIONS`` versions' rating over time, its interval a band around it
    (a point fitted before there was one is its own band). None: fewer than two points."""
    if not history:
        return None
    versions = sorted({p.version for p in history})[-CHART_VERSIONS:]
    series = []
    for version in versions:
        mine = [p for p in history if p.version == version]
        band = [(p.rating, p.rating) if p.low is None or p.high is None else (p.low, p.high)
                for p in mine]  # fmt: skip
        label = f"v{version} {mine[-1].rating:.0f}"
        series.append(Series(label, [(p.at, p.rating) for p in mine], band))
    frame = Frame(
        width=480, height=280, margins=(52, 78, 12, 44), font=13, fluid=True, dots=True,
        title=f"rating of {name} over time, with its 95 % interval", x_label="time (UTC)",
        y_label="rating", x_ticks=3, x_tick=_clock(history[0].at, history[-1].at),
    )  # fmt: skip
    return line_chart(series, frame)


async def entrant_page(request: web.Request) -> web.Response:
    """An entrant's figures, its rating over time, versions, head-to-head and recent
    matches (filtered by the form's GET parameters, no script needed), and a form for
    its author (``static/arena.js``): with their token, the build and check log of each
    version and what the program wrote to stderr at each recent table (the server
    answers only the token's holder, and only about their own programs)."""
    arena = request.app[ARENA]
    name = request.match_info["name"]
    opponent, result = _filters(request)
    data = _entrant(arena, name, opponent, result)
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
        chart=rating_chart(name, arena.book.rating_history(name)),
        recent=data["recent"],
        head_to_head=data["head_to_head"],
        opponent=opponent,
        result=result,
        results=RESULTS,
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
