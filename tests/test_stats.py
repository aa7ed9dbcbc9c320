"""Binomial tails, Clopper-Pearson intervals and the DKW test, checked exactly."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, List, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.errors import InvalidParameterError
from refdp.stats import (
    binomial_cdf,
    binomial_pmf,
    binomial_sf,
    clopper_pearson,
    clopper_pearson_lower,
    clopper_pearson_upper,
    dkw_bound,
    dkw_power_sample_size,
    dkw_sample_size,
    ks_statistic,
)


def _exact_pmfs(n: int, p: Fraction) -> List[Fraction]:
    q = 1 - p
    return [math.comb(n, i) * p**i * q ** (n - i) for i in range(n + 1)]


def _relative_error(got: float, exact: Fraction) -> Fraction:
    return abs(Fraction(got) - exact) / exact if exact else abs(Fraction(got))


# --- binomial tails ----------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("clopper-pearson-interval")
@pytest.mark.parametrize("n", [1, 2, 7, 40, 150])
@pytest.mark.parametrize("p", [1 / 3, 1e-3, 0.999, 0.5, 0.7])
def test_binomial_tails_match_exact_rational_sums(n: int, p: float) -> None:
    # The reference uses Fraction(p), the exact value of the float passed in.
    pmfs = _exact_pmfs(n, Fraction(p))
    below = Fraction(0)
    worst = 0.0
    for k in range(n + 1):
        below += pmfs[k]
        above = 1 - below
        # The log of a tiny probability is itself rounded: allow |ln P| ulps.
        for got, exact in (
            (binomial_pmf(k, n, p), pmfs[k]),
            (binomial_cdf(k, n, p), below),
            (binomial_sf(k, n, p), above),
        ):
            if exact > Fraction(1, 10**300):
                scale = max(1.0, -math.log(float(exact)))
                worst = max(worst, float(_relative_error(got, exact)) / scale)
    assert worst < 1e-13, f"n={n} p={p}: worst relative error / max(1, |ln P|) = {worst:.3g}"


def test_binomial_tail_edges() -> None:
    assert binomial_cdf(-1, 10, 0.3) == 0.0 and binomial_cdf(10, 10, 0.3) == 1.0
    assert binomial_sf(-1, 10, 0.3) == 1.0 and binomial_sf(10, 10, 0.3) == 0.0
    assert binomial_cdf(0, 10, 0.0) == 1.0 and binomial_sf(0, 10, 0.0) == 0.0
    assert binomial_cdf(9, 10, 1.0) == 0.0 and binomial_sf(9, 10, 1.0) == 1.0
    assert binomial_pmf(3, 0, 0.5) == 0.0 and binomial_cdf(0, 0, 0.5) == 1.0
    assert binomial_cdf(0, 10, 0.5) == 0.5**10


@pytest.mark.parametrize(
    "call",
    [
        lambda: binomial_cdf(1, -1, 0.5),
        lambda: binomial_cdf(1, 10, 1.5),
        lambda: binomial_cdf(1, 10, float("nan")),
        lambda: binomial_sf(1.0, 10, 0.5),  # type: ignore[arg-type]
        lambda: binomial_pmf(True, 10, 0.5),
        lambda: clopper_pearson(11, 10, 0.05),
        lambda: clopper_pearson(1, 10, 0.0),
        lambda: clopper_pearson(1, 10, 1.0),
        lambda: dkw_bound(0, 0.1),
        lambda: dkw_sample_size(0.0, 0.1),
        lambda: dkw_power_sample_size(0.1, 0.1, 1.0),
        lambda: ks_statistic([], lambda x: 0.5),
        lambda: ks_statistic([float("nan")], lambda x: 0.5),
    ],
)
def test_bad_arguments_raise(call: Callable[[], object]) -> None:
    with pytest.raises(InvalidParameterError):
        call()


@pytest.mark.claim("clopper-pearson-interval")
def test_large_n_pmf_matches_exact_big_integer_value() -> None:
    # n = 1e5, p = 1/4 (exact in binary): the exact value in big integers.
    # The naive lgamma formula is off by about 1e-10 here.
    n = 100_000
    for k in (24_000, 25_000, 26_500):
        exact = Fraction(math.comb(n, k) * 3 ** (n - k), 4**n)
        error = float(_relative_error(binomial_pmf(k, n, 0.25), exact))
        assert error < 1e-13, f"k={k}: relative error {error:.3g}"


# --- Clopper-Pearson ---------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("clopper-pearson-interval")
def test_clopper_pearson_published_value_and_closed_forms() -> None:
    lo, hi = clopper_pearson(5, 10, 0.05)
    assert (round(lo, 6), round(hi, 6)) == (0.187086, 0.812914)  # R: binom.test(5, 10)
    for n in (1, 10, 1000):
        closed = 0.025 ** (1 / n)
        lo, hi = clopper_pearson(0, n, 0.05)
        assert lo == 0.0 and hi == pytest.approx(1 - closed, rel=1e-12)
        lo, hi = clopper_pearson(n, n, 0.05)
        assert lo == pytest.approx(closed, rel=1e-12) and hi == 1.0
        assert clopper_pearson_lower(0, n, 0.05) == 0.0
        assert clopper_pearson_upper(n, n, 0.05) == 1.0


def _coverage(n: int, p: float, intervals: Sequence[Tuple[float, float]]) -> float:
    return math.fsum(binomial_pmf(k, n, p) for k, (lo, hi) in enumerate(intervals) if lo <= p <= hi)


@pytest.mark.claim("clopper-pearson-interval")
@pytest.mark.parametrize("alpha", [0.05, 0.3])
def test_clopper_pearson_coverage_is_exact_for_small_n(alpha: float) -> None:
    worst = (1.0, 0, 0.0)
    for n in list(range(1, 26)) + [50]:
        intervals = [clopper_pearson(k, n, alpha) for k in range(n + 1)]
        # Coverage is piecewise polynomial in p and dips just outside the
        # interval ends, so test there as well as on a regular grid.
        grid = [i / 200 for i in range(201)]
        for lo, hi in intervals:
            grid += [max(0.0, lo - 1e-9), min(1.0, hi + 1e-9), lo, hi]
        for p in grid:
            cover = _coverage(n, p, intervals)
            worst = min(worst, (cover, n, p))
        lower = [clopper_pearson_lower(k, n, alpha) for k in range(n + 1)]
        upper = [clopper_pearson_upper(k, n, alpha) for k in range(n + 1)]
        for p in grid:
            one_sided = (
                math.fsum(binomial_pmf(k, n, p) for k in range(n + 1) if lower[k] <= p),
                math.fsum(binomial_pmf(k, n, p) for k in range(n + 1) if p <= upper[k]),
            )
            assert min(one_sided) >= 1 - alpha - 1e-12, f"one-sided n={n} p={p}: {one_sided}"
    cover, n, p = worst
    assert cover >= 1 - alpha - 1e-12, f"coverage {cover} < {1 - alpha} at n={n}, p={p}"


@pytest.mark.claim("clopper-pearson-interval")
@pytest.mark.parametrize("n", [10, 1000, 10**7])
def test_clopper_pearson_limits_solve_the_tail_equations(n: int) -> None:
    alpha = 1e-6
    for k in sorted({1, n // 3, n // 2, n - 1}):
        lo, hi = clopper_pearson(k, n, alpha)
        assert 0.0 < lo < k / n < hi < 1.0
        # Each end is the conservative one of two adjacent floats around the
        # root of its tail equation (near 1 the floats are 1.1e-16 apart, so
        # the tail itself can only be matched to that resolution).
        assert binomial_sf(k - 1, n, lo) <= alpha / 2 < binomial_sf(k - 1, n, math.nextafter(lo, 1.0))
        assert binomial_cdf(k, n, hi) <= alpha / 2 < binomial_cdf(k, n, math.nextafter(hi, 0.0))


@given(n=st.integers(1, 40), alpha=st.floats(1e-9, 0.5))
@settings(max_examples=20)
def test_clopper_pearson_is_monotone_in_k(n: int, alpha: float) -> None:
    intervals = [clopper_pearson(k, n, alpha) for k in range(n + 1)]
    for (lo1, hi1), (lo2, hi2) in zip(intervals, intervals[1:]):
        assert lo1 < lo2 and hi1 < hi2
    for k, (lo, hi) in enumerate(intervals):
        assert lo <= k / n <= hi
        assert clopper_pearson_lower(k, n, alpha / 2) == lo
        assert clopper_pearson_upper(k, n, alpha / 2) == hi


# --- DKW and the KS statistic ------------------------------------------------


def _bernoulli_half_cdf(x: float) -> float:
    return 0.0 if x < 0 else (0.5 if x < 1 else 1.0)


@pytest.mark.smoke
@pytest.mark.claim("dkw-goodness-of-fit")
def test_ks_statistic_hand_worked_examples() -> None:
    # One sample at 0 from Bernoulli(1/2): F_n jumps to 1 at 0 where F is 1/2.
    assert ks_statistic([0], _bernoulli_half_cdf) == 0.5
    # Samples 0, 1: F_n = 1/2 on [0, 1), equal to F, and 1 from 1 on.
    assert ks_statistic([1, 0], _bernoulli_half_cdf) == 0.0
    # Uniform(0, 1), one sample at 0.25: sup is 0.75 just after it.
    assert ks_statistic([0.25], lambda x: min(1.0, max(0.0, x))) == 0.75
    # Left limits matter for discrete F: F_n(3-) = 0 against F(3-) = F(2).
    assert ks_statistic([3, 3], lambda x: min(1.0, max(0.0, math.floor(x) / 4))) == 0.5


@pytest.mark.claim("dkw-goodness-of-fit")
@given(
    weights=st.lists(st.integers(0, 5), min_size=1, max_size=6).filter(lambda w: sum(w) > 0),
    samples=st.lists(st.integers(-1, 7), min_size=1, max_size=30),
)
def test_ks_statistic_equals_brute_force_for_integer_distributions(
    weights: List[int], samples: List[int]
) -> None:
    total = sum(weights)
    cumulative = [Fraction(sum(weights[: i + 1]), total) for i in range(len(weights))]

    def cdf_exact(x: Fraction) -> Fraction:
        k = math.floor(x)
        return Fraction(0) if k < 0 else cumulative[min(k, len(weights) - 1)]

    def cdf(x: float) -> float:
        return float(cdf_exact(Fraction(x)))

    n = len(samples)
    # Both step functions are constant on [j/2, j/2 + 1/2) away from integers:
    # the integers and the half-integers see every value they take.
    brute = max(
        abs(Fraction(sum(1 for s in samples if s <= x), n) - cdf_exact(x))
        for x in (Fraction(j, 2) for j in range(-6, 20))
    )
    assert ks_statistic(samples, cdf) == pytest.approx(float(brute), abs=1e-15)


@pytest.mark.claim("dkw-goodness-of-fit")
@pytest.mark.parametrize("distance", [0.5, 0.1, 0.013])
@pytest.mark.parametrize("alpha", [1e-6, 0.05])
def test_dkw_sample_sizes_are_the_smallest(distance: float, alpha: float) -> None:
    n = dkw_sample_size(distance, alpha)
    assert dkw_bound(n, alpha) <= distance < dkw_bound(max(1, n - 1), alpha) or n == 1
    m = dkw_power_sample_size(distance, alpha, 1e-3)
    assert dkw_bound(m, alpha) + dkw_bound(m, 1e-3) < distance
    assert dkw_bound(m - 1, alpha) + dkw_bound(m - 1, 1e-3) >= distance
    assert dkw_bound(100, 0.05) == math.sqrt(math.log(40) / 200)
