"""The conditional ratio test of the Monte-Carlo audit (claim conditional-ratio-test)."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.audit.conditional import (
    assign_sides,
    conditional_lower_bound,
    conditional_power,
    conditional_required_runs,
    delta_allowance,
)
from refdp.audit.sample_size import required_trials
from refdp.errors import InvalidParameterError
from refdp.stats import clopper_pearson


@pytest.mark.claim("conditional-ratio-test")
@pytest.mark.parametrize("epsilon", [0.0, 0.5, 1.0, 2.0])
@pytest.mark.parametrize("p2", [0.001, 0.05, 0.2, 0.45])
@pytest.mark.parametrize("n", [50, 400, 3000])
@pytest.mark.parametrize("delta", [0, Fraction(1, 1000)])
def test_exact_false_alarm_probability_is_at_most_alpha(epsilon: float, p2: float, n: int, delta: Fraction) -> None:
    # At the boundary p1 = e^eps p2 + delta, the rejection probability is the false-alarm probability.
    p1 = min(1.0, math.exp(epsilon) * p2 + float(delta))
    for alpha in (0.05, 1e-3):
        rate = conditional_power(n, p1, p2, epsilon, alpha=alpha, delta=delta)
        assert rate <= alpha * (1 + 1e-9), (epsilon, p2, n, delta, alpha, rate)


def _simulate(p1: float, p2: float, n: int, rng: random.Random) -> Tuple[int, int]:
    k1 = k2 = 0
    for on_d in assign_sides(n, rng):
        if on_d:
            k1 += rng.random() < p1
        else:
            k2 += rng.random() < p2
    return k1, k2


@pytest.mark.claim("conditional-ratio-test", "clopper-pearson-interval")
def test_simulated_false_alarms_stay_below_alpha() -> None:
    seed = 31
    rng = random.Random(seed)
    alpha, repetitions, n = 0.05, 2000, 200
    p2 = 0.2
    p1 = math.exp(1.0) * p2
    alarms = sum(conditional_lower_bound(*_simulate(p1, p2, n, rng), n, alpha=alpha) > 1.0 for _ in range(repetitions))
    low, _ = clopper_pearson(alarms, repetitions, 1e-6)
    assert low <= alpha, f"seed {seed}: {alarms} false alarms in {repetitions} at alpha {alpha}"


@pytest.mark.claim("conditional-ratio-test", "clopper-pearson-interval")
def test_power_formula_matches_simulation() -> None:
    seed = 32
    rng = random.Random(seed)
    n, p2, claimed = 300, 0.1, 1.0
    p1 = math.exp(2.0) * p2
    predicted = conditional_power(n, p1, p2, claimed, alpha=0.01)
    repetitions = 2000
    hits = sum(conditional_lower_bound(*_simulate(p1, p2, n, rng), n, alpha=0.01) > claimed for _ in range(repetitions))
    low, high = clopper_pearson(hits, repetitions, 1e-6)
    assert low <= predicted <= high, f"seed {seed}: predicted {predicted}, observed {hits}/{repetitions}"


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 300), st.integers(0, 300), st.sampled_from([0, Fraction(1, 100)]))
def test_bound_grows_with_k1_and_falls_with_k2(k1: int, k2: int, delta: Fraction) -> None:
    n = 1000
    bound = conditional_lower_bound(k1, k2, n, alpha=1e-6, delta=delta)
    assert conditional_lower_bound(k1 + 1, k2, n, alpha=1e-6, delta=delta) >= bound
    assert conditional_lower_bound(k1, k2 + 1, n, alpha=1e-6, delta=delta) <= bound


def test_the_goal_of_issue_16_is_met_and_beats_two_intervals() -> None:
    # A 1.5x violation (true 1.5 against claimed 1) on an event of probability 0.1, power 0.999,
    # false alarm 1e-6: at most 4,000 runs per side, fewer than two Clopper-Pearson limits need.
    runs = conditional_required_runs(1.5, 1, 0.1)
    assert runs / 2 <= 4000
    assert runs / 2 < required_trials(1.5, 1, 0.1)


def test_a_budget_stops_the_search_for_runs_early() -> None:
    # The audit affords a fixed number of runs; past it only "more" matters, not how many more
    # (a search up to 10^6 runs took minutes).
    runs = conditional_required_runs(1.5, 1, 0.1)
    assert conditional_required_runs(1.5, 1, 0.1, at_most=runs) == runs
    assert conditional_required_runs(1.5, 1, 0.1, at_most=4 * runs) == runs
    assert conditional_required_runs(1.5, 1, 0.1, at_most=runs // 2) == runs // 2 + 1


def test_coins_are_words_of_fair_bits_and_bad_input_is_refused() -> None:
    class Words:
        def __init__(self) -> None:
            self.calls = 0

        def getrandbits(self, k: int) -> int:
            assert k == 32
            self.calls += 1
            return 0b101

        def random(self) -> float:
            raise AssertionError

        def randrange(self, start: int, stop: object = None, step: int = 1) -> int:
            raise AssertionError

    words = Words()
    sides = assign_sides(40, words)
    assert words.calls == 2 and sides[:4] == [True, False, True, False] and len(sides) == 40
    assert delta_allowance(1000, 0, 1e-6) == 0 and delta_allowance(1000, Fraction(1, 100), 1e-6) > 5
    assert conditional_lower_bound(0, 5, 10, alpha=0.05) == -math.inf
    for bad in (dict(k1=-1, k2=0, n=1), dict(k1=3, k2=3, n=5), dict(k1=1, k2=1, n=5, alpha=0.0)):
        kwargs = {"alpha": 0.05, **bad}
        with pytest.raises(InvalidParameterError):
            conditional_lower_bound(**kwargs)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        conditional_required_runs(0.5, 1, 0.1)
