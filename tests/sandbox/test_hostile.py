"""Hostile entrants, each played in a real tournament: contained, counted, and harmless
to the others (their matches come out exactly as in a run without the hostile one)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from ..support.sandbox import needs_bwrap, needs_cgroups
from ..tournament.helpers import PLAYER, bots, by_bot, tournament

HOSTILE = Path(__file__).parents[1] / "programs" / "hostile.py"
SHORT = ("--rule=max_rounds=2", "--rule=max_turns=40")
"""Two players that never declare play 1,000 rounds of 500 moves a match by default
(a minute of CPU): a match cut short sees as much of the sandbox."""
MODES = [
    pytest.param("bwrap", marks=needs_bwrap),
    pytest.param("limits"),
]


class Run:
    def __init__(self, folder: Path, stdout: str, stderr: str) -> None:
        self.folder = folder
        self.document = json.loads(stdout)
        self.stderr = stderr
        self.rows = by_bot(self.document)
        lines = (folder / "results.jsonl").read_text().splitlines()
        self.results = [json.loads(line) for line in lines]

    @property
    def hostile(self) -> dict[str, Any]:
        return self.rows["h"]

    @property
    def program_stderr(self) -> str:
        return (self.folder / "programs" / "h.worker-1.stderr").read_text(errors="replace")

    def others(self) -> list[dict[str, Any]]:
        """The matches between the well-behaved entrants, without their wall-clock time."""
        return [
            {k: v for k, v in r.items() if k != "seconds"}
            for r in self.results
            if "h" not in {s["bot"] for s in r["seats"]}
        ]


def contest(tmp_path: Path, *args: str, sandbox: str = "auto", name: str = "run") -> Run:
    """greedy, greedy and the hostile program, heads-up, one deal (six matches)."""
    home = tmp_path / "h"
    home.mkdir(exist_ok=True)
    program = home / HOSTILE.name  # in its own folder: all a sandboxed program sees of ours
    shutil.copy(HOSTILE, program)
    spec = f'cmd:"{sys.executable}" {program} {" ".join(args)}'
    out = tmp_path / name
    done = subprocess_run(
        tmp_path,
        *bots(a="builtin:greedy", b="builtin:greedy", h=spec),
        "--seats=2",
        "--deals=1",
        "--seed=3",
        "--workers=1",
        "--move-time=60",
        "--format=json",
        f"--sandbox={sandbox}",
        f"--out={out}",
        *EXTRA.get(args[0], ()),
    )
    assert done.returncode == 0, done.stderr
    return Run(out, done.stdout, done.stderr)


EXTRA = {
    # One fault forfeits the match: each start is one more fault, and takes time.
    "memory": ("--limit=memory_mb=128", "--max-faults=0"),
    "burn": ("--limit=cpu_seconds=1", "--max-faults=0"),
    "stderr": ("--max-faults=0",),
    "stdout": ("--max-faults=0",),
}


def subprocess_run(tmp_path: Path, *args: str) -> Any:
    old = os.getcwd()
    os.chdir(tmp_path / "h")  # a --bot's folder is where the runner starts
    try:
        return tournament(*args, timeout=300)
    finally:
        os.chdir(old)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The others' matches when the third entrant behaves."""
    return contest(tmp_path_factory.mktemp("baseline"), "none", sandbox="none").others()


def contained(run: Run, baseline: list[dict[str, Any]], kind: str | None) -> None:
    """Counted with its kind, and the others played exactly as without it."""
    if kind is not None:
        assert run.hostile["faults"].get(kind, 0) >= 1, run.hostile
    for bot in ("a", "b"):
        row = run.rows[bot]
        assert row["faults"] == {} and row["crashes"] == row["timeouts"] == 0
    assert run.others() == baseline
    assert run.document["matches_played"] == 6


@needs_cgroups
@pytest.mark.parametrize("sandbox", MODES)
def test_a_fork_bomb_is_stopped_at_the_process_limit(tmp_path, baseline, sandbox):
    run = contest(tmp_path, "forkbomb", sandbox=sandbox)
    contained(run, baseline, "processes")
    forked = [int(line.split()[1]) for line in run.program_stderr.splitlines() if "forked" in line]
    assert forked and max(forked) < 32  # the default limit, its own processes included


@needs_cgroups
@pytest.mark.parametrize("sandbox", MODES)
def test_ten_gigabytes_are_refused_at_the_memory_limit(tmp_path, baseline, sandbox):
    run = contest(tmp_path, "memory", sandbox=sandbox)
    contained(run, baseline, "memory")
    assert "holding" not in run.program_stderr


@needs_bwrap
def test_no_connection_reaches_loopback(tmp_path, baseline):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        port = listener.getsockname()[1]
        run = contest(tmp_path, "connect", str(port), sandbox="bwrap")
        with pytest.raises(BlockingIOError):
            listener.accept()
    contained(run, baseline, None)
    assert "no connection" in run.program_stderr and "CONNECTED" not in run.program_stderr


@needs_bwrap
def test_the_results_and_files_outside_its_folder_cannot_be_read(tmp_path, baseline):
    secret = tmp_path / "secret.txt"
    secret.write_text("the organiser's")
    results = tmp_path / "run" / "tournament.json"
    run = contest(tmp_path, "read", str(results), str(secret), sandbox="bwrap")
    contained(run, baseline, None)
    assert "READ" not in run.program_stderr
    assert f"cannot read {results}" in run.program_stderr


@needs_bwrap
def test_nothing_is_written_outside_its_private_tmp(tmp_path, baseline):
    outside = tmp_path / "outside.txt"
    own = tmp_path / "h" / "mine.txt"
    private = "/tmp/leastscore-hostile-" + uuid.uuid4().hex
    run = contest(tmp_path, "write", str(outside), str(own), private, sandbox="bwrap")
    contained(run, baseline, None)
    assert not outside.exists() and not own.exists() and not Path(private).exists()
    assert f"WROTE {private}" in run.program_stderr  # its own /tmp, gone with it


def alive_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if token.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.parametrize(
    "sandbox",
    [
        pytest.param("bwrap", marks=needs_bwrap),
        pytest.param("limits", marks=needs_cgroups),
    ],
)
def test_a_grandchild_does_not_outlive_the_match(tmp_path, baseline, sandbox):
    token = "leastscore-orphan-" + uuid.uuid4().hex
    try:
        run = contest(tmp_path, "orphan", token, sandbox=sandbox)
        contained(run, baseline, None)
        assert alive_with(token) == []
    finally:
        for pid in alive_with(token):
            os.kill(pid, 9)


@pytest.mark.parametrize("sandbox", MODES)
def test_a_program_holds_no_descriptor_of_its_worker(tmp_path, baseline, sandbox):
    """Not the pipe by which its worker's end is known: holding that, a program hung on
    its turn kept the runner waiting five seconds to learn its worker had died, and
    one that wrote to it could make the runner end its worker."""
    run = contest(tmp_path, "descriptors", sandbox=sandbox)
    contained(run, baseline, None)
    assert "descriptors listed" in run.program_stderr
    assert "HOLDS" not in run.program_stderr, run.program_stderr


@pytest.mark.parametrize("sandbox", MODES)
def test_a_thread_burning_cpu_is_accounted_and_ended(tmp_path, baseline, sandbox):
    run = contest(tmp_path, "burn", sandbox=sandbox)
    contained(run, baseline, "cpu")
    # each start it makes is killed after a CPU second, and every one is accounted
    assert run.hostile["cpu_seconds"] >= 0.5 * run.hostile["faults"]["cpu"] > 0


@pytest.mark.parametrize("sandbox", MODES)
def test_a_stderr_flood_is_kept_capped(tmp_path, baseline, sandbox):
    run = contest(tmp_path, "stderr", sandbox=sandbox)
    contained(run, baseline, "output")
    kept = (run.folder / "programs" / "h.worker-1.stderr").stat().st_size
    starts = run.hostile["faults"]["output"]
    assert 256 * 1024 <= kept <= starts * (256 * 1024 + 100)
    assert "[stderr cut at 256 KiB]" in run.program_stderr


@pytest.mark.parametrize("sandbox", MODES)
def test_a_stdout_flood_is_ended_at_the_frame_limit(tmp_path, baseline, sandbox):
    run = contest(tmp_path, "stdout", sandbox=sandbox)
    contained(run, baseline, "output")


@needs_bwrap
def test_entrants_laid_out_as_submissions_see_nothing_of_each_other(tmp_path: Path):
    """A contest as an organiser lays it out: ``entrants/NAME/`` each, the runner
    started in ``entrants/``, the results beside it. The hostile entrant finds nothing
    of its rival nor of the results, not even their names, and its own folder only."""
    entrants = tmp_path / "entrants"
    rival, own = entrants / "rival", entrants / "hostile"
    for folder in (rival, own):
        folder.mkdir(parents=True)
    shutil.copy(PLAYER, rival / "bot.py")
    (rival / "strategy.txt").write_text("secret")
    shutil.copy(HOSTILE, own / "bot.py")
    out = tmp_path / "results"
    looks = [entrants, rival, out, own, tmp_path, rival / "strategy.txt", rival / "bot.py"]
    old = os.getcwd()
    os.chdir(entrants)
    try:
        done = tournament(
            *bots(
                rival=f"cmd:{sys.executable} rival/bot.py good",
                h=f"cmd:{sys.executable} hostile/bot.py snoop {' '.join(map(str, looks))}",
            ),
            "--seats=2",
            "--deals=1",
            "--sandbox=bwrap",
            f"--out={out}",
            "--format=json",
            *SHORT,
        )
    finally:
        os.chdir(old)
    assert done.returncode == 0, done.stderr
    assert "share the folder" not in done.stderr  # each has its own
    said = (out / "programs" / "h.worker-1.stderr").read_text()
    assert f"LISTED {own}: bot.py" in said
    # the folders above its own hold only the way to it
    assert f"LISTED {entrants}: hostile\n" in said and f"LISTED {tmp_path}: entrants\n" in said
    for path in (rival, out):
        assert f"cannot list {path}:" in said, said
    assert "READ" not in said and "secret" not in said


@needs_bwrap
def test_a_program_gets_no_privilege_whoever_starts_the_runner(tmp_path, baseline):
    """Run as root, bubblewrap alone kept root's rights: a program read /etc/shadow,
    remounted its own folder writable and made a device node of the host's disk. Now
    it is an unprivileged user with no capability and a system call filter."""
    run = contest(tmp_path, "escape", sandbox="bwrap")
    contained(run, baseline, None)
    said = run.program_stderr
    assert "ESCAPED" not in said, said
    for what in ("read /etc/shadow", "remount its folder writable", "mount a cgroup",
                 "made a disk's device node", "make a user namespace"):  # fmt: skip
        assert f"held: {what}" in said, said
    assert "uid 0 " not in said and "CapEff\t0000000000000000" not in said  # the tab split
    assert "CapEff 0000000000000000" in said and "NoNewPrivs 1 Seccomp 2" in said, said


def test_a_long_lived_program_is_renewed_before_it_reaches_a_limit(tmp_path: Path) -> None:
    """The SDK says a line on stderr at the end of every match; over a long run that once
    filled the stderr limit and an honest bot was charged an ``output`` fault. A program
    that has used half of a limit counted over its start is started afresh between
    matches instead, with no fault."""
    sdk = f'cmd:"{sys.executable}" -m leastscore bot run builtin:greedy --stdio'
    out = tmp_path / "run"
    done = tournament(
        *bots(a=sdk, b="builtin:greedy"),
        "--seats=2",
        "--deals=8",
        "--seed=5",
        "--workers=1",
        "--limit=stderr_kb=1",  # about ten of the SDK's lines
        "--format=json",
        f"--out={out}",
    )
    assert done.returncode == 0, done.stderr
    row = by_bot(json.loads(done.stdout))["a"]
    assert row["faults"] == {} and row["crashes"] == 0, row
    said = (out / "programs" / "a.worker-1.stderr").read_text()
    assert said.count("match over") == 16 and "stderr cut" not in said, said
