"""The match state machine: turns, refusals, declarations, elimination, standings."""

import msgspec
import pytest
from leastscore.game import (
    CannotDeclare,
    Declare,
    Declared,
    IllegalMove,
    Match,
    MatchEnded,
    MatchOver,
    NotYourTurn,
    Play,
    Played,
    Reshuffled,
    Resigned,
    RoundStarted,
    RoundVoid,
    Rules,
    Standing,
    parse_cards,
    replay,
)
from leastscore.game.cards import FULL_DECK, mask_of
from leastscore.game.match import secure_shuffle

from .helpers import rigged_match, rigged_order


def snapshot(match: Match) -> bytes:
    """Everything a refused move must leave untouched."""
    state = {k: v for k, v in vars(match).items() if k not in ("_shuffle", "log")}
    state["log_len"] = len(match.log)
    return msgspec.json.encode(state, enc_hook=repr)


def test_deal_and_first_turn():
    m = rigged_match(["2C 3C 4C 5C 6C", "2D 3D 4D 5D 6D", "2H 3H 4H 5H 6H"], "KS")
    assert m.round == 1 and m.dealer == 0 and m.to_move == 1
    v = m.view(1)
    assert [str(c) for c in v.hand] == ["2D", "3D", "4D", "5D", "6D"]
    assert [str(c) for c in v.open] == ["KS"]
    assert v.hand_sizes == (5, 5, 5) and v.deck_size == 52 - 16
    assert not v.can_declare  # nobody declares in the first go-around
    assert v.my_turn and not m.view(0).my_turn
    start = m.log[1]
    assert isinstance(start, RoundStarted) and start.first == 1
    assert start.hands[1] == ("2D", "3D", "4D", "5D", "6D")


def test_a_play_moves_the_cards():
    m = rigged_match(["2C 3C 4C 5C 6C", "7D 7H 9D JD KD", "2H 3H 4H 5H 6H"], "KS", deck="QH")
    events = m.apply(1, Play.of("7d 7h", "ks"))
    assert events == [Played(1, ("7D", "7H"), "KS", None)]
    assert [str(c) for c in m.view(1).hand] == ["9D", "JD", "KD", "KS"]
    assert [str(c) for c in m.open] == ["7D", "7H"]
    assert m.to_move == 2
    events = m.apply(2, Play.of("6h", "deck"))
    assert events == [Played(2, ("6H",), None, "QH")]
    assert events[0].seen_by(0) == Played(2, ("6H",), None, None)
    assert events[0].seen_by(2) == events[0]
    assert m.dead == [parse_cards("7D")[0], parse_cards("7H")[0]]  # open cards not taken


def accounted(m: Match) -> bool:
    masks = [*m.hands, mask_of(m.deck), mask_of(m.dead), mask_of(m.open)]
    union = 0
    for mask in masks:
        if union & mask:
            return False
        union |= mask
    return union == FULL_DECK and sum(mask.bit_count() for mask in masks) == 52


@pytest.mark.parametrize(
    ("seat", "move", "error", "reason"),
    [
        (0, Play.of("2C", "deck"), NotYourTurn, "turn"),
        (1, Play.of("2C", "deck"), IllegalMove, "2C is not in your hand"),
        (1, Play.of("7D JD", "deck"), IllegalMove, "not a single card, a pair"),
        (1, Play.of("7D 7H 7S", "deck"), IllegalMove, "three of a kind"),
        (1, Play.of("7D", "QH"), IllegalMove, "QH is not an open card (open: KS)"),
        (1, Play((), None), IllegalMove, "at least one card"),
        (1, Play.of("7D 7D", "deck"), IllegalMove, "listed twice"),
        (1, Play(("7D",), None), IllegalMove, "'7D' is not a card"),  # type: ignore[arg-type]
        (1, Play((99,), None), IllegalMove, "99 is not a card"),  # type: ignore[arg-type]
        (1, Declare(), CannotDeclare, "first turn"),
        (1, "declare", IllegalMove, "neither a play nor a declaration"),
    ],
)
def test_illegal_moves_are_refused_and_change_nothing(seat, move, error, reason):
    m = rigged_match(["2C 3C 4C 5C 6C", "7D 7H 7S JD KD", "2H 3H 4H 5H 6H"], "KS", deck="QH")
    before = snapshot(m)
    with pytest.raises(error) as refused:
        m.apply(seat, move)
    assert type(refused.value) is error
    assert reason in refused.value.reason
    assert snapshot(m) == before
    assert accounted(m)


def test_error_codes():
    assert NotYourTurn("x").code == "not_your_turn"
    assert IllegalMove("x").code == "illegal_move"
    assert CannotDeclare("x").code == "cannot_declare"
    assert MatchOver("x").code == "match_over"


def play_round_of_singles(m: Match, turns: int) -> None:
    """Each mover sheds their highest card and draws."""
    for _ in range(turns):
        seat = m.to_move
        m.apply(seat, m.auto_move(seat))


def test_declaring_and_scoring():
    m = rigged_match(
        ["KC QC JC 9C 8C", "AS 2D 3H 4C 7S", "KD QD JD 9D 8D"], "TC", deck="AC AD AH 2C 2H 2S"
    )
    play_round_of_singles(m, 3)  # seats 1, 2, 0 shed and draw aces and twos
    assert m.view(1).can_declare
    before = m.view(1).hand_total
    events = m.apply(1, Declare())
    declared = events[0]
    assert isinstance(declared, Declared) and declared.holds and declared.seat == 1
    assert declared.totals[1] == before
    assert declared.round_scores[1] == 0
    assert declared.round_scores[0] == declared.totals[0] - before
    assert declared.scores == tuple(s or 0 for s in declared.round_scores)
    assert all(h is not None for h in declared.hands)
    assert isinstance(events[1], RoundStarted) and events[1].round == 2 and events[1].dealer == 1


def test_false_declaration():
    m = rigged_match(
        ["AC 2C 3C 4C 6H", "KS KD KH 9S 9D", "AD 2D 3D 5D 6D"], "TC", deck="AH 2H 2S 3S 3H"
    )
    m.apply(1, Play.of("KS KD", "deck"))  # KH 9S 9D AH
    m.apply(2, Play.of("6D", "deck"))  # AD 2D 3D 5D 2H
    m.apply(0, Play.of("6H", "deck"))  # AC 2C 3C 4C 2S = 12
    m.apply(1, Play.of("9S 9D", "deck"))  # KH AH 3S = 14
    m.apply(2, Play.of("5D", "deck"))  # AD 2D 3D 2H 3H = 11
    declared = m.apply(0, Declare())[0]
    assert isinstance(declared, Declared) and not declared.holds
    assert declared.totals == (12, 14, 11)
    assert declared.round_scores == (21, 0, 0)
    assert m.scores == [21, 0, 0]


def test_declare_limit():
    rules = Rules(declare_limit=7)
    m = rigged_match(["AC 2C 3C 4C 6H", "KS KD KH 9S 9D", "AD 2D 3D 5D 6D"], "TC", rules=rules)
    play_round_of_singles(m, 3)
    with pytest.raises(CannotDeclare, match="declaring needs 7 or less"):
        m.apply(1, Declare())
    assert not m.view(1).can_declare


def test_elimination_standings_and_match_end():
    m = rigged_match(
        ["AC 2C 3C 4C AH", "KS KD KH QS QD", "JS JD JH QH QC"],
        "4D",
        deck="2D 2H 2S 3D 3H",
        rules=Rules(threshold=10),
    )
    play_round_of_singles(m, 5)  # seat 0: AC 2C 3C AH 2S = 9; the others keep 35
    events = m.apply(0, Declare())
    declared = events[0]
    assert isinstance(declared, Declared) and declared.holds
    assert declared.totals == (9, 35, 35)
    assert declared.eliminated == (1, 2)
    end = events[-1]
    assert isinstance(end, MatchEnded) and end.reason == "winner"
    # eliminated in the same round with equal scores: they share second place
    assert end.standings == (Standing(0, 1, 0), Standing(1, 2, 26), Standing(2, 2, 26))
    assert m.over and m.view(0).over
    with pytest.raises(MatchOver):
        m.apply(m.to_move, Declare())


def test_standings_order_later_elimination_first():
    m = Match(3, Rules(threshold=10), seed=1)
    m.start()
    m.scores = [0, 30, 12]
    m.active = [True, False, False]
    m.out_round = [None, 2, 1]
    m.round = 2
    # seat 1 went out after seat 2, so ranks above it despite the higher score
    assert m._standings("winner") == [Standing(0, 1, 0), Standing(1, 2, 30), Standing(2, 3, 12)]
    assert m._standings("first_out") == [
        Standing(0, 1, 0),
        Standing(2, 2, 12),
        Standing(1, 3, 30),
    ]


def test_first_out_ends_ranks_everyone_by_score():
    m = rigged_match(
        ["AC 2C 3C 4C AH", "KS KD KH QS QD", "2S 3S 4S 5S 2H"],
        "4D",
        deck="2D AD AS 3D 3H",
        rules=Rules(threshold=10, first_out_ends=True),
    )
    play_round_of_singles(m, 5)
    events = m.apply(0, Declare())
    declared = events[0]
    assert isinstance(declared, Declared) and declared.totals == (8, 35, 11)
    end = events[-1]
    assert isinstance(end, MatchEnded) and end.reason == "first_out"
    assert end.standings == (Standing(0, 1, 0), Standing(2, 2, 3), Standing(1, 3, 27))


def test_void_round_at_max_turns_and_max_rounds():
    rules = Rules(max_turns=4, max_rounds=2)
    m = Match(2, rules, seed=1)
    m.start()
    events = []
    for _ in range(4):
        events += m.apply(m.to_move, m.auto_move(m.to_move))
    assert any(isinstance(e, RoundVoid) for e in events)
    assert m.scores == [0, 0] and m.round == 2 and m.dealer == 1
    for _ in range(4):
        events += m.apply(m.to_move, m.auto_move(m.to_move))
    end = events[-1]
    assert isinstance(end, MatchEnded) and end.reason == "max_rounds"
    assert [st.place for st in end.standings] == [1, 1]  # equal scores share a place


def test_dealer_skips_eliminated_players():
    m = Match(4, Rules(threshold=1), seed=3)
    m.start()
    m.active[1] = False  # as if seat 1 were out
    events: list = []
    m._deal(events)
    assert m.dealer == 2 and m.to_move == 3
    assert events[0].hands[1] is None and m.hands[1] == 0
    m.active[3] = False
    m._deal(events)
    assert m.dealer == 0 and m.to_move == 2


def test_auto_move_sheds_highest_and_draws():
    m = rigged_match(["2C 3C 4C 5C 6C", "7D 8H 9S JD KD", "2H 3H 4H 5H 6H"], "QS")
    assert m.auto_move(1) == Play.of("KD", "deck")
    events = m.apply(1, m.auto_move(1), auto=True)
    assert events[0].auto


@pytest.mark.parametrize(
    ("hand", "shed"),
    [
        ("2C 3D 4H KC KS", "KS"),  # of one rank: the suit last in C D H S
        ("KD KH 5C 6C 7C", "KH"),
        ("TH JD QC 5S 6S", "QC"),  # of cards worth 10: the highest rank, whatever the suit
        ("AS AH 2C 3C 4D", "4D"),  # the Ace is low
        ("QS KC AD 2H 3H", "KC"),  # in a hand that holds Q K A too
    ],
)
def test_the_automatic_move_sheds_the_last_card_of_the_sorted_hand(hand, shed):
    """PROTOCOL.md: the highest rank (Ace low), then the suit last in C D H S: always
    the last card of ``hand`` as the wire sorts it."""
    m = rigged_match(["9C 9D 9H 9S 8C", hand, "8D 8H 8S 7D 7H"], "6D")
    assert m.auto_move(1) == Play.of(shed, "deck")
    assert str(m.view(1).hand[-1]) == shed


def test_with_nothing_to_draw_the_automatic_move_takes_the_first_open_card():
    m = rigged_match(["2C 3C 4C 5C 6C", "7D 7H 9S JD KD", "2H 3H 4H 5H 6H"], "QS")
    m.apply(1, Play.of("7h 7d", "deck"))  # the open cards: 7D 7H
    m.hands[0] |= mask_of(m.deck + m.dead)  # park the rest: nothing can be drawn
    m.deck, m.dead = [], []
    assert not m.view(2).can_draw
    assert [str(c) for c in m.view(2).open] == ["7D", "7H"]
    assert m.auto_move(2) == Play.of("6H", "7D")


def test_reshuffle_and_the_undrawable_deck():
    m = Match(2, seed=5)
    m.start()
    # play until the deck is empty, then one more draw reshuffles the dead pile
    saw_reshuffle = False
    while not m.over and m.round == 1 and not saw_reshuffle:
        seat = m.to_move
        events = m.apply(seat, m.auto_move(seat))
        saw_reshuffle = any(isinstance(e, Reshuffled) for e in events)
        assert accounted(m)
    assert saw_reshuffle
    # a rigged state where nothing can be drawn: the deck and dead pile are empty
    m2 = rigged_match(["2C 3C 4C 5C 6C", "7D 8H 9S JD KD"], "QS")
    m2.dead = []
    rest = m2.deck
    m2.deck = []
    m2.hands[0] |= mask_of(rest)  # park the rest somewhere harmless for the test
    with pytest.raises(IllegalMove, match="take an open card"):
        m2.apply(1, Play.of("KD", "deck"))
    assert not m2.view(1).can_draw
    assert m2.auto_move(1) == Play.of("KD", "QS")
    assert all(p.take is not None for p in m2.view(1).legal_plays())


def test_views_of_a_spectator_hold_no_hand():
    m = Match(3, seed=2)
    m.start()
    v = m.view(None)
    assert v.hand == () and v.hand_total == 0 and not v.can_declare and v.legal_plays() == []


def test_seat_count_and_rules_checked():
    with pytest.raises(ValueError, match="2 to 8 seats"):
        Match(1)
    with pytest.raises(ValueError, match="2 to 8 seats"):
        Match(9)
    with pytest.raises(TypeError):
        Match(2, {"threshold": 5})  # type: ignore[arg-type]
    m = Match(8, seed=1)
    m.start()
    assert m.view(0).deck_size == 52 - 41


def test_rigged_order_helper_deals_as_promised():
    order = rigged_order(["2C 3C 4C 5C 6C", "7D 8H 9S JD KD"], "QS", deck="AS")
    assert order[10] == "QS" and order[11] == "AS" and len(set(order)) == 52


def test_resign_mid_round_and_standings():
    m = rigged_match(["2C 3C 4C 5C 6C", "7D 8H 9S JD KD", "2H 3H 4H 5H 6H", "AS AD 2S 3S 4S"], "QS")
    assert m.to_move == 1
    before_dead = len(m.dead)
    events = m.resign(1, "left the table")
    assert events == [Resigned(1, "left the table")]
    assert m.to_move == 2 and not m.active[1] and m.hands[1] == 0
    assert len(m.dead) == before_dead + 5 and accounted(m)
    with pytest.raises(IllegalMove, match="not in the match"):
        m.resign(1)
    with pytest.raises(NotYourTurn):
        m.apply(1, Play.of("7D", "deck"))
    m.resign(3, "forfeit")  # not their turn: play goes on with seat 2
    assert m.to_move == 2
    events = m.resign(0, "forfeit")
    end = events[-1]
    assert isinstance(end, MatchEnded) and end.reason == "winner"
    # the survivor wins; forfeits rank below, the latest forfeit highest
    assert [s.seat for s in end.standings] == [2, 0, 3, 1]
    assert replay(m.log) == m.log


def test_secure_shuffle_keeps_the_cards_and_reaches_every_order():
    seen = set()
    for _ in range(600):
        cards = [0, 1, 2, 3]
        secure_shuffle(cards)
        assert sorted(cards) == [0, 1, 2, 3]
        seen.add(tuple(cards))
    assert len(seen) == 24  # missing one of 24 orders in 600 fair draws: about 1e-9
    for n in (0, 1, 52):
        cards = list(range(n))
        secure_shuffle(cards)
        assert sorted(cards) == list(range(n))
