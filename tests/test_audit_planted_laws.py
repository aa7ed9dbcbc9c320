"""The finite laws behind the planted cases: clamped discrete Laplace, binned Laplace, reductions."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from refdp.audit import LOG_SLACK, max_log_ratio
from refdp.audit.neighbours import Record
from refdp.audit.planted.laws import (
    bin_index,
    binned_laplace,
    clamp,
    clamped_discrete_laplace,
    log_discrete_laplace_at_most,
    log_laplace_interval,
)
from refdp.audit.reductions import Bins, Clamp, ClampHistogram, ProbeLeafCount, structure_of
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace_cdf, discrete_laplace_pmf, laplace_cdf
from refdp.tree import CategoricalSplit, Leaf, ThresholdSplit, ValueSplit

SCALES = [Fraction(1, 3), Fraction(1), Fraction(3), Fraction(47)]


@pytest.mark.parametrize("scale", SCALES)
def test_discrete_laplace_tail_matches_the_cdf(scale: Fraction) -> None:
    for k in range(-60, 61):
        assert math.isclose(math.exp(log_discrete_laplace_at_most(k, scale)), discrete_laplace_cdf(k, scale),
                            rel_tol=1e-12, abs_tol=1e-300), (k, scale)


@pytest.mark.parametrize("scale", SCALES)
def test_clamped_law_keeps_the_whole_mass_and_the_pmf(scale: Fraction) -> None:
    law = clamped_discrete_laplace(5, scale, 0, 12)
    assert set(law) == set(range(13))
    assert abs(law.log_mass()) < 1e-12
    for x in range(1, 12):
        assert math.isclose(law.probability(x), discrete_laplace_pmf(x - 5, scale), rel_tol=1e-12)
    assert math.isclose(law.probability(0), discrete_laplace_cdf(-5, scale), rel_tol=1e-12)


@pytest.mark.claim("exact-max-log-ratio", "discrete-laplace-mechanism")
@pytest.mark.parametrize("scale", SCALES)
def test_clamping_keeps_the_largest_log_ratio(scale: Fraction) -> None:
    """Centres 5 and 6 inside [0, 12]: the ratio is 1/scale at both clamped ends, as on all integers."""
    ratio = max_log_ratio(clamped_discrete_laplace(5, scale, 0, 12), clamped_discrete_laplace(6, scale, 0, 12))
    assert abs(ratio - float(1 / scale)) < LOG_SLACK


def test_clamped_law_of_an_empty_or_point_range() -> None:
    assert dict(clamped_discrete_laplace(3, Fraction(1), 4, 4)) == {4: 0.0}
    with pytest.raises(InvalidParameterError, match="empty"):
        clamped_discrete_laplace(3, Fraction(1), 5, 4)
    assert [clamp(v, 0, 3) for v in (-2, 0, 2, 3, 9)] == [0, 0, 2, 3, 3]


@pytest.mark.parametrize("b", [0.5, 2.0])
def test_laplace_intervals_match_the_cdf(b: float) -> None:
    centre = 3.0
    for lo, hi in [(-math.inf, -1.0), (-1.0, 2.0), (2.0, 3.0), (2.5, 3.5), (3.0, 7.0), (7.0, math.inf), (-math.inf, math.inf)]:
        expected = (1.0 if hi == math.inf else laplace_cdf(hi - centre, b)) - (
            0.0 if lo == -math.inf else laplace_cdf(lo - centre, b)
        )
        assert math.isclose(math.exp(log_laplace_interval(lo, hi, centre, b)), expected, rel_tol=1e-12), (lo, hi)
    with pytest.raises(InvalidParameterError, match="empty"):
        log_laplace_interval(2.0, 2.0, centre, b)


@pytest.mark.claim("exact-max-log-ratio", "laplace-mechanism")
def test_binned_laplace_is_a_full_law_with_the_tail_ratio() -> None:
    edges = tuple(float(k) for k in range(-1, 8))
    p, q = binned_laplace(3.0, 2.0, edges), binned_laplace(4.0, 2.0, edges)
    assert abs(p.log_mass()) < 1e-12 and len(p) == len(edges) + 1
    assert abs(max_log_ratio(p, q) - 0.5) < LOG_SLACK
    assert [bin_index(x, edges) for x in (-5.0, -1.0, -0.5, 7.0, 7.5)] == [0, 0, 1, 8, 9]
    assert Bins(edges)(3.0) == bin_index(3.0, edges) == 4
    with pytest.raises(InvalidParameterError, match="increasing"):
        binned_laplace(0.0, 1.0, (1.0, 1.0))


def test_reductions() -> None:
    assert Clamp(0, 5)(7.5) == 5 and Clamp(0, 5)(-0.5) == 0 and Clamp(0, 5)(2.25) == 2.25
    assert ClampHistogram(0, 3)([("a", -2), ("b", 9)]) == (("a", 0), ("b", 3))
    tree = CategoricalSplit(0, (Leaf((1, 2)), ValueSplit(1, 1, Leaf((3, 4)), ThresholdSplit(2, 0.5, Leaf((5, 6)), Leaf((7, 8))))))
    assert structure_of(tree) == (
        "categorical", 0, ("leaf", ("value", 1, 1, "leaf", ("threshold", 2, 0.5, "leaf", "leaf"))),
    )
    probe = Record((1, 0, 0.7), 1)
    assert ProbeLeafCount(probe, 0, 6)(tree) == (structure_of(tree), 6)
    assert ProbeLeafCount(Record((0, 0, 0.0), 0), 0, 6)(tree) == (structure_of(tree), 1)
