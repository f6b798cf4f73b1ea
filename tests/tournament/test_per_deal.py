"""Deals as the unit: t intervals over per-deal values, and the SPRT."""

from __future__ import annotations

import json
import random

import pytest
from leastscore.tournament.pure.per_deal import (
    Sprt,
    SprtSettings,
    expected_score,
    mean_interval,
    score_against,
    t_quantile,
)

from ..support.contest import bots, tournament


@pytest.mark.parametrize(
    ("df", "table"),
    [(1, 12.7062), (2, 4.3027), (3, 3.1824), (4, 2.7764), (5, 2.5706), (10, 2.2281), (100, 1.984)],
)
def test_t_quantiles_match_the_tables(df: int, table: float) -> None:
    assert t_quantile(0.975, df) == pytest.approx(table, abs=1e-4)
    assert t_quantile(0.025, df) == pytest.approx(-table, abs=1e-4)


def test_an_interval_over_deals_is_honest_at_the_edges() -> None:
    assert mean_interval([1.0]) == (0.0, 1.0)  # one deal says nothing
    low, high = mean_interval([1.0] * 6)
    assert high == 1.0 and 0.6 < low < 0.9  # six wins in six deals: likely, not certain
    low, high = mean_interval([0.5] * 400)
    assert low < 0.5 < high and high - low < 0.1


def test_a_score_against_the_other_seats() -> None:
    assert score_against([1, 2, 3, 4], 0) == 1.0
    assert score_against([2, 1, 2, 4], 0) == pytest.approx(0.5)  # behind, level, ahead
    assert score_against([4, 1, 2, 3], 0) == 0.0


def test_sprt_settings_are_read_and_checked() -> None:
    s = SprtSettings.parse("elo0=0,elo1=10")
    assert (s.elo0, s.elo1, s.alpha, s.beta) == (0, 10, 0.05, 0.05)
    assert s.lower == pytest.approx(-2.944, abs=1e-3) and s.upper == pytest.approx(2.944, abs=1e-3)
    for bad in ("elo0=5,elo1=0", "elo1=3", "elo0=0,elo1=5,alpha=0.7", "elo0=0,elo1=x", "x=1"):
        with pytest.raises(ValueError, match="sprt"):
            SprtSettings.parse(bad)


def _simulate(true_elo: float, settings: SprtSettings, runs: int, seed: int) -> dict[str, int]:
    """SPRTs on a synthetic heads-up duplicate format: each deal is two matches the
    candidate wins with the chance its true Elo gives; the deal scores 0, 1/2 or 1."""
    rng = random.Random(seed)
    p = expected_score(true_elo)
    verdicts = {"H0": 0, "H1": 0, "none": 0}
    for _ in range(runs):
        test = Sprt(settings)
        for _deal in range(5000):
            test.add(((rng.random() < p) + (rng.random() < p)) / 2)
            if test.verdict is not None:
                break
        verdicts[test.verdict or "none"] += 1
    return verdicts


def test_the_sprt_keeps_to_its_error_rates_by_simulation() -> None:
    settings = SprtSettings(0, 50, 0.05, 0.05)
    runs = 600
    at_h0 = _simulate(0, settings, runs, seed=1)
    at_h1 = _simulate(50, settings, runs, seed=2)
    # each rate within alpha (beta) plus three standard errors of the simulation
    tolerance = 3 * (0.05 * 0.95 / runs) ** 0.5
    assert at_h0["H1"] / runs <= 0.05 + tolerance, at_h0
    assert at_h1["H0"] / runs <= 0.05 + tolerance, at_h1
    assert at_h0["none"] == at_h1["none"] == 0


def _sprt_run(*args: str) -> dict:
    # A timeout would change the verdicts compared: the move time is far past any move.
    done = tournament(
        *args, "--seats", "2", "--seed", "1", "--move-time", "600", "--quiet", "--format", "json"
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_greedy_against_random_stops_early_for_h1(tmp_path) -> None:
    entrants = bots(g="builtin:greedy", r="builtin:random")
    flags = ["--gauntlet", "g", "--deals", "200", "--sprt", "elo0=0,elo1=50"]
    one = _sprt_run(*entrants, *flags, "--workers", "1")
    assert one["sprt"]["verdict"] == "H1" and one["sprt"]["deals"] < 200
    assert one["matches_played"] == 2 * one["sprt"]["deals"]  # the deals up to the decision
    assert one["interval_unit"] == "deal"
    two = _sprt_run(*entrants, *flags, "--workers", "2", "--out", str(tmp_path / "run"))
    assert two == one  # however many workers, the test decides at the same deal
    again = tournament("--resume", str(tmp_path / "run"), "--quiet", "--format", "json")
    assert again.returncode == 0, again.stderr
    assert json.loads(again.stdout) == one


def test_greedy_against_itself_does_not_accept_h1() -> None:
    entrants = bots(g="builtin:greedy", g2="builtin:greedy")
    found = _sprt_run(*entrants, "--gauntlet", "g", "--deals", "60", "--sprt", "elo0=0,elo1=50")
    assert found["sprt"]["verdict"] != "H1"


def test_an_sprt_needs_a_gauntlet() -> None:
    done = tournament(*bots(g="builtin:greedy", r="builtin:random"), "--sprt", "elo0=0,elo1=5")
    assert done.returncode != 0 and "--gauntlet" in done.stderr
