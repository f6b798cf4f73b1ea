"""Schedules are complete and seat-balanced, and duplicate deals deal the same cards."""

from __future__ import annotations

import asyncio
from collections import Counter
from itertools import combinations

import pytest
from leastscore.bots import make_bot
from leastscore.bots.seat import BotSeat
from leastscore.game import Match, RoundStarted, Rules
from leastscore.seats.core import Policy
from leastscore.seats.driver import MatchDriver
from leastscore.tournament.pure.deals import DuplicateDeck, deal_seed
from leastscore.tournament.pure.schedule import Schedule

NAMES = ["ann", "bea", "cy", "dot", "eve"]


@pytest.mark.parametrize(("entrants", "seats"), [(5, 2), (5, 3), (5, 4), (4, 4), (6, 3), (8, 8)])
def test_round_robin_plays_every_group_every_deal_in_every_rotation(entrants, seats):
    names = [f"bot{i}" for i in range(entrants)]
    deals = 3
    schedule = Schedule(names, seats, deals, seed=11)
    groups = list(combinations(names, seats))
    assert len(schedule) == len(groups) * deals * seats
    played = Counter()
    seat_of = Counter()
    for fixture in schedule:
        assert len(set(fixture.seats)) == seats
        played[frozenset(fixture.seats), fixture.deal] += 1
        for seat, name in enumerate(fixture.seats):
            seat_of[name, seat] += 1
    # every group, every deal, once per rotation
    assert set(played) == {(frozenset(g), d) for g in groups for d in range(deals)}
    assert set(played.values()) == {seats}
    # every entrant in every seat equally often
    per_seat = len(schedule) * seats // entrants // seats
    assert all(seat_of[name, seat] == per_seat for name in names for seat in range(seats))


def test_each_rotation_gives_each_member_each_seat_once():
    schedule = Schedule(NAMES, 3, 2, seed=5)
    tables: dict[tuple[int, int], list[tuple[str, ...]]] = {}
    for fixture in schedule:
        tables.setdefault((fixture.deal, fixture.group), []).append(fixture.seats)
    for rotations in tables.values():
        assert len(rotations) == 3
        for seat in range(3):
            assert sorted(r[seat] for r in rotations) == sorted(rotations[0])


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_gauntlet_plays_one_entrant_against_all_the_others(seats):
    deals = 2
    schedule = Schedule(NAMES, seats, deals, seed=3, gauntlet="cy")
    others = [n for n in NAMES if n != "cy"]
    groups = {frozenset(("cy", *g)) for g in combinations(others, seats - 1)}
    assert len(schedule) == len(groups) * deals * seats
    seen = Counter()
    hero_seat = Counter()
    other_seat = Counter()
    for fixture in schedule:
        assert "cy" in fixture.seats
        seen[frozenset(fixture.seats)] += 1
        hero_seat[fixture.seats.index("cy")] += 1
        for seat, name in enumerate(fixture.seats):
            if name != "cy":
                other_seat[name, seat] += 1
    assert set(seen) == groups and set(seen.values()) == {deals * seats}
    assert len(set(hero_seat.values())) == 1 and len(hero_seat) == seats
    assert len(set(other_seat.values())) == 1 and len(other_seat) == len(others) * seats


def test_fixtures_are_computed_the_same_everywhere_and_spread_early():
    a = Schedule(NAMES, 2, 4, seed=9)
    b = Schedule(list(NAMES), 2, 4, seed=9)
    assert list(a) == list(b)
    assert a[-1] == a[len(a) - 1] and a[3:5] == [a[3], a[4]]
    with pytest.raises(IndexError):
        a[len(a)]
    # The first block (one deal, one rotation) already gives everyone equal play.
    first = Counter(name for fixture in a[: len(a.groups)] for name in fixture.seats)
    assert set(first.values()) == {4}
    # deal seeds: shared by every table of a deal, different between deals
    assert {f.deal_seed for f in a if f.deal == 1} == {deal_seed(9, 1)}
    assert len({deal_seed(9, d) for d in range(4)}) == 4
    assert Schedule(NAMES, 2, 4, seed=10)[0].deal_seed != a[0].deal_seed


@pytest.mark.parametrize(
    ("names", "seats", "deals", "gauntlet", "message"),
    [
        (["a", "a"], 2, 1, None, "unique"),
        (["a", "b"], 3, 1, None, "at least 3 entrants"),
        (["a", "b"], 9, 1, None, "seats must be"),
        (["a", "b"], 2, 0, None, "deals"),
        (["a", "b"], 2, 1, "zed", "not an entrant"),
    ],
)
def test_bad_schedules_are_refused(names, seats, deals, gauntlet, message):
    with pytest.raises(ValueError, match=message):
        Schedule(names, seats, deals, seed=1, gauntlet=gauntlet)


def _play(fixture_seats: tuple[str, ...], seed: int) -> Match:
    match = Match(fixture_seats, Rules(threshold=60), shuffler=DuplicateDeck(seed))
    seats = [BotSeat(make_bot("greedy" if "g" in n else "random", 1), n) for n in fixture_seats]
    driver = MatchDriver(
        match, seats, time_limit=lambda s: 600.0, policy=Policy(retry_illegal=False)
    )
    asyncio.run(driver.run())
    return match


def test_duplicate_deals_deal_the_same_cards_with_the_seats_turned():
    schedule = Schedule(["g1", "r1", "g2"], 3, 1, seed=21)
    matches = [(f, _play(f.seats, f.deal_seed)) for f in schedule]
    assert len(matches) == 3
    deals = [[e for e in m.log if isinstance(e, RoundStarted)] for _, m in matches]
    first = [d[0] for d in deals]
    # the same deck, so seat by seat the same hands and the same open card
    assert len({r.deck for r in first}) == 1
    assert len({r.hands for r in first}) == 1 and len({r.open for r in first}) == 1
    # ... and each entrant holds each seat's first hand exactly once
    held = {name: set() for name in ("g1", "r1", "g2")}
    for (fixture, _), start in zip(matches, first, strict=True):
        for seat, name in enumerate(fixture.seats):
            held[name].add(start.hands[seat])
    assert all(len(hands) == 3 for hands in held.values())
    # Later rounds are dealt from the same deck order too, whatever happened before.
    rounds = min(len(d) for d in deals)
    assert rounds >= 2
    for k in range(rounds):
        assert len({d[k].deck for d in deals}) == 1


def test_a_reshuffle_does_not_change_the_next_deal():
    plain, shuffled = DuplicateDeck(4), DuplicateDeck(4)
    first_a, first_b = list(range(52)), list(range(52))
    plain(first_a)
    shuffled(first_b)
    dead = list(range(20))
    shuffled(dead)  # one table reshuffled its dead pile, the other did not
    second_a, second_b = list(range(52)), list(range(52))
    plain(second_a)
    shuffled(second_b)
    assert first_a == first_b and second_a == second_b
