"""``bench.reading``: the policy reader rebuilds a player's past views exactly from the
true story of its hidden cards, that story explains every move counter made, and the
bench reports every figure it promises.

What the figures say is measured by the bench, not asserted here.
"""

from __future__ import annotations

import json
import math
import random

import msgspec
from click.testing import CliRunner
from leastscore.bots import CounterBot
from leastscore.bots.view import BotView
from leastscore.game import Declared, Match, Rules
from leastscore.game.cards import VALUE

from bench.reading import (
    BETAS,
    explain,
    guess_held,
    hands_then,
    particles,
    past_view,
    story,
)
from bench.reading import main as reading_main


def _round_one(seed: int, moves: int) -> tuple[Match, list[BotView]]:
    """Four fresh counters ``moves`` moves into round 1 (no declaration yet, so every
    counter still has its first habits), and every view a seat moved from."""
    match = Match(4, Rules(threshold=100), seed=seed)
    match.view_kind = BotView
    match.start()
    bots = [CounterBot() for _ in range(4)]
    seen: list[BotView] = []
    while match.turn < moves:
        view = match.view(match.to_move)
        assert isinstance(view, BotView)
        seen.append(view)
        events = match.apply(match.to_move, bots[match.to_move].choose(view))
        assert not any(isinstance(e, Declared) for e in events), "pick another seed"
    return match, seen


def test_the_true_story_rebuilds_each_past_view_and_explains_every_move() -> None:
    for seed in (1, 2, 3):
        match, seen = _round_one(seed, 14)
        me = match.to_move
        now = match.view(me)
        assert isinstance(now, BotView)
        for seat in range(4):
            if seat == me:
                continue
            mine = [v for v in seen if v.to_move == seat]
            hidden = []
            came: dict[int, int] = {c: -1 for c in range(52) if mine[0].hand_mask >> c & 1}
            hands = [v.hand_mask for v in mine] + [match.hands[seat]]
            for k, view in enumerate(mine):
                played = now.history[view.turn]
                for c in range(52):
                    if hands[k] >> c & 1 and not hands[k + 1] >> c & 1:
                        if c in came:  # shed on this move
                            hidden.append((c, came.pop(c), view.turn))
                    elif hands[k + 1] >> c & 1 and not hands[k] >> c & 1 and played.took is None:
                        came[c] = view.turn  # drawn from the deck on this move
            taken = now.knowledge.known_masks[seat]
            hidden += [(c, t, len(now.history)) for c, t in came.items() if not taken >> c & 1]
            told = story(now, seat)
            assert hands_then(told, hidden) == [v.hand_mask for v in mine]
            for view in mine:
                rebuilt = past_view(now, seat, view.turn, view.hand_mask)
                assert rebuilt == msgspec.structs.replace(view, dead_size=now.dead_size)
            assert explain(CounterBot(), now, seat, told, hidden) == (0.0, 0)


def test_a_story_against_the_moves_explains_them_worse() -> None:
    """Had the player held the highest unseen cards all round, counter would have shed
    them: the story falls short."""
    match, _ = _round_one(1, 14)
    me = match.to_move
    now = match.view(me)
    assert isinstance(now, BotView)
    seat = (me + 1) % 4
    told = story(now, seat)
    unseen = [c for c in range(52) if now.knowledge.unseen_mask >> c & 1]
    high = sorted(unseen, key=lambda c: -VALUE[c])[: now.knowledge.hidden[seat]]
    fit = explain(CounterBot(), now, seat, told, [(c, -1, len(now.history)) for c in high])
    assert fit is None or fit[0] > 0 or fit[1] > 0


def test_particles_hold_as_many_hidden_cards_as_the_hand() -> None:
    match, _ = _round_one(2, 14)
    me = match.to_move
    now = match.view(me)
    assert isinstance(now, BotView)
    table = CounterBot().read_table(now)
    for hand in table.hands:
        seen = particles(CounterBot(), now, hand, table.model, random.Random(0), 30)
        assert seen, "some story explains the moves"
        known = sum(VALUE[c] for c in now.known_cards(hand.seat))
        hidden = now.knowledge.hidden[hand.seat]
        assert all(known + hidden <= p.total <= known + 10 * hidden for p in seen)
        assert all(p.shortfall >= 0 and p.declines >= 0 for p in seen)


def test_a_guess_weighed_back_gives_every_unseen_card_even_odds() -> None:
    """Drawn with a slot's skewed odds and weighed back by ``guess_held``'s odds, each
    card of the pool is held as often as any other."""
    rng = random.Random(5)
    pool = [0, 1, 20, 40, 48]  # values 1, 1, 6, 10, 10
    skew = [0.0] + [1.0 / v for v in range(1, 11)]
    mass = [0.0] * 52
    draws = 20000
    for _ in range(draws):
        held, odds = guess_held(rng, pool, [skew, skew])
        for card in held:
            mass[card] += math.exp(odds)
    for card in pool:
        assert abs(mass[card] / draws - 2 / 5) < 0.05  # unweighed: 0.1 to 0.8


def test_the_bench_reports_both_readers() -> None:
    result = CliRunner().invoke(reading_main, ["--decisions", "5", "--particles", "5"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output.strip().splitlines()[-1])
    assert report["bench"] == "reading"
    n = report["counter"]["decisions"]
    assert n >= 5
    assert sorted(report["policy"]) == sorted(str(b) for b in BETAS)
    for scored in [report["counter"], *report["policy"].values()]:
        assert scored["decisions"] == n
        assert 0 <= scored["brier"] <= 1
    assert report["best_beta"] in BETAS
