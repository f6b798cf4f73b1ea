"""A tracker that only ever hears events (stdio) still learns which seat it is."""

from __future__ import annotations

from leastscore.game import Match, Rules
from leastscore.protocol.convert import turn_for
from leastscore.protocol.tracker import Tracker


def test_the_seat_is_the_one_whose_hand_is_dealt_to_it() -> None:
    match = Match(3, Rules(threshold=20), seed=4)
    events = match.start()
    for seat in (0, 1, 2):
        tracker = Tracker()
        for event in events:
            tracker.apply(event.seen_by(seat))
        tracker.apply(turn_for(match.view(seat), 5000, match.to_move))
        assert tracker.you == seat
        assert tracker.my_turn == (seat == match.to_move)
        assert tracker.view() == match.view(seat)
    again = Match(3, Rules(threshold=20), seed=5)  # the same program, another seat
    for event in again.start():
        tracker.apply(event.seen_by(0))
    assert tracker.you == 0
    watcher = Tracker()
    for event in events:
        watcher.apply(event.seen_by(None))
    assert watcher.you is None and not watcher.my_turn


def test_time_left_counts_from_when_the_turn_arrived_on_the_clock_given() -> None:
    from leastscore.protocol.convert import match_state
    from leastscore.protocol.messages import State, TableInfo

    match = Match(2, Rules(threshold=20), seed=4)
    tracker = Tracker()
    for event in match.start():
        tracker.apply(event.seen_by(0), now=100.0)
    tracker.apply(turn_for(match.view(0), 5000, match.to_move), now=100.0)
    assert tracker.time_left(100.0) == 5.0
    assert tracker.time_left(102.5) == 2.5
    assert tracker.time_left(200.0) == 0.0  # never below nothing
    table = TableInfo("t1", "t", 2, [], 0, True, False, {})
    snapshot = State(table=table, you=0, match=match_state(match.view(0), 1500))
    tracker.apply(snapshot, now=300.0)  # a snapshot restarts the count with its time
    assert tracker.time_left(301.0) == 0.5


def test_a_whole_match_followed_with_a_tiny_group_memory_gives_the_match_s_views(
    monkeypatch,
) -> None:
    """The tracker remembers the groups it is told (open cards, discards, legal
    discards); past its bound it starts afresh, and every view stays the match's."""
    from leastscore.bots import GreedyBot
    from leastscore.protocol import tracker as module

    monkeypatch.setattr(module, "_GROUPS_HELD", 3)
    match = Match(2, Rules(threshold=30), seed=8)
    tracker, bot = Tracker(), GreedyBot()
    for event in match.start():
        tracker.apply(event.seen_by(0))
    compared = 0
    while not match.over:
        seat = match.to_move
        tracker.apply(turn_for(match.view(0), 5000, seat))
        if seat == 0:
            assert tracker.view() == match.view(0)
            compared += 1
        events = match.apply(seat, bot.choose(match.view(seat)))
        for event in events:
            tracker.apply(event.seen_by(0))
    assert compared > 20 and len(module._GROUPS) <= 3 and len(module._GROUP_MASKS) <= 3
