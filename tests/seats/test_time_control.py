"""A chess clock per match: each seat's time bank, its increment, and a loss on time.

As in test_core.py the clock is plain numbers handed to the core: no sleeps, no
event loop, and every figure below is exact whatever the machine's speed.

The automatic move never declares, so a match played out with it runs to the rules'
last round (half a million moves): the tests that play one out cap its rounds and
their turns (``max_rounds``, ``max_turns``), which is all they need to see.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from leastscore.game import Declare, Match, MatchEnded, Played, Resigned, Rules, replay
from leastscore.seats.core import (
    LOST_ON_TIME,
    Action,
    Ask,
    MatchCore,
    OutOfTime,
    Over,
    Policy,
    Tell,
    TimeControl,
    Verdict,
    Withdraw,
)

from ..support.referee import kinds, only_ask, told

PER_MOVE = 0.5
"""The per-move limit the cores are given: a time control must not apply it."""


def core_of(
    seats: int = 3,
    base: float = 10.0,
    increment: float = 0.5,
    *,
    seed: int = 1,
    threshold: int = 50,
    retry_illegal: bool = False,
    **caps: int,
) -> MatchCore:
    """``caps``: ``max_rounds`` and ``max_turns`` (a round), for a match played out."""
    match = Match(seats, Rules(threshold=threshold, **caps), seed=seed)
    policy = Policy(
        retry_illegal=retry_illegal,
        max_faults=5,
        time_control=TimeControl(base, increment),
    )
    return MatchCore(match, time_limit=lambda seat: PER_MOVE, policy=policy)


def play_out(
    core: MatchCore, think: Callable[[Ask], float], now: float = 0.0
) -> tuple[list[Action], float]:
    """Play the match to its end: each seat answers ``think(ask)`` seconds after it
    is asked, unless its time runs out first (the driver's timer: ``time_is``)."""
    actions = core.start(now)
    everything = list(actions)
    while not isinstance(actions[-1], Over):
        ask = only_ask(actions)
        answer_at = now + think(ask)
        if answer_at >= ask.deadline:
            now = ask.deadline
            actions = core.time_is(now)
        else:
            assert core.time_is(answer_at) == []  # in time: the timer changes nothing
            now = answer_at
            actions = core.moved(ask.seat, core.match.auto_move(ask.seat), now)
        everything += actions
    return everything, now


def test_each_seat_starts_with_the_base_and_the_per_move_limit_is_not_applied():
    core = core_of(3, base=10.0)
    actions = core.start(100.0)
    ask = only_ask(actions)
    assert ask.turn  # a new turn: everyone is told of it, with the bank as its time
    assert core.banks == [10.0, 10.0, 10.0]
    assert (ask.time_limit, ask.deadline) == (10.0, 110.0)
    assert core.time_is(100.0 + 5 * PER_MOVE) == []  # far past the per-move limit: nothing
    verdict = core.moved(ask.seat, core.match.auto_move(ask.seat), 105.0)[0]
    assert verdict == Verdict(ask.seat, None)
    assert core.faults[ask.seat].total == 0


def test_the_bank_loses_the_time_used_and_gains_the_increment():
    core = core_of(2, base=10.0, increment=0.5)
    first = only_ask(core.start(0.0))
    a = first.seat
    b = 1 - a
    actions = core.moved(a, core.match.auto_move(a), 3.0)  # a used 3 s
    assert core.banks is not None and core.banks[a] == 10.0 - 3.0 + 0.5
    second = only_ask(actions)
    assert second.seat == b and (second.time_limit, second.deadline) == (10.0, 13.0)
    actions = core.moved(b, core.match.auto_move(b), 9.0)  # b used 6 s
    assert core.banks[b] == 10.0 - 6.0 + 0.5
    third = only_ask(actions)
    assert third.seat == a  # a's bank did not run while b was asked
    assert (third.time_limit, third.deadline) == (7.5, 9.0 + 7.5)
    assert all(f.total == 0 for f in core.faults)


def test_a_seat_whose_bank_runs_out_loses_on_time_and_the_others_play_on():
    core = core_of(3, base=10.0, increment=0.5)
    ask = only_ask(core.start(0.0))
    assert core.time_is(9.99) == []
    actions = core.time_is(10.0)
    assert kinds(actions) == [Withdraw, Tell, Ask]
    assert actions[0] == Withdraw(ask)
    assert told(actions) == [Resigned(ask.seat, LOST_ON_TIME)]  # no automatic move
    faults = core.faults[ask.seat]
    assert (faults.lost_on_time, faults.timeouts, faults.total) == (1, 0, 1)
    assert core.banks is not None and core.banks[ask.seat] == 0.0
    assert not core.match.active[ask.seat] and not core.over
    nxt = only_ask(actions)
    assert nxt.seat != ask.seat and nxt.deadline == 10.0 + 10.0
    rest, _ = play_out_from(core, actions, 10.0)
    assert isinstance(told(rest)[-1], MatchEnded)
    assert core.match.standings[-1].seat == ask.seat  # ranked as a forfeit: last
    assert ask.seat in core.match.resigned
    assert replay(core.match.log) == core.match.log


def play_out_from(core: MatchCore, actions: list[Action], now: float) -> tuple[list[Action], float]:
    """Go on from ``actions``, each seat answering one second after it is asked."""
    everything: list[Action] = []
    while not isinstance(actions[-1], Over):
        ask = only_ask(actions)
        now += 1.0
        actions = core.moved(ask.seat, core.match.auto_move(ask.seat), now)
        everything += actions
    return everything, now


def test_a_loss_on_time_heads_up_ends_the_match():
    core = core_of(2, base=5.0)
    ask = only_ask(core.start(0.0))
    actions = core.time_is(5.0)
    assert kinds(actions) == [Withdraw, Tell, Over]
    assert core.over and core.match.standings[0].seat == 1 - ask.seat


def test_a_move_after_the_bank_ran_out_is_not_played_and_loses_on_time():
    core = core_of(3, base=10.0)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, core.match.auto_move(ask.seat), 10.5)
    verdict = actions[0]
    assert isinstance(verdict, Verdict) and isinstance(verdict.error, OutOfTime)
    assert verdict.error.code == "not_your_turn"
    assert [type(e) for e in told(actions)] == [Resigned]  # the late move was not played
    assert core.faults[ask.seat].lost_on_time == 1 and core.faults[ask.seat].timeouts == 0


def test_a_move_on_the_last_instant_is_in_time_and_leaves_only_the_increment():
    core = core_of(2, base=4.0, increment=0.25)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, core.match.auto_move(ask.seat), 4.0)
    assert actions[0] == Verdict(ask.seat, None)
    assert core.banks is not None and core.banks[ask.seat] == 0.25
    assert core.faults[ask.seat].total == 0


def test_a_slow_seat_that_stays_in_time_is_never_faulted():
    # Seat 0 spends nine tenths of what its bank holds on every move: 9 s of its
    # 10, then 1.8 s of the 2 s left with the increment, ... always past the per-move
    # limit, and never out of time.
    core = core_of(3, base=10.0, increment=1.0, seed=5, max_rounds=3, max_turns=40)
    actions, _ = play_out(core, lambda ask: 0.9 * ask.time_limit if ask.seat == 0 else 0.1)
    assert core.over and all(f.total == 0 for f in core.faults)
    assert isinstance(told(actions)[-1], MatchEnded) and told(actions)[-1].reason == "max_rounds"
    assert not core.match.resigned
    slow = [a.time_limit for a in actions if isinstance(a, Ask) and a.seat == 0]
    assert len(slow) > 5 and slow[:2] == [10.0, pytest.approx(2.0)]
    assert min(0.9 * limit for limit in slow) > PER_MOVE


def test_a_seat_slower_than_its_increment_runs_out_within_a_few_moves():
    # 1 s of bank, 0.6 s a move, 0.1 s of increment: 0.5 s left for the second move.
    core = core_of(3, base=1.0, increment=0.1, seed=2, max_rounds=3, max_turns=40)
    actions, _ = play_out(core, lambda ask: 0.6 if ask.seat == 0 else 0.01)
    assert core.over  # the other two played the match out
    resigned = [e for e in told(actions) if isinstance(e, Resigned)]
    assert resigned == [Resigned(0, LOST_ON_TIME)]
    assert core.faults[0].lost_on_time == 1 and core.faults[0].timeouts == 0
    assert [f.total for f in core.faults[1:]] == [0, 0]
    moves_by_slow = [
        e for e in told(actions) if isinstance(e, Played) and e.seat == 0 and not e.auto
    ]
    assert len(moves_by_slow) == 1
    assert replay(core.match.log) == core.match.log


def test_the_same_times_give_the_same_match():
    def run() -> tuple[list[object], list[float], list[int]]:
        core = core_of(4, base=3.0, increment=0.2, seed=9, threshold=30)
        play_out(core, lambda ask: (0.1, 0.4, 0.9, 0.25)[ask.seat])
        assert core.banks is not None
        return list(core.match.log), list(core.banks), [f.total for f in core.faults]

    assert run() == run()


def test_an_illegal_move_with_retries_keeps_the_clock_running():
    core = core_of(3, base=10.0, increment=0.5, retry_illegal=True)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, Declare(), 3.0)  # nobody declares on a first turn
    again = only_ask(actions)
    assert (again.time_limit, again.deadline) == (7.0, 10.0)
    core.moved(ask.seat, core.match.auto_move(ask.seat), 4.0)
    assert core.banks is not None and core.banks[ask.seat] == 10.0 - 4.0 + 0.5


def test_an_illegal_move_without_retries_gets_the_automatic_move_and_the_clock_stops():
    core = core_of(3, base=10.0, increment=0.5)
    ask = only_ask(core.start(0.0))
    actions = core.moved(ask.seat, Declare(), 2.0)
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto
    assert core.faults[ask.seat].illegal == 1
    assert core.banks is not None and core.banks[ask.seat] == 8.5


def test_a_crash_in_time_is_a_crash_and_one_after_the_bank_ran_out_a_loss_on_time():
    core = core_of(3, base=10.0, increment=0.5)
    ask = only_ask(core.start(0.0))
    actions = core.failed(ask.seat, 1.0)
    (played,) = told(actions)
    assert isinstance(played, Played) and played.auto
    assert core.faults[ask.seat].crashes == 1 and core.banks is not None
    assert core.banks[ask.seat] == 9.5
    nxt = only_ask(actions)
    actions = core.failed(nxt.seat, nxt.deadline)
    assert told(actions) == [Resigned(nxt.seat, LOST_ON_TIME)]
    assert core.faults[nxt.seat].lost_on_time == 1 and core.faults[nxt.seat].crashes == 0


def test_a_seat_handed_over_keeps_its_bank_and_one_handed_over_too_late_loses_on_time():
    core = core_of(3, base=10.0)
    ask = only_ask(core.start(0.0))
    again = only_ask(core.replaced(ask.seat, 4.0))
    assert (again.time_limit, again.deadline) == (6.0, 10.0)
    late = core_of(3, base=10.0)
    ask = only_ask(late.start(0.0))
    actions = late.replaced(ask.seat, 11.0)
    assert kinds(actions)[:2] == [Withdraw, Tell]
    assert told(actions) == [Resigned(ask.seat, LOST_ON_TIME)]


def test_without_a_time_control_nothing_changes():
    match = Match(3, Rules(threshold=50), seed=1)
    core = MatchCore(match, time_limit=lambda seat: PER_MOVE, policy=Policy(max_faults=5))
    assert core.banks is None
    ask = only_ask(core.start(0.0))
    assert ask.deadline == PER_MOVE
    core.time_is(PER_MOVE)
    assert core.faults[ask.seat].timeouts == 1 and not match.resigned


@pytest.mark.parametrize(
    ("text", "base", "increment"),
    [("60+0.5", 60.0, 0.5), (" 1 + 0 ", 1.0, 0.0), ("300+2", 300.0, 2.0), ("0.5+0", 0.5, 0.0)],
)
def test_a_time_control_is_written_base_plus_increment(text: str, base: float, increment: float):
    clock = TimeControl.parse(text)
    assert (clock.base, clock.increment) == (base, increment)
    assert TimeControl.parse(str(clock)) == clock


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("5+", "the increment is missing"),
        ("+1", "the base is missing"),
        ("60", "write BASE+INC"),
        ("", "write BASE+INC"),
        ("a+1", "the base 'a' is not a number"),
        ("1+x", "the increment 'x' is not a number"),
        ("0+1", "the base must be more than 0"),
        ("-1+0", "the base must be more than 0"),
        ("1+-1", "the increment must be 0 seconds or more"),
        ("inf+0", "the base must be a finite number"),
        ("1+nan", "the increment must be a finite number"),
        ("1+2+3", "the increment '2+3' is not a number"),
    ],
)
def test_a_bad_time_control_says_what_is_wrong(text: str, words: str):
    with pytest.raises(ValueError, match="BASE\\+INC") as caught:
        TimeControl.parse(text)
    assert words in str(caught.value)
    assert "\n" not in str(caught.value)
