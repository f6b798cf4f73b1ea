"""A bot in this process fails as a seat, never as its table: whatever it does wrong
costs its own moves (each a crash, played by the automatic move) and the match goes on."""

from __future__ import annotations

import asyncio

from leastscore.bots import GreedyBot
from leastscore.bots.seat import BotSeat
from leastscore.game import Event, Match, Move, Played
from leastscore.seats.core import Policy
from leastscore.seats.driver import MatchDriver


class WatchesBadly(GreedyBot):
    """Raises on the third play it sees."""

    def reset(self) -> None:
        self.seen = 0

    def on_event(self, event: Event) -> None:
        if type(event) is Played:
            self.seen += 1
            if self.seen == 3:
                raise ValueError("cannot count")


class Exits(GreedyBot):
    def choose(self, view: object) -> Move:
        raise SystemExit(7)


def play(bot: GreedyBot, policy: Policy) -> tuple[Match, MatchDriver]:
    match = Match(["bad", "good"])
    driver = MatchDriver(
        match,
        [BotSeat(bot), BotSeat(GreedyBot())],
        time_limit=lambda seat: 60.0,
        policy=policy,
    )
    asyncio.run(driver.run())
    return match, driver


def test_a_bot_that_raises_while_watching_crashes_each_move_and_the_match_goes_on():
    match, driver = play(WatchesBadly(), Policy(retry_illegal=True))
    assert match.over
    assert driver.faults[0].crashes > 0
    assert driver.faults[1].total == 0
    plays = [e for e in match.log if type(e) is Played and e.seat == 0]
    assert plays[-1].auto  # the automatic move, once it broke


def test_a_bot_that_tries_to_exit_is_a_crash_and_the_process_goes_on():
    match, driver = play(Exits(), Policy(retry_illegal=False, max_faults=2))
    assert match.over
    assert driver.faults[0].crashes == 3  # then it forfeits
    assert 0 in match.resigned
