"""The containment itself: its command line, its limits, its fallbacks, its cgroups."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from leastscore.bots.check import CheckSettings, check_program
from leastscore.seats import sandbox
from leastscore.seats.folders import place
from leastscore.seats.limits import Limits
from leastscore.seats.sandbox import Containment
from leastscore.tournament.pure import config as configs

from ..support.sandbox import CGROUPS, needs_bwrap, needs_cgroups
from ..tournament.helpers import PLAYER


def test_limits_from_text_and_their_mistakes():
    limits = Limits().with_text(["memory_mb=256", " processes = 8 "])
    assert limits.memory_mb == 256 and limits.processes == 8 and limits.cpu_seconds == 600
    with pytest.raises(ValueError, match="NAME one of memory_mb"):
        Limits().with_text(["memroy_mb=1"])
    with pytest.raises(ValueError, match="whole number"):
        Limits().with_text(["memory_mb=lots"])
    with pytest.raises(ValueError, match="at least 1"):
        Limits().with_text(["processes=0"])


def test_the_toml_file_and_the_flags_set_the_limits(tmp_path: Path):
    path = tmp_path / "cup.toml"
    path.write_text(
        'seed = 1\nsandbox = "limits"\n[limits]\nmemory_mb = 300\n'
        '[bots]\na = "builtin:greedy"\nb = "builtin:random"\n'
    )
    settings, entrants, rules = configs.read_toml(path)
    config = configs.build({**settings, "limit": ["cpu_seconds=7"]}, entrants, rules)
    assert config.sandbox == "limits"
    assert config.limits == Limits(memory_mb=300, cpu_seconds=7)
    assert configs.load(configs.dump(config)) == config  # workers and --resume see the same
    with pytest.raises(ValueError, match="limits:"):
        configs.build({**settings, "limit": ["nope=1"]}, entrants, rules)


def test_auto_says_plainly_when_it_falls_back(monkeypatch):
    monkeypatch.setattr(sandbox.shutil, "which", lambda name: None)
    said: list[str] = []
    contained = Containment.make("auto", warn=said.append)
    assert contained.mode == "limits"
    assert len(said) == 1 and "bubblewrap not found" in said[0] and "limits only" in said[0]
    with pytest.raises(ValueError, match="apt-get install bubblewrap"):
        Containment.make("bwrap")


def test_the_wrapped_command_shows_the_system_and_its_own_folder_only():
    contained = Containment(mode="bwrap", hidden=("/srv/a/out", "/srv/b"))
    argv = contained.argv(["./bot", "-q"], "/srv/a")
    assert argv[-3:] == ["--", "./bot", "-q"]
    text = " ".join(argv)
    assert "--ro-bind / /" not in text  # an allowlist: nothing of the machine by default
    assert "--ro-bind /usr /usr" in text and "--ro-bind /srv/a /srv/a" in text
    assert "--tmpfs /srv/a/out" in text  # hidden inside what it sees
    assert "/srv/b" not in text  # not shown at all: nothing to hide
    assert text.endswith("--chdir /srv/a -- ./bot -q")
    for flag in ("--unshare-net", "--unshare-pid", "--die-with-parent", "--tmpfs /tmp"):
        assert flag in text
    assert Containment(mode="limits").argv(["./bot"], "/srv/a") == ["./bot"]


def test_a_program_runs_in_the_folder_of_the_file_its_command_names(tmp_path: Path):
    (tmp_path / "entrants" / "a").mkdir(parents=True)
    (tmp_path / "entrants" / "a" / "bot.js").write_text("")
    (tmp_path / "bot").write_text("")
    a = tmp_path / "entrants" / "a"
    placed = place(["node", "entrants/a/bot.js", "--fast"], str(tmp_path))
    assert placed.argv == ["node", str(a / "bot.js"), "--fast"] and placed.folder == str(a)
    assert place(["./bot"], str(tmp_path)).folder == str(tmp_path)
    assert place([sys.executable, str(a / "bot.js")], "/").folder == str(a)
    shared = place(["python3", "-m", "mybot"], str(tmp_path))  # names no file: the base
    assert shared.folder == str(tmp_path) and not shared.named
    given = place(["sh", "-c", "cd x && ./bot"], str(tmp_path), "entrants/a")
    assert given.folder == str(a) and given.named


@needs_bwrap
def test_another_entrants_folder_is_not_there_though_nobody_hid_it(tmp_path: Path):
    mine, theirs = tmp_path / "mine", tmp_path / "theirs"
    mine.mkdir()
    theirs.mkdir()
    (theirs / "bot.py").write_text("secret strategy")
    (mine / "bot.py").write_text("my strategy")
    contained = Containment.make("bwrap")
    script = "import sys; print(open(sys.argv[1]).read())"
    for path, readable in ((theirs / "bot.py", False), (mine / "bot.py", True)):
        argv = contained.argv([sys.executable, "-c", script, str(path)], str(mine))
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60)
        assert (done.returncode == 0) is readable, done.stderr
        assert ("strategy" in done.stdout) is readable


@needs_cgroups
def test_a_cgroup_is_made_limited_and_removed():
    contained = Containment(mode="limits", limits=Limits(processes=5), cgroups=CGROUPS)
    group = contained.cgroup()
    assert group is not None
    assert (group.path("pids") / "pids.max").read_text().strip() == "5"
    child = contained.preexec(group)
    assert child is not None
    done = subprocess.run(
        [sys.executable, "-c", "print(open('/proc/self/cgroup').read())"],
        preexec_fn=child,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert group.name in done.stdout
    group.remove()
    assert not group.path("pids").exists() and not group.path("memory").exists()


async def test_bot_check_runs_the_program_contained():
    settings = CheckSettings(matches=1, seats=2, opponents=("greedy",), sandbox="limits")
    report = await check_program([sys.executable, str(PLAYER), "good", "1"], settings)
    assert report.compliant, report.summary()
    assert any(line.startswith("sandbox: limits only") for line in report.lines)
    assert any(line.startswith("CPU time:") for line in report.lines)


@needs_cgroups
def test_the_groups_of_a_worker_that_died_are_killed_and_removed():
    """A worker killed outright leaves its programs' groups: the runner ends them
    (what a program started in a session of its own dies too). The worker lives until
    its program is in the group: the groups of owners that are gone are swept by any
    process's first group too (another test's, at the same time)."""
    worker = subprocess.Popen(["sleep", "600"])
    owner = worker.pid
    group = sandbox.Cgroup(f"{sandbox.GROUPS}/{owner}-1", CGROUPS)
    for c in CGROUPS:
        group.path(c).mkdir(parents=True)
    contained = Containment(mode="limits", cgroups=CGROUPS)
    child = contained.preexec(group)
    orphan = subprocess.Popen(["sleep", "60"], preexec_fn=child, start_new_session=True)
    try:
        assert group.pids() == [orphan.pid]
        worker.kill()
        worker.wait(timeout=30)
        sandbox.end_groups(owner)
        assert orphan.wait(timeout=30) == -9
        assert not any(group.path(c).exists() for c in CGROUPS)
    finally:
        worker.kill()
        orphan.kill()
        group.remove()


@needs_bwrap
def test_check_and_replay_run_a_program_under_tmp_from_its_own_folder(tmp_path: Path):
    """A bot author's ``mktemp -d`` folder, named from elsewhere: ``bot check`` and
    ``bot replay`` run the program in its folder, contained, with the limits asked;
    what it printed on stderr is shown when it fails (before, its folder was hidden by
    the private /tmp and the only words were that its output closed)."""
    mine = tmp_path / "mybot"
    mine.mkdir()
    shutil.copy(PLAYER, mine / "bot.py")
    (mine / "notes.txt").write_text("opening book")
    command = f"{sys.executable} {mine / 'bot.py'}"
    leastscore = [sys.executable, "-m", "leastscore", "bot"]
    contained = ["--sandbox=bwrap", "--limit=memory_mb=256"]
    for verb, extra in (("check", ["--matches=1"]), ("replay", [])):
        done = subprocess.run(
            [*leastscore, verb, f"{command} good", *contained, *extra],
            capture_output=True, text=True, timeout=120, cwd="/",
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        assert "sandbox: bubblewrap" in done.stdout
    failed = subprocess.run(
        [*leastscore, "replay", f"{command} crash 1", *contained],
        capture_output=True, text=True, timeout=120, cwd="/",
    )  # fmt: skip
    assert failed.returncode == 1 and "its last words on stderr:" in failed.stderr
    wrong = subprocess.run([*leastscore, "check", command, "--limit=colour=1"], capture_output=True)
    assert wrong.returncode == 2 and b"NAME one of memory_mb" in wrong.stderr


ORDINARY = """import os, subprocess, sys, threading
t = threading.Thread(target=print, args=("a thread",)); t.start(); t.join()
pid = os.fork()
if pid == 0:
    os._exit(0)
os.waitpid(pid, 0); print("a child")
os.mkfifo("/tmp/fifo"); print("a fifo")
print(subprocess.run(["sh", "-c", "echo a shell"], capture_output=True, text=True).stdout, end="")
print("uid", os.getuid())
"""


@pytest.mark.skipif(sandbox.seal_problem() is not None, reason=str(sandbox.seal_problem()))
def test_the_system_call_filter_leaves_ordinary_programs_alone(tmp_path: Path):
    """Threads, children, a FIFO, a shell: what bots do still works under the filter."""
    contained = Containment.make("bwrap")
    with contained.command([sys.executable, "-c", ORDINARY], str(tmp_path)) as (argv, fds):
        done = subprocess.run(argv, pass_fds=fds, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:4] == ["a thread", "a child", "a fifo", "a shell"]
    if os.geteuid() == 0:  # a runner started as root hands its programs to nobody
        assert done.stdout.splitlines()[4] == f"uid {sandbox.UNPRIVILEGED}"


@pytest.mark.skipif(
    os.geteuid() != 0 or sandbox.seal_problem() is not None,
    reason="programs are handed to another user only by a runner started as root, sealed",
)
async def test_a_folder_closed_to_the_programs_user_is_said_plainly(tmp_path: Path):
    """Started by root, a program runs as nobody: a folder only root may enter made it
    die with a bare "Permission denied" from its interpreter."""
    from leastscore.seats.program import ProgramSeat
    from leastscore.seats.seat import DidNotStart

    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    (closed / "bot.py").write_text("print('never')\n")
    seat = ProgramSeat(
        [sys.executable, str(closed / "bot.py")],
        "closed",
        cwd=str(closed),
        containment=Containment.make("bwrap"),
    )
    with pytest.raises(DidNotStart, match=r"closed to user 65534 .nobody.*chmod o\+rX"):
        await seat.start()
    await seat.close()
