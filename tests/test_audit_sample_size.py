"""The certified bound's false-alarm probability and required_trials' power, computed exactly and simulated."""

from __future__ import annotations

import math
import random
from typing import List, Tuple

import pytest

from refdp.audit import (
    binomial_lower_quantile,
    binomial_upper_quantile,
    certified_lower_bound,
    detectable_epsilon,
    power_guaranteed,
    required_trials,
)
from refdp.errors import InvalidParameterError
from refdp.stats import (
    binomial_cdf,
    binomial_pmf,
    binomial_sf,
    clopper_pearson_lower,
    clopper_pearson_upper,
)


def _window(n: int, p: float) -> Tuple[int, int]:
    """Counts within 9 standard deviations of the mean (the mass outside is below 1e-15)."""
    spread = 9 * math.sqrt(n * p * (1 - p)) + 3
    return max(0, math.floor(n * p - spread)), min(n, math.ceil(n * p + spread))


def _exceed_probability(
    n: int, p1: float, p2: float, threshold: float, alpha: float, delta: float = 0.0
) -> Tuple[float, float]:
    """Bounds (low, high) on P[B > threshold] for K1 ~ Bin(n, p1), K2 ~ Bin(n, p2), B the certified bound.

    Exact summation over the binomial distributions; the counts outside
    :func:`_window` are accounted for in the direction that makes each bound safe.
    """
    lo1, hi1 = _window(n, p1)
    lo2, hi2 = _window(n, p2)
    lower_limits = [clopper_pearson_lower(k, n, alpha / 2) for k in range(lo1, hi1 + 1)]
    low = 0.0
    high = binomial_cdf(lo2 - 1, n, p2) + binomial_sf(hi2, n, p2)
    for k2 in range(lo2, hi2 + 1):
        upper = clopper_pearson_upper(k2, n, alpha / 2)
        weight = binomial_pmf(k2, n, p2)
        # B grows with k1: find the first k1 of the window where it beats the threshold.
        first = next(
            (
                lo1 + i
                for i, limit in enumerate(lower_limits)
                if limit > delta and math.log(limit - delta) - math.log(upper) > threshold
            ),
            None,
        )
        if first is None:
            high += weight * binomial_sf(hi1, n, p1)
        elif first == lo1:
            low += weight * binomial_sf(lo1 - 1, n, p1)
            high += weight
        else:
            tail = binomial_sf(first - 1, n, p1)
            low += weight * tail
            high += weight * tail
    return low, high


@pytest.mark.claim("empirical-epsilon-lower-bound")
@pytest.mark.parametrize(
    "n, epsilon, p2, delta, alpha",
    [
        (20, 1.0, 0.2, 0.0, 0.2),
        (50, 0.5, 0.3, 0.0, 0.05),
        (200, 1.0, 0.05, 0.0, 0.05),
        (200, 0.1, 0.5, 0.0, 0.01),
        (100, 1.0, 0.1, 0.05, 0.1),
        (400, 2.0, 0.02, 0.01, 0.001),
    ],
)
def test_false_alarm_probability_is_at_most_alpha(
    n: int, epsilon: float, p2: float, delta: float, alpha: float
) -> None:
    """At the edge of (epsilon, delta)-DP, p1 = e^epsilon p2 + delta: P[B > epsilon] <= alpha, exactly."""
    p1 = math.exp(epsilon) * p2 + delta
    low, high = _exceed_probability(n, p1, p2, epsilon, alpha, delta)
    # Typically far below alpha (1e-4 to 1e-1 of it): B > epsilon needs the two
    # one-sided limits to miss together, and the union bound pays for either.
    assert high <= alpha, f"n={n} p1={p1:.4f} p2={p2} delta={delta}: P[B > eps] in [{low:.3g}, {high:.3g}] > alpha={alpha}"


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_certified_bound_values() -> None:
    assert certified_lower_bound(0, 100, 50, 100, alpha=1e-6) == -math.inf
    assert certified_lower_bound(5, 100, 5, 100, alpha=0.1, delta=0.5) == -math.inf
    bound = certified_lower_bound(7300, 10000, 2700, 10000, alpha=1e-6)
    lower = clopper_pearson_lower(7300, 10000, 5e-7)
    upper = clopper_pearson_upper(2700, 10000, 5e-7)
    assert bound == math.log(lower) - math.log(upper)
    assert 0.8 < bound < math.log(7300 / 2700)


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_required_trials_is_monotone_in_the_gap() -> None:
    counts: List[int] = [required_trials(t, 1, 0.1) for t in (1.1, 1.2, 1.5, 2.0, 2.3)]
    assert counts == sorted(counts, reverse=True), counts
    assert counts[0] > 100 * counts[-1], counts
    # More power, a smaller alpha or a delta to beat all cost runs.
    base = required_trials(2.0, 1, 0.1)
    assert required_trials(2.0, 1, 0.1, power=0.999999) > base
    assert required_trials(2.0, 1, 0.1, alpha=1e-12) > base
    assert required_trials(2.0, 1, 0.1, delta=0.01) > base
    assert required_trials(2.0, 1, 0.1, power=0.9, alpha=0.01) < base


@pytest.mark.claim("empirical-epsilon-lower-bound")
@pytest.mark.parametrize(
    "true_epsilon, claimed, p_event, power, alpha",
    [
        (2.0, 1.0, 0.1192, 0.999, 1e-6),
        (1.0, 0.5, 0.3, 0.99, 1e-3),
        pytest.param(1.5, 1.0, 0.1, 0.999, 1e-6, marks=pytest.mark.slow),
        pytest.param(1.0, 0.8, 0.2689, 0.999, 1e-6, marks=pytest.mark.slow),
    ],
)
def test_required_trials_guarantee_holds_exactly(
    true_epsilon: float, claimed: float, p_event: float, power: float, alpha: float
) -> None:
    """At n = required_trials the bound beats the claim with probability >= power (exact sums)."""
    n = required_trials(true_epsilon, claimed, p_event, power=power, alpha=alpha)
    p1 = math.exp(true_epsilon) * p_event
    low, high = _exceed_probability(n, p1, p_event, claimed, alpha)
    assert low >= power, f"n={n}: power in [{low:.6f}, {high:.6f}] < {power}"
    # Conservative, but n/2 runs would not have been enough with the exact power either.
    half_low, half_high = _exceed_probability(n // 2, p1, p_event, claimed, alpha)
    assert half_high < power, f"n/2={n // 2} already has power {half_low:.6f}: required_trials is loose"


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_required_trials_guarantee_by_simulation() -> None:
    """Modest scale: power 0.9, alpha 0.01; 400 simulated audits of a fixed event; seed 7."""
    true_epsilon, claimed, p_event, power, alpha = 2.0, 1.0, 0.1, 0.9, 0.01
    n = required_trials(true_epsilon, claimed, p_event, power=power, alpha=alpha)
    p1 = math.exp(true_epsilon) * p_event
    rng = random.Random(7)
    repetitions = 400
    successes = 0
    for _ in range(repetitions):
        k1 = sum(rng.random() < p1 for _ in range(n))
        k2 = sum(rng.random() < p_event for _ in range(n))
        successes += certified_lower_bound(k1, n, k2, n, alpha=alpha) > claimed
    # Under power >= 0.9, seeing this few successes has probability < 1e-6.
    plausible = binomial_cdf(successes, repetitions, power) >= 1e-6
    assert plausible, f"seed 7, n={n}: {successes}/{repetitions} audits refuted, expected >= {power}"


def test_quantiles_and_power_helpers() -> None:
    n, p = 500, 0.3
    k = binomial_lower_quantile(n, p, 0.001)
    assert binomial_sf(k - 1, n, p) >= 0.999 > binomial_sf(k, n, p)
    k = binomial_upper_quantile(n, p, 0.001)
    assert binomial_cdf(k, n, p) >= 0.999 > binomial_cdf(k - 1, n, p)
    n_needed = required_trials(2.0, 1, 0.1)
    assert power_guaranteed(n_needed, 2.0, 1, 0.1)
    assert not power_guaranteed(n_needed // 2, 2.0, 1, 0.1)
    # detectable_epsilon inverts power_guaranteed at fixed n.
    found = detectable_epsilon(n_needed, 1, 0.1)
    assert 1.9 < found <= 2.0 + 1e-3, found
    assert detectable_epsilon(5, 1, 0.1) == math.inf


def test_invalid_parameters() -> None:
    with pytest.raises(InvalidParameterError, match="no number of runs"):
        required_trials(1.0, 1.0, 0.1)
    with pytest.raises(InvalidParameterError, match="exceeds 1"):
        required_trials(3.0, 1.0, 0.5)
    with pytest.raises(InvalidParameterError, match="p_event"):
        required_trials(2.0, 1.0, 0.0)
    with pytest.raises(InvalidParameterError, match="power"):
        required_trials(2.0, 1.0, 0.1, power=1.0)
    with pytest.raises(InvalidParameterError, match="delta"):
        required_trials(2.0, 1.0, 0.1, delta=1)
    with pytest.raises(InvalidParameterError, match="alpha"):
        certified_lower_bound(1, 2, 1, 2, alpha=0.0)
