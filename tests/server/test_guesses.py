"""The password-guess limits on a fake clock: a table's budget, an address's growing wait."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from leastscore.server.lobby.guesses import Guesses


def checked(guesses: Guesses, table: str, peers: list[str], now: float) -> int:
    """Guess once from each of ``peers`` (all wrong); how many were checked."""
    n = 0
    for peer in peers:
        if guesses.wait(table, peer, now) == 0:
            guesses.missed(peer, now)
            n += 1
    return n


def test_a_table_is_checked_at_most_its_budget_a_second_whoever_guesses() -> None:
    guesses = Guesses(per_table=20, window=1.0, free_misses=1_000_000)
    peers = [f"10.0.0.{i}" for i in range(200)]  # a crowd: the table's budget holds anyway
    assert checked(guesses, "t1", peers, 100.0) == 20
    assert 0 < guesses.wait("t1", "10.0.1.1", 100.5) <= 0.5
    assert checked(guesses, "t2", peers, 100.5) == 20  # another table has its own
    assert checked(guesses, "t1", peers, 101.0) == 20  # a second later: the next twenty
    assert checked(guesses, "t1", peers, 101.99) == 0


def test_all_ten_thousand_pins_take_minutes() -> None:
    guesses = Guesses()
    now, tried = 0.0, 0
    while tried < 10_000:
        peer = f"10.{tried % 250}.0.1"  # a new address for every guess: only the table limits
        wait = guesses.wait("t1", peer, now)
        if wait:
            now += wait
            continue
        guesses.missed(peer, now)
        tried += 1
    assert now >= 10_000 / 20 - 1


def test_an_address_that_keeps_missing_waits_longer_each_time() -> None:
    guesses = Guesses(free_misses=3, backoff=1.0, max_backoff=8.0, forget=100.0)
    now = 0.0
    for _ in range(3):  # mistyped three times: no wait
        assert guesses.wait("t1", "eve", now) == 0
        guesses.missed("eve", now)
    waits = []
    for _ in range(6):
        wait = guesses.wait("t1", "eve", now)
        assert wait > 0
        assert guesses.wait("t1", "eve", now + wait / 2) > 0  # still refused halfway
        waits.append(wait)
        now += wait
        assert guesses.wait("t1", "eve", now) == 0
        guesses.missed("eve", now)
    assert waits == [1, 2, 4, 8, 8, 8]
    assert guesses.wait("t1", "ann", now) == 0  # another address is not held back
    assert guesses.wait("t1", "eve", now + 100) == 0  # long quiet: forgiven
    guesses.missed("eve", now + 100)
    assert guesses.wait("t1", "eve", now + 100) == 0  # the count starts again


def test_the_right_password_is_checked_once_the_lockout_passes() -> None:
    guesses = Guesses(per_table=5, window=2.0, free_misses=100)
    assert checked(guesses, "t1", ["eve"] * 50, 10.0) == 5
    wait = guesses.wait("t1", "ann", 10.0)
    assert wait == 2.0
    assert guesses.wait("t1", "ann", 10.0 + wait) == 0  # ann's right password is checked


def test_memory_is_dropped_once_nothing_is_limited() -> None:
    guesses = Guesses(forget=60.0)
    for i in range(1000):
        guesses.wait(f"t{i}", f"10.0.{i // 250}.{i % 250}", 0.0)
        guesses.missed(f"10.0.{i // 250}.{i % 250}", 0.0)
    guesses.wait("t0", "a", 1000.0)
    assert len(guesses._checks) == 1 and len(guesses._misses) == 0


@given(st.lists(st.tuples(st.floats(0, 5), st.integers(0, 30)), max_size=300))
def test_never_more_than_the_budget_in_any_window(steps: list[tuple[float, int]]) -> None:
    guesses = Guesses(per_table=20, window=1.0, free_misses=10**9)
    now, times = 0.0, []
    for advance, peer in steps:
        now += advance / 10
        if guesses.wait("t1", str(peer), now) == 0:
            times.append(now)
    for i, start in enumerate(times):
        assert sum(1 for t in times[i:] if t < start + 1.0) <= 20
