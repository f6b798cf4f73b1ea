"""The system tools some tests need (a C compiler and msgpack-c, Node.js), found once,
with the reason a test skips without them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

NODE = shutil.which("node")
"""Node.js, or None."""


def c_toolchain() -> str | None:
    """Why a C bot cannot be built here, or None."""
    for tool in ("cc", "make", "pkg-config"):
        if shutil.which(tool) is None:
            return f"no {tool} on PATH"
    found = subprocess.run(
        ["sh", "-c", "pkg-config --exists msgpack-c || pkg-config --exists msgpack"],
        capture_output=True,
    )
    if found.returncode != 0:
        return "msgpack-c is not installed (Debian: apt-get install libmsgpack-dev)"
    return None


NO_C = c_toolchain()
"""Why a C bot cannot be built here, or None."""


def npm_ci(directory: Path) -> None:
    """Install the locked dependencies unless they are there already."""
    marker = directory / "node_modules" / "@msgpack" / "msgpack" / "package.json"
    if marker.exists():
        return
    npm = shutil.which("npm")
    assert npm is not None, "node is installed but npm is not"
    done = subprocess.run(
        [npm, "ci", "--no-audit", "--no-fund", "--prefer-offline"],
        cwd=directory,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
