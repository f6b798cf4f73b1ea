"""Hostile entrants, all played at once in a real tournament per sandbox: contained,
counted, and harmless to the others (their matches come out exactly as in a run
without the hostile ones).

Each hostile program (``tests/programs/hostile.py``, one mode each, in a folder of
its own) meets the same well-behaved entrant, ``hero``, in one gauntlet; ``other``
plays ``hero`` too, and those two matches are the ones that must not change. One
contest per sandbox, rather than one per mode, made once for the whole run: it is the
tournament an organiser runs, with every hostile program in it together, and the suite
starts three runners where it started twenty-one.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import uuid
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from ..support.contest import PLAYER, bots, by_bot, gauntlet, tournament
from ..support.once import made_once
from ..support.sandbox import CGROUPS, HAS_BWRAP, needs_bwrap, needs_cgroups

HOSTILE = Path(__file__).parents[1] / "programs" / "hostile.py"
SHORT = ("--rule=max_rounds=2", "--rule=max_turns=40")
"""Two players that never declare play 1,000 rounds of 500 moves a match by default
(a minute of CPU): a match cut short sees as much of the sandbox."""
HAS_CGROUPS = {"pids", "memory"} <= set(CGROUPS)
LIMITS = ("--limit=memory_mb=128", "--limit=cpu_seconds=1")
"""Every program's limits in these contests: 128 MB is ten times what a Python player
needs, and a CPU second a match is twenty times what one uses (the burner's thread
reaches it at once); one fault forfeits the match (``max_faults`` 0), as each start
after one would be one more fault, and take time."""


@dataclass
class Contest:
    """One gauntlet of the hostile programs, read back from its folder."""

    folder: Path

    @property
    def run(self) -> Path:
        return self.folder / "run"

    @cached_property
    def document(self) -> dict[str, Any]:
        return json.loads((self.folder / "document.json").read_text())

    @cached_property
    def planted(self) -> dict[str, Any]:
        """What the hostile programs were pointed at, and what was found after."""
        return json.loads((self.folder / "planted.json").read_text())

    @cached_property
    def rows(self) -> dict[str, dict[str, Any]]:
        return by_bot(self.document)

    def stderr_files(self, mode: str) -> list[Path]:
        return sorted((self.run / "programs").glob(f"{mode}.worker-*.stderr"))

    def said(self, mode: str) -> str:
        """What the program of ``mode`` wrote on stderr, over every worker."""
        return "".join(path.read_text(errors="replace") for path in self.stderr_files(mode))

    def others(self) -> list[dict[str, Any]]:
        """The matches between the well-behaved entrants in their seatings' order,
        without their wall-clock time or their place in the schedule (which the hostile
        entrants' matches change)."""
        lines = (self.run / "results.jsonl").read_text().splitlines()
        matches = [
            {k: v for k, v in result.items() if k not in ("seconds", "fixture")}
            for result in map(json.loads, lines)
            if {s["bot"] for s in result["seats"]} == {"hero", "other"}
        ]
        return sorted(matches, key=lambda match: [s["bot"] for s in match["seats"]])


def modes(sandbox: str, planted: dict[str, Any], port: int) -> dict[str, list[str]]:
    """The hostile programs a sandbox is tried with, by mode, with their arguments."""
    if sandbox == "none":
        return {}
    played: dict[str, list[str]] = {"descriptors": [], "burn": [], "stderr": [], "stdout": []}
    if HAS_CGROUPS:
        played.update(forkbomb=[], memory=[])
    if sandbox == "bwrap" or HAS_CGROUPS:
        played["orphan"] = [planted["token"]]
    if sandbox == "bwrap":
        played.update(
            connect=[str(port)],
            read=[planted["results"], planted["secret"]],
            write=[planted["outside"], planted["own"], planted["private"]],
            escape=[],
        )
    return played


def play(folder: Path, sandbox: str) -> None:
    """``hero`` against ``other`` and each hostile program, which runs from a folder of
    its own (all a sandboxed program sees of ours); what they were pointed at, and what
    was found right after, kept beside the run."""
    planted: dict[str, Any] = {
        "token": "leastscore-orphan-" + uuid.uuid4().hex,
        "private": "/tmp/leastscore-hostile-" + uuid.uuid4().hex,
        "secret": str(folder / "secret.txt"),
        "outside": str(folder / "outside.txt"),
        "own": str(folder / "write" / "mine.txt"),
        "results": str(folder / "run" / "tournament.json"),
    }
    Path(planted["secret"]).write_text("the organiser's")
    entrants = {"hero": "builtin:greedy", "other": "builtin:greedy"}
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.setblocking(False)
        for mode, args in modes(sandbox, planted, listener.getsockname()[1]).items():
            home = folder / mode
            home.mkdir()
            program = home / HOSTILE.name
            shutil.copy(HOSTILE, program)
            entrants[mode] = f'cmd:"{sys.executable}" {program} {mode} {" ".join(args)}'
        try:
            document = gauntlet(
                folder / "run", entrants, f"--sandbox={sandbox}", *LIMITS, max_faults=0
            )
        finally:
            planted["survivors"] = alive_with(planted["token"])
            for pid in planted["survivors"]:
                os.kill(pid, 9)
        try:
            listener.accept()[0].close()
            planted["connected"] = True
        except BlockingIOError:
            planted["connected"] = False
    (folder / "document.json").write_text(json.dumps(document))
    (folder / "planted.json").write_text(json.dumps(planted))


def contest_in(factory: pytest.TempPathFactory, sandbox: str) -> Contest:
    folder = made_once(factory, f"hostile-{sandbox}", lambda made: play(made, sandbox))
    return Contest(folder)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """The others' matches with no third entrant."""
    return contest_in(tmp_path_factory, "none").others()


@pytest.fixture(
    scope="module",
    params=[pytest.param("bwrap", marks=needs_bwrap), pytest.param("limits")],
)
def played(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Contest:
    """The contest in each sandbox the machine has."""
    return contest_in(tmp_path_factory, request.param)


@pytest.fixture(scope="module")
def sealed(tmp_path_factory: pytest.TempPathFactory) -> Contest:
    """The contest under bubblewrap."""
    if not HAS_BWRAP:
        pytest.skip("bubblewrap is missing or cannot make namespaces here")
    return contest_in(tmp_path_factory, "bwrap")


def contained(run: Contest, baseline: list[dict[str, Any]], mode: str, kind: str | None) -> None:
    """Counted with its kind, and the others played exactly as without it."""
    if kind is not None:
        assert run.rows[mode]["faults"].get(kind, 0) >= 1, run.rows[mode]
    for bot in ("hero", "other"):
        row = run.rows[bot]
        assert row["faults"] == {} and row["crashes"] == row["timeouts"] == 0, row
    assert run.others() == baseline
    assert len(baseline) == 2


@needs_cgroups
def test_a_fork_bomb_is_stopped_at_the_process_limit(played, baseline):
    contained(played, baseline, "forkbomb", "processes")
    said = played.said("forkbomb")
    forked = [int(line.split()[1]) for line in said.splitlines() if "forked" in line]
    assert forked and max(forked) < 32  # the default limit, its own processes included


@needs_cgroups
def test_ten_gigabytes_are_refused_at_the_memory_limit(played, baseline):
    contained(played, baseline, "memory", "memory")
    assert "holding" not in played.said("memory")


def test_no_connection_reaches_loopback(sealed, baseline):
    assert sealed.planted["connected"] is False  # nothing reached the listener
    contained(sealed, baseline, "connect", None)
    said = sealed.said("connect")
    assert "no connection" in said and "CONNECTED" not in said


def test_the_results_and_files_outside_its_folder_cannot_be_read(sealed, baseline):
    contained(sealed, baseline, "read", None)
    said = sealed.said("read")
    assert "READ" not in said
    assert f"cannot read {sealed.planted['results']}" in said


def test_nothing_is_written_outside_its_private_tmp(sealed, baseline):
    contained(sealed, baseline, "write", None)
    planted = sealed.planted
    assert not Path(planted["outside"]).exists() and not Path(planted["own"]).exists()
    assert not Path(planted["private"]).exists()
    assert f"WROTE {planted['private']}" in sealed.said("write")  # its own /tmp, gone with it


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


def test_a_grandchild_does_not_outlive_the_match(played, baseline):
    if "orphan" not in played.rows:
        pytest.skip("no writable cgroup v1 pids and memory controllers (they need root)")
    contained(played, baseline, "orphan", None)
    assert played.planted["survivors"] == []  # read as the run ended


def test_a_program_holds_no_descriptor_of_its_worker(played, baseline):
    """Not the pipe by which its worker's end is known: holding that, a program hung on
    its turn kept the runner waiting five seconds to learn its worker had died, and
    one that wrote to it could make the runner end its worker."""
    contained(played, baseline, "descriptors", None)
    said = played.said("descriptors")
    assert "descriptors listed" in said
    assert "HOLDS" not in said, said


def test_a_thread_burning_cpu_is_accounted_and_ended(played, baseline):
    contained(played, baseline, "burn", "cpu")
    # each start it makes is killed after a CPU second, and every one is accounted
    row = played.rows["burn"]
    assert row["cpu_seconds"] >= 0.5 * row["faults"]["cpu"] > 0


def test_a_stderr_flood_is_kept_capped(played, baseline):
    contained(played, baseline, "stderr", "output")
    kept = sum(path.stat().st_size for path in played.stderr_files("stderr"))
    starts = played.rows["stderr"]["faults"]["output"]
    assert 256 * 1024 <= kept <= starts * (256 * 1024 + 100)
    assert "[stderr cut at 256 KiB]" in played.said("stderr")


def test_a_stdout_flood_is_ended_at_the_frame_limit(played, baseline):
    contained(played, baseline, "stdout", "output")


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


def test_a_program_gets_no_privilege_whoever_starts_the_runner(sealed, baseline):
    """Run as root, bubblewrap alone kept root's rights: a program read /etc/shadow,
    remounted its own folder writable and made a device node of the host's disk. Now
    it is an unprivileged user with no capability and a system call filter."""
    contained(sealed, baseline, "escape", None)
    said = sealed.said("escape")
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
