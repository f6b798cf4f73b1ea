"""An arena whose tables are played on a Dask cluster: ``arena serve --cluster local:2``."""

from __future__ import annotations

import subprocess
import sys
import threading
from pathlib import Path

import pytest
from leastscore.seats.sandbox import bwrap_path

from .test_arena_end_to_end import Served, contest, enter_references, get

pytest.importorskip("distributed", reason="clusters need Dask: pip install leastscore[cluster]")


@pytest.mark.timeout(300)
def test_tables_are_played_on_the_cluster_s_workers(tmp_path: Path) -> None:
    folder = contest(tmp_path, "seats = 2\nthreshold = 30\ntables_at_once = 2\ncheck_matches = 1\n")
    served = Served(folder, "--cluster", "local:2")
    try:
        enter_references(served, folder, tmp_path)
        both = [folder / "programs" / slot for slot in "01"]  # each slot's stderr, sent back
        board = served.wait_for(
            lambda b: (
                len(b) == 2
                and min(r["matches"] for r in b.values()) > 9
                and all(d.is_dir() for d in both)
            )
        )
        assert board["greedy-ref"]["rating"] > board["random-ref"]["rating"]
    finally:
        served.stop()
    slots = sorted(p.name for p in (folder / "programs").iterdir())
    assert slots == ["0", "1"], slots  # each slot's stderr, sent back by its worker


def _scheduler() -> tuple[subprocess.Popen[str], str]:
    """``dask scheduler`` on a free port of loopback, and its address (from the line
    it logs once it listens; the rest of its log is read and dropped)."""
    dask = str(Path(sys.executable).with_name("dask"))
    process = subprocess.Popen(
        [dask, "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert process.stderr is not None
    for line in process.stderr:
        if "Scheduler at:" in line:
            address = line.split("Scheduler at:")[1].strip()
            threading.Thread(target=process.stderr.read, daemon=True).start()
            return process, address
    raise AssertionError(f"no scheduler: it exited with {process.wait()}")


@pytest.mark.timeout(300)
def test_workers_need_no_copy_of_the_arena_s_folder(tmp_path: Path) -> None:
    """A worker in a mount namespace where the arena's folder is an empty tmpfs: it plays
    from the versions shipped to it, and the logs and stderr come back to the arena."""
    bwrap = bwrap_path()
    if bwrap is None:
        pytest.skip("bubblewrap hides the arena's folder from the worker: apt install bubblewrap")
    arena = tmp_path / "arena"
    arena.mkdir()
    folder = contest(arena, "seats = 2\nthreshold = 30\ncheck_matches = 1\n")
    scheduler, address = _scheduler()
    dask = str(Path(sys.executable).with_name("dask"))
    worker = subprocess.Popen(
        [bwrap, "--dev-bind", "/", "/", "--tmpfs", str(arena), "--die-with-parent", "--",
         dask, "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1",
         "--local-directory", str(arena / "scratch")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    served = Served(folder, "--cluster", address)
    try:
        tokens = enter_references(served, folder, arena)
        board = served.wait_for(lambda b: len(b) == 2 and min(r["matches"] for r in b.values()) > 5)
        assert board["greedy-ref"]["rating"] > board["random-ref"]["rating"]
        match = get(served.url + "/api/entrant/greedy-ref")["recent"][0]
        replay = get(served.url + f"/replay/{match['match']}").decode()
        assert "greedy-ref" in replay and "Round 1" in replay, replay[:2000]
        said = get(served.url + f"/api/stderr/{match['table']}", tokens["greedy-ref"])
        assert isinstance(said, bytes)
    finally:
        served.stop()
        worker.kill()
        scheduler.kill()
        worker.wait()
        scheduler.wait()
    assert not (arena / "scratch").exists()  # the worker's own folder was not here
    assert any((folder / "tables").glob("*/logs/*.jsonl.gz")), "no log came back"


def test_a_worker_keeps_only_the_versions_that_play(tmp_path: Path) -> None:
    """Unpacked once per version; a version no slot plays with any more is removed."""
    from leastscore.arena.cluster import ArenaPlugin
    from leastscore.arena.config import ArenaConfig
    from leastscore.arena.tables import Seated
    from leastscore.arena.upload import pack_built

    class Worker:
        local_directory = str(tmp_path / "worker")

    made = tmp_path / "made"
    made.mkdir()
    (made / "bot.toml").write_text('run = "python3 bot.py"\n')
    (made / "bot.py").write_text("print('hi')\n")
    archive = pack_built(made)
    plugin = ArenaPlugin(ArenaConfig())
    plugin.setup(Worker())
    try:
        old = plugin._here(Seated(1, "ann", Path("/arena/submissions/ann/v1"), "x"), archive)
        assert old.folder == tmp_path / "worker/leastscore-arena/submissions/ann/v1"
        assert (old.folder / "bot.py").read_text() == "print('hi')\n"
        (old.folder / "bot.py").write_text("changed")
        plugin._here(Seated(1, "ann", Path("/arena/submissions/ann/v1"), "x"), archive)
        assert (old.folder / "bot.py").read_text() == "changed"  # not unpacked again
        new = plugin._here(Seated(2, "ann", Path("/arena/submissions/ann/v2"), "x"), archive)
        plugin.using = {0: {1, 2}, 1: {2}}
        plugin.tidy()
        assert old.folder.is_dir() and new.folder.is_dir()  # slot 0 still plays v1
        plugin.using[0] = {2}
        plugin.tidy()
        assert not old.folder.exists() and new.folder.is_dir()
    finally:
        plugin.teardown(Worker())
    assert not (tmp_path / "worker/leastscore-arena").exists()  # no bot left behind


def test_no_scheduler_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--cluster`` naming a port where no scheduler listens: one line saying so, exit 1,
    no traceback."""
    import socket

    from click.testing import CliRunner
    from leastscore.arena.cli import arena
    from leastscore.tournament.running import cluster

    monkeypatch.setattr(cluster, "WAIT_FOR_WORKERS", 2.0)
    with socket.socket() as free:
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]  # closed again before the arena tries it
    folder = contest(tmp_path, "seats = 2\n")
    where = f"tcp://127.0.0.1:{port}"  # limits: the same with or without bubblewrap
    ran = CliRunner().invoke(
        arena, ["serve", str(folder), "--port", "0", "--cluster", where, "--sandbox", "limits"]
    )
    assert ran.exit_code == 1, ran.output
    assert f"--cluster tcp://127.0.0.1:{port}: no Dask scheduler at" in ran.output
    assert "Traceback" not in ran.output
