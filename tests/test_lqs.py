"""The certified Li-Qardaji-Su delta: exact floors, certified maximum, exact privacy curves, speed."""

from __future__ import annotations

import decimal
import math
from fractions import Fraction
from typing import Dict, List, Tuple

import pytest

from refdp.errors import InvalidParameterError
from refdp.privacy import LqsResult, largest_beta, lqs_delta, lqs_min_epsilon, smallest_k
from refdp.privacy.lqs import DELTA_FLOOR, exp_bounds, float_up

KS = (5, 10, 20)
BETAS = (Fraction(1, 100), Fraction(1, 10), Fraction(2, 5))
EPSILONS = tuple(Fraction(i, 10) for i in range(1, 10))

_CTX = decimal.Context(prec=60)


def _gamma_decimal(beta: Fraction, epsilon: Fraction) -> decimal.Decimal:
    """gamma to 60 digits, computed independently of refdp (decimal's correctly rounded exp)."""
    eps = _CTX.divide(decimal.Decimal(epsilon.numerator), decimal.Decimal(epsilon.denominator))
    b = _CTX.divide(decimal.Decimal(beta.numerator), decimal.Decimal(beta.denominator))
    return _CTX.subtract(decimal.Decimal(1), _CTX.multiply(_CTX.subtract(decimal.Decimal(1), b), _CTX.exp(-eps)))


def _floor_decimal(gamma: decimal.Decimal, n: int) -> int:
    value = _CTX.multiply(gamma, decimal.Decimal(n))
    fl = int(value.to_integral_value(rounding=decimal.ROUND_FLOOR))
    # 60 digits: gamma n is never within 1e-50 of an integer for these n (checked here).
    assert abs(value - fl) > decimal.Decimal("1e-50") and abs(value - fl - 1) > decimal.Decimal("1e-50")
    return fl


def _exact_tail(threshold: int, n: int, beta: Fraction) -> Fraction:
    """P[Bin(n, beta) > threshold] as an exact rational."""
    a, b = beta.numerator, beta.denominator
    total = sum(math.comb(n, j) * a**j * (b - a) ** (n - j) for j in range(threshold + 1, n + 1))
    return Fraction(total, b**n)


def _reference(k: int, beta: Fraction, epsilon: Fraction, last: int) -> Tuple[Fraction, int, int]:
    """(max tail, argmax, n_m) over every n in n_m..last, from decimal floors and exact tails."""
    gamma = _gamma_decimal(beta, epsilon)
    n_m = int(_CTX.subtract(_CTX.divide(decimal.Decimal(k), gamma), decimal.Decimal(1)).to_integral_value(
        rounding=decimal.ROUND_CEILING
    ))
    best, arg = Fraction(-1), n_m
    for n in range(n_m, last + 1):
        tail = _exact_tail(_floor_decimal(gamma, n), n, beta)
        if tail > best:
            best, arg = tail, n
    return best, arg, n_m


def _table() -> Tuple[Dict[Tuple[int, Fraction, Fraction], LqsResult], List[Tuple[int, Fraction, Fraction]]]:
    results: Dict[Tuple[int, Fraction, Fraction], LqsResult] = {}
    refused: List[Tuple[int, Fraction, Fraction]] = []
    for k in KS:
        for beta in BETAS:
            for eps in EPSILONS:
                try:
                    results[(k, beta, eps)] = lqs_delta(k, beta, eps)
                except InvalidParameterError:
                    refused.append((k, beta, eps))
    return results, refused


@pytest.mark.claim("lqs-delta-certified")
def test_the_81_cells_match_an_exact_reference_and_are_refused_exactly_below_the_theorem() -> None:
    results, refused = _table()
    expected_refused = {
        (k, b, e) for k in KS for b in BETAS for e in EPSILONS if float(e) < -math.log1p(-float(b))
    }
    assert set(refused) == expected_refused
    assert len(refused) == 18 and len(results) == 63
    for (k, beta, eps), result in results.items():
        # Far beyond the stop: the Chernoff bound certifies the rest, the reference checks it.
        exact, arg, n_m = _reference(k, beta, eps, result.stop_n + 40)
        got = Fraction(result.delta)
        assert result.n_m == n_m, (k, beta, eps, result)
        assert exact <= got <= exact * (1 + Fraction(2, 10**9)), (k, beta, eps, float(exact), result)
        assert result.n_at_max == arg, (k, beta, eps, arg, result)


@pytest.mark.claim("lqs-delta-certified")
def test_the_maximum_is_not_always_at_n_m() -> None:
    # The sawtooth: floor(gamma n) stays at 4 for n = 6, 7, 8, so the tail grows until n = 8.
    result = lqs_delta(5, Fraction(2, 5), Fraction(4, 5))
    assert (result.n_m, result.n_at_max) == (6, 8), result
    exact, arg, _ = _reference(5, Fraction(2, 5), Fraction(4, 5), 60)
    assert arg == 8 and exact <= Fraction(result.delta)


@pytest.mark.claim("lqs-delta-certified")
@pytest.mark.parametrize(
    "k, beta, eps",
    [(1, Fraction(1, 2), Fraction(1)), (2, Fraction(1, 3), Fraction(7, 5)), (40, Fraction(1, 4), Fraction(3, 10)),
     (3, Fraction(1, 100), Fraction(1, 50)), (7, Fraction(9, 10), Fraction(3))],
)
def test_no_tail_beyond_the_stop_exceeds_the_result(k: int, beta: Fraction, eps: Fraction) -> None:
    result = lqs_delta(k, beta, eps)
    exact, _, _ = _reference(k, beta, eps, 2 * result.stop_n + 20)
    assert exact <= Fraction(result.delta) <= exact * (1 + Fraction(2, 10**9)), (float(exact), result)
    assert result.tail_bound <= result.delta


@pytest.mark.claim("lqs-delta-certified")
def test_exp_bounds_enclose_e_to_the_x_tightly() -> None:
    for x in (Fraction(0), Fraction(1, 10), Fraction(7, 3), Fraction(123, 7), Fraction(1000)):
        lo, hi = exp_bounds(x, 100)
        # decimal's exp is correctly rounded to 60 digits; the enclosure is about 30 digits wide.
        exact = Fraction(_CTX.exp(_CTX.divide(decimal.Decimal(x.numerator), decimal.Decimal(x.denominator))))
        assert lo <= exact * (1 + Fraction(1, 10**55)), x
        assert exact * (1 - Fraction(1, 10**55)) <= hi, x
        assert hi - lo <= hi * Fraction(1, 2**90), x
    with pytest.raises(InvalidParameterError):
        exp_bounds(Fraction(-1), 64)


@pytest.mark.claim("lqs-delta-certified")
@pytest.mark.parametrize(
    "k, beta, eps, fragment",
    [
        (0, 0.1, 1, "k (the suppression threshold) must be >= 1"),
        (-3, 0.1, 1, "must be >= 1"),
        (2.0, 0.1, 1, "must be an int"),
        (True, 0.1, 1, "must be an int"),
        (5, 0, 1, "strictly between 0 and 1"),
        (5, 1, 1, "strictly between 0 and 1"),
        (5, -0.5, 1, "strictly between 0 and 1"),
        (5, float("nan"), 1, "finite"),
        (5, float("inf"), 1, "finite"),
        (5, "abc", 1, "finite number"),
        (5, 0.1, 0, "must be > 0"),
        (5, 0.1, -1, "must be > 0"),
        (5, 0.1, float("nan"), "finite"),
        (5, 0.1, float("inf"), "finite"),
        (5, 0.1, 1001, "at most 1000"),
        (5, 0.4, 0.5, "-ln(1 - beta) = 0.510826"),
        (5, 0.1, 0.1, "-ln(1 - beta) = 0.105361"),
    ],
)
def test_bad_inputs_are_refused_with_a_clear_message(k: object, beta: object, eps: object, fragment: str) -> None:
    with pytest.raises(InvalidParameterError, match=None) as info:
        lqs_delta(k, beta, eps)  # type: ignore[arg-type]
    assert fragment in str(info.value), str(info.value)


def test_the_theorem_boundary_is_decided_exactly() -> None:
    # -ln(1 - 1/10) = 0.1053605156578263...: 0.10536051565 is below it, 0.10536051566 above.
    with pytest.raises(InvalidParameterError):
        lqs_delta(5, Fraction(1, 10), Fraction("0.10536051565"))
    assert lqs_delta(5, Fraction(1, 10), Fraction("0.10536051566")).delta > 0
    assert lqs_min_epsilon(0.1) >= -math.log1p(-0.1)


@pytest.mark.claim("lqs-delta-certified")
def test_smallest_k_is_the_boundary() -> None:
    for beta, eps, target in ((0.1, 0.5, 1e-6), (0.4, 0.9, 1e-3), (0.01, 0.1, 1e-12), (0.5, 2, 0.5)):
        k = smallest_k(beta, eps, target)
        assert lqs_delta(k, beta, eps).delta <= target
        if k > 1:
            assert lqs_delta(k - 1, beta, eps).delta > target, (beta, eps, target, k)
    with pytest.raises(InvalidParameterError):
        smallest_k(0.1, 0.5, 0)
    with pytest.raises(InvalidParameterError):
        smallest_k(0.4, 0.5, 1e-6)  # below the theorem's epsilon


@pytest.mark.claim("lqs-delta-certified")
def test_largest_beta_meets_the_target_and_the_next_grid_point_does_not() -> None:
    for k, eps, target in ((10, 0.5, 1e-6), (5, 0.9, 0.01), (20, 0.3, 1e-9)):
        beta = largest_beta(k, eps, target)
        assert lqs_delta(k, beta, eps).delta <= target
        assert lqs_delta(k, beta + Fraction(1, 10**6), eps).delta > target, (k, eps, target, beta)
    # delta is not monotone in beta, which is why largest_beta promises only a boundary.
    assert lqs_delta(1, Fraction(21, 2000), 0.05).delta > lqs_delta(1, Fraction(22, 2000), 0.05).delta
    with pytest.raises(InvalidParameterError):
        largest_beta(5, 0.5, 1e-300, denominator=100)


def test_for_trees_is_basic_composition_rounded_up() -> None:
    result = lqs_delta(5, 0.1, 0.5)
    eps, delta = result.for_trees(10)
    assert eps == 5 and Fraction(delta) >= 10 * Fraction(result.delta)
    assert delta == float_up(10 * Fraction(result.delta))
    with pytest.raises(InvalidParameterError):
        result.for_trees(0)


def test_a_tiny_delta_is_reported_as_the_floor() -> None:
    result = lqs_delta(200, 0.01, 5)
    assert result.delta == DELTA_FLOOR


# --- the exact privacy curve of one cell -------------------------------------


def _binomial(n: int, beta: Fraction) -> List[Fraction]:
    return [math.comb(n, j) * beta**j * (1 - beta) ** (n - j) for j in range(n + 1)]


def _released(n: int, beta: Fraction, k: int) -> Dict[int, Fraction]:
    """The exact distribution of the released count of a cell holding n records: C if C >= k else 0."""
    out: Dict[int, Fraction] = {}
    for j, p in enumerate(_binomial(n, beta)):
        key = j if j >= k else 0
        out[key] = out.get(key, Fraction(0)) + p
    return out


def _hockey_stick(p: Dict[int, Fraction], q: Dict[int, Fraction], e_lo: Fraction) -> Fraction:
    """sum_o max(0, p(o) - e_lo q(o)): with e_lo <= e^eps, an upper bound on the true divergence."""
    return sum((max(Fraction(0), p.get(o, Fraction(0)) - e_lo * q.get(o, Fraction(0))) for o in set(p) | set(q)), Fraction(0))


@pytest.mark.claim("lqs-sampling-suppression")
def test_the_exact_privacy_curve_of_one_cell_is_below_lqs_delta() -> None:
    """D has n records in the target's cell, D' adds the target: the worst n's divergence <= lqs_delta.

    n runs over 0..44, past every n_at_max here.  The bound is far from tight
    at small epsilon (46 times the exact curve at k=10, beta=1/10,
    epsilon=1/5) and attained at large epsilon, where both equal beta^k.
    """
    ratio: Dict[Tuple[int, Fraction, Fraction], Fraction] = {}
    for k in (2, 5, 10):
        for beta in (Fraction(1, 10), Fraction(2, 5), Fraction(1, 2)):
            cells = [_released(n, beta, k) for n in range(0, 46)]
            for eps in (Fraction(1, 5), Fraction(2, 5), Fraction(7, 10), Fraction(1), Fraction(3, 2), Fraction(3)):
                if float(eps) < -math.log1p(-float(beta)):
                    continue
                bound = Fraction(lqs_delta(k, beta, eps).delta)
                e_lo = exp_bounds(eps, 80)[0]
                worst = max(
                    max(_hockey_stick(cells[n + 1], cells[n], e_lo), _hockey_stick(cells[n], cells[n + 1], e_lo))
                    for n in range(0, 45)
                )
                assert 0 < worst <= bound, (k, beta, eps, float(worst), float(bound))
                ratio[(k, beta, eps)] = bound / worst
    assert ratio[(10, Fraction(1, 10), Fraction(1, 5))] > 40, float(ratio[(10, Fraction(1, 10), Fraction(1, 5))])
    assert ratio[(5, Fraction(1, 10), Fraction(3))] < 1 + Fraction(2, 10**9), float(ratio[(5, Fraction(1, 10), Fraction(3))])
