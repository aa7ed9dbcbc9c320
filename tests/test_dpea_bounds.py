"""DPEA's exact sampler: the interval arithmetic encloses, the enclosures are tight enough, draws are exact.

The reference values are exact rationals (products and sums of dyadic
numbers) or decimals 200 digits long (e^{-x}, and the partition functions
of small selections summed over the explicit list), far finer than any
precision used here, so "lo <= v <= hi" is checked against a value whose own
error cannot reach an end.
"""

from __future__ import annotations

import decimal
import math
import random
from fractions import Fraction
from typing import Dict, List, Optional, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms.dpea_bounds import (
    EXP_UNITS,
    Enclosure,
    exact,
    exp_neg,
    guard_bits,
    multiply,
    normalise,
    product,
    scaled,
    total,
)
from refdp.algorithms.dpea_subtrees import (
    FactorisedSampler,
    Shape,
    Subtree,
    domain_sizes,
    leaf_exponent,
    split_rows,
)
from refdp.engine import TrainingView
from refdp.data import Dataset, load_builtin
from refdp.mechanisms.inversion import START_BITS
from test_dpea_exact import ROWS, SCHEMA, _all_shapes, dataset

DIGITS = 200


def _value(a: Enclosure) -> Tuple[Fraction, Fraction]:
    lo, hi, e = a
    scale = Fraction(2) ** e
    return lo * scale, hi * scale


def _dyadic() -> st.SearchStrategy[Enclosure]:
    """Valid enclosures: lo <= hi, any exponent."""
    return st.tuples(st.integers(0, 2**90), st.integers(0, 2**20), st.integers(-300, 300)).map(
        lambda t: (t[0], t[0] + t[1], t[2])
    )


@pytest.mark.claim("dpea-factorised-sampler")
@given(_dyadic(), _dyadic(), st.integers(1, 120))
def test_operations_round_outwards(a: Enclosure, b: Enclosure, p: int) -> None:
    (a_lo, a_hi), (b_lo, b_hi) = _value(a), _value(b)
    for result, lo, hi in (
        (multiply(a, b, p), a_lo * b_lo, a_hi * b_hi),
        (total([a, b], p), a_lo + b_lo, a_hi + b_hi),
        (total([a, b, a], p), 2 * a_lo + b_lo, 2 * a_hi + b_hi),
        (product([a, b], p), a_lo * b_lo, a_hi * b_hi),
        (normalise(a[0], a[1], a[2], p), a_lo, a_hi),
    ):
        r_lo, r_hi = _value(result)
        assert r_lo <= lo and hi <= r_hi, (a, b, p, result)
        assert result[1].bit_length() <= max(p + 1, a[1].bit_length() + b[1].bit_length() + 1)
    n = a[0]
    n_lo, n_hi = _value(exact(n, p))
    assert n_lo <= n <= n_hi
    for exponent in (-400, -7, 0, 9):
        s_lo, s_hi = scaled(a, exponent)
        assert s_lo <= a_lo * Fraction(2) ** exponent and a_hi * Fraction(2) ** exponent <= s_hi


@pytest.mark.claim("dpea-factorised-sampler")
@given(st.lists(_dyadic(), max_size=20), st.integers(1, 120))
def test_sums_and_products_of_many_terms_round_outwards(terms: List[Enclosure], p: int) -> None:
    ends = [_value(term) for term in terms]
    s_lo, s_hi = _value(total(terms, p))
    assert s_lo <= sum(lo for lo, _ in ends) and sum(hi for _, hi in ends) <= s_hi
    p_lo, p_hi = _value(product(terms, p))
    low, high = Fraction(1), Fraction(1)
    for lo, hi in ends:
        low, high = low * lo, high * hi
    assert p_lo <= low and high <= p_hi


def _decimal_exp_neg(x: Fraction) -> decimal.Decimal:
    with decimal.localcontext() as context:
        context.prec, context.Emin, context.Emax = DIGITS, -10**9, 10**9
        return (-(decimal.Decimal(x.numerator) / decimal.Decimal(x.denominator))).exp()


@pytest.mark.claim("dpea-factorised-sampler", "exact-inversion-sampler")
@settings(max_examples=200)
@given(st.integers(0, 10**7), st.integers(1, 10**4), st.integers(1, 160))
def test_exp_neg_encloses_and_is_as_tight_as_claimed(numerator: int, denominator: int, p: int) -> None:
    x = Fraction(numerator, denominator)
    lo, hi, e = exp_neg(numerator, denominator, p)
    with decimal.localcontext() as context:
        context.prec, context.Emin, context.Emax = DIGITS, -10**9, 10**9
        true = _decimal_exp_neg(x) / decimal.Decimal(2) ** e  # e^{-x} in units of 2**e
        assert decimal.Decimal(lo) <= true <= decimal.Decimal(hi), (x, p)
    if p >= 8 and numerator:
        # (hi - lo) / lo <= 2 * 2**(4 - p), in integers, implies ln(hi / lo) <= 2 units.
        assert (hi - lo) << (p - 4) <= EXP_UNITS * lo, (x, p, lo, hi)


# --- the sampler's enclosures against the explicit list -------------------------------------------


def _exact_quality(view: TrainingView, rows: Sequence[int], shape: Shape) -> Fraction:
    """q'(st) as an exact rational."""
    if shape is None:
        counts = [0] * view.n_classes
        for i in rows:
            counts[view.labels[i]] += 1
        numerator, size = leaf_exponent(counts)
        return -Fraction(numerator, size)
    buckets = split_rows(view, rows, shape.attribute, len(shape.children))
    return sum((_exact_quality(view, b, c) for b, c in zip(buckets, shape.children)), Fraction(0))


def _true_weights(data: Dataset, levels: int, c: Fraction) -> List[decimal.Decimal]:
    """W_a = sum over the candidates rooted at a of exp(c q'(st)), from the explicit list, 200 digits."""
    view = TrainingView.of(data)
    attributes = tuple(range(data.schema.n_attributes))
    sizes = domain_sizes(data.schema)
    weights: Dict[int, decimal.Decimal] = {a: decimal.Decimal(0) for a in attributes}
    with decimal.localcontext() as context:
        context.prec, context.Emin, context.Emax = DIGITS, -10**9, 10**9
        for shape in _all_shapes(sizes, attributes, levels):
            assert isinstance(shape, Subtree)
            weights[shape.attribute] += _decimal_exp_neg(-c * _exact_quality(view, list(view.rows), shape))
    return [weights[a] for a in attributes]


CASES = [(rows, levels, eps) for rows in (ROWS, ROWS * 5, ROWS[:2], [(0, 0, 0, 1)] * 3)
         for levels in (1, 2, 3) for eps in (Fraction(1, 10), Fraction(2), Fraction(20))]


@pytest.mark.claim("dpea-factorised-sampler", "exact-inversion-sampler")
@pytest.mark.parametrize("rows, levels, eps", CASES)
def test_root_weights_enclose_the_explicit_sums(rows: List[Tuple[int, ...]], levels: int, eps: Fraction) -> None:
    """lower <= K W_a 2**bits <= upper for one K = 2**-E at every precision, and upper - lower <= 2."""
    data = dataset(SCHEMA, rows)
    view = TrainingView.of(data)
    c = eps / 4
    true = _true_weights(data, levels, c)
    sampler = FactorisedSampler(view, list(view.rows), (0, 1, 2), levels, c)
    weights = sampler.root_weights()
    calls = {bits: weights(bits) for bits in (START_BITS, 1, 2, 8, 2 * START_BITS, 4 * START_BITS)}
    top = max(range(len(true)), key=lambda a: true[a])
    with decimal.localcontext() as context:
        context.prec, context.Emin, context.Emax = DIGITS, -10**9, 10**9
        # E from the finest call (its ends agree to ~250 bits); K must be exactly 2**-E at every precision.
        lower, upper = calls[4 * START_BITS]
        e = round(math.log2(true[top]) + 4 * START_BITS - math.log2(lower[top] + upper[top]) + 1)
        for bits, (lower, upper) in calls.items():
            for lo, hi, w in zip(lower, upper, true):
                scaled_w = w * decimal.Decimal(2) ** (bits - e)
                assert lo <= scaled_w <= hi, (bits, e, lo, hi, scaled_w)
                assert hi - lo <= 2, (bits, lo, hi)


@pytest.mark.claim("dpea-factorised-sampler", "exact-inversion-sampler")
@pytest.mark.parametrize("levels, precisions", [(4, (START_BITS,)), (2, (START_BITS, 2 * START_BITS, 8))])
def test_guard_bits_keep_deep_weights_tight(levels: int, precisions: Tuple[int, ...]) -> None:
    """On vote (16 attributes, 3 values each), ln(hi/lo) of the root weights is below 2**-(bits + 4) as derived.

    Four levels is a whole tree of depth 4 (products of up to 81 leaves); measured, the widths sit five
    to seven bits below the bound (the derivation counts every rounding at its worst).
    """
    data = load_builtin("vote")
    view = TrainingView.of(data)
    sampler = FactorisedSampler(view, list(view.rows), tuple(range(16)), levels, Fraction(1, 12))
    assert sampler.guard == guard_bits(3, levels)
    for bits in precisions:
        node = sampler._node(list(view.rows), frozenset(), tuple(range(16)), levels, sampler.precision(bits))
        for lo, hi, _ in node.weights:
            # (hi - lo) / lo <= 2**-(bits + 4) implies ln(hi / lo) <= 2**-(bits + 4), in integers.
            assert (hi - lo) << (bits + 4) <= lo, (bits, lo, hi)


# --- a draw the first enclosures cannot decide ---------------------------------------------------


class _Spelled:
    """A source of ``getrandbits(32)`` that spells given leading bits of U, then repeats one filler word."""

    def __init__(self, prefix: int, words: int, filler: int) -> None:
        self.queue = [(prefix >> (32 * (words - 1 - i))) & 0xFFFFFFFF for i in range(words)]
        self.filler = filler
        self.drawn = 0

    def getrandbits(self, k: int) -> int:
        assert k == 32
        self.drawn += 1
        return self.queue.pop(0) if self.queue else self.filler

    def random(self) -> float:
        raise AssertionError("the exact sampler must not draw floats")

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        raise AssertionError("the exact sampler draws bits only")


@pytest.mark.claim("dpea-factorised-sampler", "exact-inversion-sampler")
def test_a_uniform_on_the_boundary_is_decided_by_finer_enclosures() -> None:
    """U's first 96 bits equal those of W_0 / Z: the 64-bit enclosures cannot decide, 128 bits must, exactly."""
    data = dataset(SCHEMA, ROWS)
    view = TrainingView.of(data)
    c = Fraction(2, 4)
    true = _true_weights(data, 1, c)
    with decimal.localcontext() as context:
        context.prec, context.Emin, context.Emax = DIGITS, -10**9, 10**9
        boundary = true[0] / sum(true)
        prefix = int(boundary * decimal.Decimal(2) ** 96)  # floor: U starts just below W_0 / Z
    for filler, expected in ((0, 0), (0xFFFFFFFF, 1)):
        rng = _Spelled(prefix, 3, filler)
        sampler = FactorisedSampler(view, list(view.rows), (0, 1, 2), 1, c)
        shape = sampler.sample(rng)
        assert isinstance(shape, Subtree) and shape.attribute == expected, (filler, shape)
        assert rng.drawn > 3, "the first precision decided a draw it cannot separate"


@pytest.mark.claim("dpea-factorised-sampler")
def test_the_sampler_refuses_an_inexact_coefficient() -> None:
    view = TrainingView.of(dataset(SCHEMA, ROWS))
    for bad in (0.5, 0, Fraction(-1), True):
        with pytest.raises(Exception, match="exact rational"):
            FactorisedSampler(view, list(view.rows), (0, 1, 2), 1, bad)  # type: ignore[arg-type]


@pytest.mark.claim("dpea-factorised-sampler")
def test_sampler_draws_bits_only_and_replays() -> None:
    view = TrainingView.of(dataset(SCHEMA, ROWS * 2))
    sampler = FactorisedSampler(view, list(view.rows), (0, 1, 2), 2, Fraction(1, 2))
    first = [sampler.sample(random.Random(5)) for _ in range(3)]
    assert first == [sampler.sample(random.Random(5)) for _ in range(3)]
