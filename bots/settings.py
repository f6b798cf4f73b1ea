"""What ``leastscore bot check`` plays, and the defaults of its options.

Apart from ``bots.check`` so that the ``bot`` command's options can show these
defaults without loading the check itself (the program host, the driver): a
bot started with ``leastscore bot run`` loads only what it plays with.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from leastscore.seats.limits import Limits, Mode


@dataclass(frozen=True)
class CheckSettings:
    """A check's settings: how many matches, against whom, under which limits."""

    matches: int = 3
    seats: int = 3
    opponents: tuple[str, ...] = ("greedy", "random")
    threshold: int = 50
    move_time: float = 5.0
    """Seconds a move may take before the automatic move is played (the tournament's)."""
    budget: float = 1.0
    """Moves slower than this are reported as slow, though they were in time."""
    startup_time: float = 10.0
    exit_time: float = 1.0
    """Seconds it has to exit after ``bye`` before it is killed (and warned about)."""
    max_faults: int = 5
    """Faults in one match after which the program forfeits it (the tournament's)."""
    seed: int = 1
    sandbox: Mode = "auto"
    """Contained as a tournament contains it (``--sandbox``), with the default limits."""
    limits: Limits = field(default_factory=Limits)
