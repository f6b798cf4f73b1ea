"""A relay with the game server's framing: the floor ``bench.server`` compares a move to.

    python -m bench.relay [--no-uvloop]            # the relay alone, as bench.echo
    python -m bench.relay --measure [--connections 200] [--seconds 10]

The relay knows no game. Each connection names its table in its first frame;
from then on every frame a connection sends is forwarded, as it is, to every
connection of its table (the sender's own copy stands for the ``ok`` a server
answers a move with). The clients keep the traffic of ``bench.server``: tables
of four, one mover at a time, each move a frame of the size of a ``play``
request, the next seat moving when it sees the move. ``relay_load`` runs the
relay in its own process and returns what it cost per request, measured like
the server: its CPU time over the window, per request relayed.

``bench.server`` calls it in the same run as the game server::

    from bench.relay import relay_load
    relayed = relay_load(connections, seconds, loop_name)
    ratio_to_relay = server_cpu_us_per_move / relayed["relay_cpu_us_per_request"]

Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import time
from typing import Any

import click
import msgspec
from leastscore.protocol import SERVER_FRAME_LIMIT, FrameReader, frame
from leastscore.seats.loop import run

from bench.load import Load, percentile, start

_encode = msgspec.msgpack.Encoder().encode
_decode = msgspec.msgpack.Decoder().decode
SEATS = 4
TABLES: dict[int, list[Relay]] = {}
"""The relay's connections by table."""


class Relay(asyncio.Protocol):
    """One connection to the relay: its first frame names its table."""

    def __init__(self) -> None:
        self.frames = FrameReader()
        self.transport: asyncio.Transport | None = None
        self.table: list[Relay] | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            table = self.table
            if table is None:
                number = int(_decode(body)["table"])
                table = self.table = TABLES.setdefault(number, [])
                table.append(self)
                continue
            data_out = frame(body)
            for other in table:
                if other.transport is not None:
                    other.transport.write(data_out)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.table is not None and self in self.table:
            self.table.remove(self)


async def serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(Relay, "127.0.0.1", 0, backlog=1024)
    print(f"listening on 127.0.0.1:{server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.Event().wait()


class RelayClient(asyncio.Protocol):
    """A seat at a relayed table: it moves when the frame it sees names it next."""

    def __init__(self, load: Any, table: int, seat: int) -> None:
        self.load = load
        self.table = table
        self.seat = seat
        self.frames = FrameReader(limit=SERVER_FRAME_LIMIT)
        self.transport: asyncio.Transport | None = None
        self.sent_at = 0.0
        self.next_id = 1_000_000

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        transport.write(frame(_encode({"type": "hello", "table": self.table})))  # type: ignore[attr-defined]

    def move(self) -> None:
        if self.transport is None or self.transport.is_closing():
            return
        self.next_id += 1
        self.sent_at = time.perf_counter()
        nxt = (self.seat + 1) % SEATS
        message = {
            "type": "play",
            "id": self.next_id,
            "discard": ["7H", "7D"],
            "take": "deck",
            "seat": self.seat,
            "next": nxt,
        }
        self.transport.write(frame(_encode(message)))

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            message = _decode(body)  # the same client-side work as reading a reply
            if message["seat"] == self.seat and self.load.counting:
                self.load.moves += 1
                self.load.latencies.append(time.perf_counter() - self.sent_at)
            if message["next"] == self.seat:
                self.move()


async def _relay_clients(
    port: int, connections: int, seconds: float, pid: int | None = None
) -> Any:

    loop = asyncio.get_running_loop()
    load = Load()
    clients: list[RelayClient] = []
    for i in range(connections):
        table, seat = divmod(i, SEATS)
        _, client = await loop.create_connection(
            lambda t=table, s=seat: RelayClient(load, t, s),  # type: ignore[misc]
            "127.0.0.1",
            port,
        )
        clients.append(client)
    await asyncio.sleep(0.5)  # every hello in
    for client in clients[::SEATS]:
        client.move()  # seat 0 of every table moves first
    await asyncio.sleep(1.0)
    await load.measure(seconds, pid)
    for c in clients:
        assert c.transport is not None
        c.transport.close()
    return load


def relay_load(connections: int, seconds: float, loop_name: str = "uvloop") -> dict[str, float]:
    """Run the relay in its own process with ``connections`` clients at tables of
    four for ``seconds``; requests relayed per second and the relay's CPU per
    request (the floor of ``bench.server``'s ``server_cpu_us_per_move``)."""

    if connections % SEATS:
        raise ValueError("connections must be a multiple of 4 (tables of four)")
    flag = [] if loop_name == "uvloop" else ["--no-uvloop"]
    relay, port = start([sys.executable, "-m", "bench.relay", *flag])
    try:
        load = run(_relay_clients(port, connections, seconds, relay.pid), loop_name == "uvloop")
    finally:
        relay.terminate()
        relay.wait()
    per_s = load.moves / load.seconds
    return {
        "connections": connections,
        "requests": load.moves,
        "requests_per_s": round(per_s),
        "relay_cpu": round(load.server_cpu, 2),
        "client_cpu": round(load.client_cpu, 2),
        "relay_cpu_us_per_request": round(load.server_cpu / per_s * 1e6, 1) if per_s else 0.0,
        "p50_ms": round(statistics.median(load.latencies) * 1000, 2) if load.latencies else 0.0,
        "p99_ms": round(percentile(load.latencies, 0.99) * 1000, 2),
    }


@click.command()
@click.option("--measure", is_flag=True, help="Run the relay and clients; print the figures.")
@click.option("--connections", default=200, show_default=True)
@click.option("--seconds", default=10.0, show_default=True)
@click.option("--no-uvloop", is_flag=True, help="asyncio's own event loop.")
def main(measure: bool, connections: int, seconds: float, no_uvloop: bool) -> None:
    loop_name = "asyncio" if no_uvloop else "uvloop"
    if not measure:
        run(serve(), fast=not no_uvloop)
        return
    result = relay_load(connections, seconds, loop_name)
    click.echo(
        f"relay, {connections} connections at {connections // SEATS} tables ({loop_name}): "
        f"{result['requests_per_s']:,} requests/s (p50 {result['p50_ms']} ms, p99 "
        f"{result['p99_ms']} ms); relay CPU {result['relay_cpu_us_per_request']} us per request"
    )
    click.echo(json.dumps({"bench": "relay", "loop": loop_name, **result}))


if __name__ == "__main__":
    main()
