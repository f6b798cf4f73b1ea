"""Raw-frame bots that play whole matches against a real server, and the process plumbing
every long run shares (start ``leastscore serve``, read its RSS and CPU).

Used by ``bench.server`` (throughput), ``bench.soak`` (hours of play at a constant crowd),
``bench.fuzz`` (honest matches beside the fuzzed connections) and ``bench.memory``.
"""

from __future__ import annotations

import asyncio
import os
import struct
import subprocess
import time
from collections.abc import Callable
from typing import IO, Any

import msgspec
from leastscore.protocol import SERVER_FRAME_LIMIT, FrameReader

HEADER = struct.Struct(">I")
encode = msgspec.msgpack.Encoder().encode
decode = msgspec.msgpack.Decoder().decode
VALUES = {r: min(10, i + 1) for i, r in enumerate("A23456789TJQK")}
INTERESTING = (b"\xa4hand", b"\xa2ok", b"\xa5error", b"\xa9match_end", b"\xa7welcome")
"""Byte patterns of the frames a bench bot must read (msgpack strings with their headers)."""
MOVE_IDS = 1_000_000
"""Request ids of moves start here; lobby requests use small ids."""


def frame(message: dict[str, Any]) -> bytes:
    body = encode(message)
    return HEADER.pack(len(body)) + body


def answer(turn: dict[str, Any], msg_id: int) -> dict[str, Any]:
    """A bench bot's move for its ``turn`` message: declare at 5 points or less, else
    discard the last legal group and take the deck (or the first open card)."""
    if turn["can_declare"] and sum(VALUES[c[0]] for c in turn["hand"]) <= 5:
        return {"type": "declare", "id": msg_id}
    take = "deck" if turn["can_draw"] else turn["open"][0]
    return {"type": "play", "id": msg_id, "discard": turn["legal"][-1], "take": take}


class Load:
    """What the clients measured."""

    def __init__(self) -> None:
        self.moves = 0
        self.latencies: list[float] = []
        self.counting = False
        self.errors = 0
        self.error_codes: dict[str, int] = {}
        self.disconnections = 0
        """Connections the server closed while their bot was still playing."""
        self.matches = 0
        """``match_end`` frames seen by table owners: one per finished match."""
        self.seconds = 0.0
        self.think = 0.0
        """Seconds a bot waits before answering its turn."""
        self.server_cpu = 0.0
        """The server's CPU use during the window, in cores."""
        self.client_cpu = 0.0
        """This process's CPU use during the window, in cores: near 1, the clients
        themselves are the bottleneck, and the latencies they measure are partly theirs."""

    async def measure(self, seconds: float, pid: int | None) -> None:
        """Count for ``seconds``, and the server's CPU use over the same window."""
        self.counting = True
        started = time.perf_counter()
        cpu = cpu_seconds(pid) if pid else 0.0
        mine = time.process_time()
        await asyncio.sleep(seconds)
        self.counting = False
        self.seconds = time.perf_counter() - started
        self.server_cpu = (cpu_seconds(pid) - cpu) / self.seconds if pid else 0.0
        self.client_cpu = (time.process_time() - mine) / self.seconds


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
        self.leaving = False
        """Set before this side closes: a close after it is no disconnection."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.send({"type": "hello", "protocol": [1], "name": "bench", "bot": True})

    def send(self, message: dict[str, Any]) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(message))

    def data_received(self, data: bytes) -> None:
        for body in self.frames.feed(data):
            self.body_received(body)

    def body_received(self, body: bytes) -> None:
        """One frame body, however it came (a TCP frame, a WebSocket message)."""
        if any(key in body for key in INTERESTING):  # else others' moves and turns
            message = decode(body)
            self.message_received(message)

    def message_received(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "turn" and "hand" in message:
            if self.load.think:
                asyncio.get_running_loop().call_later(self.load.think, self.move, message)
            else:
                self.move(message)
        elif kind == "ok" and message.get("id", 0) >= MOVE_IDS:
            if self.load.counting:
                self.load.moves += 1
                self.load.latencies.append(time.perf_counter() - self.sent_at)
        elif kind == "welcome":
            self.ready.set_result(None)
        elif kind == "error":
            self.load.errors += 1
            code = str(message.get("code"))
            self.load.error_codes[code] = self.load.error_codes.get(code, 0) + 1
        self.on_message(self, message)

    def move(self, turn: dict[str, Any]) -> None:
        if self.leaving:
            return
        self.next_id += 1
        self.sent_at = time.perf_counter()
        self.send(answer(turn, MOVE_IDS + self.next_id))

    def connection_lost(self, exc: Exception | None) -> None:
        self.closed = True
        if not self.leaving:
            self.load.disconnections += 1
        if not self.ready.done():
            self.ready.set_exception(ConnectionError("closed before welcome"))

    def leave(self) -> None:
        """Leave the table for good, then close."""
        self.leaving = True
        self.send({"type": "leave", "id": 4})
        if self.transport is not None:
            self.transport.close()


class Crowd:
    """Bots at tables of four that play match after match: the owner of each table
    creates it, the other three join, and the owner starts a new match at each end."""

    def __init__(
        self,
        load: Load,
        port: int,
        connections: int,
        name: str = "bench",
        rules: dict[str, Any] | None = None,
        client: type[BotClient] = BotClient,
    ) -> None:
        if connections % 4:
            raise ValueError("connections must be a multiple of 4 (tables of four)")
        self.load = load
        self.port = port
        self.size = connections
        self.name = name
        self.rules = rules or {}
        self.client = client
        self.clients: list[BotClient] = []
        self._group: dict[BotClient, int] = {}
        self._owners: dict[int, BotClient] = {}
        self._tables: dict[int, str] = {}
        self._waiting: dict[int, list[BotClient]] = {}

    def _on_message(self, client: BotClient, message: dict[str, Any]) -> None:
        kind = message["type"]
        group = self._group.get(client)
        if group is None:
            return  # its welcome came in before it was given a table
        if kind == "ok" and message.get("id") == 1 and group not in self._tables:
            self._tables[group] = message["table"]
            for other in self._waiting.pop(group, []):
                other.send({"type": "join", "table": self._tables[group], "id": 2})
        elif kind == "match_end" and client is self._owners[group]:
            self.load.matches += 1
            if not client.leaving:
                client.send({"type": "start", "id": 3})

    async def connect(self) -> BotClient:
        """One bot's connection to the server (over TCP; ``bench.web`` opens WebSockets)."""
        loop = asyncio.get_running_loop()
        _, client = await loop.create_connection(
            lambda: self.client(self.load, self._on_message), "127.0.0.1", self.port
        )
        return client

    async def seat(self) -> None:
        """Connect every bot, then seat them (the first matches start by themselves)."""
        for i in range(self.size):
            client = await self.connect()
            self.clients.append(client)
            self._group[client] = i // 4
        await asyncio.gather(*(c.ready for c in self.clients))
        for group in range(self.size // 4):
            members = self.clients[group * 4 : group * 4 + 4]
            self._owners[group] = members[0]
            self._waiting[group] = members[1:]
            members[0].send(
                {
                    "type": "create",
                    "id": 1,
                    "seats": 4,
                    "name": f"{self.name} {group}",
                    "rules": self.rules,
                }
            )

    @property
    def tables(self) -> list[str]:
        """The ids of the tables created so far."""
        return list(self._tables.values())

    def leave(self) -> None:
        """Every bot leaves its table and closes."""
        for client in self.clients:
            client.leave()

    def close(self) -> None:
        for client in self.clients:
            client.leaving = True
            if client.transport is not None:
                client.transport.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_kib(pid: int, field: str = "VmRSS") -> int:
    """The resident memory of process ``pid`` now (``VmHWM``: its peak), in KiB."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field}")


def start(
    argv: list[str], stderr: IO[bytes] | int | None = None
) -> tuple[subprocess.Popen[str], int]:
    """Start a server that prints ``listening on HOST:PORT`` first; its process and port."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=stderr, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "listening on" not in line:
        proc.kill()
        raise RuntimeError(f"server did not start: {line!r}")
    return proc, int(line.rsplit(":", 1)[1])


def serve_command(*extra: str) -> list[str]:
    """``leastscore serve`` on a free loopback port, no database, bots without pauses."""
    import sys

    argv = [sys.executable, "-m", "leastscore", "serve", "--port", "0", "--no-db"]
    return [*argv, "--bot-delay", "0", *extra]


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
