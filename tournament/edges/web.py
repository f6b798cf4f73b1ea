"""A tournament followed in a browser: ``leastscore tournament ... --web [HOST:]PORT``.

The live page is ``report.html`` itself, made by ``report.to_html`` from the tally as it
stands, with progress and an estimate of the time left, and the kit's ``live.js``, which
fetches the page again every few seconds and puts the new body in place. The report written
at the end and the page on the wall are the same function's output, so they never
disagree. aiohttp serves it from the tournament's own event loop; it is read-only.
When the run ends, ``serve_final`` keeps the final report at the same address until
Ctrl-C, so that the page on the wall does not go blank at the moment it is complete.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from aiohttp import web
from leastscore.kit.serve import WebSite, asset

from ..pure import report

Page = Callable[[], str]
"""The live report as it stands now."""
Standings = Callable[[], bytes]
"""``standings.json`` as it stands now."""


@dataclass
class Clock:
    """How far the tournament has got, and how long the rest should take."""

    scheduled: int
    done_at_start: int
    started: float = field(default_factory=time.monotonic)

    def progress(self, counted: int) -> report.Progress:
        elapsed = time.monotonic() - self.started
        played = counted - self.done_at_start
        left = self.scheduled - counted
        eta = elapsed / played * left if played > 0 else None
        return report.Progress(counted, self.scheduled, elapsed, eta)


class TournamentView(WebSite):
    """The web edge of a running tournament."""

    def __init__(self, host: str, port: int, page: Page, standings: Standings) -> None:
        super().__init__(host, port)
        self.page, self.standings = page, standings

    async def start(self) -> None:
        app = web.Application()
        app.router.add_get("/", self._page)
        app.router.add_get("/standings.json", self._standings)
        app.router.add_get("/static/{name}", asset)  # the live page's script
        await self.serve(app)

    async def _page(self, request: web.Request) -> web.Response:
        return web.Response(text=self.page(), content_type="text/html")

    async def _standings(self, request: web.Request) -> web.Response:
        return web.Response(body=self.standings(), content_type="application/json")


def serve_final(
    host: str, port: int, page: str, standings: bytes, say: Callable[[str], None]
) -> None:
    """The run is over: serve its final report (and ``standings.json``) at the live
    page's address until Ctrl-C or SIGTERM, saying so."""

    async def serve() -> None:
        view = TournamentView(host, port, page=lambda: page, standings=lambda: standings)
        await view.start()
        stop = asyncio.Event()
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
        say(f"the final standings stay at {view.address} until Ctrl-C")
        try:
            await stop.wait()
        finally:
            await view.stop()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
