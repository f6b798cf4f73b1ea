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

import html
from typing import Any, BinaryIO

import msgspec
from aiohttp import web
from leastscore.game import Event, MatchStarted, RoundStarted, read_log
from leastscore.kit.serve import asset, html_reply, json_reply, page_words, spectator_log
from leastscore.seats.narrate import describe

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


PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title><style>
body{{font-family:system-ui,sans-serif;margin:1rem auto;max-width:50rem;padding:0 1rem}}
table{{border-collapse:collapse;width:100%}}td,th{{padding:.4rem;text-align:left;
border-bottom:1px solid #ccc}}td.n{{text-align:right;white-space:nowrap}}
td.who,h1{{overflow-wrap:anywhere}}
@media (max-width:480px){{td,th{{padding:.3rem .15rem;font-size:.9rem}}}}
input,button{{font-size:1rem;min-height:44px}}pre{{white-space:pre-wrap}}</style></head><body>
<h1>{title}</h1>{body}</body></html>"""


def _board(arena: Arena) -> str:
    """The leaderboard as HTML: the page's, and what the page fetches again (``/board``)
    every few seconds to stay live without reloading the form below it."""
    lines = [
        "<table><tr><th>#</th><th>entrant</th><th>rating</th><th>95 %</th>"
        "<th>matches</th><th>faults</th></tr>"
    ]
    for place, row in enumerate(arena.board(), 1):
        span = "" if row.low is None else f"{row.low:.0f} to {row.high:.0f}"
        name = html.escape(row.author)
        lines.append(
            f'<tr><td>{place}</td><td class="who"><a href="/entrant/{name}">{name}</a>'
            f" v{row.version}</td>"
            f'<td class="n">{row.rating:.0f}</td><td>{span}</td>'
            f'<td class="n">{row.matches}</td><td class="n">{row.faults}</td></tr>'
        )
    lines.append("</table>")
    if (waiting := arena.waiting()) is not None:
        lines.insert(0, f"<p>{html.escape(waiting)}</p>")
    if arena.paused:
        lines.insert(0, "<p>The arena is paused.</p>")
    return "".join(lines)


async def board_fragment(request: web.Request) -> web.Response:
    return web.Response(text=_board(request.app[ARENA]), content_type="text/html")


async def leaderboard_page(request: web.Request) -> web.Response:
    body = f'<div id="board">{_board(request.app[ARENA])}</div>{UPLOAD}'
    page = PAGE.format(title="Arena", body=body)
    return web.Response(text=page, content_type="text/html")


UPLOAD = """<h2>Submit a version</h2>
<p>A gzipped tar of your bot's folder, with its <code>bot.toml</code>:
<code>tar czf mybot.tgz -C mybot .</code> (or <code>leastscore arena submit</code>).</p>
<form id="upload"><p><label>Your token <input name="token" type="password"
autocomplete="off" required></label></p><p><label>Archive <input name="archive" type="file"
accept=".tgz,.gz,application/gzip" required></label></p><p><button>Submit</button></p></form>
<pre id="verdict" aria-live="polite"></pre>
<script>
const board = document.getElementById("board");
setInterval(async () => {
  const fresh = await fetch("/board");
  if (fresh.ok) board.innerHTML = await fresh.text();
}, 5000);
const form = document.getElementById("upload"), verdict = document.getElementById("verdict");
form.onsubmit = async (e) => {
  e.preventDefault();
  const auth = {Authorization: "Bearer " + form.token.value.trim()};
  verdict.textContent = "sending...";
  const body = form.archive.files[0];
  const sent = await fetch("/api/submit", {method: "POST", headers: auth, body});
  if (!sent.ok) { verdict.textContent = await sent.text(); return; }
  const {version} = await sent.json();
  verdict.textContent = "version " + version + ": building and checking...";
  for (;;) {
    await new Promise((r) => setTimeout(r, 1000));
    const mine = await (await fetch("/api/mine", {headers: auth})).json();
    const v = mine.find((s) => s.version === version);
    if (v && (v.state === "accepted" || v.state === "rejected")) {
      verdict.textContent = "version " + version + " " + v.state + "\\n\\n" + v.log;
      return;
    }
  }
};
</script>"""
"""The leaderboard page's upload form: the archive goes to ``/api/submit`` as it is, and
the verdict is read from ``/api/mine`` until the version is judged; the board above it
is fetched again every 5 s."""


async def entrant_page(request: web.Request) -> web.Response:
    data = _entrant(request.app[ARENA], request.match_info["name"])
    name = html.escape(data["author"])
    faults = ", ".join(f"{n} {kind}" for kind, n in data["faults"].items() if kind in FAULTS)
    parts = [
        f"<p>In its last {RECENT_TABLES} tables, every version: faults {faults}; "
        f"CPU {data['cpu_seconds']:.1f} s.</p><h2>Versions</h2><ul>"
    ]
    for row in data["board"]:  # the figures of the leaderboard, said the same way
        parts.insert(
            0,
            f"<p>On the leaderboard: v{row['version']}, rating {row['rating']:.0f}, "
            f"{row['matches']} matches, {row['faults']} faults (all of this version's "
            "matches).</p>",
        )
    if data["disqualified"] is not None:
        parts.insert(0, f"<p>Disqualified: {html.escape(data['disqualified'])}</p>")
    parts += [f"<li>v{v['version']}: {html.escape(v['state'])}</li>" for v in data["versions"]]
    parts.append("</ul><h2>Recent matches</h2><ul>")
    for m in reversed(data["recent"]):
        parts.append(
            f'<li data-table="{m["table"]}"><a href="/replay/{m["match"]}">match {m["match"]}</a> '
            f"(table {m['table']}): place {m['place']} of {m['of']}</li>"
        )
    parts.append(f'</ul>{OWN_LOGS}<p><a href="/">the leaderboard</a></p>')
    page = PAGE.format(title=name, body="".join(parts))
    return web.Response(text=page, content_type="text/html")


OWN_LOGS = """<h2>Your logs</h2>
<form id="logs"><p><label>Your token <input name="token" type="password" autocomplete="off"
required></label> <button>Show</button></p></form><div id="own"></div>
<script>
const logs = document.getElementById("logs"), own = document.getElementById("own");
const block = (title, text) => {
  const h = document.createElement("h3"), pre = document.createElement("pre");
  h.textContent = title; pre.textContent = text; own.append(h, pre);
};
logs.onsubmit = async (e) => {
  e.preventDefault();
  const auth = {Authorization: "Bearer " + logs.token.value.trim()};
  own.replaceChildren();
  const mine = await fetch("/api/mine", {headers: auth});
  if (!mine.ok) { block("refused", await mine.text()); return; }
  for (const v of await mine.json()) block("version " + v.version + ": " + v.state, v.log);
  const rows = document.querySelectorAll("li[data-table]");
  const tables = new Set([...rows].map((li) => li.dataset.table));
  for (const table of tables) {
    const said = await fetch("/api/stderr/" + table, {headers: auth});
    if (said.ok) block("table " + table + ": standard error", await said.text());
  }
};
</script>"""
"""An entrant's page's form for its author: with their token it shows the build and
check log of each version and what the program wrote to stderr at each recent table
(the server answers only the token's holder, and only about their own programs)."""


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
    match, events = _spectated(request.app[ARENA], request.match_info["id"])
    match_id = match.id
    names: list[str] = []
    parts = [f'<p><a href="/watch/{match_id}">Watch it on the board</a></p><ol>']
    for event in events:
        if isinstance(event, MatchStarted):
            names = list(event.seats)
        elif isinstance(event, RoundStarted):
            parts.append(f"</ol><h2>Round {event.round}</h2><ol>")
        parts.append(f"<li>{html.escape(describe(event, names))}</li>")
    parts.append('</ol><p><a href="/">the leaderboard</a></p>')
    page = PAGE.format(title=f"Match {match_id}", body="".join(parts))
    return web.Response(text=page, content_type="text/html")
