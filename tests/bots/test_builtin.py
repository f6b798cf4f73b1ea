import pytest
from leastscore.bots import BUILTIN, ExpertBot, GreedyBot, builtin, make_bot
from leastscore.bots.ladder.greedy import fits
from leastscore.game import Declare, Match, Play, Rules, parse_cards

from ..game.helpers import rigged_match


@pytest.mark.parametrize("level", sorted(BUILTIN))
@pytest.mark.parametrize("seats", [2, 4, 8])
def test_builtins_finish_matches_with_legal_moves(level, seats):
    m = Match(seats, Rules(threshold=50), seed=seats)
    m.start()
    # The expert at its default samples takes 20 s over eight seats; a few samples make
    # the same kinds of moves (its default budget has a test of its own in test_ladder).
    spec = "expert:samples=8" if level == "expert" else level
    players = [make_bot(spec, i) for i in range(seats)]
    while not m.over:
        seat = m.to_move
        m.apply(seat, players[seat].choose(m.view(seat)))  # an illegal move would raise
    assert m.standings[0].place == 1


def test_unknown_level():
    with pytest.raises(ValueError, match="no built-in bot 'godlike'"):
        make_bot("godlike")


def test_a_builtin_takes_options_of_its_class():
    bot = make_bot("expert:samples=8, time_budget=0.05,opponent_need=none", 3)
    assert isinstance(bot, ExpertBot)
    assert (bot.samples, bot.time_budget, bot.opponent_need) == (8, 0.05, None)
    for spec, why in [
        ("expert:depth=3", "expert has no option 'depth'; its options: samples, time_budget"),
        ("expert:samples", "needs a value"),
        ("expert:samples=many", "takes a number"),
        ("expert:samples=0", "samples must be at least 1"),
        ("greedy:samples=8", "greedy has no option 'samples'; its options: none"),
        ("expert:seed=4", "no option 'seed'"),  # the seed is the schedule's, not an option
    ]:
        with pytest.raises(ValueError, match=why):
            builtin(spec)


def test_greedy_sheds_the_most_points_and_keeps_fits():
    m = rigged_match(["2C 3C 4C 5C 6C", "KS KD 3H 4S 9D", "2H 3D 4H 5H 6H"], "5D")
    move = GreedyBot().choose(m.view(1))
    assert move == Play.of("KS KD", "5D")  # 5D makes a run with 3H 4S
    m2 = rigged_match(["2C 3C 4C 5C 6C", "KS QD 3H 8S 9D", "2H 3D 4H 5H 6H"], "JC")
    move = GreedyBot().choose(m2.view(1))
    assert move in (Play.of("KS", None), Play.of("QD", None))  # JC is high: draw
    m3 = rigged_match(["2C 3C 4C 5C 6C", "KS QD 3H 8S 9D", "2H 3D 4H 5H 6H"], "AC")
    assert GreedyBot().choose(m3.view(1)).take == parse_cards("AC")[0]  # low: take it


def test_greedy_declares_at_five():
    m = rigged_match(["2C 3C 4C 5C 6C", "AS AD 2H KS KD", "2D 3D 4D 5D 6D"], "TC", deck="AH")
    m.apply(1, Play.of("KS KD", "deck"))  # AS AD 2H AH = 5
    m.apply(2, Play.of("6D", "deck"))
    m.apply(0, Play.of("6C", "deck"))
    assert GreedyBot().choose(m.view(1)) == Declare()


def test_fits():
    ranks = lambda text: sum(1 << c.rank for c in parse_cards(text))  # noqa: E731
    assert fits(7, ranks("7C 2D"))  # pair
    assert fits(4, ranks("2C 3D"))  # run above
    assert fits(3, ranks("2C 4D"))  # gap filled
    assert fits(1, ranks("QC KD"))  # Ace high
    assert fits(1, ranks("2C 3D"))  # Ace low
    assert fits(13, ranks("AC QD"))
    assert not fits(2, ranks("QC KD"))  # no wrap
    assert not fits(9, ranks("2C 5D"))
