"""The match core decides every rule about time and faults; a fake clock drives it.

Times are plain numbers: the core is handed the time with every input and never
reads a clock, so no test here sleeps, opens a socket or starts an event loop.
"""

from __future__ import annotations

import math

import pytest
from leastscore.game import (
    CannotDeclare,
    Declare,
    Match,
    MatchEnded,
    MatchStarted,
    Move,
    Play,
    Played,
    Resigned,
    RoundStarted,
    Rules,
    replay,
)
from leastscore.seats.core import (
    Ask,
    MatchCore,
    Over,
    Phase,
    Policy,
    Tell,
    TimeControl,
    TooLate,
    Verdict,
    Withdraw,
)

from ..support.referee import kinds, only_ask, told

LIMIT = 10.0


def core_of(seats: int = 3, *, seed: int = 1, threshold: int = 50, **policy: object) -> MatchCore:
    match = Match(seats, Rules(threshold=threshold), seed=seed)
    return MatchCore(match, time_limit=lambda seat: LIMIT, policy=Policy(**policy))  # type: ignore[arg-type]


def legal(core: MatchCore, seat: int) -> Move:
    """A legal move (the automatic move is one)."""
    return core.match.auto_move(seat)


def declaring(core: MatchCore, seat: int) -> Move:
    """A legal move that declares whenever it may: the automatic move never declares, so
    a match of those runs to the rules' last round (half a million moves)."""
    return Declare() if core.match.view(seat).can_declare else legal(core, seat)


def illegal(core: MatchCore, seat: int) -> Move:
    card = core.match.view(seat).hand[0]
    return Play((card, card), None)


def test_start_deals_tells_each_seat_its_own_copy_and_asks_the_first_mover():
    core = core_of(3)
    actions = core.start(100.0)
    assert kinds(actions) == [Tell, Ask]
    tell = actions[0]
    assert isinstance(tell, Tell)
    assert [type(e) for e in tell.events] == [MatchStarted, RoundStarted]
    for seat in range(3):
        start, deal = tell.for_seat(seat)
        assert isinstance(deal, RoundStarted) and isinstance(start, MatchStarted)
        assert [h is not None for h in deal.hands] == [s == seat for s in range(3)]
        assert deal.deck is None and start.seed is None
    watcher = tell.for_seat(-1)[1]  # a spectator's copy
    assert isinstance(watcher, RoundStarted) and all(h is None for h in watcher.hands)
    ask = only_ask(actions)
    assert ask.seat == core.match.to_move and ask is core.asking
    assert (ask.time_limit, ask.deadline) == (LIMIT, 110.0)
    assert core.start(101.0) == []  # once only


def test_a_legal_move_in_time_is_accepted_and_the_next_seat_asked():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, legal(core, ask.seat), 4.0)
    assert kinds(actions) == [Verdict, Tell, Ask]
    assert actions[0] == Verdict(ask.seat, None)
    (played,) = told(actions)
    assert isinstance(played, Played) and not played.auto
    nxt = only_ask(actions)
    assert nxt.seat == core.match.to_move != ask.seat
    assert nxt.deadline == 14.0  # its own time, from when it was asked
    assert core.faults[ask.seat].total == 0


def test_a_timeout_gets_the_automatic_move_and_is_counted():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    assert core.time_is(9.99) == []  # time left: nothing happens
    actions = core.time_is(LIMIT)
    assert kinds(actions) == [Withdraw, Tell, Ask]
    assert actions[0] == Withdraw(ask)
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto and played.seat == ask.seat
    assert core.faults[ask.seat].timeouts == 1
    assert only_ask(actions).deadline == 2 * LIMIT


def test_a_move_that_comes_after_its_deadline_counts_as_a_timeout():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    move = Play((core.match.view(ask.seat).hand[0],), None)  # legal, but too late
    actions = core.moved(ask.seat, move, LIMIT + 0.5)
    verdict = actions[0]
    assert isinstance(verdict, Verdict) and isinstance(verdict.error, TooLate)
    assert verdict.error.code == "not_your_turn"
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto
    assert core.faults[ask.seat].timeouts == 1 and core.faults[ask.seat].illegal == 0


def test_an_illegal_move_is_refused_and_retried_until_the_deadline():
    core = core_of(3, retry_illegal=True)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, Declare(), 3.0)  # nobody declares on a first turn
    assert kinds(actions) == [Verdict, Ask]
    verdict, again = actions
    assert isinstance(verdict, Verdict) and isinstance(verdict.error, CannotDeclare)
    assert isinstance(again, Ask) and again.seat == ask.seat and again is not ask
    assert ask.turn and not again.turn  # the same turn: nobody is told of it again
    assert (again.deadline, again.time_limit) == (LIMIT, LIMIT - 3.0)
    assert core.faults[ask.seat].illegal == 1 and told(actions) == []
    accepted = core.moved(ask.seat, legal(core, ask.seat), 4.0)
    assert accepted[0] == Verdict(ask.seat, None)
    (played,) = told(accepted)
    assert isinstance(played, Played) and not played.auto


def test_an_illegal_move_with_no_time_left_gets_the_automatic_move():
    core = core_of(3, retry_illegal=True)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, illegal(core, ask.seat), LIMIT)
    assert isinstance(actions[0], Verdict) and actions[0].error is not None
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto
    assert core.faults[ask.seat].illegal == 1 and core.faults[ask.seat].timeouts == 1


def test_without_retries_an_illegal_move_gets_the_automatic_move_at_once():
    core = core_of(3, retry_illegal=False)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, illegal(core, ask.seat), 1.0)
    assert kinds(actions) == [Verdict, Tell, Ask]
    assert isinstance(actions[0], Verdict) and actions[0].error is not None
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto and played.seat == ask.seat
    assert only_ask(actions).seat != ask.seat
    assert core.faults[ask.seat].illegal == 1


def test_a_crash_gets_the_automatic_move_and_is_counted():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    actions = core.failed(ask.seat, 2.0)
    assert kinds(actions) == [Tell, Ask]
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto
    assert core.faults[ask.seat].crashes == 1


def test_answers_from_a_seat_that_is_not_asked_change_nothing():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    other = (ask.seat + 1) % 3
    assert core.moved(other, legal(core, other), 1.0) == []
    assert core.failed(other, 1.0) == []
    assert core.asking is ask and all(f.total == 0 for f in core.faults)


def test_more_than_max_faults_forfeits_the_match_and_play_goes_on():
    core = core_of(3, threshold=100, retry_illegal=False, max_faults=2)
    faulty = None
    now = 0.0
    actions = core.start(now)
    forfeit: list[Resigned] = []
    while not forfeit:
        ask = only_ask(actions)
        faulty = ask.seat if faulty is None else faulty
        now += 1.0
        if ask.seat == faulty:
            actions = core.moved(ask.seat, illegal(core, ask.seat), now)
        else:
            actions = core.moved(ask.seat, legal(core, ask.seat), now)
        forfeit = [e for e in told(actions) if isinstance(e, Resigned)]
    assert core.faults[faulty].illegal == 3
    assert forfeit[0].seat == faulty and "forfeit after 3 faults" in forfeit[0].reason
    assert not core.match.active[faulty] and not core.over
    assert only_ask(actions).seat != faulty


def test_a_seat_replaced_mid_turn_is_asked_again_with_the_time_it_had_left():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    other = (ask.seat + 1) % 3
    assert core.replaced(other, 1.0) == []  # not asked: nothing to do
    actions = core.replaced(ask.seat, 4.0)
    assert kinds(actions) == [Withdraw, Ask]
    again = actions[1]
    assert isinstance(again, Ask) and again.seat == ask.seat
    assert (again.deadline, again.time_limit) == (LIMIT, LIMIT - 4.0)
    assert core.moved(ask.seat, legal(core, ask.seat), 5.0)[0] == Verdict(ask.seat, None)
    assert core.faults[ask.seat].total == 0


def test_a_seat_replaced_after_its_deadline_gets_the_automatic_move():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    actions = core.replaced(ask.seat, LIMIT + 1)
    assert kinds(actions) == [Withdraw, Tell, Ask]
    assert core.faults[ask.seat].timeouts == 1


def test_the_mover_resigns_and_the_next_seat_is_asked():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    actions = core.resigned(ask.seat, "left", 3.0)
    assert kinds(actions) == [Withdraw, Tell, Ask]
    (resigned,) = told(actions)
    assert resigned == Resigned(ask.seat, "left")
    nxt = only_ask(actions)
    assert nxt.seat != ask.seat and nxt.deadline == 3.0 + LIMIT
    assert core.resigned(ask.seat, "again", 4.0) == []  # already out


def test_another_seat_resigns_and_the_mover_keeps_its_turn_and_time():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    other = (ask.seat + 1) % 3
    actions = core.resigned(other, "left", 3.0)
    assert kinds(actions) == [Tell]
    assert told(actions) == [Resigned(other, "left")]
    assert core.asking is ask


def test_once_the_match_is_over_nothing_more_is_asked():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    first, second = [s for s in range(3) if s != ask.seat]
    core.resigned(first, "left", 1.0)
    actions = core.resigned(second, "left", 2.0)
    assert kinds(actions) == [Withdraw, Tell, Over]
    assert actions[0] == Withdraw(ask)
    assert isinstance(told(actions)[-1], MatchEnded)
    assert core.over and core.phase is Phase.OVER and core.asking is None
    assert core.match.standings[0].seat == ask.seat
    # the mover's move, its timer, a crash, a replacement, a resignation: all too late
    assert core.moved(ask.seat, legal(core, ask.seat), 3.0) == []
    assert core.time_is(math.inf) == []
    assert core.failed(ask.seat, 3.0) == []
    assert core.replaced(ask.seat, 3.0) == []
    assert core.resigned(ask.seat, "left", 3.0) == []


def test_a_resignation_before_the_deal_is_taken_right_after_it():
    core = core_of(2)
    assert core.resigned(0, "left", 0.0) == []
    assert core.resigned(0, "left twice", 0.0) == []
    actions = core.start(1.0)
    assert kinds(actions) == [Tell, Tell, Over]
    events = told(actions)
    assert isinstance(events[0], MatchStarted) and events[2] == Resigned(0, "left")
    assert core.match.standings[0].seat == 1
    three = core_of(3)
    three.resigned(2, "not there", 0.0)
    actions = three.start(0.0)
    assert kinds(actions) == [Tell, Tell, Ask]
    assert only_ask(actions).seat != 2


def test_each_seat_has_its_own_time_limit():
    match = Match(2, Rules(threshold=50), seed=1)
    core = MatchCore(match, time_limit=lambda seat: (30.0, 5.0)[seat])
    ask = only_ask(core.start(0.0))
    assert ask.deadline == (30.0, 5.0)[ask.seat]


def test_a_time_limit_given_as_a_number_is_every_seat_s():
    match = Match(2, Rules(threshold=50), seed=1)
    core = MatchCore(match, time_limit=7)
    ask = only_ask(core.start(1.0))
    assert (ask.time_limit, ask.deadline) == (7.0, 8.0)
    nxt = only_ask(core.moved(ask.seat, legal(core, ask.seat), 2.0))
    assert nxt.seat != ask.seat and (nxt.time_limit, nxt.deadline) == (7.0, 9.0)


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_a_whole_match_ends_with_over_and_replays(seats: int):
    core = core_of(seats, seed=seats, threshold=30)
    actions = core.start(0.0)
    now = 0.0
    while not isinstance(actions[-1], Over):
        ask = only_ask(actions)
        now += 0.5
        actions = core.moved(ask.seat, declaring(core, ask.seat), now)
    assert core.match.over and core.asking is None
    assert replay(core.match.log) == core.match.log


def test_a_paused_match_asks_nothing_and_its_mover_keeps_the_time_it_had_left():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    actions = core.pause(4.0)
    assert actions == [Withdraw(ask)] and core.paused and core.asking is None
    assert core.pause(5.0) == []  # once
    played = len(core.match.log)
    # while paused: the clock does not run, and no answer counts
    assert core.time_is(1000.0) == []
    assert core.moved(ask.seat, legal(core, ask.seat), 1000.0) == []
    assert core.failed(ask.seat, 1000.0) == []
    assert core.replaced(ask.seat, 1000.0) == []
    assert core.faults[ask.seat].total == 0 and len(core.match.log) == played
    again = only_ask(core.resume(2000.0))
    assert (again.seat, again.time_limit, again.deadline) == (ask.seat, LIMIT - 4.0, 2006.0)
    assert not again.turn  # the turn was told before the pause: it is not news
    assert core.resume(2001.0) == []  # once
    assert core.moved(ask.seat, legal(core, ask.seat), 2005.0)[0] == Verdict(ask.seat, None)
    assert core.faults[ask.seat].total == 0


def test_a_turn_that_comes_up_while_paused_is_asked_whole_on_resume():
    core = core_of(3)
    ask = only_ask(core.start(0.0))
    core.pause(2.0)
    actions = core.resigned(ask.seat, "left", 3.0)  # a resignation is taken while paused...
    assert kinds(actions) == [Tell] and core.asking is None  # ...but nobody is asked
    resumed = only_ask(core.resume(50.0))
    assert resumed.seat == core.match.to_move != ask.seat
    assert resumed.turn and (resumed.time_limit, resumed.deadline) == (LIMIT, 50.0 + LIMIT)


def test_a_match_paused_before_its_deal_asks_its_first_mover_on_resume():
    core = core_of(2)
    assert core.pause(0.0) == []
    actions = core.start(1.0)
    assert kinds(actions) == [Tell] and core.asking is None  # dealt, nobody asked
    first = only_ask(core.resume(9.0))
    assert first.turn and first.deadline == 9.0 + LIMIT


def test_a_paused_match_that_ends_stays_over():
    core = core_of(2)
    ask = only_ask(core.start(0.0))
    core.pause(1.0)
    other = 1 - ask.seat
    assert kinds(core.resigned(other, "left", 2.0)) == [Tell, Over]
    assert core.resume(3.0) == [] and core.asking is None and core.over
    assert core.pause(4.0) == []


def test_a_paused_time_bank_does_not_run():
    match = Match(2, Rules(threshold=50), seed=1)
    core = MatchCore(match, time_limit=1.0, policy=Policy(time_control=TimeControl(30.0, 0.0)))
    ask = only_ask(core.start(0.0))
    core.pause(10.0)
    again = only_ask(core.resume(500.0))
    assert again.deadline == 520.0
    core.moved(ask.seat, legal(core, ask.seat), 505.0)
    assert core.banks is not None and core.banks[ask.seat] == 15.0
