"""The strong built-ins: legal under every house rule, deterministic, blind to hidden cards.

Strength and speed are measured by ``bench.ladder``, not asserted here.
"""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from click.testing import CliRunner
from leastscore.bots import BUILTIN, Bot, CounterBot, ExpertBot, make_bot
from leastscore.bots.ladder.shedding import best_group, best_shed, shed_with
from leastscore.bots.view import DealMemory
from leastscore.game import Declare, Event, Match, Play, Reshuffled, RoundStarted, Rules
from leastscore.game.groups import hand_info

from bench.ladder import main as ladder_main
from bench.ladder import play_deal, play_match, wilson

from ..game.helpers import rigged_match


def quick_expert(seed: int | None) -> ExpertBot:
    return ExpertBot(seed, samples=6)


def play(match: Match, bots: list[Bot]) -> list[str]:
    """Play to the end, feeding each bot its seat's events; the moves, as text."""
    moves = []
    deals = [DealMemory() for _ in bots]
    events = match.start()
    while True:
        for seat, bot in enumerate(bots):
            for event in events:
                deals[seat].on_event(event.seen_by(seat))
                bot.on_event(event.seen_by(seat))
        if match.over:
            return moves
        seat = match.to_move
        move = bots[seat].choose(deals[seat].view(match.view(seat)))
        moves.append(f"{seat}:{move}")
        events = match.apply(seat, move)  # an illegal move would raise


def test_registered():
    assert isinstance(make_bot("counter", 1), CounterBot)
    assert isinstance(make_bot("expert", 1), ExpertBot)
    assert {"random", "greedy", "counter", "expert"} <= set(BUILTIN)


@pytest.mark.parametrize("seed", range(10))
def test_legal_moves_under_varied_house_rules(seed):
    rng = random.Random(seed)
    seats = rng.randint(2, 8)
    rules = Rules(
        threshold=rng.choice([10, 20, 30]),
        runs_same_suit=rng.random() < 0.5,
        tie_loses=rng.random() < 0.5,
        false_declare_penalty=rng.choice([0, 10, 20, 30]),
        declare_limit=rng.choice([None, None, 3, 7, 12]),
        first_out_ends=rng.random() < 0.3,
        max_turns=rng.choice([20, 80, 500]),
        max_rounds=rng.choice([5, 40]),
    )
    makers = [CounterBot, quick_expert, make_bot_greedy, make_bot_random]
    bots = [makers[(seed + i) % len(makers)](seed * 10 + i) for i in range(seats)]
    match = Match(seats, rules, seed)
    play(match, bots)
    assert match.over


def make_bot_greedy(seed: int) -> Bot:
    return make_bot("greedy", seed)


def make_bot_random(seed: int) -> Bot:
    return make_bot("random", seed)


def test_expert_at_its_default_budget_finishes_a_match():
    match = Match(3, Rules(threshold=15), seed=3)
    play(match, [ExpertBot(1), CounterBot(2), make_bot("greedy")])
    assert match.standings[0].place == 1


def test_a_time_budget_still_gives_legal_moves():
    match = Match(2, Rules(threshold=10), seed=4)
    play(match, [ExpertBot(1, samples=1000, time_budget=0.002), CounterBot(2)])
    assert match.over


@pytest.mark.parametrize("maker", [CounterBot, quick_expert])
def test_deterministic_for_a_seed(maker):
    def once() -> list[str]:
        return play(Match(4, Rules(threshold=20), seed=9), [maker(5), maker(6), maker(7), maker(8)])

    assert once() == once()


def test_reset_forgets_the_last_match():
    bot = quick_expert(3)
    first = play(Match(2, Rules(threshold=15), seed=2), [bot, CounterBot(1)])
    bot.reset()
    again = play(Match(2, Rules(threshold=15), seed=2), [bot, CounterBot(1)])
    assert first == again


# Two deals that only differ in cards seat 1 cannot see: the other hands' kept
# cards and the deck. Seat 1 always takes an open card, the others shed the same
# cards and draw, so every view of seat 1 is the same in both.
SEEN_THE_SAME = [
    (["2C 3C 4C 5C KC", "AD 2D 3H 9S TD", "7H 8H 9H JH KH"], "QD 8C 6S 5H"),
    (["2C 6D 7S 8D QS", "AD 2D 3H 9S TD", "7H AC 4S 9D JS"], "KS KD 3S AH"),
]
PUBLIC_MOVES = [
    (1, Play.of("TD", "4D")),
    (2, Play.of("7H", "deck")),
    (0, Play.of("2C", "deck")),
]


def sampling_expert(seed: int | None) -> ExpertBot:
    """An expert that samples every play and the declaration, so the sampling is checked too."""
    return ExpertBot(seed, play_margin=100.0, declare_floor=0.0)


@pytest.mark.parametrize("maker", [CounterBot, ExpertBot, sampling_expert])
def test_a_move_depends_only_on_what_the_seat_sees(maker):
    moves = []
    for hands, deck in SEEN_THE_SAME:
        m = rigged_match(hands, "4D", deck=deck)
        for seat, move in PUBLIC_MOVES:
            m.apply(seat, move)
        moves.append((m.view(1), maker(11).choose(m.view(1))))
    (view_a, move_a), (view_b, move_b) = moves
    assert view_a == view_b
    assert move_a == move_b


def test_declares_a_sure_win():
    m = rigged_match(["KC KD KH QS QH", "AD AS 2C 2D 3H", "JC JD JH JS TC"], "TD", deck="AH AC")
    m.apply(1, Play.of("3H", "deck"))  # AD AS 2C 2D AH: 7, against five cards each
    m.apply(2, Play.of("TC", "deck"))
    m.apply(0, Play.of("KC", "deck"))
    for bot in (CounterBot(1), ExpertBot(1)):
        assert bot.choose(m.view(1)) == Declare()


def test_best_shed_matches_the_engine():
    rng = random.Random(0)
    for _ in range(3000):
        cards = rng.sample(range(52), rng.randint(1, 5))
        mask = sum(1 << c for c in cards)
        for same_suit in (False, True):
            assert best_shed(mask, same_suit) == max(hand_info(mask, same_suit).group_values)


def test_shed_with_adds_each_card():
    rng = random.Random(1)
    for _ in range(300):
        kept = sum(1 << c for c in rng.sample(range(52), rng.randint(0, 4)))
        for same_suit in (False, True):
            table = shed_with(kept, same_suit)
            for card in range(52):
                if not kept >> card & 1:
                    assert table[card] == best_group(kept | 1 << card, same_suit)[1]


def test_wilson_interval():
    low, high = wilson(50, 100)
    assert low == pytest.approx(0.4038, abs=1e-3) and high == pytest.approx(0.5962, abs=1e-3)
    assert wilson(0, 0) == (0.0, 1.0)
    low, high = wilson(0, 10)
    assert low == 0.0 < high


def test_a_duplicate_deal_seats_the_candidate_everywhere():
    tally = play_deal(("counter", "greedy", 3, Rules(threshold=10), 1))
    assert tally.matches == 3
    assert 0 <= tally.wins <= 3
    assert set(tally.times) == {"counter", "greedy"}


def test_ladder_command_prints_json_last():
    result = CliRunner().invoke(
        ladder_main,
        ["--matches", "2", "--seats", "2", "--candidate", "counter", "--threshold", "10"],
    )
    assert result.exit_code == 0, result.output
    last = json.loads(result.output.strip().splitlines()[-1])
    assert last["bench"] == "ladder"
    (row,) = last["results"]
    assert row["candidate"] == "counter" and row["matches"] == 2
    assert len(row["ci95"]) == 2


def test_the_ladder_deals_each_round_alike_in_every_rotation_even_after_a_reshuffle():
    # Nobody may declare: long rounds, and a reshuffle in round 1 of one rotation.
    rules = Rules(threshold=30, declare_limit=0, max_turns=120, max_rounds=3)
    rotations = [
        asyncio.run(play_match(levels, rules, 0, {}))
        for levels in (["counter", "greedy"], ["greedy", "counter"])
    ]
    reshuffled = [any(isinstance(e, Reshuffled) for e in _round_one(m.log)) for m in rotations]
    assert reshuffled == [False, True]
    decks = [[e.deck for e in m.log if isinstance(e, RoundStarted)] for m in rotations]
    assert len(decks[0]) == len(decks[1]) == 3 and decks[0] == decks[1]


def _round_one(log: list[Event]) -> list[Event]:
    second = [i for i, e in enumerate(log) if isinstance(e, RoundStarted)][1]
    return log[:second]


def test_sampling_declares_at_any_odds_only_once_an_opponent_declared_high():
    """Against players who only declare low (greedy: 5 or less, the total everyone is
    first assumed to declare at) the cautious floor holds; once one of them is seen
    declaring above it (counter does, on its estimates), sampling alone may declare."""
    view = rigged_match(SEEN_THE_SAME[0][0], "4D", deck=SEEN_THE_SAME[0][1]).view(1)
    bot = ExpertBot(3)
    assert bot.floor(view) == bot.declare_floor == 0.9
    bot.habits.saw(2, 5)
    bot.habits.saw(0, 3)
    assert bot.floor(view) == 0.9
    bot.habits.saw(1, 9)  # its own declarations say nothing of the others
    assert bot.floor(view) == 0.9
    bot.habits.saw(2, 8)
    assert bot.floor(view) == bot.bold_floor == 0.0
    timid = ExpertBot(3, declare_floor=0.5, bold_floor=0.7)
    timid.habits.saw(2, 8)
    assert timid.floor(view) == 0.5  # bold never means more cautious
