"""Events in words: what the terminal client and replays print."""

from __future__ import annotations

from leastscore.game import Declared, Played, Resigned, Rules
from leastscore.game.events import MatchStarted, RoundStarted
from leastscore.words.narrate import describe

NAMES = ("Ann", "Bea", "Cy")


def test_moves_read_naturally_for_others_and_for_you() -> None:
    took = Played(1, ("7H", "7D"), "8S")
    assert describe(took, NAMES) == "Bea discarded 7H 7D and took 8S"
    drew = Played(0, ("KS",), None, drawn="2C")
    assert describe(drew, NAMES, me=0) == "You discarded KS and drew 2C"
    assert (
        describe(Played(0, ("KS",), None), NAMES, me=2) == "Ann discarded KS and drew from the deck"
    )
    late = Played(2, ("QH",), None, auto=True)
    assert describe(late, NAMES).endswith("(out of time)")


def test_declarations_say_who_was_lowest_and_who_is_out() -> None:
    event = Declared(
        seat=0,
        holds=True,
        hands=(("AS",), ("KS", "QS"), ("9D",)),
        totals=(1, 20, 9),
        round_scores=(0, 19, 8),
        scores=(0, 30, 8),
        eliminated=(1,),
    )
    assert describe(event, NAMES) == "Ann declared at 1 and was lowest; out: Bea"
    assert describe(event, NAMES, me=0) == "You declared at 1 and were lowest; out: Bea"
    false = Declared(2, False, event.hands, event.totals, (0, 0, 28), (0, 11, 28), ())
    assert describe(false, NAMES, me=2) == "You declared at 9 but were not lowest"


def test_other_events() -> None:
    assert describe(Resigned(1, "Bea left"), NAMES) == "Bea left the match"  # said once
    assert describe(Resigned(1, "forfeit after 3 faults"), NAMES, me=1) == (
        "You left the match (forfeit after 3 faults)"
    )
    start = MatchStarted(NAMES, Rules(threshold=50))
    assert describe(start, NAMES) == "Match of Ann, Bea, Cy to 50 points"
    deal = RoundStarted(2, 1, 2, (None, None, None), (5, 5, 5), ("4C",), 36)
    assert describe(deal, NAMES, me=2) == "Round 2: Bea dealt, you to start; open card 4C"


def test_the_moves_in_the_readers_language() -> None:
    from leastscore.lang import speaking

    took = Played(1, ("7H", "7D"), "8S")
    with speaking("fr"):
        assert describe(took, NAMES) == "Bea a défaussé 7H 7D et pris 8S"
        assert describe(took, NAMES, me=1) == "Vous avez défaussé 7H 7D et pris 8S"
    with speaking("nl"):
        deal = RoundStarted(2, 1, 2, (None, None, None), (5, 5, 5), ("4C",), 36)
        assert describe(deal, NAMES, me=2) == "Ronde 2: Bea deelt, jij begint; open kaart 4C"
    with speaking("zu"):
        assert describe(Resigned(1, "resigned"), NAMES) == "Bea uwushiyile umdlalo (uyekile)"
    assert describe(took, NAMES) == "Bea discarded 7H 7D and took 8S"
