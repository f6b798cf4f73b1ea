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
