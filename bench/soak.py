"""A long run at a constant crowd: does the server hold up, and does its memory stay flat?

    python -m bench.soak [--connections 1000] [--minutes 10 | --seconds S] [--think 100]

A ``leastscore serve`` subprocess and N raw bots (``bench.load``) at N/4 tables of four,
playing match after match; each bot waits ``--think`` ms before its move. The server's
RSS is sampled every 10 s. At the end every bot leaves its table and closes, and the
RSS is read again once the server is idle. "Warm" is the RSS a fifth of the way in
(2 minutes of 10); growth is the last sample against it. Errors are error frames to
the bots, disconnections the connections the server closed on them. Last line: one
JSON object.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import click
from leastscore.seats.loop import run

from .load import Crowd, Load, percentile, rss_kib, serve_command, start

SAMPLE_EVERY = 10.0


def soak_server_argv(connections: int) -> list[str]:
    """``leastscore serve`` for the soak: every bot comes from 127.0.0.1, so the limit of
    connections per address is raised above the crowd."""
    return serve_command("-q", "--max-connections-per-peer", str(connections + 16))


async def soak(
    proc: subprocess.Popen[str], port: int, connections: int, seconds: float, think: float
) -> dict[str, Any]:
    load = Load()
    load.think = think / 1000
    crowd = Crowd(load, port, connections, name="soak")
    began = time.perf_counter()
    samples: list[tuple[float, float]] = [(0.0, rss_kib(proc.pid) / 1024)]
    await crowd.seat()
    load.counting = True
    while (elapsed := time.perf_counter() - began) < seconds - 0.5 and proc.poll() is None:
        await asyncio.sleep(min(SAMPLE_EVERY, seconds - elapsed))
        samples.append((round(time.perf_counter() - began, 1), rss_kib(proc.pid) / 1024))
    load.counting = False
    moves = load.moves
    crowd.leave()
    await asyncio.sleep(15.0)  # every leave and close is handled; the tables are gone
    after = rss_kib(proc.pid) / 1024 if proc.poll() is None else 0.0
    warm_at = seconds / 5
    warm = next((rss for t, rss in samples if t >= warm_at), samples[-1][1])
    last = samples[-1][1]
    return {
        "bench": "soak",
        "connections": connections,
        "seconds": round(time.perf_counter() - began - 15.0, 1),
        "think_ms": think,
        "moves": moves,
        "moves_per_s": round(moves / max(1e-9, seconds)),
        "matches": load.matches,
        "errors": load.errors,
        "error_codes": load.error_codes,
        "disconnections": load.disconnections,
        "p50_ms": round(statistics.median(load.latencies) * 1000, 2) if load.latencies else None,
        "p99_ms": round(percentile(load.latencies, 0.99) * 1000, 2),
        "rss_mb": [[t, round(rss, 1)] for t, rss in samples],
        "rss_warm_mb": round(warm, 1),
        "rss_end_mb": round(last, 1),
        "rss_after_leaving_mb": round(after, 1),
        "growth_after_warm_pct": round((last / warm - 1) * 100, 1),
        "after_leaving_vs_warm_pct": round((after / warm - 1) * 100, 1),
        "server_alive": proc.poll() is None,
    }


@click.command()
@click.option("--connections", default=1000, show_default=True)
@click.option("--minutes", default=10.0, show_default=True)
@click.option("--seconds", default=None, type=float, help="Instead of --minutes.")
@click.option("--think", default=100.0, show_default=True, help="Milliseconds before a move.")
def main(connections: int, minutes: float, seconds: float | None, think: float) -> None:
    duration = seconds if seconds is not None else minutes * 60
    with tempfile.TemporaryFile() as log:
        proc, port = start(soak_server_argv(connections), stderr=log)
        try:
            result = run(soak(proc, port, connections, duration, think))
        finally:
            proc.terminate()
            proc.wait(30)
        log.seek(0)
        text = log.read().decode(errors="replace")
    result["tracebacks"] = text.count("Traceback")
    for line in text.splitlines()[:20]:
        click.echo(line, err=True)
    click.echo(
        f"{connections} connections for {result['seconds']} s: {result['moves']:,} moves "
        f"(p50 {result['p50_ms']} ms, p99 {result['p99_ms']} ms), {result['errors']} errors, "
        f"{result['disconnections']} disconnections; RSS warm {result['rss_warm_mb']} MB, "
        f"end {result['rss_end_mb']} MB ({result['growth_after_warm_pct']:+} %), "
        f"after leaving {result['rss_after_leaving_mb']} MB"
    )
    click.echo(json.dumps(result))
    sys.exit(0 if result["errors"] == result["disconnections"] == 0 else 1)


if __name__ == "__main__":
    main()
