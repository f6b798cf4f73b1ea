"""What an external program may use, and how it is contained: plain values, read from a
tournament's or an arena's settings (``[limits]``, ``--limit NAME=VALUE``,
``--sandbox``). Pure: the definitions that name them import this, never the
sandbox that writes cgroup files and starts processes (``sandbox.py``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

import msgspec

Mode = Literal["auto", "bwrap", "limits", "none"]
MODES: tuple[Mode, ...] = get_args(Mode)
"""Every containment a command may be told to use (``--sandbox``)."""
FaultKind = Literal["memory", "cpu", "processes", "file_size", "output"]


class Limits(msgspec.Struct, frozen=True, forbid_unknown_fields=True, kw_only=True):
    """What one external program may use (``--limit NAME=VALUE``, ``[limits]`` in TOML)."""

    memory_mb: int = 1024
    """Memory (a cgroup's limit; the address space when there is no cgroup)."""
    cpu_seconds: int = 600
    """CPU time over one start of the program (a long-lived one that has used half is
    started afresh between matches: see ``ProgramSeat.worn``)."""
    processes: int = 32
    """Processes and threads at once, the program's own included."""
    open_files: int = 256
    file_size_mb: int = 16
    """The largest file it may write (its private /tmp included)."""
    stderr_kb: int = 256
    """Standard error kept per program start; the rest is dropped (and counted)."""

    def __post_init__(self) -> None:
        for name in self.__struct_fields__:
            if getattr(self, name) < 1:
                raise ValueError(f"the limit {name} must be at least 1")

    def with_text(self, items: Sequence[str]) -> Limits:
        """These limits with ``NAME=VALUE`` items applied; ``ValueError`` on a mistake."""
        changes: dict[str, int] = {}
        for item in items:
            name, eq, value = (part.strip() for part in item.partition("="))
            if not eq or name not in self.__struct_fields__:
                known = ", ".join(self.__struct_fields__)
                raise ValueError(f"{item!r}: write NAME=VALUE with NAME one of {known}")
            try:
                changes[name] = int(value)
            except ValueError:
                raise ValueError(f"{item!r}: {name} is a whole number") from None
        return msgspec.structs.replace(self, **changes)
