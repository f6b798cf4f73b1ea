"""Containment for external programs: limits, a private view of the machine, and faults.

A competition runs programs written by people who do not trust each other. Each
program started by ``ProgramSeat`` goes through one ``Containment``:

- resource limits (``setrlimit`` in the child before it runs: address space when
  no memory cgroup holds it, CPU seconds, open files, file size, and processes
  when no pids cgroup holds it);
- a cgroup v1 of its own where the machine allows it (``pids`` and ``memory``,
  and ``cpuacct`` for CPU time): those limits hold for root too, where
  ``RLIMIT_NPROC`` does not, and killing the group ends everything it started;
- with ``bwrap`` (bubblewrap), its own namespaces: no network, a read-only
  system, its own folder read-only, a private ``/tmp``, the other entrants'
  folders and the runner's files hidden, a pid namespace so that nothing it
  starts outlives it, and death with its parent.

Whatever a program does past a limit ends it and is counted as a fault of a
KIND (``memory``, ``cpu``, ``processes``, ``file_size``, ``output``); the
tournament goes on. Building the wrapped command line is pure; the cgroup is the
one piece of state, a handle made per program start and removed afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import errno
import functools
import itertools
import os
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Protocol

from . import folders, seccomp
from .limits import FaultKind, Limits, Mode

CGROUP_ROOT = Path("/sys/fs/cgroup")
MIB = 1 << 20


def bwrap_path() -> str | None:
    """bubblewrap, when it is installed and can make namespaces here."""
    path = shutil.which("bwrap")
    return path if path is not None and _bwrap_works(path) else None


@functools.cache
def _bwrap_works(path: str) -> bool:
    """Asked once per process: each worker makes its containment, and may ask twice."""
    try:
        done = subprocess.run(
            [path, "--ro-bind", "/", "/", "--unshare-net", "--unshare-pid", "true"],
            capture_output=True,
            timeout=10,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


UNPRIVILEGED = 65534
_NOBODY = "nobody"
"""The user (``nobody``) a runner started as root hands its programs to: root's
rights over the machine's files, and its capabilities, never reach a program."""


def seal_problem() -> str | None:
    """Why programs cannot be sealed here (bubblewrap, a seccomp filter and, for a
    runner started as root, an unprivileged user), or None when they can."""
    if bwrap_path() is None:
        return "bubblewrap not found, or it cannot make namespaces (apt-get install bubblewrap)"
    if not seccomp.available():
        return "libseccomp is missing, so no system call filter (apt-get install libseccomp2)"
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        return "setpriv is missing, so programs would run as root (apt-get install util-linux)"
    return None


def cgroup_controllers() -> tuple[str, ...]:
    """The cgroup v1 controllers this process may make groups in (root on most machines)."""
    found = []
    for name in ("pids", "memory", "cpuacct"):
        folder = CGROUP_ROOT / name
        if (folder / "cgroup.procs").exists() and os.access(folder, os.W_OK):
            found.append(name)
    return tuple(found)


def resolve(mode: Mode, warn: Callable[[str], None] | None = None) -> Mode:
    """``auto`` made concrete: ``bwrap`` when programs can be sealed here, else
    ``limits`` (said once)."""
    problem = seal_problem() if mode in ("auto", "bwrap") else None
    if mode == "bwrap" and problem is not None:
        raise ValueError(f"--sandbox bwrap: {problem}")
    if mode != "auto":
        return mode
    if problem is None:
        return "bwrap"
    if warn is not None:
        warn(
            f"sandbox: {problem}: programs run with resource limits only "
            "(they can use the network and read your files; see TOURNAMENTS.md)"
        )
    return "limits"


def hand_over(folder: Path, user: int | None) -> None:
    """Make ``folder`` and everything in it ``user``'s, so that a program run as that
    user may read it and a build may write there (None: programs run as the runner's
    own user, and nothing changes)."""
    if user is None:
        return
    os.chown(folder, user, user)
    for root, dirs, files in os.walk(folder):
        for name in [*dirs, *files]:
            os.chown(os.path.join(root, name), user, user, follow_symlinks=False)


def programs_user() -> int | None:
    """The user this process's sealed programs run as, when it is not its own."""
    return UNPRIVILEGED if os.geteuid() == 0 else None


@dataclass(frozen=True)
class Containment:
    """How every external program of a run is contained (the same in each worker).

    ``hidden``: folders no program may see even when they lie inside what it is
    shown (the results folder inside a shared base, say); a program's own folder
    stays visible, read-only.
    """

    mode: Mode = "limits"
    limits: Limits = field(default_factory=Limits)
    hidden: tuple[str, ...] = ()
    see: tuple[str, ...] = ()
    """Folders every program may read besides the system, the runtime and its own."""
    cgroups: tuple[str, ...] = ()
    """The cgroup v1 controllers in use (see ``cgroup_controllers``)."""
    bwrap: str = "bwrap"
    user: int | None = None
    """The unprivileged user programs become under bubblewrap when the runner is root
    (``UNPRIVILEGED``); None: they stay the runner's own user, inside a user namespace."""

    @classmethod
    def make(
        cls,
        mode: Mode,
        limits: Limits | None = None,
        hidden: Sequence[str] = (),
        warn: Callable[[str], None] | None = None,
    ) -> Containment:
        mode = resolve(mode, warn)
        sealed = mode == "bwrap"
        return cls(
            mode=mode,
            limits=limits or Limits(),
            hidden=tuple(os.path.abspath(h) for h in hidden if os.path.isdir(h)),
            cgroups=cgroup_controllers() if mode != "none" else (),
            bwrap=(bwrap_path() or "bwrap") if sealed else "bwrap",
            user=programs_user() if sealed else None,
        )

    def with_limits(self, items: Sequence[str]) -> Containment:
        """This containment with ``NAME=VALUE`` limits of one entrant's over the run's."""
        if not items or self.mode == "none":
            return self
        return dataclasses.replace(self, limits=self.limits.with_text(items))

    def describe(self) -> str:
        """One line for the run's output: what holds each limit."""
        if self.mode == "none":
            return "sandbox: none (programs run with your rights and no limits)"
        counted = "cgroup v1" if "pids" in self.cgroups else "RLIMIT_NPROC"
        memory = "cgroup v1" if "memory" in self.cgroups else "RLIMIT_AS"
        who = f"user {self.user}" if self.user is not None else "a user namespace"
        where = (
            "bubblewrap (no network, read-only system, private /tmp, pid namespace, "
            f"{who} with no capabilities, seccomp filter)"
            if self.mode == "bwrap"
            else "limits only (no namespaces)"
        )
        return f"sandbox: {where}; processes by {counted}, memory by {memory}"

    def argv(
        self,
        argv: Sequence[str],
        folder: str | None,
        *,
        writable: bool = False,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        """The command line that runs ``argv`` in ``folder`` under this containment
        (``writable``: the folder may be written to, as a build writes its own;
        ``seccomp_fd``: a file holding the system call filter, handed to the child).

        Under bubblewrap the program sees what is shown to it and nothing else: the
        system (``folders.SYSTEM``), the runtime it runs on, its own folder, all
        read-only, and a private ``/tmp``; the rest of the machine is not there at
        all, not even as names. Folders in ``hidden`` inside what it sees are emptied.
        It has no capability, never gains one (no new privileges), and is refused the
        system calls of ``seccomp``; started by root, it runs as ``user``."""
        if self.mode != "bwrap":
            return list(argv)
        own = os.path.abspath(folder or os.getcwd())
        wrapped = [self.bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
        wrapped += ["--unshare-cgroup-try", "--die-with-parent", "--new-session"]
        if self.user is None:  # bubblewrap drops every capability of a user's sandbox
            wrapped += ["--unshare-user"]
        else:  # as root it keeps only what setpriv needs to become the user, then none
            wrapped += ["--cap-drop", "ALL"]
            for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
                wrapped += ["--cap-add", cap]
        if seccomp_fd is not None:
            wrapped += ["--seccomp", str(seccomp_fd)]
        for path in folders.SYSTEM:
            wrapped += _show(path)
        wrapped += ["--dev", "/dev", "--proc", "/proc", "--perms", "1777", "--tmpfs", "/tmp"]
        extra = folders.runtime_of(argv[0]) if argv else None
        shown = [*folders.runtime(), *self.see, *([extra] if extra else []), own]
        for path in _ancestors(shown):  # as plain folders, whoever may enter them here
            wrapped += ["--perms", "0755", "--dir", path]
        for path in shown[:-1]:
            wrapped += _show(path)
        wrapped += ["--bind" if writable else "--ro-bind", own, own]
        for path in self.hidden:
            if not folders.under(own, path) and any(folders.under(path, s) for s in shown):
                wrapped += ["--tmpfs", path]
        wrapped += ["--chdir", own, "--"]
        if self.user is None:
            return wrapped + list(argv)
        become = [f"--reuid={self.user}", f"--regid={self.user}", "--clear-groups"]
        become += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs"]
        return [*wrapped, "setpriv", *become, "--", *argv]

    @contextlib.contextmanager
    def command(
        self, argv: Sequence[str], folder: str | None, *, writable: bool = False
    ) -> Iterator[tuple[list[str], tuple[int, ...]]]:
        """The wrapped command line and the file descriptors its child must be handed
        (the seccomp filter, under bubblewrap), for one start; closed afterwards."""
        if self.mode != "bwrap":
            yield list(argv), ()
            return
        fd = seccomp.filter_file()
        try:
            yield self.argv(argv, folder, writable=writable, seccomp_fd=fd), (fd,)
        finally:
            os.close(fd)

    def open_to_user(self, folder: str | None) -> None:
        """Raise ``PermissionError`` saying what to do when the user programs run as
        (a runner started as root) may not enter and read ``folder``, its own: the
        program would fail to start with a bare "Permission denied"."""
        if self.user is None or folder is None:
            return
        mode = os.stat(folder)
        if mode.st_uid != self.user and mode.st_mode & 0o005 != 0o005:
            raise PermissionError(
                errno.EACCES,
                f"its folder {folder} is closed to user {self.user} ({_NOBODY}), whom "
                "programs run as when the runner is root: chmod o+rX it, or run as "
                "another user",
            )

    def preexec(self, group: Cgroup | None) -> Callable[[], None] | None:
        """What the child does before it runs the program: join its cgroup, set rlimits."""
        if self.mode == "none":
            return None
        limits = self.limits
        has = set(group.controllers) if group is not None else set()
        procs = [str(group.path(c) / "cgroup.procs") for c in group.controllers] if group else []
        rlimits = [
            (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
            (resource.RLIMIT_NOFILE, limits.open_files, limits.open_files),
            (resource.RLIMIT_FSIZE, limits.file_size_mb * MIB, limits.file_size_mb * MIB),
            (resource.RLIMIT_CORE, 0, 0),
        ]
        if "memory" not in has:
            size = limits.memory_mb * MIB
            rlimits.append((resource.RLIMIT_AS, size, size))
        if "pids" not in has and os.geteuid() != 0:
            # Counts every process of the user: leave room for the organiser's own.
            count = _user_processes() + limits.processes
            rlimits.append((resource.RLIMIT_NPROC, count, count))

        def child() -> None:
            pid = str(os.getpid()).encode()
            for path in procs:
                fd = os.open(path, os.O_WRONLY)
                try:
                    os.write(fd, pid)
                finally:
                    os.close(fd)
            for which, soft, hard in rlimits:
                with contextlib.suppress(ValueError, OSError):
                    resource.setrlimit(which, (soft, hard))

        return child

    def cgroup(self) -> Cgroup | None:
        """A fresh group for one program start (None when there are no cgroups to use)."""
        if not self.cgroups:
            return None
        with contextlib.suppress(OSError):
            return Cgroup.create(self.cgroups, self.limits)
        return None


_numbers = itertools.count(1)
_swept = False
GROUPS = "leastscore"
"""Each program start's group is ``leastscore/PID-N``: PID the process that started it."""


def end_groups(owner: int | None, controllers: Sequence[str] | None = None) -> None:
    """Kill and remove the groups of programs started by ``owner``, a process that is
    gone (a worker that died: what its programs started dies too); with None, those
    of every owner that is gone."""
    if controllers is None:
        controllers = cgroup_controllers()
    for controller in controllers:
        with contextlib.suppress(OSError):
            for folder in (CGROUP_ROOT / controller / GROUPS).iterdir():
                pid, dash, number = folder.name.partition("-")
                if not (dash and pid.isdigit() and number.isdigit()):
                    continue
                if owner is None and _alive(int(pid)):
                    continue
                if owner is not None and int(pid) != owner:
                    continue
                Cgroup(f"{GROUPS}/{folder.name}", (controller,)).remove()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


@dataclass
class Cgroup:
    """One program start's cgroup v1 groups: its limits, what it hit, and its end."""

    name: str
    controllers: tuple[str, ...]

    def path(self, controller: str) -> Path:
        return CGROUP_ROOT / controller / self.name

    @classmethod
    def create(cls, controllers: Sequence[str], limits: Limits) -> Cgroup:
        global _swept
        if not _swept:
            _swept = True
            end_groups(None, controllers)  # those of runners that were killed
        name = f"{GROUPS}/{os.getpid()}-{next(_numbers)}"
        group = cls(name, tuple(controllers))
        for c in controllers:
            group.path(c).mkdir(parents=True, exist_ok=True)
        if "pids" in controllers:
            group._write("pids", "pids.max", limits.processes)
        if "memory" in controllers:
            size = limits.memory_mb * MIB
            group._write("memory", "memory.limit_in_bytes", size)
            with contextlib.suppress(OSError):  # only with swap accounting
                group._write("memory", "memory.memsw.limit_in_bytes", size)
        return group

    def _write(self, controller: str, file: str, value: int) -> None:
        (self.path(controller) / file).write_text(str(value))

    def _read(self, controller: str, file: str) -> str:
        if controller not in self.controllers:
            return ""
        try:
            return (self.path(controller) / file).read_text()
        except OSError:
            return ""

    def hit(self) -> list[FaultKind]:
        """The limits it ran into since it started."""
        kinds: list[FaultKind] = []
        events = dict(
            line.split(maxsplit=1)
            for line in self._read("pids", "pids.events").splitlines()
            if " " in line
        )
        if int(events.get("max", "0") or 0) > 0:
            kinds.append("processes")
        oom = dict(
            line.split(maxsplit=1)
            for line in self._read("memory", "memory.oom_control").splitlines()
            if " " in line
        )
        if int(oom.get("oom_kill", "0") or 0) > 0 or int(
            self._read("memory", "memory.failcnt").strip() or 0
        ):
            kinds.append("memory")
        return kinds

    def cpu_seconds(self) -> float | None:
        text = self._read("cpuacct", "cpuacct.usage").strip()
        return int(text) / 1e9 if text else None

    def pids(self) -> list[int]:
        controller = self.controllers[0]
        text = self._read(controller, "cgroup.procs")
        return [int(p) for p in text.split()]

    def kill(self) -> None:
        """End everything in the group: what the program started dies with it."""
        for _ in range(100):
            pids = self.pids()
            if not pids:
                return
            for pid in pids:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)

    def remove(self, wait: float = 5.0) -> None:
        """Kill what is in the group and drop its folders. A killed process leaves its
        group only once the kernel runs it again (later on a busy machine), and a group
        still holding one cannot be removed: it is read again until empty, ``wait``
        seconds at most."""
        deadline = time.monotonic() + wait
        self.kill()
        while self.pids() and time.monotonic() < deadline:
            time.sleep(0.002)
            self.kill()
        for c in self.controllers:
            with contextlib.suppress(OSError):
                self.path(c).rmdir()


def _user_processes() -> int:
    uid = os.getuid()
    count = 0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                count += entry.stat().st_uid == uid
    return count


def signal_kind(returncode: int | None) -> FaultKind | None:
    """The limit a program's exit status says it hit (directly, or through bwrap's)."""
    if returncode is None:
        return None
    signum = -returncode if returncode < 0 else returncode - 128 if returncode > 128 else 0
    if signum == signal.SIGXCPU:
        return "cpu"
    if signum == signal.SIGXFSZ:
        return "file_size"
    return None


def process_cpu_seconds(pid: int, *, with_children: bool = False) -> float | None:
    """CPU time (user and system, all threads) of a running process, from /proc;
    ``with_children``: and of its children that ended and were waited for."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    ticks = os.sysconf("SC_CLK_TCK")
    used = fields[11:15] if with_children else fields[11:13]
    return sum(int(f) for f in used) / ticks


def tree_cpu_seconds(pid: int) -> float | None:
    """CPU time of a running process and of all it started, running or ended (bubblewrap's
    own process does not run the program: its children do)."""
    total = process_cpu_seconds(pid, with_children=True)
    if total is None:
        return None
    for child in _children(pid):
        total += tree_cpu_seconds(child) or 0.0
    return total


def _children(pid: int) -> list[int]:
    found: list[int] = []
    with contextlib.suppress(OSError):
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):
                found += [int(c) for c in (task / "children").read_text().split()]
    return found


@dataclass
class Usage:
    """What one program has cost over all its starts: faults by kind, CPU seconds."""

    faults: dict[str, int] = field(default_factory=dict)
    cpu_seconds: float = 0.0


class Jail:
    """One running program under its containment: the process, its group, its stderr."""

    def __init__(
        self,
        proc: asyncio.subprocess.Process,
        group: Cgroup | None,
        usage: Usage,
        pipes: Sequence[asyncio.BaseTransport] = (),
    ) -> None:
        self.proc = proc
        self.group = group
        self.usage = usage
        self.kinds: set[FaultKind] = set()
        """The limits this start went over (each counted once)."""
        self._cpu = 0.0
        self.stderr_bytes = 0
        """What this start wrote to stderr, kept or not."""
        self._stderr: asyncio.Task[None] | None = None
        self.pipes = tuple(pipes)
        """The program's stdin and stdout, as ``spawn`` made them (closed at ``end``)."""

    def count(self, kind: FaultKind) -> bool:
        if kind in self.kinds:
            return False
        self.kinds.add(kind)
        self.usage.faults[kind] = self.usage.faults.get(kind, 0) + 1
        return True

    def check(self, returncode: int | None = None) -> list[FaultKind]:
        """The limits newly gone over (from the exit status and the cgroup), counted."""
        found = [*([k] if (k := signal_kind(returncode)) else []), *self._group_hit()]
        return [kind for kind in found if self.count(kind)]

    def _group_hit(self) -> list[FaultKind]:
        return self.group.hit() if self.group is not None else []

    def cpu_seconds(self) -> float:
        """CPU time of this start so far (its whole group when cpuacct is there)."""
        now = self.group.cpu_seconds() if self.group is not None else None
        if now is None:
            now = tree_cpu_seconds(self.proc.pid)
        if now is not None:
            self._cpu = max(self._cpu, now)
        return self._cpu

    def keep_stderr(self, out: IO[bytes], limit: int) -> None:
        """Copy the first ``limit`` bytes of the program's stderr to ``out``; more ends it."""
        stream = self.proc.stderr
        assert stream is not None

        async def copy() -> None:
            while data := await stream.read(65536):
                kept = self.stderr_bytes
                if kept < limit:
                    out.write(data[: limit - kept])
                    out.flush()
                kept = self.stderr_bytes = kept + len(data)
                if kept > limit:
                    out.write(f"\n[stderr cut at {limit // 1024} KiB]\n".encode())
                    out.flush()
                    self.count("output")
                    with contextlib.suppress(ProcessLookupError):
                        self.proc.kill()
                    while await stream.read(65536):
                        pass
                    return

        self._stderr = asyncio.get_running_loop().create_task(copy())

    async def end(self) -> None:
        """After the process is gone: end what it left, add up its CPU, drop the group."""
        self.cpu_seconds()
        if self.group is not None:
            self.check()
            self.group.kill()
        if self._stderr is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._stderr, 5.0)
        for pipe in self.pipes:
            pipe.close()
        self.cpu_seconds()
        self.usage.cpu_seconds += self._cpu
        self._cpu = 0.0
        if self.group is not None:
            await asyncio.get_running_loop().run_in_executor(None, self.group.remove)
            self.group = None


def _ancestors(shown: Sequence[str]) -> list[str]:
    """The folders above those ``shown`` that no shown folder brings: bubblewrap would
    make them with the machine's own modes (``/root`` is 0700), and a program run as
    another user could not walk through them to its own folder."""
    brought = (*folders.SYSTEM, *shown)
    found: set[str] = set()
    for path in shown:
        parent = os.path.dirname(path)
        while parent != "/" and not any(folders.under(parent, b) for b in brought):
            found.add(parent)
            parent = os.path.dirname(parent)
    return sorted(found, key=lambda p: (p.count("/"), p))


def _show(path: str) -> list[str]:
    """bubblewrap's words for showing ``path`` read-only as it is here (a link as a link)."""
    if os.path.islink(path) and os.path.dirname(path) == "/":
        return ["--symlink", os.readlink(path), path]
    return ["--ro-bind", path, path] if os.path.exists(path) else []


def _findable(program: str, cwd: str | None) -> None:
    """Raise the ``OSError`` exec would for a program that is not there."""
    if "/" in program:
        path = os.path.join(cwd or ".", program)
        if not os.access(path, os.X_OK):
            raise FileNotFoundError(2, "No such file or directory", program)
    elif shutil.which(program) is None:
        raise FileNotFoundError(2, "No such file or directory", program)


class Output(Protocol):
    """Whoever hears a program's output as it is read (``spawn``'s ``output``)."""

    def received(self, data: bytes) -> None:
        """Bytes the program wrote to its stdout, as they were read."""

    def ended(self, error: BaseException | None) -> None:
        """Its stdout closed (``error``: it broke)."""


class _HeardOutput(asyncio.Protocol):
    """The read end of a program's stdout: what it writes goes straight to an
    ``Output`` in the callback that read it, with no stream reader in between, no
    task and no future per read."""

    def __init__(self, output: Output) -> None:
        self._output = output

    def data_received(self, data: bytes) -> None:
        self._output.received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        self._output.ended(exc)


async def spawn(
    containment: Containment,
    argv: Sequence[str],
    usage: Usage,
    *,
    cwd: str | None,
    env: dict[str, str] | None,
    stderr: IO[bytes] | int | None,
    output: Output,
) -> Jail:
    """Start ``argv`` contained, with pipes for stdin and stdout; raises ``OSError``.

    What the program writes is handed to ``output`` as it is read (the process's
    ``stdout`` stream stays empty)."""
    if containment.mode == "bwrap":
        _findable(argv[0], cwd)  # bwrap would only say so on stderr
        containment.open_to_user(cwd)
    _inherit_nothing()
    group = containment.cgroup()
    capped = containment.mode != "none" and not isinstance(stderr, int | None)
    options: dict[str, Any] = dict(
        stderr=asyncio.subprocess.PIPE if capped else stderr,
        cwd=cwd,
        env=env,
        preexec_fn=containment.preexec(group),
    )
    try:
        with containment.command(argv, cwd) as (wrapped, handed):
            options["pass_fds"] = handed
            proc, pipes = await _spawn_heard(wrapped, options, output)
    except BaseException:
        if group is not None:
            group.remove()
        raise
    jail = Jail(proc, group, usage, pipes)
    if capped:
        assert not isinstance(stderr, int | None)
        jail.keep_stderr(stderr, containment.limits.stderr_kb * 1024)
    return jail


def _inherit_nothing() -> None:
    """Mark every descriptor of this process to close when a program starts.

    Python opens its own that way, but a process started by ``multiprocessing`` (a
    tournament's worker, a Dask worker) holds the pipes it was started with open to
    any program it starts, and uvloop closes none of them: holding its worker's
    sentinel, a program hung on its turn kept the runner waiting five seconds to learn
    that the worker had died, and one that wrote to it could make the runner end the
    worker. What a program is handed on purpose goes by ``pass_fds``."""
    for name in os.listdir("/dev/fd"):
        with contextlib.suppress(OSError, ValueError):
            fd = int(name)
            if fd > 2 and os.get_inheritable(fd):
                os.set_inheritable(fd, False)


async def _spawn_heard(
    argv: Sequence[str], options: dict[str, Any], output: Output
) -> tuple[asyncio.subprocess.Process, list[asyncio.BaseTransport]]:
    """Start ``argv`` with a pipe of this process's own for its stdin and its stdout,
    the output heard by ``output``; the process and the two pipes' transports.

    Why its own pipes: uvloop gives a child's standard streams socket pairs, and a
    host on the loop with nothing else to do spent about half as much again per move
    through them as through pipes (``bench.tournament``'s ``loop_floor_us``: 55-59
    against 36-41 us a move of the raw test program, on one core)."""
    loop = asyncio.get_running_loop()
    child_in, to_child = os.pipe()
    from_child, child_out = os.pipe()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: asyncio.subprocess.SubprocessStreamProtocol(limit=2**16, loop=loop),
            *argv,
            stdin=child_in,
            stdout=child_out,
            **options,
        )
    except BaseException:
        os.close(to_child)
        os.close(from_child)
        raise
    finally:
        os.close(child_in)
        os.close(child_out)
    proc = asyncio.subprocess.Process(transport, protocol, loop)
    reading, _ = await loop.connect_read_pipe(
        lambda: _HeardOutput(output), os.fdopen(from_child, "rb", buffering=0)
    )
    writing, writer = await loop.connect_write_pipe(
        asyncio.Protocol, os.fdopen(to_child, "wb", buffering=0)
    )
    proc.stdin = asyncio.StreamWriter(writing, writer, None, loop)
    return proc, [reading, writing]
