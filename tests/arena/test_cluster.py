"""An arena whose tables are played on a Dask cluster: ``arena serve --cluster local:2``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from leastscore.seats.sandbox import bwrap_path

from ..support.arena import Served, contest, enter_references, get, quiet_dask, start_scheduler

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
    scheduler, address = start_scheduler()
    dask = str(Path(sys.executable).with_name("dask"))
    worker = subprocess.Popen(
        [bwrap, "--dev-bind", "/", "/", "--tmpfs", str(arena), "--die-with-parent", "--",
         dask, "worker", address, "--nthreads", "1", "--no-dashboard", "--host", "127.0.0.1",
         "--local-directory", str(arena / "scratch")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=quiet_dask(),
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


def built(folder: Path, code: str = "print('hi')\n") -> Path:
    """A version's folder as the arena built it."""
    folder.mkdir(parents=True)
    (folder / "bot.toml").write_text('run = "python3 bot.py"\n')
    (folder / "bot.py").write_text(code)
    return folder


class Worker:
    """What ``ArenaPlugin`` reads of a Dask worker."""

    def __init__(self, folder: Path) -> None:
        self.local_directory = str(folder)


def test_a_worker_keeps_only_the_versions_that_play(tmp_path: Path) -> None:
    """Unpacked once per version; a version no slot plays with any more is removed."""
    from leastscore.arena.cluster import ArenaPlugin
    from leastscore.arena.config import ArenaConfig
    from leastscore.arena.tables import Seated
    from leastscore.arena.upload import content_hash, pack_built

    made = built(tmp_path / "made")
    other = built(tmp_path / "other", "print('ho')\n")
    a, b = content_hash(made), content_hash(other)
    worker = Worker(tmp_path / "worker")
    plugin = ArenaPlugin(ArenaConfig())
    plugin.setup(worker)
    try:
        old = plugin._here(Seated(1, "ann", Path("/arena/submissions/ann/v1"), "x"), a,
                           pack_built(made))  # fmt: skip
        assert old.folder == tmp_path / f"worker/leastscore-arena/versions/{a}"
        assert (old.folder / "bot.py").read_text() == "print('hi')\n"
        (old.folder / "bot.py").write_text("changed")
        plugin._here(Seated(1, "ann", Path("/arena/submissions/ann/v1"), "x"), a, b"")
        assert (old.folder / "bot.py").read_text() == "changed"  # not unpacked again
        new = plugin._here(Seated(2, "ann", Path("/arena/submissions/ann/v2"), "x"), b,
                           pack_built(other))  # fmt: skip
        plugin.using = {0: {a, b}, 1: {b}}
        plugin.tidy()
        assert old.folder.is_dir() and new.folder.is_dir()  # slot 0 still plays v1
        plugin.using[0] = {b}
        plugin.tidy()
        assert not old.folder.exists() and new.folder.is_dir()
    finally:
        plugin.teardown(worker)
    assert not (tmp_path / "worker/leastscore-arena").exists()  # no bot left behind


def test_a_worker_cannot_mistake_one_version_for_another(tmp_path: Path) -> None:
    """A worker once kept its copies by submission id: a second arena on the same
    cluster (or a book begun again) seated its own submission 1 from the first
    arena's files. Copies are kept by what they hold now: each version runs its own
    files, and the same files under two ids are one copy."""
    from leastscore.arena.cluster import ArenaPlugin
    from leastscore.arena.config import ArenaConfig
    from leastscore.arena.tables import Seated
    from leastscore.arena.upload import content_hash, pack_built

    mine, theirs = built(tmp_path / "mine"), built(tmp_path / "theirs", "print('ho')\n")
    worker = Worker(tmp_path / "worker")
    plugin = ArenaPlugin(ArenaConfig())
    plugin.setup(worker)
    try:
        seat = Seated(1, "ann", Path("/arena/submissions/ann/v1"), "x")
        first = plugin._here(seat, content_hash(mine), pack_built(mine))
        second = plugin._here(seat, content_hash(theirs), pack_built(theirs))
        assert (first.folder / "bot.py").read_text() == "print('hi')\n"
        assert (second.folder / "bot.py").read_text() == "print('ho')\n"
        same = plugin._here(Seated(7, "bo", seat.folder, "x"), content_hash(mine), b"")
        assert same.folder == first.folder  # one copy of the same files
    finally:
        plugin.teardown(worker)


class Scattered:
    """A Dask future of scattered data, as ``Shipping`` sees it."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.status = "finished"


class Cluster:
    """A client that counts what is scattered to the cluster."""

    def __init__(self) -> None:
        self.sent: list[Scattered] = []

    async def scatter(self, data: bytes, hash: bool, broadcast: bool) -> Scattered:
        assert not hash and broadcast  # a copy on every worker: one worker lost loses none
        self.sent.append(Scattered(data))
        return self.sent[-1]


async def test_an_identical_build_is_shipped_once_and_a_lost_copy_again(tmp_path: Path) -> None:
    """Shipping kept one copy per submission: an author who sent the same bot again (a
    new version, the same files) had it packed and sent to every worker again; and a
    copy lost with the workers that held it stayed held, so every later table that
    seated the version was cancelled. Now copies are by content, and a lost one is
    sent again."""
    from leastscore.arena.cluster import Shipping
    from leastscore.arena.tables import Seated
    from leastscore.arena.upload import content_hash

    first, again = built(tmp_path / "ann/v1"), built(tmp_path / "ann/v2")
    os.utime(again / "bot.py", (1, 1))  # built later: the same files
    other = built(tmp_path / "bo/v1", "print('ho')\n")
    cluster = Cluster()
    shipping = Shipping(cluster)  # type: ignore[arg-type]
    one = [Seated(1, "ann", first, "x"), Seated(3, "bo", other, "x")]
    versions, before = await shipping.held(one)
    assert versions == {1: content_hash(first), 3: content_hash(other)} and len(cluster.sent) == 2
    two = [Seated(2, "ann", again, "x"), Seated(3, "bo", other, "x")]
    versions, held = await shipping.held(two)
    assert versions[2] == content_hash(first) and len(cluster.sent) == 2  # not sent again
    assert held == before
    lost = held[versions[3]]
    lost.status = "cancelled"  # type: ignore[attr-defined]  # its workers all died
    versions, held = await shipping.held(two)
    assert len(cluster.sent) == 3 and held[versions[3]] is cluster.sent[2] is not lost
    assert held[versions[2]] is before[versions[2]]  # ann's copy is still there


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
