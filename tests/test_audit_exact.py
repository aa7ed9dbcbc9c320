"""Exact distributions in log space: the exponential mechanism's privacy, exactly, and its miscalibration."""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction
from typing import Callable, Hashable, List, Sequence, Tuple

import pytest

from refdp.audit import (
    LOG_SLACK,
    Distribution,
    SupportMismatch,
    chain,
    covering_window,
    discrete_laplace_distribution,
    exponential_mechanism_distribution,
    log_sum_exp,
    max_log_ratio,
    max_log_ratio_report,
    mixture,
    product,
    push_forward,
    satisfies_epsilon,
)
from refdp.errors import InvalidParameterError, PrivacyError

EPSILONS = [Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(3)]


def _utility_pairs(n_candidates: int, top: int) -> List[Tuple[Tuple[int, ...], Tuple[int, ...]]]:
    """Every utility vector in {0..top}^k with every neighbour that moves each entry by at most 1."""
    pairs = []
    for u in itertools.product(range(top + 1), repeat=n_candidates):
        for step in itertools.product((-1, 0, 1), repeat=n_candidates):
            if any(step):
                pairs.append((u, tuple(a + b for a, b in zip(u, step))))
    return pairs


@pytest.mark.claim("exact-max-log-ratio")
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_exponential_mechanism_is_epsilon_dp_on_every_neighbouring_utility_pair(epsilon: Fraction) -> None:
    """u and u' differ by at most Delta = 1 in every entry: the condition of McSherry-Talwar."""
    worst = 0.0
    pairs = _utility_pairs(3, 3)
    for u, v in pairs:
        p = exponential_mechanism_distribution(u, epsilon, 1)
        q = exponential_mechanism_distribution(v, epsilon, 1)
        report = max_log_ratio_report(p, q)
        assert report.max_log_ratio <= float(epsilon) + LOG_SLACK, (u, v, report)
        worst = max(worst, report.max_log_ratio)
    # Not vacuous: a non-monotone change gets well above epsilon / 2.
    assert worst > 0.6 * float(epsilon), f"{len(pairs)} pairs, largest log-ratio {worst}"


@pytest.mark.claim("exact-max-log-ratio")
def test_exponential_mechanism_with_base_weights_and_larger_sensitivity() -> None:
    epsilon, sensitivity = Fraction(1, 2), Fraction(2)
    weights: List[Fraction] = [Fraction(1), Fraction(3), Fraction(1, 2)]
    for u, v in _utility_pairs(3, 2):
        u2 = [2 * a for a in u]
        v2 = [2 * a for a in v]
        p = exponential_mechanism_distribution(u2, epsilon, sensitivity, weights)
        q = exponential_mechanism_distribution(v2, epsilon, sensitivity, weights)
        assert satisfies_epsilon(p, q, epsilon), (u2, v2, max_log_ratio(p, q))


def _miscalibrated(u: Sequence[int], epsilon: Fraction) -> Distribution:
    # exp(epsilon u / Delta) instead of exp(epsilon u / (2 Delta)): the mechanism run at 2 epsilon.
    return exponential_mechanism_distribution(u, 2 * epsilon, 1)


@pytest.mark.smoke
@pytest.mark.claim("exact-max-log-ratio")
@pytest.mark.parametrize("epsilon", EPSILONS)
def test_wrong_calibration_on_a_non_monotone_change_exceeds_epsilon(epsilon: Fraction) -> None:
    """One candidate's utility falls by Delta while the others rise: ln ratio = eps + ln((e^-eps + k e^eps)/(k+1))."""
    eps = float(epsilon)
    for k in (1, 10, 1000):
        u = (0,) * (k + 1)
        v = (-1,) + (1,) * k
        report = max_log_ratio_report(_miscalibrated(u, epsilon), _miscalibrated(v, epsilon))
        expected = eps + math.log((math.exp(-eps) + k * math.exp(eps)) / (k + 1))
        assert report.outcome == 0 and report.direction == "P/Q"
        assert abs(report.max_log_ratio - expected) < LOG_SLACK, (k, report, expected)
        assert report.max_log_ratio > eps + LOG_SLACK, (k, report)
    # With many rising candidates the loss approaches 2 epsilon.
    assert report.max_log_ratio > 1.99 * eps


@pytest.mark.claim("exact-max-log-ratio")
def test_wrong_calibration_is_harmless_on_monotone_changes() -> None:
    """Why the test above needs a non-monotone change: if all utilities move together, eps/Delta is enough."""
    epsilon = Fraction(1)
    for u, v in _utility_pairs(3, 2):
        steps = {b - a for a, b in zip(u, v)}
        if steps <= {0, 1} or steps <= {0, -1}:
            assert satisfies_epsilon(_miscalibrated(u, epsilon), _miscalibrated(v, epsilon), epsilon)


@pytest.mark.claim("exact-max-log-ratio")
def test_support_mismatch_names_the_outcome() -> None:
    p = Distribution({"a": math.log(0.5), "b": math.log(0.5)})
    q = Distribution({"a": 0.0})
    with pytest.raises(SupportMismatch, match="'b'") as caught:
        max_log_ratio(p, q)
    assert caught.value.outcome == "b" and caught.value.in_first
    assert isinstance(caught.value, PrivacyError)
    with pytest.raises(SupportMismatch, match="second distribution"):
        max_log_ratio(q, p)
    # Zero-weight candidates of the exponential mechanism are outside the support.
    with pytest.raises(SupportMismatch):
        max_log_ratio(
            exponential_mechanism_distribution([1, 2], 1, 1, [1, 1]),
            exponential_mechanism_distribution([1, 2], 1, 1, [1, 0]),
        )


@pytest.mark.claim("exact-max-log-ratio")
@pytest.mark.parametrize("scale", [Fraction(1), Fraction(1, 2), Fraction(7, 3)])
def test_discrete_laplace_window_gives_the_maximum_over_all_integers(scale: Fraction) -> None:
    a, b = 5, 8
    expected = float(Fraction(b - a) / scale)
    for margin in (0, 1, 30):
        window = covering_window(a, b, margin=margin)
        p = discrete_laplace_distribution(a, scale, window)
        q = discrete_laplace_distribution(b, scale, window)
        assert abs(max_log_ratio(p, q) - expected) < LOG_SLACK, (scale, margin)
    # A window strictly between the centres sees less: at most 1/s here.
    p = discrete_laplace_distribution(a, scale, range(6, 8))
    q = discrete_laplace_distribution(b, scale, range(6, 8))
    assert abs(max_log_ratio(p, q) - float(1 / scale)) < LOG_SLACK
    # The full distribution (a wide window) has mass 1 up to its tails.
    wide = discrete_laplace_distribution(0, scale, range(-200, 201))
    assert abs(wide.log_mass()) < 1e-12


def test_product_adds_log_ratios_and_push_forward_never_increases_them() -> None:
    window = covering_window(0, 1, margin=3)
    p1, q1 = (discrete_laplace_distribution(c, 1, window) for c in (0, 1))
    p2, q2 = (exponential_mechanism_distribution(u, 1, 1) for u in ([0, 0, 1], [0, 1, 0]))
    joint_p, joint_q = product(p1, p2), product(q1, q2)
    assert len(joint_p) == len(window) * 3
    assert abs(max_log_ratio(joint_p, joint_q) - (max_log_ratio(p1, q1) + max_log_ratio(p2, q2))) < LOG_SLACK
    summed_p = push_forward(joint_p, lambda o: o[0] + o[1])  # type: ignore[index]
    summed_q = push_forward(joint_q, lambda o: o[0] + o[1])  # type: ignore[index]
    assert max_log_ratio(summed_p, summed_q) <= max_log_ratio(joint_p, joint_q) + LOG_SLACK
    assert abs(summed_p.log_mass() - joint_p.log_mass()) < 1e-12


def test_mixture_and_chain_match_brute_force() -> None:
    first = Distribution({"x": math.log(0.25), "y": math.log(0.75)})
    second = Distribution({"y": math.log(0.5), "z": math.log(0.5)})
    mixed = mixture([(math.log(0.4), first), (math.log(0.6), second)])
    assert abs(mixed.probability("y") - (0.4 * 0.75 + 0.6 * 0.5)) < 1e-15
    assert abs(mixed.log_mass()) < 1e-15

    def kernel(outcome: Hashable) -> Distribution:
        return first if outcome == "y" else second

    joint = chain(second, kernel)
    assert set(joint) == {("y", "x"), ("y", "y"), ("z", "y"), ("z", "z")}
    assert abs(joint.probability(("y", "x")) - 0.5 * 0.25) < 1e-15
    # Sequential composition: a chain of two 1-DP steps is 2-DP.
    for u, v in _utility_pairs(2, 1):
        p = chain(exponential_mechanism_distribution(u, 1, 1), _second_choice(u))
        q = chain(exponential_mechanism_distribution(v, 1, 1), _second_choice(v))
        assert max_log_ratio(p, q) <= 2 + LOG_SLACK


def _second_choice(u: Sequence[int]) -> Callable[[Hashable], Distribution]:
    """A second exponential-mechanism choice whose utilities depend on the first choice."""

    def kernel(first: Hashable) -> Distribution:
        return exponential_mechanism_distribution([x + int(first == i) for i, x in enumerate(u)], 1, 1)

    return kernel


def test_distribution_validation_and_immutability() -> None:
    with pytest.raises(InvalidParameterError, match="above 1"):
        Distribution({"a": 0.1})
    with pytest.raises(InvalidParameterError, match="sum to"):
        Distribution({"a": 0.0, "b": 0.0})
    with pytest.raises(InvalidParameterError, match="at least one"):
        Distribution({"a": -math.inf})
    with pytest.raises(InvalidParameterError, match="float"):
        Distribution({"a": math.nan})
    with pytest.raises(InvalidParameterError, match="twice"):
        Distribution([("a", -1.0), ("a", -1.0)])
    with pytest.raises(InvalidParameterError, match="weights"):
        mixture([(0.0, Distribution({"a": 0.0})), (0.0, Distribution({"a": 0.0}))])
    d = Distribution({"a": math.log(0.5), "b": -math.inf})
    assert d.support == frozenset({"a"}) and d.log_probability("b") == -math.inf
    with pytest.raises(AttributeError):
        setattr(d, "extra", 1)
    assert pickle.loads(pickle.dumps(d)) == d
    source = {"a": math.log(0.5)}
    Distribution(source)
    assert source == {"a": math.log(0.5)}
    assert log_sum_exp([]) == -math.inf
    assert abs(log_sum_exp([-1000.0, -1000.0]) - (-1000.0 + math.log(2))) < 1e-12
    with pytest.raises(InvalidParameterError):
        discrete_laplace_distribution(0, 1, range(0, 10, 2))
    with pytest.raises(InvalidParameterError):
        discrete_laplace_distribution(0, 0, range(3))
