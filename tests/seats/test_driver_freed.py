"""A finished match is freed as soon as nothing holds it, without waiting for the
cyclic garbage collector: a server plays thousands of matches, and each one that
waits for a full collection keeps its match, its log and its seats meanwhile."""

from __future__ import annotations

import asyncio
import gc
import weakref

from leastscore.bots import GreedyBot
from leastscore.bots.seat import BotSeat
from leastscore.game import Match
from leastscore.seats.driver import MatchDriver


def test_a_finished_driver_and_its_match_are_freed_by_reference_counting():
    match = Match(2, seed=1)
    driver = MatchDriver(
        match, [BotSeat(GreedyBot()), BotSeat(GreedyBot())], time_limit=lambda seat: 60.0
    )
    asyncio.run(driver.run())
    assert match.over
    gone = weakref.ref(driver), weakref.ref(match)
    gc.disable()
    try:
        del driver, match
        assert [ref() for ref in gone] == [None, None]
    finally:
        gc.enable()
