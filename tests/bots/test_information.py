"""``bench.information``: an engine match rebuilt from a view and a guess is the match,
and the bench reports every figure it promises.

What the figures say is measured by the bench, not asserted here.
"""

from __future__ import annotations

import json
import random

from click.testing import CliRunner
from leastscore.bots import CounterBot
from leastscore.bots.view import BotView
from leastscore.game import Declared, Match, Play, Reshuffled, Rules

from bench.information import Searcher, guessed_match
from bench.information import main as information_main


def _midround(seed: int) -> Match:
    """A match of four counters some moves into a later round."""
    match = Match(4, Rules(threshold=100), seed=seed)
    match.view_kind = BotView
    match.start()
    bot = CounterBot()
    moves = 0
    while match.round < 2 or moves < 6:
        view = match.view(match.to_move)
        assert isinstance(view, BotView)
        move = bot.choose(view)
        if match.round >= 2 and not isinstance(move, Play):
            move = view.legal_plays()[0]  # keep the round going to the point wanted
        events = match.apply(match.to_move, move)
        moves = 0 if any(isinstance(e, Declared) for e in events) else moves + 1
    return match


def test_a_match_rebuilt_from_a_view_and_the_true_cards_is_the_match() -> None:
    for seed in range(5):
        match = _midround(seed)
        me = match.to_move
        view = match.view(me)
        assert isinstance(view, BotView)
        truth = match.round_state()
        rebuilt = guessed_match(view, truth, random.Random(0))
        for seat in range(4):
            assert rebuilt.view(seat) == match.view(seat)
        bot = CounterBot()
        for _ in range(8):  # and plays on the same to the round's end (the next deal and
            seen = match.view(match.to_move)  # a reshuffle are the guess's own)
            assert isinstance(seen, BotView)
            move = bot.choose(seen)
            events = match.apply(match.to_move, move)
            again = rebuilt.apply(rebuilt.to_move, move)
            if any(isinstance(e, Reshuffled) for e in events):
                break
            assert again[0] == events[0]
            if isinstance(events[0], Declared):
                break


def test_the_fair_searcher_never_reads_the_match() -> None:
    """Given a match whose cards are all wrong, the fair form plays as it would
    without one: it guesses from its view alone."""
    match = _midround(11)
    view = match.view(match.to_move)
    assert isinstance(view, BotView)
    blind = Searcher(3, samples=3)
    lied_to = Searcher(3, samples=3)
    lied_to.match = Match(4, Rules(threshold=100), seed=99)
    lied_to.match.start()
    assert blind.choose(view) == lied_to.choose(view)


def test_the_bench_reports_calibration_and_every_ceiling() -> None:
    args = ["--deals", "1", "--matches", "2", "--samples", "2", "--seed", "5", "--threshold", "25"]
    result = CliRunner().invoke(information_main, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    calibration = report["calibration"]
    assert calibration["decisions"] == sum(b["n"] for b in calibration["by_tenth"]) > 0
    assert 0 <= calibration["brier"] <= 1
    assert [c["sight"] for c in report["ceilings"]] == ["fair", "hands", "everything"]
    for c in report["ceilings"]:
        assert c["matches"] == 4 and 0 <= c["win_rate"] <= 1  # one deal, every seat
