"""Tournaments on a Dask cluster (``--cluster``): real worker processes on 127.0.0.1."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from leastscore.seats.sandbox import bwrap_path, cgroup_controllers
from leastscore.tournament.running.cluster import (
    IN_HAND,
    MAX_BATCH,
    QUIET_DASK,
    QUIET_SCHEDULER,
    batch_size,
    parse_cluster,
)

from ..support.arena import quiet_variables
from ..support.cli import ROOT, started
from ..support.contest import bots, by_bot, program, stderr_lines, tournament
from ..support.once import made_once

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")

DEFINITION = [
    *bots(g1="builtin:greedy", g2="builtin:greedy", r1="builtin:random", r2="builtin:random"),
    "--seats=3",
    "--deals=3",
    "--threshold=50",
    "--move-time=600",  # a timeout would change the standings compared
    "--seed=91",
]
MATCHES = 4 * 3 * 3
HOSTILE = Path(__file__).parents[1] / "programs" / "hostile.py"
NO_BWRAP = "bubblewrap is missing or cannot make namespaces here"
NO_CGROUPS = "no writable cgroup v1 pids and memory controllers (they need root)"
WAIT = 120.0


def _in_one_worker(folder: Path) -> None:
    done = tournament(*DEFINITION, "--workers=1", "--format=json", f"--out={folder / 'run'}")
    assert done.returncode == 0, done.stderr


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The standings of a run in one local worker process (one run for the suite)."""
    folder = made_once(tmp_path_factory, "cluster-reference", _in_one_worker)
    return (folder / "run" / "standings.json").read_bytes()


@pytest.fixture(scope="module")
def pids(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the test program started by the cluster's workers leaves its pid."""
    return tmp_path_factory.mktemp("pids")


@pytest.fixture(scope="module")
def cluster(pids: Path) -> Iterator[distributed.LocalCluster]:
    """A running cluster of two workers, reached by its address as a real one is."""
    with pytest.MonkeyPatch.context() as env, dask.config.set(QUIET_DASK):
        env.setenv("PLAYER_PIDS", str(pids))  # the workers' environment, from their start
        running = distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            scheduler_kwargs=QUIET_SCHEDULER,
        )
    with running:
        yield running


def _fixtures(out: Path) -> list[int]:
    return [
        json.loads(line)["fixture"] for line in (out / "results.jsonl").read_text().splitlines()
    ]


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def _run_on(cluster: distributed.LocalCluster, out: Path, stderr: int) -> subprocess.Popen[str]:
    """The tournament of ``DEFINITION`` on ``cluster``, started in the background."""
    address = f"--cluster={cluster.scheduler_address}"
    return started(
        "tournament", *DEFINITION, address, "--format=json", f"--out={out}",
        stdout=subprocess.DEVNULL, stderr=stderr,
    )  # fmt: skip


def _wait_for_lines(process: subprocess.Popen[str], path: Path, count: int) -> None:
    deadline = time.monotonic() + WAIT
    while _lines(path) < count:
        assert process.poll() is None, "the run ended before it could be interrupted"
        assert time.monotonic() < deadline, f"fewer than {count} results after {WAIT} s"
        time.sleep(0.01)


def test_two_local_cluster_workers_agree_with_the_local_pool(
    reference: bytes, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    done = tournament(*DEFINITION, "--cluster=local:2", "--format=json", f"--out={out}")
    assert done.returncode == 0, done.stderr
    assert (out / "standings.json").read_bytes() == reference
    assert _fixtures(out) == list(range(MATCHES))  # in schedule order, each once
    assert len(list((out / "logs").glob("*.jsonl"))) == MATCHES  # sent back, written here


def test_a_worker_killed_mid_run_changes_nothing(
    reference: bytes, cluster: distributed.LocalCluster, tmp_path: Path
) -> None:
    with distributed.Client(cluster) as client:
        pids = client.run(os.getpid)
    out = tmp_path / "run"
    process = _run_on(cluster, out, stderr=subprocess.PIPE)
    try:
        _wait_for_lines(process, out / "results.jsonl", 6)
        os.kill(min(pids.values()), signal.SIGKILL)  # its nanny starts another
        _, stderr = process.communicate(timeout=WAIT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, stderr
    assert (out / "standings.json").read_bytes() == reference
    assert _fixtures(out) == list(range(MATCHES))


def test_a_cluster_run_killed_resumes_to_the_same_standings(
    reference: bytes, cluster: distributed.LocalCluster, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    process = _run_on(cluster, out, stderr=subprocess.DEVNULL)
    try:
        _wait_for_lines(process, out / "results.jsonl", 10)
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait()
    stored = _lines(out / "results.jsonl")
    assert 10 <= stored < MATCHES
    again = tournament(
        "--resume", str(out), f"--cluster={cluster.scheduler_address}", "--format=json"
    )
    assert again.returncode == 0, again.stderr
    assert "already played" in again.stderr
    assert (out / "standings.json").read_bytes() == reference
    assert sorted(_fixtures(out)) == list(range(MATCHES))


def test_each_worker_keeps_one_program_alive_across_its_matches(
    cluster: distributed.LocalCluster, pids: Path
) -> None:
    done = tournament(
        *bots(p=program(), g1="builtin:greedy", g2="builtin:greedy"),
        "--seats=2",
        "--deals=2",
        "--seed=5",
        f"--cluster={cluster.scheduler_address}",
        "--format=json",
        "--sandbox=limits",  # bubblewrap would keep its pid files in a private /tmp
    )
    assert done.returncode == 0, done.stderr
    row = by_bot(json.loads(done.stdout))["p"]
    assert row["matches"] == 2 * 2 * 2 and row["crashes"] == 0
    # per worker: the greeting before the first match, then one start, not one per match
    assert 1 <= len(list(pids.iterdir())) <= 2 * 2


def test_a_program_a_worker_lacks_stops_the_tournament_before_it_starts(
    cluster: distributed.LocalCluster, tmp_path: Path
) -> None:
    out = tmp_path / "run"
    done = tournament(
        *bots(ghost="cmd:/nowhere/ghost-bot --fast", g1="builtin:greedy"),
        "--seats=2",
        "--deals=2",
        f"--cluster={cluster.scheduler_address}",
        f"--out={out}",
    )
    assert done.returncode == 1
    lines = stderr_lines(done)
    assert len(lines) == 1, done.stderr
    assert "worker tcp://127.0.0.1:" in lines[0]
    assert "ghost: no program /nowhere/ghost-bot" in lines[0]
    assert _lines(out / "results.jsonl") == 0


async def test_a_local_cluster_keeps_dask_s_housekeeping_down() -> None:
    """Dask's profiler (every thread sampled each 10 ms) and its event-loop checks took
    a fifth of a core from the matches of an idle local:2 cluster: the workers a run
    starts have them turned down."""
    from leastscore.tournament.running.cluster import open_cluster

    def settings() -> tuple[object, object]:
        import dask

        return (
            dask.config.get("distributed.worker.profile.enabled"),
            dask.config.get("distributed.admin.tick.interval"),
        )

    async with contextlib.AsyncExitStack() as stack:
        client = await open_cluster(stack, "local:1")
        seen = await client.run(settings)
    assert list(seen.values()) == [(False, "1s")]


def test_tournaments_md_quiets_hand_started_workers_as_a_local_cluster_is() -> None:
    text = (ROOT / "TOURNAMENTS.md").read_text()
    assert dict(re.findall(r"export (DASK_\w+)=(\S+)", text)) == quiet_variables()


def test_without_cluster_dask_is_never_imported(tmp_path: Path) -> None:
    script = (
        "import sys\n"
        "from leastscore.tournament.edges.cli import tournament\n"
        f"code = tournament.main({[*DEFINITION[:2], '--seats=2', '--deals=1', '--workers=1']!r},"
        " standalone_mode=False)\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('dask', 'distributed')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=WAIT
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "0 []"


@pytest.mark.parametrize("bad", ["local:0", "local:x", "local:", "8786", "tcp://"])
def test_a_bad_cluster_address_is_refused(bad: str) -> None:
    with pytest.raises(ValueError, match="local:N"):
        parse_cluster(bad)


def test_the_command_refuses_a_bad_cluster_address() -> None:
    done = tournament(*DEFINITION, "--cluster=local:0")
    assert done.returncode == 2 and "--cluster" in done.stderr and "local:N" in done.stderr


def test_batches_keep_the_schedulers_cost_under_one_percent() -> None:
    # 2 ms a task, 1 ms a match: 200 matches a batch make the task 1 % of the work.
    assert batch_size(0.002, 0.001, 10_000, 2) == 200
    assert batch_size(0.002, 0.5, 10_000, 2) == 1  # long matches: one at a time
    # near the end, every worker still gets its batches in hand
    assert batch_size(0.002, 0.001, 200, 2) == 200 // (2 * IN_HAND)
    assert batch_size(1.0, 1e-9, 10**9, 1) == MAX_BATCH


def test_a_program_that_fails_its_greeting_on_a_worker_stops_the_run_with_its_words(
    cluster: distributed.LocalCluster, tmp_path: Path
) -> None:
    """The same check as a local run's (tests/tournament/test_ready.py), on each worker."""
    script = tmp_path / "fails.py"
    script.write_text("import sys\nsys.exit('Error: no strategy file here')\n")
    out = tmp_path / "run"
    done = tournament(
        *bots(p=f'cmd:"{sys.executable}" {script}', g1="builtin:greedy"),
        "--seats=2",
        "--deals=1",
        "--sandbox=limits",
        f"--cluster={cluster.scheduler_address}",
        f"--out={out}",
    )
    assert done.returncode == 1
    first, *rest = done.stderr.strip().splitlines()
    assert first.startswith("Error: the tournament stopped before its first match: worker tcp://")
    assert "p: could not start" in first and "exited with code 1" in first
    assert rest == ["  Error: no strategy file here"]
    assert not out.exists()


@pytest.mark.skipif(not {"pids", "memory"} <= set(cgroup_controllers()), reason=NO_CGROUPS)
@pytest.mark.skipif(bwrap_path() is None, reason=NO_BWRAP)
def test_programs_on_the_workers_are_contained_as_local_ones_are(
    cluster: distributed.LocalCluster, tmp_path: Path
) -> None:
    """The runner's sandbox and limits hold on every worker: a fork bomb stops at the
    process limit and is counted; under bubblewrap nothing is written outside."""
    outside = tmp_path / "outside.txt"
    hostile = f'cmd:"{sys.executable}" {HOSTILE}'
    done = tournament(
        *bots(g="builtin:greedy", bomb=f"{hostile} forkbomb", writer=f"{hostile} write {outside}"),
        "--seats=2",
        "--gauntlet=g",  # the hostile players never declare: each meets greedy only
        "--deals=1",
        "--seed=3",
        "--sandbox=bwrap",
        f"--cluster={cluster.scheduler_address}",
        "--format=json",
    )
    assert done.returncode == 0, done.stderr
    assert "\nsandbox: bubblewrap" in "\n" + done.stderr
    rows = by_bot(json.loads(done.stdout))
    assert rows["bomb"]["faults"].get("processes", 0) >= 1
    assert rows["g"]["faults"] == {} and rows["writer"]["faults"] == {}
    assert not outside.exists()


def test_what_programs_write_on_stderr_is_kept_by_the_runner(
    cluster: distributed.LocalCluster, tmp_path: Path
) -> None:
    """A worker's own folder goes with it: each batch brings its programs' stderr back
    to the runner's ``programs/`` (it was lost with Dask's temporary folder)."""
    out = tmp_path / "run"
    done = tournament(
        *bots(g="builtin:greedy", p=program("good")),
        "--seats=2",
        "--deals=3",
        f"--cluster={cluster.scheduler_address}",
        "--sandbox=limits",  # bubblewrap would keep its pid files in a private /tmp
        f"--out={out}",
    )
    assert done.returncode == 0, done.stderr
    kept = sorted((out / "programs").glob("p.worker-*.stderr"))
    assert kept, sorted(p.name for p in (out / "programs").iterdir())
    said = "".join(f.read_text() for f in kept)
    assert "started" in said
