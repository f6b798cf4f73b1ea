"""The arena's web pages and its small HTTP API.

Anyone may read the leaderboard (``/``, ``/api/leaderboard``) and an entrant's page
(``/entrant/NAME``, ``/api/entrant/NAME``). With their token (``Authorization:
Bearer TOKEN``) an author submits (``POST /api/submit``, a gzipped tar of the bot's
folder), reads the build and check of their own versions (``/api/mine``) and the
standard error their program wrote at a table (``/api/stderr/TABLE``); no token
opens another author's logs.
"""

from __future__ import annotations

import html
from typing import Any

import msgspec
from aiohttp import web
from leastscore.server.web_turn import json_reply

from .service import Arena
from .standings import Row
from .upload import UploadRefused

ARENA: web.AppKey[Arena] = web.AppKey("arena", Arena)


def make_app(arena: Arena) -> web.Application:
    app = web.Application(client_max_size=arena.config.max_upload_mb * 1_000_000 + 65_536)
    app[ARENA] = arena
    app.router.add_get("/", leaderboard_page)
    app.router.add_get("/api/leaderboard", leaderboard_data)
    app.router.add_get("/entrant/{name}", entrant_page)
    app.router.add_get("/api/entrant/{name}", entrant_data)
    app.router.add_post("/api/submit", submit)
    app.router.add_get("/api/mine", mine)
    app.router.add_get("/api/stderr/{table}", stderr)
    return app


def _row(row: Row) -> dict[str, Any]:
    return {
        "author": row.author,
        "version": row.version,
        "rating": round(row.rating, 1),
        "interval": None if row.low is None else [round(row.low, 1), round(row.high or 0, 1)],
        "matches": row.matches,
        "faults": row.faults,
    }


async def leaderboard_data(request: web.Request) -> web.Response:
    arena = request.app[ARENA]
    return json_reply({"paused": arena.paused, "rows": [_row(r) for r in arena.board()]})


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
        sub = request.app[ARENA].receive(author, archive)
    except UploadRefused as e:
        raise web.HTTPBadRequest(text=f"refused: {e}") from None
    return json_reply({"submission": sub.id, "author": author, "version": sub.version})


async def mine(request: web.Request) -> web.Response:
    author = _author(request)
    subs = request.app[ARENA].book.submissions(author=author)
    return json_reply([{"version": s.version, "state": s.state, "log": s.log} for s in subs])


async def stderr(request: web.Request) -> web.Response:
    author = _author(request)
    arena = request.app[ARENA]
    try:
        table = int(request.match_info["table"])
    except ValueError:
        raise web.HTTPNotFound() from None
    path = arena.table_folder(table) / f"{author}.main.stderr"
    if not path.is_file():
        raise web.HTTPNotFound(text=f"nothing of {author}'s at table {table}")
    return web.Response(body=path.read_bytes(), content_type="text/plain", charset="utf-8")


def _entrant(arena: Arena, name: str) -> dict[str, Any]:
    subs = arena.book.submissions(author=name)
    if not subs:
        raise web.HTTPNotFound(text=f"no entrant {name}")
    ids = {s.id for s in subs}
    recent = [m for m in arena.book.played() if ids & set(m.seats)][-20:]
    return {
        "author": name,
        "versions": [{"version": s.version, "state": s.state} for s in subs],
        "board": [_row(r) for r in arena.board() if r.author == name],
        "recent": [
            {
                "table": m.table_id,
                "seat": next(i for i, s in enumerate(m.seats) if s in ids),
                "places": list(m.places),
                "result": msgspec.json.decode(m.result),
            }
            for m in recent
        ],
    }


async def entrant_data(request: web.Request) -> web.Response:
    return json_reply(_entrant(request.app[ARENA], request.match_info["name"]))


PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>
body{{font-family:system-ui,sans-serif;margin:1rem auto;max-width:50rem;padding:0 1rem}}
table{{border-collapse:collapse;width:100%}}td,th{{padding:.4rem;text-align:left;
border-bottom:1px solid #ccc}}td.n{{text-align:right}}</style></head><body>
<h1>{title}</h1>{body}</body></html>"""


async def leaderboard_page(request: web.Request) -> web.Response:
    arena = request.app[ARENA]
    lines = [
        "<table><tr><th>#</th><th>entrant</th><th>rating</th><th>95 %</th>"
        "<th>matches</th><th>faults</th></tr>"
    ]
    for place, row in enumerate(arena.board(), 1):
        span = "" if row.low is None else f"{row.low:.0f} to {row.high:.0f}"
        name = html.escape(row.author)
        lines.append(
            f'<tr><td>{place}</td><td><a href="/entrant/{name}">{name}</a> v{row.version}</td>'
            f'<td class="n">{row.rating:.0f}</td><td>{span}</td>'
            f'<td class="n">{row.matches}</td><td class="n">{row.faults}</td></tr>'
        )
    lines.append("</table>")
    if arena.paused:
        lines.insert(0, "<p>The arena is paused.</p>")
    return web.Response(
        text=PAGE.format(title="Arena", body="".join(lines)), content_type="text/html"
    )


async def entrant_page(request: web.Request) -> web.Response:
    data = _entrant(request.app[ARENA], request.match_info["name"])
    name = html.escape(data["author"])
    parts = ["<h2>Versions</h2><ul>"]
    parts += [f"<li>v{v['version']}: {html.escape(v['state'])}</li>" for v in data["versions"]]
    parts.append("</ul><h2>Recent matches</h2><ul>")
    for m in reversed(data["recent"]):
        place = m["places"][m["seat"]] if m["places"] else "aborted"
        parts.append(f"<li>table {m['table']}: place {place} of {len(m['places'])}</li>")
    parts.append('</ul><p><a href="/">the leaderboard</a></p>')
    return web.Response(text=PAGE.format(title=name, body="".join(parts)), content_type="text/html")
