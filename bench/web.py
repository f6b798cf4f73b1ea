"""What the browser's seat costs: the page's weight, its first paint, and a move over the
WebSocket against the same move over TCP.

    python -m bench.web [--connections 40] [--seconds 4] [--rounds 3] [--think 2]

One ``leastscore serve --web`` process. First the page: the bytes of ``index.html``
and every script and style it loads, as the server sends them (uncompressed), and,
when Debian's chromium and Playwright are there, the first contentful paint of the
page on loopback. Then the same crowd of bench bots (``bench.load``: tables of four
playing match after match) plays over TCP, then over WebSockets at ``/play`` (one
binary message per frame body), each for the same window, turn about for a few
rounds; the server's CPU per move is measured for both, and ``ws_to_tcp`` is the
median of the rounds' ratios (the goal: at most 1.3). The
bots' own round trip (a move sent to its ``ok``) is reported beside, p50 and p99.
Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import urllib.request
from typing import Any

import aiohttp
import click
from leastscore.seats.loop import run

from .load import HEADER, BotClient, Crowd, Load, percentile, start


class WebSocketWire(asyncio.Transport):
    """A bench bot's transport over a WebSocket: each frame it writes goes as one binary
    message without the length header, as PROTOCOL.md's WebSocket transport says."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse) -> None:
        super().__init__()
        self.ws = ws
        self.sending: set[asyncio.Future[Any]] = set()

    def write(self, data: bytes | bytearray | memoryview) -> None:
        sending = asyncio.ensure_future(self.ws.send_bytes(bytes(data)[HEADER.size :]))
        self.sending.add(sending)
        sending.add_done_callback(self.sending.discard)

    def is_closing(self) -> bool:
        return self.ws.closed

    def close(self) -> None:
        if not self.ws.closed:
            self.sending.add(asyncio.ensure_future(self.ws.close()))


class WebSocketCrowd(Crowd):
    """The bench crowd, each bot connected over the WebSocket at ``/play``."""

    def __init__(self, load: Load, url: str, connections: int, http: aiohttp.ClientSession):
        super().__init__(load, 0, connections, name="web")
        self.url = url
        self.http = http
        self.readers: list[asyncio.Task[None]] = []

    async def connect(self) -> BotClient:
        ws = await self.http.ws_connect(self.url, max_msg_size=0)
        client = self.client(self.load, self._on_message)
        client.connection_made(WebSocketWire(ws))
        self.readers.append(asyncio.ensure_future(self._read(ws, client)))
        return client

    @staticmethod
    async def _read(ws: aiohttp.ClientWebSocketResponse, client: BotClient) -> None:
        async for message in ws:
            if message.type is aiohttp.WSMsgType.BINARY:
                client.body_received(message.data)
        client.connection_lost(None)


async def crowd_load(
    transport: str, port: int, web: str, connections: int, seconds: float, pid: int, think: float
) -> Load:
    """The crowd over ``transport`` (``tcp`` or ``websocket``), measured for ``seconds``;
    each bot waits ``think`` seconds before it answers its turn."""
    load = Load()
    load.think = think
    async with aiohttp.ClientSession() as http:
        crowd: Crowd
        if transport == "websocket":
            crowd = WebSocketCrowd(
                load, web.replace("http://", "ws://") + "play", connections, http
            )
        else:
            crowd = Crowd(load, port, connections, name="tcp")
        await crowd.seat()
        await asyncio.sleep(2.0)  # every table playing
        await load.measure(seconds, pid)
        crowd.close()
        await asyncio.sleep(0.2)
    return load


def page_weight(web: str) -> dict[str, int]:
    """The bytes of the page and of each file it loads, as served."""
    index = urllib.request.urlopen(web, timeout=10).read()
    sizes = {"index.html": len(index)}
    for path in re.findall(rb'(?:src|href)="(/static/[^"]+)"', index):
        name = path.decode()
        sizes[name.removeprefix("/static/")] = len(
            urllib.request.urlopen(web.rstrip("/") + name, timeout=10).read()
        )
    return sizes


async def first_paint(web: str) -> float | None:
    """The page's first contentful paint on loopback, in ms (None without a browser)."""
    chromium = os.environ.get("CHROMIUM") or "/usr/bin/chromium"
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        return None
    if not os.path.exists(chromium):
        return None
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        paints = []
        for _ in range(5):  # the median of five fresh loads
            page = await browser.new_page()
            await page.goto(web + "#/play")
            await page.wait_for_function(
                "performance.getEntriesByName('first-contentful-paint').length > 0"
            )
            paints.append(
                await page.evaluate(
                    "performance.getEntriesByName('first-contentful-paint')[0].startTime"
                )
            )
            await page.close()
        await browser.close()
    return round(float(statistics.median(paints)), 1)


def summary(loads: list[Load]) -> dict[str, Any]:
    """One transport's rounds together: the server's CPU per move, the bots' round trips."""
    moves = sum(load.moves for load in loads)
    seconds = sum(load.seconds for load in loads)
    cpu = sum(load.server_cpu * load.seconds for load in loads)
    latencies = [t for load in loads for t in load.latencies]
    return {
        "moves": moves,
        "moves_per_s": round(moves / seconds),
        "cpu_us_per_move": round(cpu / moves * 1e6, 1),
        "p50_ms": round(statistics.median(latencies) * 1000, 2),
        "p99_ms": round(percentile(latencies, 0.99) * 1000, 2),
        "errors": sum(load.errors for load in loads),
        "client_cpu": round(sum(load.client_cpu * load.seconds for load in loads) / seconds, 2),
    }


@click.command()
@click.option("--connections", default=40, show_default=True, help="Bots, at tables of four.")
@click.option("--seconds", default=4.0, show_default=True, help="Each window of a transport.")
@click.option("--rounds", default=3, show_default=True, help="Windows of each, turn about.")
@click.option(
    "--think",
    default=2.0,
    show_default=True,
    help="Milliseconds a bot waits before its move: both transports then carry the same "
    "moves a second, below what the clients can send, so the server's cost per move is "
    "compared at one load (0: as fast as the clients go).",
)
def main(connections: int, seconds: float, rounds: int, think: float) -> None:
    think /= 1000
    if connections % 4:
        raise click.BadParameter("connections must be a multiple of 4 (tables of four)")
    serve = [sys.executable, "-m", "leastscore", "serve", "--port", "0", "--no-db", "-q", "-q"]
    serve += ["--bot-delay", "0", "--max-connections-per-peer", str(connections + 16)]
    serve += ["--web", "127.0.0.1:0"]
    proc, port = start(serve)
    try:
        assert proc.stdout is not None
        web = proc.stdout.readline().split(" at ", 1)[1].strip()
        sizes = page_weight(web)
        paint = run(first_paint(web))
        runs: dict[str, list[Load]] = {"tcp": [], "websocket": []}
        for _ in range(rounds):  # turn about: the machine's noise falls on both alike
            for transport, loads in runs.items():
                measured = crowd_load(transport, port, web, connections, seconds, proc.pid, think)
                loads.append(run(measured))
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
    tcp, ws = (summary(runs[transport]) for transport in ("tcp", "websocket"))
    ratios = [
        round(w.server_cpu / w.moves / (t.server_cpu / t.moves), 2)
        for t, w in zip(runs["tcp"], runs["websocket"], strict=True)
    ]
    page = sum(sizes.values())
    result = {
        "bench": "web",
        "page_bytes": page,
        "page_kib": round(page / 1024, 1),
        "page_files": sizes,
        "first_paint_ms": paint,
        "connections": connections,
        "think_ms": think * 1000,
        "seconds": seconds,
        "tcp": tcp,
        "websocket": ws,
        "rounds": rounds,
        "ws_to_tcp_by_round": ratios,
        "ws_to_tcp": statistics.median(ratios),
        "cpus": os.cpu_count(),
    }
    click.echo(
        f"page {result['page_kib']} KiB in {len(sizes)} files, first paint "
        f"{paint if paint is not None else 'not measured (no browser)'} ms; "
        f"{connections} bots: the server spends {tcp['cpu_us_per_move']} us a move over TCP "
        f"and {ws['cpu_us_per_move']} us over WebSockets ({result['ws_to_tcp']}x, the median "
        f"of {rounds} rounds turn about: {ratios}); "
        f"a move's round trip p50 {tcp['p50_ms']} / {ws['p50_ms']} ms, "
        f"p99 {tcp['p99_ms']} / {ws['p99_ms']} ms (TCP / WebSocket)"
    )
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
