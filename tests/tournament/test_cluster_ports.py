"""A local cluster opens no fixed port: two runs on one machine do not collide."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest

from ..support.contest import bots, tournament

pytest.importorskip("distributed", reason="the cluster extra (dask distributed) is not installed")


def test_a_local_cluster_run_leaves_port_8787_to_whoever_holds_it(tmp_path: Path) -> None:
    """Dask's scheduler takes 8787 for its HTTP server unless told otherwise; a run beside
    another (or beside a real dashboard) then warns and moves. Ours asks for a free port."""
    holder = socket.socket()
    try:
        holder.bind(("127.0.0.1", 8787))
    except OSError:
        holder.close()
        pytest.skip("port 8787 is held by something else on this machine")
    with holder:
        holder.listen()
        done = tournament(
            *bots(a="builtin:greedy", b="builtin:random"),
            "--seats=2",
            "--deals=1",
            "--cluster=local:1",
            f"--out={tmp_path / 'run'}",
        )
    assert done.returncode == 0, done.stderr
    assert "8787" not in done.stderr
