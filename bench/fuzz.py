"""A structure-aware fuzzer for the server: bad frames by the million, a real match beside them.

    python -m bench.fuzz --frames 1000000 [--connections 8] [--batch 400] [--half-frames 1000]

Hypothesis strategies describe what a hostile client can send: every client message
with its fields mutated (wrong types, huge and deep values, unknown fields), unknown
and non-string types, ext types, maps with odd keys, and frames that are no map at
all, truncated or oversized. A corpus is drawn from them once; the run then sends it,
and raw byte mutations of it and of the frames honest bots send, over several
connections at once against a ``leastscore serve`` subprocess, many frames per write.
Meanwhile honest bots play whole matches at a table of their own.

Each batch on a connection is a ``hello``, then frames that keep the connection (maps
the server answers and goes on), then maybe one frame that may close it (bytes that
are not one map, a bad prefix). Every reply is read; the server's log (its stderr)
is kept. Counted: frames sent, crashes (the server process gone), tracebacks in its
log, ``internal_error`` replies (what the server answers when a handler raised),
honest matches finished and their errors, the server's RSS before, at its peak,
and once everyone has gone (a thousand connections holding half a frame each
swell it last): more than ``--max-rss-growth`` MB kept fails the run, as a
crash does. Last line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import random
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import click
import msgspec
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from leastscore.protocol import MAX_FRAME, FrameReader, errors
from leastscore.protocol.messages import CLIENT_TYPES

from .load import BotClient, Crowd, Load, rss_kib, serve_command, start

HEADER = struct.Struct(">I")
_encode = msgspec.msgpack.Encoder().encode

# -- what a hostile client sends: hypothesis strategies ------------------------------

CARDS = [r + s for r in "A23456789TJQK" for s in "CDHS"]
NEAR_CARDS = ["as", "1S", "10H", "AX", "ZZ", "", "A", "ASS", "♠A", "\x00S", "TD "]
KINDS = sorted(CLIENT_TYPES)
FIELDS = {
    kind: [f.encode_name for f in msgspec.structs.fields(cls) if f.encode_name != "id"]
    for kind, cls in CLIENT_TYPES.items()
}
"""Every client message and its fields, from the message definitions (``id`` apart)."""
RULES = [
    "threshold",
    "runs_same_suit",
    "tie_loses",
    "false_declare_penalty",
    "declare_limit",
    "first_out_ends",
    "max_turns",
    "max_rounds",
]
LEVELS = ["random", "greedy", "counter", "expert", "expert:samples=24", "greedy:x=1", "expert:"]

ints = st.one_of(
    st.integers(-5, 70),
    st.integers(-(2**63), 2**64 - 1),
    st.sampled_from([0, -1, 2**31, 2**32, 2**53 + 1, 2**63 - 1, 2**64 - 1, -(2**63)]),
)
texts = st.one_of(
    st.text(max_size=40),
    st.text(min_size=30, max_size=80),
    st.sampled_from(["", " ", "\x00", "deck", "t000000", "é" * 33, "x" * 501]),
    st.builds(lambda n: "y" * n, st.integers(0, 600)),
)
scalars = st.one_of(
    st.none(),
    st.booleans(),
    ints,
    st.floats(allow_nan=True),
    texts,
    st.binary(max_size=40),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(KINDS)), inner, max_size=5),
    ),
    max_leaves=20,
)
card_names = st.one_of(st.sampled_from(CARDS), st.sampled_from(NEAR_CARDS), texts)


def good_fields(tables: Sequence[str]) -> dict[str, st.SearchStrategy[Any]]:
    """For each field a client may send, values of the right shape (some still refused)."""
    table_ids = st.sampled_from([*tables, "t000000", ""]) if tables else st.just("t000000")
    return {
        "id": ints,
        "protocol": st.lists(st.integers(-1, 3), max_size=4),
        "name": texts,
        "bot": st.booleans(),
        "client": texts,
        "token": texts,
        "seats": st.integers(0, 10),
        "rules": st.dictionaries(st.sampled_from([*RULES, "nope"]), scalars, max_size=4),
        "password": texts,
        "table": table_ids,
        "watch": st.booleans(),
        "rematch": st.booleans(),
        "level": st.one_of(st.sampled_from(LEVELS), texts),
        "text": texts,
        "discard": st.lists(card_names, max_size=7),
        "take": st.one_of(st.just("deck"), card_names),
        "round": ints,
        "turn": ints,
    }


@st.composite
def messages(draw: st.DrawFn, tables: Sequence[str] = ()) -> dict[Any, Any]:
    """A client message: a real type with each field good, mutated, or missing; or an
    unknown type, a type that is no string, no type at all; and odd extra keys."""
    good = good_fields(tables)
    kind: Any = draw(
        st.one_of(
            st.sampled_from(KINDS),
            st.sampled_from(KINDS),
            st.sampled_from(KINDS),
            texts,
            values,
        )
    )
    message: dict[Any, Any] = {}
    if draw(st.integers(0, 20)):
        message["type"] = kind
    names = FIELDS.get(kind, []) if isinstance(kind, str) else []
    for name in [*names, "id"]:
        how = draw(st.integers(0, 9))
        if how <= 5:
            message[name] = draw(good.get(name, values))
        elif how <= 7:
            message[name] = draw(values)  # wrong type, or a bad value of the right one
        # else: missing
    if not draw(st.integers(0, 4)):
        extra = draw(st.one_of(st.text(max_size=10), st.sampled_from(FIELDS["play"])))
        message[extra] = draw(values)
    return message


def _ext_body(draw: st.DrawFn) -> bytes:
    code = draw(st.integers(-128, 127))
    data = draw(st.binary(max_size=20))
    inner = msgspec.msgpack.Ext(code, data)
    return _encode({"type": draw(st.sampled_from(KINDS)), "x": inner})


def _deep_body(draw: st.DrawFn) -> bytes:
    depth = draw(st.integers(1, 20_000))
    opener = draw(st.sampled_from([b"\x91", b"\x81\xa1k", b"\xdc\x00\x01"]))
    return b"\x81\xa4type" + opener * depth + b"\xc0"


def _odd_keys_body(draw: st.DrawFn) -> bytes:
    keys = draw(st.lists(st.one_of(ints, st.booleans(), st.none(), st.binary(max_size=4))))
    return _encode({"type": "ping", **dict.fromkeys(keys, 1)})


@st.composite
def keeping_bodies(draw: st.DrawFn, tables: Sequence[str] = ()) -> bytes:
    """A frame body that is one map: the server answers it and keeps the connection."""
    how = draw(st.integers(0, 99))
    if how >= 90:
        return _odd_keys_body(draw)
    if how == 89:  # a big map, up to the frame limit
        size = draw(st.integers(1, MAX_FRAME - 64))
        return _encode({"type": draw(st.sampled_from(KINDS)), "pad": "z" * size})
    return _encode(draw(messages(tables)))


@st.composite
def closing_frames(draw: st.DrawFn) -> bytes:
    """A whole frame (prefix and body) that may close the connection."""
    how = draw(st.integers(0, 7))
    if how == 0:
        body = _ext_body(draw)
    elif how == 1:
        body = _deep_body(draw)
    elif how == 2:
        body = _encode(draw(values))  # not a map (or a map by chance)
    elif how == 3:
        body = draw(st.binary(max_size=64))
    elif how == 4:
        body = _encode(draw(messages()))[: draw(st.integers(0, 30))]  # truncated body
    elif how == 5:  # a prefix over the limit, or one that promises more than is sent
        size = draw(st.one_of(st.integers(MAX_FRAME + 1, 2**32 - 1), st.integers(0, 200)))
        return HEADER.pack(size) + draw(st.binary(max_size=40))
    elif how == 6:
        return draw(st.binary(min_size=1, max_size=64))  # garbage, no prefix at all
    else:
        body = b""
    return HEADER.pack(len(body)) + body


def draw_corpus(
    count: int, seed: int, tables: Sequence[str] = ()
) -> tuple[list[bytes], list[bytes]]:
    """Draw ``count`` keeping bodies and as many closing frames from the strategies."""
    keeping: list[bytes] = []
    closing: list[bytes] = []

    @settings(
        max_examples=count,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(st.data())
    def collect(data: st.DataObject) -> None:
        body, frame = data.draw(keeping_bodies(tables)), data.draw(closing_frames())
        keeping.append(body)  # after both draws: an example hypothesis drops adds nothing
        closing.append(frame)

    random_state = random.getstate()
    random.seed(seed)
    try:
        collect()
    finally:
        random.setstate(random_state)
    return keeping, closing


# -- byte mutations ------------------------------------------------------------------


def mutate(rng: random.Random, body: bytes) -> bytes:
    """One to four random edits of a frame body: flips, new bytes, cuts, copies, splices."""
    data = bytearray(body)
    for _ in range(rng.randint(1, 4)):
        how = rng.randrange(6)
        at = rng.randrange(len(data) + 1)
        if how == 0 and data:
            i = min(at, len(data) - 1)
            data[i] ^= 1 << rng.randrange(8)
        elif how == 1 and data:
            i = min(at, len(data) - 1)
            data[i] = rng.choice((0x00, 0x7F, 0x80, 0xC0, 0xC1, 0xC4, 0xD4, 0xDC, 0xDE, 0xFF))
        elif how == 2:
            data[at:at] = rng.randbytes(rng.randint(1, 4))
        elif how == 3:
            del data[at : at + rng.randint(1, 4)]
        elif how == 4 and data:
            n = rng.randint(1, 8)
            data[at:at] = data[max(0, at - n) : at]
        else:
            data = data[:at]
    return bytes(data[:MAX_FRAME])


def keeps(body: bytes) -> bool:
    """Does this body hold one map without ext types (so the connection survives it)?"""
    try:
        return type(_strict(body)) is dict
    except (msgspec.DecodeError, ValueError, RecursionError):
        return False


def _no_ext(code: int, data: memoryview) -> Any:
    raise ValueError("ext")


_strict = msgspec.msgpack.Decoder(ext_hook=_no_ext).decode


# -- the run -------------------------------------------------------------------------


@dataclass
class Tally:
    frames: int = 0
    replies: int = 0
    internal_errors: int = 0
    connections: int = 0
    unanswered: int = 0
    """Connections whose frames were not all answered within a minute."""
    refused: int = 0
    """Connections the server would not take (it is down, or full)."""
    codes: dict[str, int] = field(default_factory=dict)


class FuzzClient(asyncio.Protocol):
    """One fuzzing connection: sends its batch in one write and reads every reply."""

    def __init__(self, tally: Tally) -> None:
        self.tally = tally
        self.frames = FrameReader(limit=1 << 25)
        self.transport: asyncio.Transport | None = None
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.broken = False
        self.pongs_wanted = 1
        """The batch ends in this many pings: their pongs say every frame was answered."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        try:
            bodies = self.frames.feed(data)
        except Exception:
            self.broken = True
            return
        for body in bodies:
            self.tally.replies += 1
            if b"\xa4pong" in body:
                self.pongs_wanted -= 1
                if self.pongs_wanted == 0 and not self.done.done():
                    self.done.set_result(None)
            if b"\xa4code" in body:
                code = str(msgspec.msgpack.decode(body).get("code"))
                self.tally.codes[code] = self.tally.codes.get(code, 0) + 1
                if code == errors.INTERNAL_ERROR:  # a handler raised (and it was logged)
                    self.tally.internal_errors += 1

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


def _frame(message: dict[str, Any]) -> bytes:
    body = _encode(message)
    return HEADER.pack(len(body)) + body


HELLO = _frame({"type": "hello", "protocol": [1], "name": "fz"})
PING = _frame({"type": "ping", "id": 7_777_777})


class Fuzzer:
    """Builds batches from the corpus and the recorded frames, and sends them."""

    def __init__(
        self,
        port: int,
        keeping: list[bytes],
        closing: list[bytes],
        recorded: list[bytes],
        seed: int,
        batch: int,
    ) -> None:
        self.port = port
        self.keeping = keeping
        self.closing = closing
        self.recorded = recorded
        self.rng = random.Random(seed)
        self.batch = batch
        self.tally = Tally()

    def _batch(self) -> tuple[bytes, int, bool]:
        rng = self.rng
        parts: list[bytes] = []
        count = 0
        if rng.randrange(20):
            parts.append(HELLO)
            count += 1
        target = rng.randint(1, self.batch)
        while count < target:
            how = rng.randrange(10)
            if how < 5:
                body = rng.choice(self.keeping)
            else:
                source = rng.choice(self.recorded if how < 8 and self.recorded else self.keeping)
                body = mutate(rng, source)
                if not keeps(body):
                    continue
            parts.append(HEADER.pack(len(body)) + body)
            count += 1
        parts.append(PING)  # its pong: every frame before it was answered
        count += 1
        closing = rng.randrange(3) == 0
        if closing:
            how = rng.randrange(3)
            if how == 0 or not self.recorded:
                parts.append(rng.choice(self.closing))
            else:
                body = mutate(rng, rng.choice(self.recorded))
                parts.append(HEADER.pack(len(body)) + body)
            parts.append(PING)  # answered unless that frame closed the connection
            count += 2
        return b"".join(parts), count, closing

    async def one_connection(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            _, client = await loop.create_connection(
                lambda: FuzzClient(self.tally), "127.0.0.1", self.port
            )
        except OSError:
            self.tally.refused += 1
            return
        data, count, closing = self._batch()
        client.pongs_wanted = 2 if closing else 1
        assert client.transport is not None
        client.transport.write(data)
        self.tally.frames += count
        self.tally.connections += 1
        # Done at the last pong, or when the server closes. A closing frame may also leave
        # the server waiting for bytes that never come (a prefix promising more): that
        # connection ends here, after a while with nothing more to read.
        try:
            await asyncio.wait_for(asyncio.shield(client.done), 60 if not closing else 2)
        except TimeoutError:
            if not closing:
                self.tally.unanswered += 1
        finally:
            client.transport.close()

    async def half_frames(self, count: int, per_address: int = 60) -> None:
        """Open ``count`` connections (from several loopback addresses, ``per_address``
        each, within the server's limit per address) that each say hello and send most
        of a frame near the size limit, hold them all at once, then drop them all: the
        server's memory swells, and must come back down once they are gone."""
        loop = asyncio.get_running_loop()
        body = HEADER.pack(MAX_FRAME - 512) + b"\x00" * (MAX_FRAME - 4096)
        held: list[asyncio.Transport] = []
        for i in range(count):
            source = f"127.0.{1 + i // (per_address * 250)}.{2 + (i // per_address) % 250}"
            try:
                transport, _ = await loop.create_connection(
                    lambda: FuzzClient(self.tally), "127.0.0.1", self.port, local_addr=(source, 0)
                )
            except OSError:
                self.tally.refused += 1
                continue
            transport.write(HELLO + body)
            held.append(transport)
            self.tally.connections += 1
        await asyncio.sleep(1.0)  # every half frame read and buffered by the server
        for each in held:
            each.close()

    async def drive(self, frames: int, parallel: int, keep_going: asyncio.Event) -> None:
        async def lane() -> None:
            while self.tally.frames < frames and keep_going.is_set():
                await self.one_connection()

        await asyncio.gather(*(lane() for _ in range(parallel)))


@dataclass
class Outcome:
    frames: int
    crashes: int
    tracebacks: int
    internal_errors: int
    honest_matches: int
    honest_errors: int
    honest_disconnections: int
    rss_before_mb: float
    rss_peak_mb: float
    rss_after_mb: float
    seconds: float
    connections: int
    replies: int
    codes: dict[str, int]

    def as_dict(self) -> dict[str, Any]:
        return {"bench": "fuzz", **self.__dict__}


class Recording(BotClient):
    """An honest bot that keeps the bodies of the frames it sends (the seeds of mutation)."""

    recorded: ClassVar[list[bytes]] = []

    def send(self, message: dict[str, Any]) -> None:
        if len(Recording.recorded) < 5000:
            Recording.recorded.append(_encode(message))
        super().send(message)


@dataclass(frozen=True)
class Plan:
    """What a fuzzing run sends, and how long it waits."""

    frames: int
    parallel: int = 8
    """Fuzzing connections at once."""
    batch: int = 600
    """The most frames sent on one connection."""
    seed: int = 1
    corpus: int = 4000
    """Bodies drawn from the strategies."""
    min_matches: int = 1
    """Honest matches to wait for at the end."""
    half_frames: int = 0
    """Connections holding half a frame each, all at once, after the frames
    (``Fuzzer.half_frames``)."""
    settle: float = 15.0
    """Seconds the server gets to let everyone go and hand back what they held (its
    ``--abandon-after`` and its memory trimmer's period, with room) before its RSS
    is read."""


async def fuzz(plan: Plan, server_argv: list[str]) -> tuple[Outcome, str]:
    """Start a server, seat the honest bots, fuzz as ``plan`` says, stop; what was seen."""
    with tempfile.TemporaryFile() as log:
        proc, port = start(server_argv, stderr=log)
        try:
            fuzzer, load, crashed, (rss_before, rss_peak, rss_after), seconds = await _run(
                proc, port, plan
            )
        finally:
            if proc.poll() is None:
                proc.terminate()
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        log.seek(0)
        text = log.read().decode(errors="replace")
    tally = fuzzer.tally
    return Outcome(
        frames=tally.frames,
        crashes=int(crashed),
        tracebacks=text.count("Traceback"),
        internal_errors=tally.internal_errors,
        honest_matches=load.matches,
        honest_errors=load.errors,
        honest_disconnections=load.disconnections,
        rss_before_mb=round(rss_before, 1),
        rss_peak_mb=round(rss_peak, 1),
        rss_after_mb=round(rss_after, 1),
        seconds=round(seconds, 1),
        connections=tally.connections,
        replies=tally.replies,
        codes=dict(sorted(tally.codes.items())),
    ), text


async def _run(
    proc: subprocess.Popen[str], port: int, plan: Plan
) -> tuple[Fuzzer, Load, bool, tuple[float, float, float], float]:
    """Fuzz the server of ``proc``; the fuzzer, the honest bots' tally, whether the
    server died, its RSS in MB (before, at its peak, and after everyone left) and the
    seconds it took."""
    await asyncio.sleep(0.2)
    rss_before = rss_kib(proc.pid) / 1024
    started = time.perf_counter()
    keep_going = asyncio.Event()
    keep_going.set()

    async def watch_server() -> None:
        while keep_going.is_set():
            if proc.poll() is not None:
                keep_going.clear()
            await asyncio.sleep(0.2)

    watcher = asyncio.ensure_future(watch_server())
    fuzzer, load = await hostile_load(port, plan, keep_going)
    keep_going.clear()
    await watcher
    await asyncio.sleep(plan.settle)
    crashed = proc.poll() is not None
    rss_peak = rss_kib(proc.pid, "VmHWM") / 1024 if not crashed else 0.0
    rss_after = rss_kib(proc.pid) / 1024 if not crashed else 0.0
    rss = (rss_before, rss_peak, rss_after)
    return fuzzer, load, crashed, rss, time.perf_counter() - started


async def hostile_load(port: int, plan: Plan, keep_going: asyncio.Event) -> tuple[Fuzzer, Load]:
    """Seat honest bots, fuzz ``plan.frames`` frames beside them (until ``keep_going``
    is cleared), hold ``plan.half_frames`` connections with half a frame each, wait
    for ``plan.min_matches`` honest matches, and have the honest bots leave."""
    load = Load()
    Recording.recorded.clear()
    honest = Crowd(load, port, 4, name="honest", rules={"threshold": 40}, client=Recording)
    await honest.seat()
    while not honest.tables or len(Recording.recorded) < 8:  # seated, and a move made
        await asyncio.sleep(0.05)
    keeping, closing = await asyncio.to_thread(draw_corpus, plan.corpus, plan.seed, honest.tables)
    fuzzer = Fuzzer(port, keeping, closing, list(Recording.recorded), plan.seed, plan.batch)
    await fuzzer.drive(plan.frames, plan.parallel, keep_going)
    if plan.half_frames and keep_going.is_set():
        await fuzzer.half_frames(plan.half_frames)
    deadline = time.perf_counter() + 120
    while load.matches < plan.min_matches and keep_going.is_set():
        if time.perf_counter() > deadline:
            break
        await asyncio.sleep(0.1)
    honest.leave()
    return fuzzer, load


def fuzz_server_argv(*extra: str) -> list[str]:
    """``leastscore serve`` for fuzzing: warnings and errors logged, a short grace, and
    matches nobody is connected to stopped after a second (as they were at the grace)."""
    return serve_command("-q", "--grace", "1", "--abandon-after", "1", *extra)


@click.command()
@click.option("--frames", default=1_000_000, show_default=True)
@click.option("--connections", "parallel", default=8, show_default=True, help="In parallel.")
@click.option("--batch", default=600, show_default=True, help="Most frames per connection.")
@click.option("--seed", default=1, show_default=True)
@click.option("--corpus", default=4000, show_default=True, help="Bodies drawn from strategies.")
@click.option(
    "--half-frames",
    default=1000,
    show_default=True,
    help="Connections holding half a frame each, all at once, after the frames.",
)
@click.option(
    "--max-rss-growth",
    default=16.0,
    show_default=True,
    help="MB the server's RSS may grow by, once everyone has gone; more fails the run.",
)
@click.option("--log", "log_path", default=None, help="Keep the server's log in this file.")
def main(
    frames: int,
    parallel: int,
    batch: int,
    seed: int,
    corpus: int,
    half_frames: int,
    max_rss_growth: float,
    log_path: str | None,
) -> None:
    plan = Plan(frames, parallel, batch, seed, corpus, half_frames=half_frames)
    outcome, text = asyncio.run(fuzz(plan, fuzz_server_argv()))
    if log_path:
        with open(log_path, "w") as f:
            f.write(text)
    for line in [x for x in text.splitlines() if "Traceback" in x or "ERROR" in x][:20]:
        click.echo(line, err=True)
    o = outcome
    growth = round(o.rss_after_mb - o.rss_before_mb, 1)
    click.echo(
        f"{o.frames:,} frames over {o.connections:,} connections in {o.seconds} s; "
        f"{o.crashes} crashes, {o.tracebacks} tracebacks, {o.internal_errors} internal errors; "
        f"{o.honest_matches} honest matches ({o.honest_errors} errors); "
        f"RSS {o.rss_before_mb} MB before, {o.rss_peak_mb} at the peak, "
        f"{o.rss_after_mb} after everyone left ({growth:+} MB, at most {max_rss_growth:+})"
    )
    click.echo(json.dumps({**outcome.as_dict(), "rss_growth_mb": growth}))
    failed = outcome.crashes or outcome.tracebacks or outcome.internal_errors
    sys.exit(1 if failed or growth > max_rss_growth else 0)


if __name__ == "__main__":
    main()
