"""Run a script in a network namespace of its own: loopback only, multicast on it.

Nothing a test multicasts there can reach the machine's real interfaces. Needs
root (or user namespaces) and ``unshare``/``ip``; ``namespace_problem`` says why not.
"""

from __future__ import annotations

import shutil
import subprocess
import sys

SETUP = "ip link set lo up && ip link set lo multicast on && ip route add 224.0.0.0/4 dev lo"


def namespace_problem() -> str | None:
    """None when a namespace can be made here; else why not, for a skip."""
    for tool in ("unshare", "ip"):
        if shutil.which(tool) is None:
            return f"no {tool} command on this machine"
    probe = subprocess.run(
        ["unshare", "--net", "sh", "-c", SETUP], capture_output=True, text=True, timeout=30
    )
    if probe.returncode != 0:
        return f"cannot make a network namespace here: {probe.stderr.strip()}"
    return None


def run_inside(script: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run Python ``script`` inside a fresh namespace; its output comes back."""
    return subprocess.run(
        ["unshare", "--net", "sh", "-c", f'{SETUP} && exec "$0" -c "$1"', sys.executable, script],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
