"""What holds the server's memory: a server under ``tracemalloc`` and a crowd of raw bots.

    python -m bench.memory --connections 400 --seconds 60 [--hand-cache N]
    python -m bench.memory --fuzz 1000000


The server runs in a child process of this module (``--serve``) with tracemalloc
on, and takes a snapshot whenever the parent asks (a line on its stdin). The
parent seats the crowd, snapshots the server once warm and at the end of play,
has every bot leave, and snapshots it again. It prints the top allocators
(by source line) that grew during play and that are still held once everyone
has gone, with the server's RSS at each point. With ``--fuzz N`` the crowd is
``bench.fuzz``'s hostile load instead (N frames beside honest bots), and the
server lets a vanished player go after a second, as ``make fuzz``'s does. Last
line: one JSON object.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
from typing import Any

import click
from leastscore.server.config import ServerConfig

from .load import Crowd, Load, rss_kib

TOP = 12


def _serve(hand_cache: int, frames: int, fuzzed: bool) -> None:
    """The child: a server under tracemalloc; ``snap PATH`` on stdin dumps a snapshot."""
    tracemalloc.start(frames)
    from leastscore.game.groups import set_hand_cache_size
    from leastscore.server.app import Server

    config = ServerConfig(
        port=0, bot_delay=0.0, max_connections_per_peer=100_000, hand_cache=hand_cache
    )
    if fuzzed:
        config.grace_period = config.abandon_after = 1.0
    set_hand_cache_size(config.hand_cache)  # as leastscore serve does

    async def run() -> None:
        server = Server(config)
        await server.start()
        print(f"listening on 127.0.0.1:{server.port}", flush=True)
        loop = asyncio.get_running_loop()
        reader = asyncio.StreamReader()
        await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
        while line := (await reader.readline()).decode().strip():
            if line.startswith("snap "):
                tracemalloc.take_snapshot().dump(line[5:])
                print("done", flush=True)
        await server.shutdown()

    asyncio.run(run())


class Child:
    def __init__(self, hand_cache: int, frames: int, fuzzed: bool = False) -> None:
        argv = [sys.executable, "-m", "bench.memory", "--serve", "--frames", str(frames)]
        argv += ["--hand-cache", str(hand_cache)] + (["--fuzz", "1"] if fuzzed else [])
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if "listening on" not in line:
            raise RuntimeError(f"server did not start: {line!r}")
        self.port = int(line.rsplit(":", 1)[1])
        self.dir = tempfile.mkdtemp(prefix="leastscore-memory-")

    async def snapshot(self, name: str) -> tuple[tracemalloc.Snapshot, float]:
        """A snapshot of the server's heap, and its RSS in MB, taken now."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        path = os.path.join(self.dir, f"{name}.snap")
        self.proc.stdin.write(f"snap {path}\n")
        self.proc.stdin.flush()
        done = await asyncio.to_thread(self.proc.stdout.readline)
        assert done.strip() == "done", done
        rss = rss_kib(self.proc.pid) / 1024
        snap = tracemalloc.Snapshot.load(path)
        os.unlink(path)
        return snap, rss

    def stop(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.rmdir(self.dir)


def _top(after: tracemalloc.Snapshot, before: tracemalloc.Snapshot) -> list[dict[str, Any]]:
    rows = []
    for stat in after.compare_to(before, "lineno")[:TOP]:
        frame = stat.traceback[0]
        rows.append(
            {
                "where": f"{_short(frame.filename)}:{frame.lineno}",
                "kib": round(stat.size / 1024),
                "growth_kib": round(stat.size_diff / 1024),
                "blocks": stat.count,
            }
        )
    return rows


def _short(path: str) -> str:
    for marker in ("/site-packages/", "/lib/python3"):
        if marker in path:
            return path.split(marker, 1)[1]
    parts = path.split(os.sep)
    return os.sep.join(parts[-2:])


def _total(snap: tracemalloc.Snapshot) -> float:
    return sum(s.size for s in snap.statistics("filename")) / 2**20


async def _measure(connections: int, seconds: float, warmup: float, child: Child) -> dict[str, Any]:
    base, base_rss = await child.snapshot("base")
    load = Load()
    crowd = Crowd(load, child.port, connections)
    await crowd.seat()
    await asyncio.sleep(warmup)
    warm, warm_rss = await child.snapshot("warm")
    moves_warm = load.moves
    load.counting = True
    await asyncio.sleep(seconds)
    load.counting = False
    end, end_rss = await child.snapshot("end")
    moves = load.moves - moves_warm
    crowd.leave()
    await asyncio.sleep(3.0)  # the server sees every leave and close
    gone, gone_rss = await child.snapshot("gone")
    return {
        "moves": moves,
        "errors": load.errors,
        "traced_mb": {
            "base": round(_total(base), 1),
            "warm": round(_total(warm), 1),
            "end": round(_total(end), 1),
            "gone": round(_total(gone), 1),
        },
        "rss_mb": {
            "base": round(base_rss, 1),
            "warm": round(warm_rss, 1),
            "end": round(end_rss, 1),
            "gone": round(gone_rss, 1),
        },
        "bytes_per_move": round((_total(end) - _total(warm)) * 2**20 / max(1, moves)),
        "grew_in_play": _top(end, warm),
        "held_after_all_left": _top(gone, base),
    }


async def _measure_fuzz(frames: int, child: Child) -> dict[str, Any]:
    from .fuzz import Plan, hostile_load

    base, base_rss = await child.snapshot("base")
    keep_going = asyncio.Event()
    keep_going.set()
    plan = Plan(frames, half_frames=1000)
    fuzzer, _ = await hostile_load(child.port, plan, keep_going)
    await asyncio.sleep(plan.settle)  # every seat let go, every match stopped, memory trimmed
    gone, gone_rss = await child.snapshot("gone")
    return {
        "frames": fuzzer.tally.frames,
        "connections": fuzzer.tally.connections,
        "traced_mb": {"base": round(_total(base), 1), "gone": round(_total(gone), 1)},
        "rss_mb": {"base": round(base_rss, 1), "gone": round(gone_rss, 1)},
        "held_after_all_left": _top(gone, base),
    }


@click.command()
@click.option("--connections", default=400, show_default=True)
@click.option("--seconds", default=60.0, show_default=True, help="Play measured after warm-up.")
@click.option("--warmup", default=5.0, show_default=True)
@click.option(
    "--hand-cache",
    default=ServerConfig.hand_cache,
    show_default=True,
    help="The server's hand cache bound (as serve --hand-cache).",
)
@click.option("--frames", default=1, show_default=True, help="Traceback depth to record.")
@click.option("--fuzz", "fuzz", default=0, help="Hostile frames to send instead of a crowd.")
@click.option("--serve", is_flag=True, hidden=True)
def main(
    connections: int,
    seconds: float,
    warmup: float,
    hand_cache: int,
    frames: int,
    fuzz: int,
    serve: bool,
) -> None:
    if serve:
        _serve(hand_cache, frames, fuzzed=fuzz > 0)
        return
    child = Child(hand_cache, frames, fuzzed=fuzz > 0)
    try:
        if fuzz:
            result = asyncio.run(_measure_fuzz(fuzz, child))
        else:
            result = asyncio.run(_measure(connections, seconds, warmup, child))
    finally:
        child.stop()
    _print_top(result)
    if fuzz:
        click.echo(f"{result['frames']:,} frames; RSS {result['rss_mb']}")
        click.echo(json.dumps({"bench": "memory", "fuzz": fuzz, **result}))
        return
    click.echo(
        f"{result['moves']:,} moves; {result['bytes_per_move']} traced bytes per move; "
        f"RSS {result['rss_mb']}"
    )
    result = {"bench": "memory", "connections": connections, "seconds": seconds, **result}
    result["hand_cache"] = hand_cache
    click.echo(json.dumps(result))


def _print_top(result: dict[str, Any]) -> None:
    for title, key in (("grew during play", "grew_in_play"), ("held", "held_after_all_left")):
        if key not in result:
            continue
        click.echo(f"-- {title}:")
        for row in result[key]:
            click.echo(
                f"  {row['where']:<50} {row['kib']:>8} KiB ({row['growth_kib']:+} KiB)"
                f" {row['blocks']} blocks"
            )


if __name__ == "__main__":
    main()
