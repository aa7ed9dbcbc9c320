"""The exponential mechanism: exact privacy ratios, numerics, both samplers, the ledger."""

from __future__ import annotations

import decimal
import itertools
import math
import random
from fractions import Fraction
from typing import Any, Dict, List, Optional, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import refdp.mechanisms.exponential as exponential_module
from refdp.errors import InvalidParameterError
from refdp.mechanisms import (
    Exact,
    exponential_log_probabilities,
    exponential_mechanism,
    exponential_probabilities,
    exponential_sample_exact,
    sample_index,
)
from refdp.mechanisms.inversion import (
    FIRST_BITS,
    FLOAT_ERROR,
    FLOAT_FLOOR,
    START_BITS,
    certified_first,
    exp_fixed,
    exp_neg_fixed,
    exp_neg_float,
    sample_by_inversion,
)
from refdp.mechanisms.ratios import Ratios
from refdp.privacy import Ledger, Relation
from refdp.stats import dkw_bound, dkw_power_sample_size, ks_statistic

FALSE_ALARM = 1e-6
MISS = 1e-3
WRONG = Fraction(13, 10)

# Log-probabilities are computed in floats: each has an absolute error of a
# few ulps of |epsilon u / (2 Delta)| + log m, below 1e-11 for the ranges
# drawn here (|epsilon u / (2 Delta)| <= 2e4).  The slack 1e-9 covers that
# with room, and is far below what a real violation costs: a missing
# factor 2 exceeds epsilon by order epsilon (see the tight example).
SLACK = 1e-9


class _Script:
    """A source with scripted ``random()`` values that counts its calls."""

    def __init__(self, values: Sequence[float] = (), randranges: Sequence[int] = ()) -> None:
        self.values = list(values)
        self.randranges = list(randranges)
        self.calls = 0

    def random(self) -> float:
        self.calls += 1
        return self.values.pop(0)

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        assert stop is None and step == 1
        value = self.randranges.pop(0)
        assert 0 <= value < start
        return value

    def getrandbits(self, k: int) -> int:
        raise AssertionError("not used")


def _max_log_ratio(p: Sequence[float], q: Sequence[float]) -> float:
    worst = 0.0
    for a, b in zip(p, q):
        if a == -math.inf or b == -math.inf:
            assert a == b, "a candidate is possible under one dataset only"
            continue
        worst = max(worst, abs(a - b))
    return worst


# --- privacy, exactly --------------------------------------------------------------


@st.composite
def _neighbours(
    draw: st.DrawFn,
) -> Tuple[List[float], List[float], float, float, Optional[List[float]]]:
    m = draw(st.integers(1, 8))
    utility = st.floats(-100, 100, allow_nan=False)
    u = draw(st.lists(utility, min_size=m, max_size=m))
    sensitivity = draw(st.floats(0.05, 10))
    epsilon = draw(st.floats(1e-3, 10))
    shifts = draw(st.lists(st.sampled_from([-1.0, 1.0, 0.0]) | st.floats(-1, 1), min_size=m, max_size=m))
    u_prime = [x + s * sensitivity for x, s in zip(u, shifts)]
    weights = draw(
        st.none()
        | st.lists(st.sampled_from([0.0]) | st.floats(1e-3, 1e3), min_size=m, max_size=m).filter(
            lambda w: any(x > 0 for x in w)
        )
    )
    return u, u_prime, sensitivity, epsilon, weights


@pytest.mark.smoke
@pytest.mark.claim("exponential-mechanism")
@given(case=_neighbours())
@settings(max_examples=300)
def test_log_probability_ratio_of_neighbours_is_at_most_epsilon(
    case: Tuple[List[float], List[float], float, float, Optional[List[float]]],
) -> None:
    u, u_prime, sensitivity, epsilon, weights = case
    # Rounding may push a shifted utility an ulp past Delta: measure the real change.
    change = max(abs(a - b) for a, b in zip(u, u_prime))
    p = exponential_log_probabilities(u, epsilon=epsilon, sensitivity=sensitivity, base_weights=weights)
    q = exponential_log_probabilities(u_prime, epsilon=epsilon, sensitivity=sensitivity, base_weights=weights)
    eps = float(Fraction(repr(epsilon)))
    bound = eps * max(change, sensitivity) / sensitivity
    assert _max_log_ratio(p, q) <= bound + SLACK


@pytest.mark.claim("exponential-mechanism")
def test_the_factor_two_is_tight_and_needed() -> None:
    m, epsilon = 1000, 1.0
    u = [0.0] * m
    u_prime = [1.0] + [-1.0] * (m - 1)
    ratio = _max_log_ratio(
        exponential_log_probabilities(u, epsilon=epsilon, sensitivity=1),
        exponential_log_probabilities(u_prime, epsilon=epsilon, sensitivity=1),
    )
    expected = math.log(m * math.exp(0.5) / (math.exp(0.5) + (m - 1) * math.exp(-0.5)))
    assert ratio == pytest.approx(expected, rel=1e-12)
    assert 0.99 * epsilon < ratio <= epsilon, ratio
    # Dropping the factor 2 (exp(epsilon u / Delta)) is the same as doubling epsilon:
    dropped = _max_log_ratio(
        exponential_log_probabilities(u, epsilon=2 * epsilon, sensitivity=1),
        exponential_log_probabilities(u_prime, epsilon=2 * epsilon, sensitivity=1),
    )
    assert dropped > 1.9 * epsilon, dropped


# --- numerics -----------------------------------------------------------------------


def _reference_log_probabilities(
    u: Sequence[float], epsilon: float, sensitivity: float, weights: Sequence[float]
) -> List[float]:
    """The same quantity in 50-digit decimal arithmetic, from the exact float inputs."""
    with decimal.localcontext() as context:
        context.prec = 50
        c = decimal.Decimal(repr(epsilon)) / (2 * decimal.Decimal(repr(sensitivity)))
        a = [
            decimal.Decimal(w).ln() + c * decimal.Decimal(x)
            for x, w in zip(u, weights)
            if w > 0
        ]
        top = max(a)
        log_sum = sum(((ar - top).exp() for ar in a), decimal.Decimal(0)).ln()
        out = iter(float(ar - top - log_sum) for ar in a)
        return [next(out) if w > 0 else -math.inf for w in weights]


@pytest.mark.claim("exponential-mechanism")
@given(
    u=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=10),
    epsilon=st.floats(1e-6, 1e3),
    sensitivity=st.floats(1e-2, 1e2),
    seed=st.integers(0, 10**6),
)
@settings(max_examples=100)
def test_log_probabilities_match_a_50_digit_reference(
    u: List[float], epsilon: float, sensitivity: float, seed: int
) -> None:
    rng = random.Random(seed)
    weights = [rng.choice([0.0, 0.5, 1.0, 3.25]) for _ in u]
    weights[rng.randrange(len(u))] = 1.0
    got = exponential_log_probabilities(u, epsilon=epsilon, sensitivity=sensitivity, base_weights=weights)
    want = _reference_log_probabilities(u, epsilon, sensitivity, weights)
    for g, w in zip(got, want):
        if w == -math.inf:
            assert g == -math.inf
        else:
            # Absolute error in log space: ulps of the largest exponent involved.
            scale = max(1.0, epsilon * max(abs(x) for x in u) / sensitivity)
            assert abs(g - w) <= 1e-14 * scale, (g, w)


@pytest.mark.smoke
@pytest.mark.claim("exponential-mechanism")
@pytest.mark.parametrize("epsilon", [1e-6, 1e-3, 1.0, 1e3])
@pytest.mark.parametrize(
    "utilities",
    [
        [1e300, -1e300, 0.0, 1e300],
        [1.7e308, -1.7e308, 0.0],
        [-1e300, -1e300 + 1e285],
        [5e-324, 0.0, -5e-324],
        [1e15, 1e15 + 2.0, 1e15 - 2.0],
    ],
)
def test_probabilities_are_stable_for_extreme_inputs(epsilon: float, utilities: List[float]) -> None:
    for sensitivity in (1e-3, 1.0, 1e6):
        p = exponential_probabilities(utilities, epsilon=epsilon, sensitivity=sensitivity)
        assert all(math.isfinite(x) and 0.0 <= x <= 1.0 for x in p), p
        assert math.fsum(p) == pytest.approx(1.0, abs=1e-12)
        best = max(range(len(utilities)), key=lambda r: utilities[r])
        assert p[best] == max(p)
    # The limits: huge epsilon picks the maximisers, tiny epsilon is uniform.
    assert exponential_probabilities([1e300, -1e300, 1e300], epsilon=1e3, sensitivity=1) == [0.5, 0.0, 0.5]
    tiny = exponential_probabilities([0.0, 1.0, 2.0], epsilon=1e-6, sensitivity=1)
    assert tiny == pytest.approx([1 / 3] * 3, rel=1e-6)


def test_zero_weight_candidates_are_impossible() -> None:
    logp = exponential_log_probabilities([5.0, 1e300, 0.0], epsilon=1, sensitivity=1, base_weights=[1, 0, 3])
    assert logp[1] == -math.inf
    assert exponential_probabilities([5.0, 1e300], epsilon=1, sensitivity=1, base_weights=[2.0, 0.0]) == [1.0, 0.0]


@pytest.mark.parametrize(
    "kwargs",
    [
        {"utilities": [], "epsilon": 1, "sensitivity": 1},
        {"utilities": [1.0, math.nan], "epsilon": 1, "sensitivity": 1},
        {"utilities": [1.0, math.inf], "epsilon": 1, "sensitivity": 1},
        {"utilities": [1.0], "epsilon": 0, "sensitivity": 1},
        {"utilities": [1.0], "epsilon": -1, "sensitivity": 1},
        {"utilities": [1.0], "epsilon": math.nan, "sensitivity": 1},
        {"utilities": [1.0], "epsilon": math.inf, "sensitivity": 1},
        {"utilities": [1.0], "epsilon": 1, "sensitivity": 0},
        {"utilities": [1.0], "epsilon": 1, "sensitivity": -2.0},
        {"utilities": [1.0], "epsilon": 1, "sensitivity": math.inf},
        {"utilities": [1.0, 2.0], "epsilon": 1, "sensitivity": 1, "base_weights": [1.0]},
        {"utilities": [1.0, 2.0], "epsilon": 1, "sensitivity": 1, "base_weights": [0.0, 0.0]},
        {"utilities": [1.0, 2.0], "epsilon": 1, "sensitivity": 1, "base_weights": [1.0, -1.0]},
    ],
)
def test_bad_arguments_raise_and_change_nothing(kwargs: Dict[str, Any]) -> None:
    before = repr(kwargs)
    with pytest.raises(InvalidParameterError):
        exponential_log_probabilities(**kwargs)
    assert repr(kwargs) == before


# --- the float sampler -------------------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("exponential-mechanism-float-sampler")
def test_sample_index_uses_one_draw_and_skips_impossible_indices() -> None:
    probabilities = [0.0, 0.5, 0.0, 0.5, 0.0]
    for u, expected in [(0.0, 1), (0.4999, 1), (0.5, 3), (1 - 2.0**-53, 3)]:
        rng = _Script([u])
        assert sample_index(probabilities, rng) == expected and rng.calls == 1
    # Partial sums that round below 1: U above them returns the last possible index.
    short = [0.1] * 10
    running = 0.0
    for p in short:  # not sum(): from Python 3.12 it compensates rounding
        running += p
    assert math.fsum(short) == 1.0 and running < 1.0
    assert sample_index(short + [0.0], _Script([1 - 2.0**-53])) == 9
    for bad in ([0.5, 0.6], [1.5, -0.5], [math.nan, 1.0], []):
        with pytest.raises(InvalidParameterError):
            sample_index(bad, _Script([0.5]))


@pytest.mark.claim("exponential-mechanism-float-sampler")
def test_float_sampler_counterexample_infinite_ratio() -> None:
    # Utilities (0, -a) and the neighbour (0, -a + 1), epsilon = Delta = 1.
    a = next(
        i / 100
        for i in range(7000, 8000)
        if exponential_probabilities([0.0, -i / 100], epsilon=1, sensitivity=1)[0] == 1.0
        and exponential_probabilities([0.0, -i / 100 + 1], epsilon=1, sensitivity=1)[0] < 1.0
    )
    p = exponential_probabilities([0.0, -a], epsilon=1, sensitivity=1)
    q = exponential_probabilities([0.0, -a + 1], epsilon=1, sensitivity=1)
    assert 0 < p[1] < 2.0**-53 and q[0] == 1 - 2.0**-52
    # The largest U that random() returns picks candidate 1 only under the neighbour:
    # P[1 | u] = 0 (every U < 1 = S_0) while P[1 | u'] = 2^-52.
    assert sample_index(p, _Script([1 - 2.0**-53])) == 0
    assert sample_index(q, _Script([1 - 2.0**-53])) == 1
    assert sample_index(q, _Script([1 - 2.0**-52])) == 1
    assert sample_index(q, _Script([1 - 3 * 2.0**-53])) == 0


# --- the exact sampler, exactly --------------------------------------------------------------


class _Bits:
    """A source of ``getrandbits`` that records every word it hands out."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.words: List[int] = []

    def getrandbits(self, k: int) -> int:
        assert k == 32
        word = self.rng.getrandbits(32)
        self.words.append(word)
        return word

    def random(self) -> float:
        raise AssertionError("the exact sampler must not draw floats")

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        raise AssertionError("the exact sampler draws bits only")

    def interval(self) -> Tuple[Fraction, Fraction]:
        """The dyadic interval [a / 2**b, (a + 1) / 2**b) of the uniform the words spell."""
        a = 0
        for word in self.words:
            a = (a << 32) | word
        b = 32 * len(self.words)
        return Fraction(a, 1 << b), Fraction(a + 1, 1 << b)


def _index_of(u: Fraction, weights: Sequence[Fraction]) -> int:
    """The smallest r with u * T < S_r, in exact arithmetic."""
    total = sum(weights)
    running = Fraction(0)
    for r, w in enumerate(weights):
        running += w
        if u * total < running:
            return r
    raise AssertionError("u >= 1")


@pytest.mark.smoke
@pytest.mark.claim("exact-inversion-sampler")
@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.fractions(min_value=0, max_value=50, max_denominator=1000), min_size=1, max_size=12).filter(any),
    st.integers(0, 2**32),
    st.randoms(use_true_random=False),
)
def test_inversion_returns_the_index_of_every_uniform_it_is_consistent_with(
    weights: List[Fraction], seed: int, slack: random.Random
) -> None:
    # Enclosures loosened at random (but still valid): the returned index must be the exact index
    # of both ends of the dyadic interval the drawn bits spell, so of every uniform inside it.
    def enclosures(bits: int) -> Tuple[List[int], List[int]]:
        scaled = [w * (1 << bits) for w in weights]
        lower = [max(0, math.floor(x) - slack.randrange(3)) if x else 0 for x in scaled]
        upper = [math.ceil(x) + slack.randrange(3) if x else 0 for x in scaled]
        return lower, upper

    source = _Bits(seed)
    r = sample_by_inversion(enclosures, source)
    low, high = source.interval()
    assert weights[r] > 0
    assert _index_of(low, weights) == r
    assert _index_of(high - Fraction(1, 1 << 400), weights) == r


@pytest.mark.claim("exact-inversion-sampler")
@settings(max_examples=200, deadline=None)
@given(
    st.fractions(min_value=0, max_value=80, max_denominator=10**6),
    st.sampled_from([8, 32, 64, 128, 256]),
)
def test_exp_neg_fixed_encloses_e_to_the_minus_x(x: Fraction, bits: int) -> None:
    _check_enclosure(x, bits)


def _check_enclosure(x: Fraction, bits: int) -> None:
    lo, hi = exp_neg_fixed(x.numerator, x.denominator, bits)
    assert 0 <= lo <= hi <= lo + 2
    context = decimal.Context(prec=bits // 3 + 60)
    # context.divide of -n, not unary minus: that would round to the thread's default 28 digits.
    exact = context.exp(context.divide(decimal.Decimal(-x.numerator), decimal.Decimal(x.denominator)))
    scaled = context.multiply(exact, decimal.Decimal(1 << bits))
    # The 60 extra digits make the reference's own error far below the integer steps compared.
    assert decimal.Decimal(lo) <= scaled <= decimal.Decimal(hi)


@pytest.mark.claim("exact-inversion-sampler")
@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=0, max_value=200),
    st.integers(min_value=0, max_value=255),
    st.one_of(st.just(Fraction(0)), st.fractions(min_value=0, max_value=Fraction(1, 256), max_denominator=2**50)),
    st.sampled_from([0, 1, 2, 8, 64, 100, 256]),
)
def test_exp_neg_fixed_encloses_at_the_split_points(a: int, k: int, rest: Fraction, bits: int) -> None:
    # exp_neg_fixed splits x into a whole part, k / 256 and a rest below 1/256: x on and near the
    # split points (rest 0, or up to the next point) must be enclosed as anywhere else.
    x = a + Fraction(k, 256) + min(rest, Fraction(255, 256 * 256))
    _check_enclosure(x, bits)


def _exp_fixed_by_the_formulas(numerator: int, denominator: int, width: int) -> Tuple[int, int]:
    # The proof's terms, each series summed on its own: t_j = floor(t_{j-1} y_lo / (j 2^w)) until 0;
    # upper terms rounded up until one is <= 1 (j >= 2), added twice; then s directed squarings.
    s = 0
    while Fraction(numerator, denominator) / 2**s > Fraction(1, 2):
        s += 1
    one = 1 << width
    y_lo = (numerator * one) // (denominator * 2**s)
    lo = term = one
    j = 1
    while term:
        term = term * y_lo // (j * one)
        lo += term
        j += 1
    hi = term = one
    j = 1
    while True:
        term = -(-term * (y_lo + 1) // (j * one))
        hi += term
        if term <= 1 and j >= 2:
            hi += term
            break
        j += 1
    for _ in range(s):
        lo, hi = lo * lo // one, -(-hi * hi // one)
    return lo, hi


@pytest.mark.claim("exact-inversion-sampler")
@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=0, max_value=10**30),
    st.integers(min_value=1, max_value=10**30),
    st.integers(min_value=1, max_value=300),
)
def test_exp_fixed_gives_the_integers_of_the_proofs_two_series(numerator: int, denominator: int, width: int) -> None:
    # exp_fixed runs both series in one loop with shifts; its integers (what a model's replay rests
    # on) must be those of the formulas, each series summed separately.
    if numerator > 100 * denominator:
        numerator %= 100 * denominator
    assert exp_fixed(numerator, denominator, width) == _exp_fixed_by_the_formulas(numerator, denominator, width)


@pytest.mark.claim("exact-inversion-sampler")
def test_exp_fixed_ends_are_exact_at_zero_and_refuse_negative_x() -> None:
    assert exp_neg_fixed(0, 1, 64) == (1 << 64, 1 << 64)
    assert exp_neg_fixed(10**6, 1, 64) == (0, 1)
    for bad in ((-1, 2), (1, 0)):
        with pytest.raises(InvalidParameterError):
            exp_neg_fixed(*bad, 64)
        with pytest.raises(InvalidParameterError):
            exp_fixed(*bad, 64)


@pytest.mark.smoke
@pytest.mark.claim("exponential-mechanism-exact-sampler", "exact-inversion-sampler")
@pytest.mark.parametrize(
    "utilities, weights",
    [
        ([Fraction(0), Fraction(1), Fraction(2), Fraction(-3, 2)], None),
        ([Fraction(5), Fraction(100), Fraction(1, 3), Fraction(2)], [Fraction(1, 2), 0, 3, Fraction(5, 7)]),
        ([Fraction(-7, 2), Fraction(-7, 2)], [2, 1]),
    ],
)
@pytest.mark.parametrize("epsilon, sensitivity", [(Fraction(1), Fraction(1)), (Fraction(3, 10), Fraction(2))])
def test_exact_sampler_encloses_the_mechanisms_weights(
    utilities: List[Fraction],
    weights: Optional[List[Exact]],
    epsilon: Fraction,
    sensitivity: Fraction,
) -> None:
    # The enclosures handed to the inversion sampler contain w_r exp(epsilon u_r / (2 Delta_u)) up to
    # one common factor, at every precision: normalised, they are the mechanism's probabilities.
    plan = exponential_module._plan_exact(utilities, epsilon, sensitivity, weights)
    expected = exponential_probabilities(
        [float(u) for u in utilities],
        epsilon=epsilon,
        sensitivity=sensitivity,
        base_weights=None if weights is None else [float(w) for w in weights],
    )
    for bits in (64, 128):
        lower, upper = plan.enclosures(bits)
        assert all(lo <= hi <= lo + 2 * max(plan.scaled_weights) for lo, hi in zip(lower, upper))
        for lo, hi, p in zip(lower, upper, expected):
            assert lo / sum(upper) <= p * (1 + 1e-12) and p <= hi / sum(lower) * (1 + 1e-12)
    rng = _Bits(7)
    exponential_sample_exact(utilities, epsilon=epsilon, sensitivity=sensitivity, rng=rng, base_weights=weights)
    assert len(rng.words) == 3


@pytest.mark.claim("exponential-mechanism-exact-sampler", "exact-inversion-sampler")
@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.integers(min_value=-10**6, max_value=10**6),
            st.integers(min_value=1, max_value=10**4),
            st.integers(min_value=1, max_value=50),
            st.integers(min_value=0, max_value=3),
        ),
        min_size=1,
        max_size=12,
    ).filter(lambda rows: any(w > 0 for *_, w in rows)),
    st.sampled_from([(Fraction(1), Fraction(1)), (Fraction(3, 10), Fraction(2)), (Fraction(7), Fraction(1, 3))]),
    st.integers(min_value=0, max_value=2**32),
)
def test_exact_sampler_takes_unreduced_pairs_as_their_values(
    rows: List[Tuple[int, int, int, int]], calibration: Tuple[Fraction, Fraction], seed: int
) -> None:
    # thesis-tree gives the sampler its utilities as unreduced pairs (Ratios): they must be sampled
    # as their values, with the very enclosures and draws of the same values given as Fractions.
    epsilon, sensitivity = calibration
    ratios = Ratios(tuple((n * k, d * k) for n, d, k, _ in rows))
    fractions = [Fraction(n, d) for n, d, _, _ in rows]
    weights = [w for *_, w in rows]
    assert list(ratios) == fractions and [ratios[i] for i in range(len(rows))] == fractions
    as_pairs = exponential_module._plan_exact(ratios, epsilon, sensitivity, weights)
    as_fractions = exponential_module._plan_exact(fractions, epsilon, sensitivity, weights)
    for bits in (64, 128):
        assert as_pairs.enclosures(bits) == as_fractions.enclosures(bits)
    first, second = random.Random(seed), random.Random(seed)
    assert exponential_sample_exact(
        ratios, epsilon=epsilon, sensitivity=sensitivity, rng=first, base_weights=weights
    ) == exponential_sample_exact(fractions, epsilon=epsilon, sensitivity=sensitivity, rng=second, base_weights=weights)
    assert first.getstate() == second.getstate()


def test_ratios_refuse_what_is_not_a_pair_of_ints_with_a_positive_denominator() -> None:
    for bad in (((1, 0),), ((1, -2),), ((1.0, 2),), ((True, 1),), ((1, 2, 3),)):
        with pytest.raises(InvalidParameterError):
            Ratios(bad)  # type: ignore[arg-type]
    assert Ratios(((2, 4), (3, 1)))[:] == [Fraction(1, 2), 3] and len(Ratios(())) == 0


def test_exact_sampler_refuses_floats_and_bad_weights() -> None:
    rng = random.Random(1)
    for kwargs in (
        {"utilities": [0.5], "epsilon": Fraction(1), "sensitivity": Fraction(1)},
        {"utilities": [Fraction(1)], "epsilon": 1.0, "sensitivity": Fraction(1)},
        {"utilities": [Fraction(1)], "epsilon": Fraction(1), "sensitivity": 0},
        {"utilities": [], "epsilon": Fraction(1), "sensitivity": Fraction(1)},
        {"utilities": [Fraction(1)], "epsilon": Fraction(1), "sensitivity": 1, "base_weights": [0]},
        {"utilities": [Fraction(1)], "epsilon": Fraction(1), "sensitivity": 1, "base_weights": [1, 1]},
    ):
        with pytest.raises(InvalidParameterError):
            exponential_sample_exact(rng=rng, **kwargs)  # type: ignore[arg-type]
    # A zero-weight candidate is never proposed, however high its utility.
    assert {
        exponential_sample_exact([Fraction(100), Fraction(0)], epsilon=1, sensitivity=1, rng=rng, base_weights=[0, 1])
        for _ in range(20)
    } == {1}


# --- both samplers, statistically -----------------------------------------------------------

_UTILITIES = [0, 2, 4, 6, 8, 10]


def _index_cdf(probabilities: Sequence[float]) -> List[float]:
    out, running = [], 0.0
    for p in probabilities:
        running += p
        out.append(running)
    return out


def _check_sampler(exact: bool, seed: int) -> None:
    right_cdf = _index_cdf(exponential_probabilities(_UTILITIES, epsilon=1, sensitivity=1))
    wrong_cdf = _index_cdf(exponential_probabilities(_UTILITIES, epsilon=WRONG, sensitivity=1))
    distance = max(abs(a - b) for a, b in zip(right_cdf, wrong_cdf))
    n = dkw_power_sample_size(distance, FALSE_ALARM, MISS)
    bound = dkw_bound(n, FALSE_ALARM)
    assert bound + dkw_bound(n, MISS) < distance

    def cdf(x: float) -> float:
        k = math.floor(x)
        return 0.0 if k < 0 else right_cdf[min(k, len(right_cdf) - 1)]

    def draw(epsilon: Fraction, rng: random.Random) -> int:
        if exact:
            return exponential_sample_exact(
                [Fraction(u) for u in _UTILITIES], epsilon=epsilon, sensitivity=1, rng=rng
            )
        return sample_index(exponential_probabilities(_UTILITIES, epsilon=epsilon, sensitivity=1), rng)

    rng = random.Random(seed)
    right = ks_statistic([draw(Fraction(1), rng) for _ in range(n)], cdf)
    assert right <= bound, f"exact={exact} seed={seed} n={n}: KS {right:.4f} > {bound:.4f}"
    rng = random.Random(seed + 1)
    off = ks_statistic([draw(WRONG, rng) for _ in range(n)], cdf)
    assert off > bound, f"1.3 epsilon not rejected: exact={exact} seed={seed + 1} n={n}: KS {off:.4f}"


@pytest.mark.claim("exponential-mechanism-float-sampler", "dkw-goodness-of-fit")
def test_float_sampler_fits_dkw() -> None:
    _check_sampler(exact=False, seed=7000)


@pytest.mark.claim("exponential-mechanism-exact-sampler", "dkw-goodness-of-fit")
def test_exact_sampler_fits_dkw() -> None:
    _check_sampler(exact=True, seed=7100)


# --- the ledger entry point ----------------------------------------------------------------------


@pytest.mark.smoke
@pytest.mark.claim("exponential-mechanism")
@pytest.mark.parametrize("exact", [False, True])
def test_exponential_mechanism_records_one_charge(exact: bool) -> None:
    ledger = Ledger(Relation.SUBSTITUTE)
    utilities = [0.5, 2.0, -1.0]
    r = exponential_mechanism(
        utilities,
        epsilon=0.1,
        sensitivity=2,
        rng=random.Random(3),
        ledger=ledger,
        label="split",
        partition=("tree=0", "root"),
        base_weights=[1.0, 2.0, 0.0],
        exact=exact,
        note="gini",
    )
    assert r in (0, 1) and utilities == [0.5, 2.0, -1.0]
    (charge,) = ledger.charges
    assert charge.epsilon == Fraction(1, 10) and charge.sensitivity == Fraction(2)
    assert charge.mechanism == "exponential" and charge.partition == ("tree=0", "root")
    sampler = (
        ("exponential-mechanism-exact-sampler", "exact-inversion-sampler")
        if exact
        else ("exponential-mechanism-float-sampler",)
    )
    assert charge.claims == ("exponential-mechanism", *sampler) and charge.note == "gini"
    assert ledger.total() == (Fraction(1, 10), Fraction(0))


def test_default_sampler_replays_as_one_draw() -> None:
    utilities = [1.0, 3.0, 2.0, 0.0]
    for seed in range(20):
        got = exponential_mechanism(
            utilities, epsilon=1, sensitivity=1, rng=random.Random(seed), ledger=Ledger(), label="x"
        )
        probabilities = exponential_probabilities(utilities, epsilon=1, sensitivity=1)
        assert got == sample_index(probabilities, random.Random(seed))


@pytest.mark.parametrize(
    "epsilon, utilities, partition",
    [
        (0, [1.0], ()),
        (-1, [1.0], ()),
        (math.nan, [1.0], ()),
        (math.inf, [1.0], ()),
        (1, [math.nan], ()),
        (1, [], ()),
        (1, [1.0], ("",)),
    ],
)
@pytest.mark.parametrize("exact", [False, True])
def test_bad_calls_record_nothing_and_draw_nothing(
    epsilon: float, utilities: List[float], partition: Tuple[str, ...], exact: bool
) -> None:
    ledger = Ledger()
    rng = random.Random(9)
    state = rng.getstate()
    copy = list(utilities)
    with pytest.raises(InvalidParameterError):
        exponential_mechanism(
            utilities, epsilon=epsilon, sensitivity=1, rng=rng, ledger=ledger, label="x",
            partition=partition, exact=exact,
        )
    assert ledger.charges == () and rng.getstate() == state
    assert utilities == copy or (math.isnan(copy[0]) and math.isnan(utilities[0]))


@pytest.mark.claim("exact-inversion-sampler")
@settings(max_examples=400, deadline=None)
@given(st.one_of(
    st.fractions(min_value=0, max_value=50, max_denominator=10**9),
    st.integers(0, 46).flatmap(lambda a: st.integers(0, 255).flatmap(  # at and near the split points
        lambda k: st.sampled_from([Fraction(0), Fraction(1, 10**15), Fraction(1, 256) - Fraction(1, 10**15)]).map(
            lambda rest: a + Fraction(k, 256) + rest))),
))
def test_exp_neg_float_is_within_its_proven_bound(x: Fraction) -> None:
    estimate = exp_neg_float(x.numerator, x.denominator)
    assert estimate is not None
    lo, hi = exp_neg_fixed(x.numerator, x.denominator, 400)
    # e^{-x} lies in [lo, hi] / 2**400; the estimate must be within the bound of every point there.
    low, high = Fraction(lo, 1 << 400), Fraction(hi, 1 << 400)
    assert Fraction(estimate) >= low - FLOAT_ERROR * high - FLOAT_FLOOR
    assert Fraction(estimate) <= high + FLOAT_ERROR * high + FLOAT_FLOOR


def _plan_cases() -> st.SearchStrategy[Tuple[List[Fraction], Optional[List[int]], Fraction, Fraction]]:
    utilities = st.lists(st.fractions(min_value=-40, max_value=40, max_denominator=50), min_size=1, max_size=30)
    return utilities.flatmap(lambda u: st.tuples(
        st.just(u),
        st.one_of(st.none(), st.lists(st.integers(0, 300), min_size=len(u), max_size=len(u)).filter(any)),
        st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(8), Fraction(200)]),
        st.sampled_from([Fraction(1), Fraction(2), Fraction(1, 3)]),
    ))


@pytest.mark.claim("exponential-mechanism-exact-sampler", "exact-inversion-sampler")
@settings(max_examples=300, deadline=None)
@given(_plan_cases(), st.integers(0, 2**32))
def test_the_float_certified_sampler_returns_the_integer_samplers_index_and_draws(
    case: Tuple[List[Fraction], Optional[List[int]], Fraction, Fraction], seed: int
) -> None:
    utilities, weights, epsilon, sensitivity = case
    plan = exponential_module._plan_exact(utilities, epsilon, sensitivity, weights)
    first, second = random.Random(seed), random.Random(seed)
    assert plan.sample(first) == sample_by_inversion(plan.enclosures, second)
    assert first.getstate() == second.getstate()


@pytest.mark.claim("exact-inversion-sampler")
@settings(max_examples=300, deadline=None)
@given(_plan_cases(), st.data())
def test_a_certified_index_is_the_one_the_integer_check_returns_even_at_a_boundary(
    case: Tuple[List[Fraction], Optional[List[int]], Fraction, Fraction], data: st.DataObject
) -> None:
    # Uniforms drawn at and near the boundaries between candidates: whatever certified_first returns
    # must be the integer sampler's first answer; None is allowed (where the floats cannot tell).
    utilities, weights, epsilon, sensitivity = case
    plan = exponential_module._plan_exact(utilities, epsilon, sensitivity, weights)
    lower, upper = plan.enclosures(START_BITS)
    sums = list(itertools.accumulate(lower))
    boundary = data.draw(st.sampled_from(sums))
    # at every distance from the boundary, from the last bit of U (the floats cannot tell) to far (they can)
    offset = data.draw(st.integers(-1, 1)) << data.draw(st.integers(0, FIRST_BITS - 2))
    drawn = (boundary << FIRST_BITS) // sums[-1] + offset
    drawn = min(max(drawn, 0), (1 << FIRST_BITS) - 1)
    found = [exp_neg_float(n, d) for n, d in plan.gammas] + [0.0]
    estimates = [found[s] for s in plan.slots]
    certified = certified_first(estimates, plan.scaled_weights, 2, drawn)  # type: ignore[arg-type]
    replay = _Words(drawn)
    integer = sample_by_inversion(plan.enclosures, replay)
    if certified is not None:
        assert certified == integer and replay.used == 3


class _Words:
    """A source whose first three words spell ``first``; later words are random."""

    def __init__(self, first: int) -> None:
        self.first = [(first >> (32 * k)) & 0xFFFFFFFF for k in (2, 1, 0)]
        self.more = random.Random(first)
        self.used = 0

    def getrandbits(self, k: int) -> int:
        assert k == 32
        self.used += 1
        return self.first[self.used - 1] if self.used <= 3 else self.more.getrandbits(32)

    def random(self) -> float:
        raise AssertionError("the exact sampler draws words only")

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        raise AssertionError("the exact sampler draws words only")


@pytest.mark.claim("exact-inversion-sampler")
def test_certification_declines_what_it_cannot_bound() -> None:
    assert certified_first([], [], 2, 0) is None
    assert certified_first([1.0], [1 << 54], 2, 0) is None  # a unit that is no exact float
    assert certified_first([0.0, 0.0], [1, 1], 2, 0) is None  # nothing to sample by the floats
    # U right at the boundary between two equal weights: the floats cannot tell, the integers decide.
    assert certified_first([1.0, 1.0], [1, 1], 2, 1 << (FIRST_BITS - 1)) is None
