"""What the sandbox can do on this machine, as marks that skip with the reason."""

from __future__ import annotations

import pytest
from leastscore.seats.sandbox import bwrap_path, cgroup_controllers

HAS_BWRAP = bwrap_path() is not None
CGROUPS = cgroup_controllers()
needs_bwrap = pytest.mark.skipif(
    not HAS_BWRAP, reason="bubblewrap is missing or cannot make namespaces here"
)
needs_cgroups = pytest.mark.skipif(
    not {"pids", "memory"} <= set(CGROUPS),
    reason="no writable cgroup v1 pids and memory controllers (they need root)",
)
