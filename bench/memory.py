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
import sys
import tracemalloc
from typing import Any

import click
from leastscore.server.config import ServerConfig

from .load import Crowd, Load
from .traced import Traced, answer_snapshots, top, total_mb


def _serve(hand_cache: int, frames: int, fuzzed: bool) -> None:
    """The child: a server under tracemalloc, answering snapshots until stdin closes."""
    tracemalloc.start(frames)
    from leastscore.game.groups import for_a_long_run
    from leastscore.server.app import Server

    config = ServerConfig(
        port=0, bot_delay=0.0, max_connections_per_peer=100_000, hand_cache=hand_cache
    )
    if fuzzed:
        config.grace_period = config.abandon_after = 1.0
    for_a_long_run(config.hand_cache)  # as leastscore serve does

    async def run() -> None:
        server = Server(config)
        await server.start()
        print(f"listening on 127.0.0.1:{server.port}", flush=True)
        loop = asyncio.get_running_loop()
        done = asyncio.Event()
        answer_snapshots(sys.stdin, sys.stdout, lambda: loop.call_soon_threadsafe(done.set))
        await done.wait()
        await server.shutdown()

    asyncio.run(run())


def child(hand_cache: int, frames: int, fuzzed: bool = False) -> tuple[Traced, int]:
    """The traced server, and its port."""
    argv = [sys.executable, "-m", "bench.memory", "--serve", "--frames", str(frames)]
    traced = Traced(argv + ["--hand-cache", str(hand_cache)] + (["--fuzz", "1"] if fuzzed else []))
    line = traced.readline()
    if "listening on" not in line:
        raise RuntimeError(f"server did not start: {line!r}")
    return traced, int(line.rsplit(":", 1)[1])


async def _measure(
    connections: int, seconds: float, warmup: float, child: Traced, port: int
) -> dict[str, Any]:
    base, base_rss = await asyncio.to_thread(child.snapshot, "base")
    load = Load()
    crowd = Crowd(load, port, connections)
    await crowd.seat()
    await asyncio.sleep(warmup)
    warm, warm_rss = await asyncio.to_thread(child.snapshot, "warm")
    moves_warm = load.moves
    load.counting = True
    await asyncio.sleep(seconds)
    load.counting = False
    end, end_rss = await asyncio.to_thread(child.snapshot, "end")
    moves = load.moves - moves_warm
    crowd.leave()
    await asyncio.sleep(3.0)  # the server sees every leave and close
    gone, gone_rss = await asyncio.to_thread(child.snapshot, "gone")
    return {
        "moves": moves,
        "errors": load.errors,
        "traced_mb": {
            "base": round(total_mb(base), 1),
            "warm": round(total_mb(warm), 1),
            "end": round(total_mb(end), 1),
            "gone": round(total_mb(gone), 1),
        },
        "rss_mb": {
            "base": round(base_rss, 1),
            "warm": round(warm_rss, 1),
            "end": round(end_rss, 1),
            "gone": round(gone_rss, 1),
        },
        "bytes_per_move": round((total_mb(end) - total_mb(warm)) * 2**20 / max(1, moves)),
        "grew_in_play": top(end, warm),
        "held_after_all_left": top(gone, base),
    }


async def _measure_fuzz(frames: int, child: Traced, port: int) -> dict[str, Any]:
    from .fuzz import Plan, hostile_load

    base, base_rss = await asyncio.to_thread(child.snapshot, "base")
    keep_going = asyncio.Event()
    keep_going.set()
    plan = Plan(frames, half_frames=1000)
    fuzzer, _ = await hostile_load(port, plan, keep_going)
    await asyncio.sleep(plan.settle)  # every seat let go, every match stopped, memory trimmed
    gone, gone_rss = await asyncio.to_thread(child.snapshot, "gone")
    return {
        "frames": fuzzer.tally.frames,
        "connections": fuzzer.tally.connections,
        "traced_mb": {"base": round(total_mb(base), 1), "gone": round(total_mb(gone), 1)},
        "rss_mb": {"base": round(base_rss, 1), "gone": round(gone_rss, 1)},
        "held_after_all_left": top(gone, base),
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
    traced, port = child(hand_cache, frames, fuzzed=fuzz > 0)
    try:
        if fuzz:
            result = asyncio.run(_measure_fuzz(fuzz, traced, port))
        else:
            result = asyncio.run(_measure(connections, seconds, warmup, traced, port))
    finally:
        traced.stop()
    _printtop(result)
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


def _printtop(result: dict[str, Any]) -> None:
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
