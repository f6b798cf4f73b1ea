"""How the game server holds up under many bot connections, against asyncio's ceiling.

    python -m bench.server --connections 200 --seconds 10 [--loop uvloop|asyncio] [--db]

The server runs in its own process (``leastscore serve``). This process opens N
connections and plays real matches at N/4 tables of four: every move is a
``play``/``declare`` request answered by ``ok``, then ``played`` and ``turn``
events to the table. In the same run, the same client measures a bare echo
server with the same framing (N connections, each sending one frame and
waiting for it back): the ceiling of Python asyncio here. Then it opens idle
connections to measure the server's memory per connection. The server keeps no
database unless ``--db`` is given (then it records every match, as it is played,
in a temporary SQLite file, as a server does by default). Last, the same
client traffic goes through ``bench.relay``, a relay with the same framing that
knows no game and forwards each frame to the four connections of its table: the
server's CPU per move is reported as ``ratio_to_relay``, against the relay's CPU
per request (the goal: at most 2x). Beside it, ``bench.game_work``'s figure: the
game's own work in a move with no traffic at all; what the server spends beyond
the two is the layers between (connection, lobby, table, seats, driver, core).
Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time

import click
from leastscore.protocol import SERVER_FRAME_LIMIT, FrameReader
from leastscore.seats.loop import run

from .game_work import game_work
from .load import (
    HEADER,
    BotClient,
    Crowd,
    Load,
    decode,
    encode,
    percentile,
    rss_kib,
    start,
)
from .relay import relay_load


async def play_load(
    port: int,
    connections: int,
    seconds: float,
    warmup: float,
    pid: int | None = None,
    think: float = 0.0,
) -> Load:
    load = Load()
    load.think = think / 1000
    crowd = Crowd(load, port, connections)
    await crowd.seat()
    await asyncio.sleep(warmup)
    await load.measure(seconds, pid)
    crowd.close()
    return load


class EchoClient(asyncio.Protocol):
    def __init__(self, load: Load, body: bytes) -> None:
        self.load, self.data = load, HEADER.pack(len(body)) + body
        self.frames = FrameReader(limit=SERVER_FRAME_LIMIT)
        self.transport: asyncio.Transport | None = None
        self.sent_at = 0.0

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.fire()

    def fire(self) -> None:
        assert self.transport is not None
        self.sent_at = time.perf_counter()
        self.transport.write(self.data)

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            decode(body)  # the same client-side work as reading a reply
            if self.load.counting:
                self.load.moves += 1
                self.load.latencies.append(time.perf_counter() - self.sent_at)
            self.fire()


async def echo_load(port: int, connections: int, seconds: float, pid: int | None = None) -> Load:
    loop = asyncio.get_running_loop()
    load = Load()
    body = encode({"type": "play", "id": 1_000_001, "discard": ["7H", "7D"], "take": "deck"})
    clients = []
    for _ in range(connections):
        _, client = await loop.create_connection(lambda: EchoClient(load, body), "127.0.0.1", port)
        clients.append(client)
    await asyncio.sleep(0.5)
    await load.measure(seconds, pid)
    for c in clients:
        assert c.transport is not None
        c.transport.close()
    return load


async def idle_memory(port: int, pid: int, count: int) -> float:
    """KiB of server memory per handshaken, idle connection."""
    loop = asyncio.get_running_loop()
    load = Load()
    await asyncio.sleep(0.5)
    before = rss_kib(pid)
    clients = []
    for _ in range(count):
        _, client = await loop.create_connection(
            lambda: BotClient(load, lambda c, m: None), "127.0.0.1", port
        )
        clients.append(client)
    await asyncio.gather(*(c.ready for c in clients))
    await asyncio.sleep(0.5)
    after = rss_kib(pid)
    for c in clients:
        assert c.transport is not None
        c.transport.close()
    return (after - before) / count


@click.command()
@click.option("--connections", default=200, show_default=True)
@click.option("--seconds", default=10.0, show_default=True)
@click.option("--loop", "loop_name", type=click.Choice(["uvloop", "asyncio"]), default="uvloop")
@click.option("--idle", default=1000, show_default=True, help="Idle connections for memory.")
@click.option(
    "--think",
    default=0.0,
    show_default=True,
    help="Milliseconds each bot waits before answering its turn (0: as fast as it can).",
)
@click.option("--db", is_flag=True, help="Record the matches in a temporary SQLite file.")
def main(
    connections: int, seconds: float, loop_name: str, idle: int, think: float, db: bool
) -> None:
    if connections % 4:
        raise click.BadParameter("connections must be a multiple of 4 (tables of four)")
    uv = loop_name == "uvloop"
    loop_flag = [] if uv else ["--no-uvloop"]
    python = sys.executable
    echo, echo_port = start([python, "-m", "bench.echo", *loop_flag])
    try:
        echoed = run(echo_load(echo_port, connections, seconds, echo.pid), uv)
    finally:
        echo.terminate()
        echo.wait()
    with tempfile.TemporaryDirectory() as tmp:
        store = ["--db", os.path.join(tmp, "matches.sqlite3")] if db else ["--no-db"]
        serve = [python, "-m", "leastscore", "serve", "--port", "0", *store, "-q", "-q"]
        # Every connection of this bench comes from one address: lift the limit per peer.
        per_peer = str(max(connections, idle) + 16)
        serve = [*serve, "--bot-delay", "0", "--max-connections-per-peer", per_peer, *loop_flag]
        if os.environ.get("BENCH_SERVER_COMMAND"):
            serve = os.environ["BENCH_SERVER_COMMAND"].split()
        fresh, fresh_port = start(serve)  # memory per idle connection, on a fresh server
        try:
            per_idle = run(idle_memory(fresh_port, fresh.pid, idle), uv)
        finally:
            fresh.terminate()
            fresh.wait()
        game, game_port = start(serve)
        try:
            played = run(play_load(game_port, connections, seconds, 2.0, game.pid, think), uv)
            rss = rss_kib(game.pid) / 1024
        finally:
            game.terminate()
            game.wait()
    relayed = relay_load(connections, seconds, loop_name)  # the floor: same traffic, no game
    game_cpu = game_work()  # the other floor: the game, no traffic
    moves_per_s = played.moves / played.seconds
    echo_per_s = echoed.moves / echoed.seconds
    cpu_per_move = played.server_cpu / moves_per_s * 1e6
    result = {
        "bench": "server",
        "loop": loop_name,
        "connections": connections,
        "think_ms": think,
        "db": db,
        "tables": connections // 4,
        "seconds": seconds,
        "moves": played.moves,
        "moves_per_s": round(moves_per_s),
        "echo_per_s": round(echo_per_s),
        "ratio": round(moves_per_s / echo_per_s, 3),
        "p50_ms": round(statistics.median(played.latencies) * 1000, 2),
        "p99_ms": round(percentile(played.latencies, 0.99) * 1000, 2),
        "echo_p99_ms": round(percentile(echoed.latencies, 0.99) * 1000, 2),
        "server_cpu": round(played.server_cpu, 2),
        "client_cpu": round(played.client_cpu, 2),
        "server_cpu_us_per_move": round(cpu_per_move, 1),
        "relay_cpu_us_per_request": relayed["relay_cpu_us_per_request"],
        "relay_p99_ms": relayed["p99_ms"],
        "relay_client_cpu": relayed["client_cpu"],
        "ratio_to_relay": round(cpu_per_move / relayed["relay_cpu_us_per_request"], 2),
        "game_cpu_us_per_move": game_cpu,
        "layers_cpu_us_per_move": round(
            cpu_per_move - relayed["relay_cpu_us_per_request"] - game_cpu, 1
        ),
        "echo_server_cpu": round(echoed.server_cpu, 2),
        "rss_mb": round(rss, 1),
        "idle_kib_per_connection": round(per_idle, 1),
        "errors": played.errors,
        "cpus": os.cpu_count(),
    }
    click.echo(
        f"{connections} connections at {connections // 4} tables ({loop_name}): "
        f"{result['moves_per_s']:,} moves/s "
        f"(p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms); "
        f"echo {result['echo_per_s']:,}/s; ratio {result['ratio']}; "
        f"server CPU {result['server_cpu_us_per_move']} us per move, "
        f"{result['ratio_to_relay']}x the relay's {result['relay_cpu_us_per_request']} us, "
        f"beyond the relay, the game's own work {game_cpu} us and the layers between "
        f"{result['layers_cpu_us_per_move']} us"
        f"{' (recording matches)' if db else ''}; "
        f"server {result['rss_mb']} MB, {result['idle_kib_per_connection']} KiB per idle connection"
    )
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
