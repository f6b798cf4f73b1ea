"""The ``leastscore`` command as a user runs it: a real subprocess of this Python."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
"""The repository's folder."""
PROGRAMS = ROOT / "tests" / "programs"
"""The test programs: players, bots and hostile ones, run as real processes."""
COMMAND = [sys.executable, "-m", "leastscore"]


def environment(env: Mapping[str, str] | None = None, locale: str | None = None) -> dict[str, str]:
    """This process's environment with ``env`` set on top; with ``locale``, that locale
    and no other asked for (every ``LC_*`` and ``LANG*`` left out)."""
    environ = dict(os.environ)
    if locale is not None:
        environ = {k: v for k, v in environ.items() if not k.startswith(("LC_", "LANG"))}
        environ["LANG"] = locale
    environ.update(env or {})
    return environ


def leastscore(
    *args: str,
    cwd: str | Path | None = None,
    env: Mapping[str, str] | None = None,
    locale: str | None = None,
    input: str | bytes | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[Any]:
    """``leastscore ARGS`` to its end: its exit status and what it printed (text, or
    bytes when ``input`` is bytes). ``env`` is set on top of this process's own."""
    return subprocess.run(
        [*COMMAND, *args],
        capture_output=True,
        text=not isinstance(input, bytes),
        input=input,
        cwd=cwd,
        env=environment(env, locale),
        timeout=timeout,
    )


def started(
    *args: str,
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    stdout: Any = subprocess.PIPE,
    stderr: Any = subprocess.PIPE,
) -> subprocess.Popen[str]:
    """``leastscore ARGS`` started and left running (a server, a run to kill): the
    caller reads its output and ends it (``stop``, or Ctrl-C as at a terminal)."""
    return subprocess.Popen(
        [*COMMAND, *args],
        stdout=stdout,
        stderr=stderr,
        text=True,
        cwd=cwd,
        env=environment(env),
        preexec_fn=hears_ctrl_c,
    )


def hears_ctrl_c() -> None:
    """In a started command, before it runs: SIGINT as a terminal delivers it. A shell
    starts a background job (``nohup make test &``) with SIGINT ignored, every process
    under it inherits that, and a command would never hear the SIGINT a test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def stop(proc: subprocess.Popen[Any], timeout: float = 60) -> int:
    """End a started command (SIGTERM, then SIGKILL past ``timeout``); its exit status."""
    if proc.poll() is None:
        proc.terminate()
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.wait()
