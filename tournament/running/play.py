"""One fixture played through the match driver and summarized as a result.

The same code runs in the runner's own process and in its workers. The
match core applies the fault policy (``Policy(retry_illegal=False)``): a timeout,
an illegal move or a crash gets the automatic move and is counted; more than
``max_faults`` of them in one match and the seat forfeits it. With a time
control a seat whose bank runs out loses on time: it forfeits at once.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time

from leastscore.bots.view import BotView
from leastscore.game import Match
from leastscore.seats.core import Policy
from leastscore.seats.driver import MatchDriver, play_to_the_end

from ..pure.config import TournamentConfig
from ..pure.deals import DuplicateDeck
from ..pure.results import MatchResult, aborted, summarize
from ..pure.schedule import Fixture
from .lineup import Lineup
from .store import Store


async def play(
    fixture: Fixture, config: TournamentConfig, lineup: Lineup, store: Store | None = None
) -> MatchResult:
    started = time.perf_counter()
    match = Match(fixture.seats, config.rules, shuffler=DuplicateDeck(fixture.deal_seed))
    match.view_kind = BotView  # what an in-process bot chooses from, built once per move
    seating = await lineup.seat(fixture, match)
    move_time = config.move_time
    policy = Policy(retry_illegal=False, max_faults=config.max_faults, time_control=config.clock)

    def ready(driver: MatchDriver) -> None:
        for absent in seating.absent:
            absent.driver = driver

    try:
        played = await play_to_the_end(
            match, seating.seats, time_limit=float(move_time), policy=policy, ready=ready
        )
    finally:
        problems = lineup.finish(seating, match)
    faults = [
        dataclasses.replace(
            f,
            crashes=f.crashes + before,
            failures={k: f.failures.get(k, 0) + kinds.get(k, 0) for k in {*f.failures, *kinds}},
        )
        for f, before, kinds in zip(played, seating.crashes, seating.failures, strict=True)
    ]
    if store is not None:
        store.write_log(fixture.index, match.log)
    return summarize(
        fixture.index,
        match,
        faults,
        seconds=time.perf_counter() - started,
        problems=problems,
        usage=seating.usage,
    )


async def play_safely(
    fixture: Fixture, config: TournamentConfig, lineup: Lineup, store: Store | None = None
) -> MatchResult:
    """``play``, with any failure of the runner itself recorded as an aborted match."""
    started = time.perf_counter()
    try:
        return await play(fixture, config, lineup, store)
    except asyncio.CancelledError:
        raise
    except Exception as e:
        why = f"the runner failed: {type(e).__name__}: {e}"
        return aborted(fixture.index, why, time.perf_counter() - started)
