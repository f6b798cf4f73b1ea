"""Pages served with aiohttp: the shipped static files, the page's words, JSON answers,
and an application on HOST:PORT. Whatever serves a page (the server's view, a
tournament's live page, the arena) uses these, so each is written once."""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from typing import Any

import msgspec
from aiohttp import web
from leastscore.game import Event

from leastscore.lang import HEARD, LANGUAGES, words

from .pages import render

STATIC = resources.files("leastscore.kit") / "static"
KINDS = {
    "js": "text/javascript",
    "css": "text/css",
    "png": "image/png",
    "svg": "image/svg+xml",
    "txt": "text/plain",
}
"""The kinds of file ``/static/`` serves, by their name's ending."""
_json = msgspec.json.Encoder()


def static_file(name: str) -> bytes:
    """One of the pages' shipped files (``static/``), as the package ships it."""
    return (STATIC / name).read_bytes()


async def asset(request: web.Request) -> web.Response:
    """``/static/{name}``: a shipped file of a kind ``KINDS`` names, else 404."""
    name = request.match_info["name"]
    kind = KINDS.get(name.rsplit(".", 1)[-1])
    if kind is None or "/" in name or name.startswith("."):
        raise web.HTTPNotFound()
    try:
        body = static_file(name)
    except FileNotFoundError:
        raise web.HTTPNotFound() from None
    return web.Response(body=body, content_type=kind)


async def page_words(request: web.Request) -> web.Response:
    """The page's words in a language (``/api/words/fr``), from the catalogs, and the
    English sentences of the server and the engine it says in that language (``heard``)."""
    code = request.match_info["code"]
    if code not in LANGUAGES:
        raise web.HTTPNotFound(text=f"no language {code!r}: {', '.join(LANGUAGES)}")
    response = json_reply({"words": words(code), "heard": HEARD})
    response.headers["Cache-Control"] = "max-age=3600"
    return response


def json_reply(data: object) -> web.Response:
    """``data`` as a JSON answer (every page's API answers are)."""
    return web.Response(body=_json.encode(data), content_type="application/json")


def html_reply(name: str, **values: Any) -> web.Response:
    """The page ``templates/NAME`` rendered (escaped) with ``values``, as an answer."""
    return web.Response(text=render(name, **values), content_type="text/html")


def spectator_log(events: Sequence[Event]) -> list[dict[str, Any]]:
    """A stored match as a spectator would have seen it (the page tells it in words)."""
    return [{"event": event.seen_by(None)} for event in events]


class WebSite:
    """An aiohttp application served on HOST:PORT (port 0: a free one, known once
    started) for as long as what it shows runs: the server's view, a tournament's live
    page and the arena are each one, so none of them borrows another's."""

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self.runner: web.AppRunner | None = None

    async def serve(self, app: web.Application) -> None:
        self.runner = web.AppRunner(app, access_log=None)
        await self.runner.setup()
        await web.TCPSite(self.runner, self.host, self.port).start()
        if self.port == 0:
            self.port = int(self.runner.addresses[0][1])

    async def stop(self) -> None:
        if self.runner is not None:
            await self.runner.cleanup()

    @property
    def address(self) -> str:
        return f"http://{self.host}:{self.port}/"
