"""A quick match in this process, for a bot author's tests: no server, no subprocess.

    result = play_match(MyBot(), ["greedy", "random"], threshold=25)
    assert result.faults.total == 0, result.faults

The bot is driven exactly as a tournament drives in-process entrants: through
a ``BotSeat`` and the ``MatchDriver``, with the tournament's fault policy.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass

from leastscore.game import Match, Rules
from leastscore.seats.core import Faults, Policy
from leastscore.seats.driver import play_to_the_end
from leastscore.seats.names import unique_names
from leastscore.seats.seat import Seat

from . import make_bot
from .base import Bot
from .seat import BotSeat


@dataclass
class LocalResult:
    match: Match
    """The finished match: ``match.log`` is the full record, ``match.standings`` the places."""
    seat: int
    """The seat the bot played."""
    faults: Faults
    """The bot's timeouts, illegal moves and crashes (each got the automatic move)."""

    @property
    def place(self) -> int:
        return next(s.place for s in self.match.standings if s.seat == self.seat)


async def play_match_async(
    bot: Bot,
    opponents: Sequence[str | Bot] = ("greedy",),
    *,
    threshold: int = 50,
    seed: int = 1,
    seat: int = 0,
    move_time: float = 5.0,
    max_faults: int | None = None,
) -> LocalResult:
    """``play_match`` inside a running event loop."""
    others: list[Seat] = [
        BotSeat(make_bot(o, seed + i) if isinstance(o, str) else o) for i, o in enumerate(opponents)
    ]
    seats: list[Seat] = [*others[:seat], BotSeat(bot), *others[seat:]]
    names = unique_names([s.name for s in seats])
    match = Match(names, Rules(threshold=threshold), seed=seed)
    faults = await play_to_the_end(
        match,
        seats,
        time_limit=move_time,
        policy=Policy(retry_illegal=False, max_faults=max_faults),
    )
    return LocalResult(match, seat, faults[seat])


def play_match(
    bot: Bot,
    opponents: Sequence[str | Bot] = ("greedy",),
    *,
    threshold: int = 50,
    seed: int = 1,
    seat: int = 0,
    move_time: float = 5.0,
    max_faults: int | None = None,
) -> LocalResult:
    """Play one match of ``bot`` against built-in levels (or other bots) at ``seat``."""
    return asyncio.run(
        play_match_async(
            bot,
            opponents,
            threshold=threshold,
            seed=seed,
            seat=seat,
            move_time=move_time,
            max_faults=max_faults,
        )
    )
