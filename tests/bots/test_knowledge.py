"""Card knowledge is exact where it can be, and never claims what a seat cannot know."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from leastscore.bots import GreedyBot, RandomBot
from leastscore.bots.knowledge import knowledge
from leastscore.bots.view import BotView, DealMemory
from leastscore.game import Match, Play, RoundStarted, Rules, View, parse_cards
from leastscore.game.cards import CARDS, Card

from ..game.helpers import rigged_match


def cards(text: str) -> set[Card]:
    return set(parse_cards(text))


def mask_cards(mask: int) -> set[Card]:
    return {CARDS[i] for i in range(52) if mask >> i & 1}


def check_against_truth(match: Match, seat: int, turned_up: Card | None, exact: bool) -> None:
    """Every fact is true; with the turned-up card and no forfeits, nothing is missed."""
    view = match.view(seat)
    k = knowledge(view, turned_up)
    hands = [mask_cards(h) for h in match.hands]
    assert set(k.known[seat]) == hands[seat]
    for s, known in enumerate(k.known):
        assert set(known) <= hands[s], (s, known)
        expected_hidden = 0 if s == seat else view.hand_sizes[s] - len(known)
        assert k.hidden[s] == expected_hidden
    assert set(k.dead) <= set(match.dead)
    unseen = set(k.unseen)
    assert not unseen & hands[seat] and not unseen & set(match.open)
    others = [hands[s] - set(k.known[s]) for s in range(len(hands)) if s != seat]
    others_hidden = set().union(*others)
    assert set(match.deck) | others_hidden <= unseen
    if exact:
        assert set(k.dead) == set(match.dead)
        assert unseen == set(match.deck) | others_hidden
    assert len(unseen) + len(k.dead) + sum(map(len, k.known)) + len(view.open) == 52


def walk(match: Match, players: list, forfeit_at: int | None = None) -> int:
    """Play ``match`` out, checking every seat's knowledge before every move."""
    memory = [DealMemory() for _ in players]
    for event in match.log:
        for m in memory:
            m.on_event(event)
    checks = 0
    forfeited = False
    while not match.over:
        if forfeit_at is not None and match.turn == forfeit_at and not forfeited:
            victim = next(s for s in range(len(players)) if s != match.to_move and match.active[s])
            events = match.resign(victim, "test")
            forfeited = True
        else:
            for seat in range(len(players)):
                if match.active[seat]:
                    first = memory[seat].card if memory[seat].round == match.round else None
                    check_against_truth(match, seat, first, exact=not forfeited)
                    checks += 1
            seat = match.to_move
            view = memory[seat].view(match.view(seat))
            events = match.apply(seat, players[seat].choose(view))
        for event in events:
            if isinstance(event, RoundStarted):
                forfeited = False
            for m in memory:
                m.on_event(event)
    return checks


@pytest.mark.parametrize("seats", [2, 4, 7])
def test_knowledge_holds_at_every_turn_of_whole_matches(seats: int) -> None:
    match = Match(seats, Rules(threshold=100), seed=seats)
    match.start()
    players = [GreedyBot() if s % 2 else RandomBot(s) for s in range(seats)]
    assert walk(match, players) > 10 * seats


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 8))
def test_knowledge_holds_for_random_players(seed: int, seats: int) -> None:
    match = Match(seats, Rules(threshold=30), seed=seed)
    match.start()
    walk(match, [RandomBot(seed + s) for s in range(seats)])


def test_long_rounds_reshuffle_and_stay_exact() -> None:
    # Random players with a high threshold and 2 seats rarely declare: rounds run
    # long enough for the dead pile to become the deck, several times.
    match = Match(2, Rules(threshold=500, max_turns=300), seed=11)
    match.start()

    class NeverDeclare(RandomBot):
        def choose(self, view: BotView) -> Play:  # type: ignore[override]
            return random.Random(view.turn).choice(view.legal_plays())

    reshuffles = 0
    memory = [DealMemory(), DealMemory()]
    for event in match.log:
        for m in memory:
            m.on_event(event)
    players = [NeverDeclare(1), NeverDeclare(2)]
    for _ in range(600):
        if match.over:
            break
        for seat in (0, 1):
            check_against_truth(match, seat, memory[seat].card, exact=True)
        seat = match.to_move
        events = match.apply(seat, players[seat].choose(memory[seat].view(match.view(seat))))
        reshuffles += sum(type(e).__name__ == "Reshuffled" for e in events)
        for event in events:
            for m in memory:
                m.on_event(event)
    assert reshuffles >= 2


def test_a_forfeit_mid_round_never_makes_a_false_claim() -> None:
    match = Match(4, Rules(threshold=40), seed=5)
    match.start()
    players = [GreedyBot(), RandomBot(1), GreedyBot(), RandomBot(2)]
    walk(match, players, forfeit_at=3)


def test_a_taken_card_is_known_until_it_is_discarded() -> None:
    # Seat 1 moves first (seat 0 deals): it takes the turned-up 9H.
    match = rigged_match(["2C 3C 4C 5C 6C", "KS QS JS 8D 7D", "AD AH 2D 2H 3D"], "9H", "4S 5S 6S")
    assert match.to_move == 1
    match.apply(1, Play.of("KS", "9H"))
    view = BotView.of(match.view(0))
    assert set(view.known_cards(1)) == cards("9H")
    assert view.hidden_count(1) == 4 and view.hidden_count(2) == 5 and view.hidden_count(0) == 0
    assert set(view.known_cards(0)) == set(view.hand)
    assert not set(view.unseen) & cards("9H KS 2C 3C 4C 5C 6C")
    assert len(view.unseen) == 52 - 5 - 1 - 1  # my hand, the open KS, the known 9H
    match.apply(2, Play.of("AD AH", "KS"))  # seat 2 takes the KS
    view = BotView.of(match.view(0))
    assert set(view.known_cards(2)) == cards("KS")
    match.apply(0, Play.of("6C", "deck"))  # the AD AH are buried
    match.apply(1, Play.of("9H", "deck"))  # seat 1 lets its 9H go again
    view = BotView.of(match.view(2))
    assert view.known_cards(1) == ()
    assert set(view.dead_cards) == cards("AD AH 6C")
    assert view.opponents == (0, 1)
    assert BotView.of(match.view(0)).opponents == (1, 2)


def unseeing(view: View) -> View:
    """``view`` as a seat has it that did not see the deal (a view from a snapshot)."""
    return msgspec.structs.replace(view, turned_up=None)


def test_the_turned_up_card_is_only_known_to_who_saw_it() -> None:
    match = rigged_match(["2C 3C 4C 5C 6C", "KS QS JS 8D 7D"], "9H", "4S 5S 6S")
    assert match.view(0).turned_up == match.view(1).turned_up == parse_cards("9H")[0]
    first = BotView.of(unseeing(match.view(1)))
    assert first.turned_up is None and set(first.unseen) == set(CARDS) - cards("KS QS JS 8D 7D 9H")
    match.apply(1, Play.of("KS", "deck"))  # the 9H is buried, unnamed in the history
    blind = BotView.of(unseeing(match.view(0)))
    assert CARDS[parse_cards("9H")[0]] in blind.unseen and blind.dead_cards == ()
    told = BotView.of(unseeing(match.view(0)), parse_cards("9H")[0])
    seen = BotView.of(match.view(0))  # the match's own view: every seat saw the deal
    for view in (told, seen):
        assert set(view.dead_cards) == cards("9H") and parse_cards("9H")[0] not in view.unseen


def test_the_deal_memory_follows_rounds_and_matches() -> None:
    memory = DealMemory()
    match = Match(2, Rules(threshold=5), seed=2)
    for event in match.start():
        memory.on_event(event)
    assert memory.card == match.open[0] and memory.round == 1
    view = memory.view(match.view(match.to_move))
    assert view.turned_up == match.open[0]
    assert BotView.of(view) is view
    bot = GreedyBot()
    while match.round == 1:  # the memory hears nothing of round 2...
        match.apply(match.to_move, bot.choose(match.view(match.to_move)))
    assert memory.round == 1
    # ...yet notes its turned-up card from the round's first view, when that lacks it
    assert memory.view(unseeing(match.view(0))).turned_up == match.open[0]
    assert memory.round == 2
    memory.on_event(match.log[0])  # a new match forgets the last one
    assert memory.round == 0 and memory.card is None


def test_a_spectator_has_no_card_knowledge() -> None:
    match = Match(3, seed=1)
    match.start()
    with pytest.raises(ValueError, match="spectator"):
        knowledge(match.view(None))
