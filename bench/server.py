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
in a temporary SQLite file, as a server does by default).
Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

import click
import msgspec
from leastscore.protocol import SERVER_FRAME_LIMIT, FrameReader

HEADER = struct.Struct(">I")
_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode
VALUES = {r: min(10, i + 1) for i, r in enumerate("A23456789TJQK")}
INTERESTING = (b"\xa4hand", b"\xa2ok", b"\xa5error", b"\xa9match_end", b"\xa7welcome")
"""Byte patterns of the frames a bench bot must read (msgpack strings with their headers)."""


def frame(message: dict[str, Any]) -> bytes:
    body = _encode(message)
    return HEADER.pack(len(body)) + body


class Load:
    """What the clients measured."""

    def __init__(self) -> None:
        self.moves = 0
        self.latencies: list[float] = []
        self.counting = False
        self.errors = 0
        self.seconds = 0.0
        self.think = 0.0
        """Seconds a bot waits before answering its turn."""
        self.server_cpu = 0.0
        """The server's CPU use during the window, in cores."""

    async def measure(self, seconds: float, pid: int | None) -> None:
        """Count for ``seconds``, and the server's CPU use over the same window."""
        self.counting = True
        started = time.perf_counter()
        cpu = cpu_seconds(pid) if pid else 0.0
        await asyncio.sleep(seconds)
        self.counting = False
        self.seconds = time.perf_counter() - started
        self.server_cpu = (cpu_seconds(pid) - cpu) / self.seconds if pid else 0.0


class BotClient(asyncio.Protocol):
    """A fast raw-frame bot: answers its own turns from the ``turn`` message alone."""

    def __init__(self, load: Load, on_message: Callable[[BotClient, dict[str, Any]], None]) -> None:
        self.load = load
        self.on_message = on_message
        self.frames = FrameReader(limit=SERVER_FRAME_LIMIT)
        self.transport: asyncio.Transport | None = None
        self.sent_at = 0.0
        self.next_id = 1
        self.ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.closed = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.send({"type": "hello", "protocol": [1], "name": "bench", "bot": True})

    def send(self, message: dict[str, Any]) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(message))

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            if not any(key in body for key in INTERESTING):
                continue  # others' moves and turns: nothing for this bot to do
            message = _decode(body)
            kind = message["type"]
            if kind == "turn" and "hand" in message:
                if self.load.think:
                    asyncio.get_running_loop().call_later(self.load.think, self.move, message)
                else:
                    self.move(message)
            elif kind == "ok" and message.get("id", 0) >= 1_000_000:
                if self.load.counting:
                    self.load.moves += 1
                    self.load.latencies.append(time.perf_counter() - self.sent_at)
            elif kind == "welcome":
                self.ready.set_result(None)
            elif kind == "error":
                self.load.errors += 1
            self.on_message(self, message)

    def move(self, turn: dict[str, Any]) -> None:
        self.next_id += 1
        msg_id = 1_000_000 + self.next_id
        self.sent_at = time.perf_counter()
        total = sum(VALUES[c[0]] for c in turn["hand"])
        if turn["can_declare"] and total <= 5:
            self.send({"type": "declare", "id": msg_id})
        else:
            take = "deck" if turn["can_draw"] else turn["open"][0]
            self.send({"type": "play", "id": msg_id, "discard": turn["legal"][-1], "take": take})

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True


async def play_load(
    port: int,
    connections: int,
    seconds: float,
    warmup: float,
    pid: int | None = None,
    think: float = 0.0,
) -> Load:
    loop = asyncio.get_running_loop()
    load = Load()
    load.think = think / 1000
    tables: dict[int, str] = {}
    waiting: dict[int, list[BotClient]] = {}

    def on_message(client: BotClient, message: dict[str, Any]) -> None:
        kind = message["type"]
        group = client_group.get(client)
        if group is None:
            return  # its welcome came in before it was given a table
        if kind == "ok" and message.get("id") == 1 and group not in tables:
            tables[group] = message["table"]
            for other in waiting.pop(group, []):
                other.send({"type": "join", "table": tables[group], "id": 2})
        elif kind == "match_end" and client is owners[group]:
            client.send({"type": "start", "id": 3})

    client_group: dict[BotClient, int] = {}
    owners: dict[int, BotClient] = {}
    clients: list[BotClient] = []
    for i in range(connections):
        _, client = await loop.create_connection(
            lambda: BotClient(load, on_message), "127.0.0.1", port
        )
        clients.append(client)
        client_group[client] = i // 4
    await asyncio.gather(*(c.ready for c in clients))
    for group in range(connections // 4):
        members = clients[group * 4 : group * 4 + 4]
        owners[group] = members[0]
        waiting[group] = members[1:]
        members[0].send(
            {"type": "create", "id": 1, "seats": 4, "name": f"bench {group}", "rules": {}}
        )
    await asyncio.sleep(warmup)
    await load.measure(seconds, pid)
    for c in clients:
        assert c.transport is not None
        c.transport.close()
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
            _decode(body)  # the same client-side work as reading a reply
            if self.load.counting:
                self.load.moves += 1
                self.load.latencies.append(time.perf_counter() - self.sent_at)
            self.fire()


async def echo_load(port: int, connections: int, seconds: float, pid: int | None = None) -> Load:
    loop = asyncio.get_running_loop()
    load = Load()
    body = _encode({"type": "play", "id": 1_000_001, "discard": ["7H", "7D"], "take": "deck"})
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


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def start(argv: list[str]) -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, int(line.rsplit(":", 1)[1])


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


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
    if uv:
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    loop_flag = [] if uv else ["--no-uvloop"]
    python = sys.executable
    echo, echo_port = start([python, "-m", "bench.echo", *loop_flag])
    try:
        echoed = asyncio.run(echo_load(echo_port, connections, seconds, echo.pid))
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
            per_idle = asyncio.run(idle_memory(fresh_port, fresh.pid, idle))
        finally:
            fresh.terminate()
            fresh.wait()
        game, game_port = start(serve)
        try:
            played = asyncio.run(play_load(game_port, connections, seconds, 2.0, game.pid, think))
            rss = rss_kib(game.pid) / 1024
        finally:
            game.terminate()
            game.wait()
    moves_per_s = played.moves / played.seconds
    echo_per_s = echoed.moves / echoed.seconds
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
        "server_cpu_us_per_move": round(played.server_cpu / moves_per_s * 1e6, 1),
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
        f"server CPU {result['server_cpu_us_per_move']} us per move"
        f"{' (recording matches)' if db else ''}; "
        f"server {result['rss_mb']} MB, {result['idle_kib_per_connection']} KiB per idle connection"
    )
    click.echo(json.dumps(result))


if __name__ == "__main__":
    main()
