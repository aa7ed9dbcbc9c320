"""Exact sampling from weights known to any precision: inversion with a lazily drawn uniform.

A finite distribution P[r] = omega_r / sum_j omega_j is sampled exactly when
every weight omega_r >= 0 can be enclosed to any precision: a function
``weights(bits)`` returns integers ``lower[r] <= omega_r * 2**bits * K <=
upper[r]`` (K > 0 any constant common to all r, so only ratios matter) whose
gaps shrink as ``bits`` grows.  :func:`sample_by_inversion` draws the bits
of a uniform U in [0, 1) a few at a time and returns the smallest r with
U * T < S_r (S_r the partial sums of the weights, T their total) as soon as
every U' consistent with the bits drawn so far gives the same r; otherwise
it draws more bits and asks for tighter enclosures.  The result is the index
of the infinitely precise U, so its law is exactly omega / T (claim
``exact-inversion-sampler``).  No float is involved in it.

:func:`exp_neg_fixed` encloses e^{-x} for rational x >= 0 in integer
fixed point, so the weights w_r exp(-gamma_r) of the exponential mechanism
with rational utilities and base weights can be enclosed (and, as products
and sums of such enclosures, the partition functions of DPEA's subtree
sampler).

Most draws are far from every boundary between two candidates, where a
crude estimate of the weights already tells the index.  So the exponential
mechanism first draws the uniform's first :data:`FIRST_BITS` bits, exactly
the ones :func:`sample_by_inversion` draws before its first check, and
:func:`certified_first` proves from float estimates of the weights
(:func:`exp_neg_float`, with proven error bounds) that the integer
enclosures would return a given index at that first check; only when it
cannot does the integer computation run, continuing from the bits drawn
(``drawn=``).  The index and the bits drawn are the same either way; the
integers are computed in one call in about a billion.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from fractions import Fraction
from functools import lru_cache
from itertools import accumulate
from typing import Callable, Optional, Sequence, Tuple

from refdp.errors import InvalidParameterError
from refdp.rng import RandomSource

__all__ = [
    "Enclosures",
    "WeightEnclosure",
    "exp_fixed",
    "exp_neg_fixed",
    "exp_neg_float",
    "sample_by_inversion",
    "certified_first",
    "draw_first",
    "START_BITS",
    "FIRST_BITS",
    "FLOAT_ERROR",
    "FLOAT_FLOOR",
]

Enclosures = Tuple[Sequence[int], Sequence[int]]
"""(lower, upper): integer enclosures of every weight at one precision."""

WeightEnclosure = Callable[[int], Enclosures]
"""``weights(bits)``: enclosures of every weight times ``2**bits`` (times a constant common to all weights)."""

START_BITS = 64
"""The first precision asked of a :data:`WeightEnclosure`; each refinement doubles it."""

_MAX_BITS = 1 << 16  # far beyond any tie a correct enclosure can leave undecided (probability ~2**-65000)
_U_MARGIN = 32  # the uniform is drawn this many bits finer than the weights' precision

FIRST_BITS = START_BITS + _U_MARGIN
"""The bits of the uniform :func:`sample_by_inversion` draws before its first check (three 32-bit words)."""

FLOAT_ERROR = Fraction(1, 2**44)
"""|exp_neg_float(x) - e^{-x}| <= FLOAT_ERROR e^{-x} + FLOAT_FLOOR (claim ``exact-inversion-sampler``)."""

FLOAT_FLOOR = Fraction(1, 2**66)
"""The absolute part of the bound: ``exp_neg_float`` is 0.0 from x = 46 on, where e^{-x} < 2**-66."""

_FLOAT_CUT = 46
_TABLE_BITS = 140  # e^{-a} for a <= 46 is above 2**-67: enclosed at 2**140, it is known to 2**-72 relative

_STEP_BITS = 8  # exp_neg_fixed splits x into a whole part, k / 2**8 and a rest below 2**-8

# ln 2 < 6932/10000: e^{-x} < 2**-(bits + 1) whenever x > (bits + 1) * 6932/10000.
_LN2_UP = (6932, 10000)


def exp_fixed(numerator: int, denominator: int, width: int) -> Tuple[int, int]:
    """Integers ``lo <= e^x * 2**width <= hi`` for x = numerator / denominator >= 0.

    y = x / 2**s <= 1/2; the Taylor series of e^y summed in fixed point with
    every term rounded down (lower end; the omitted tail only lowers it) or up
    (upper end, plus a bound on the omitted tail: after a term t_j with
    j >= 2 every further ratio y / (i + 1) is below 1/5, so the rest is at
    most t_j); then squared s times with the same directed rounding.  Every
    step is monotone on positive numbers, so each end stays on its side.
    The relative gap is below (3 J + 2) 2**-(width - s), J < width the number of series terms.
    """
    if numerator < 0 or denominator <= 0:
        raise InvalidParameterError(f"exp_fixed needs x >= 0, got {numerator}/{denominator}")
    s = 0
    while 2 * numerator > denominator << s:
        s += 1
    y_lo = (numerator << width) // (denominator << s)
    y_hi = y_lo + 1
    # Both series in one loop.  floor(floor(t y / 2**width) / j) = floor(t y / (j 2**width)), and
    # likewise for ceilings: the division by j * 2**width is a shift and a small division.  The
    # lower terms stay at or below the upper ones and y_lo < 2**width, so when the upper series
    # stops (a term <= 1) every further lower term is 0: the lower end is complete too.
    lo = hi = t_lo = t_hi = 1 << width
    j = 1
    while True:
        t_lo = (t_lo * y_lo >> width) // j
        t_hi = -((-(t_hi * y_hi) >> width) // j)
        lo += t_lo
        hi += t_hi
        if t_hi <= 1 and j >= 2:
            hi += t_hi
            break
        j += 1
    for _ in range(s):
        lo = (lo * lo) >> width
        hi = -((-hi * hi) >> width)
    return lo, hi


def _exp_neg_by_series(numerator: int, denominator: int, bits: int) -> Tuple[int, int]:
    # 2**(bits + w) divided by the ends of exp_fixed at width w, rounded outwards; e^0 exactly.
    if numerator == 0:
        return 1 << bits, 1 << bits
    s = max(0, (2 * numerator // denominator).bit_length())
    width = bits + 2 * s + 24
    e_lo, e_hi = exp_fixed(numerator, denominator, width)
    scale = 1 << (bits + width)
    return scale // e_hi, -(-scale // e_lo)


@lru_cache(maxsize=4096)
def _exp_neg_table(numerator: int, denominator: int, width: int) -> Tuple[int, int]:
    # e^{-a} and e^{-k / 2**_STEP_BITS}: few distinct values, asked for again by every call.
    return _exp_neg_by_series(numerator, denominator, width)


def exp_neg_fixed(numerator: int, denominator: int, bits: int) -> Tuple[int, int]:
    """Integers ``lo <= e^{-x} * 2**bits <= hi`` for x = numerator / denominator >= 0, ``hi - lo <= 2``.

    x = 0 is exact; x above (bits + 1) ln 2 gives (0, 1) without computing
    anything (e^{-x} * 2**bits < 1/2).  Otherwise x = a + k / 2**8 + r with
    a and k whole and 0 <= r < 2**-8, and e^{-x} is the product of three
    enclosures at width W = bits + 32: e^{-a} and e^{-k/256} (cached: few
    distinct values) and e^{-r}, each 2**(W + w') divided by the ends of
    :func:`exp_fixed` at a width w', rounded outwards; the product of the
    lower ends is rounded down and that of the upper ends up.  A small r
    needs few terms of the series and no squaring.
    """
    if numerator < 0 or denominator <= 0:
        raise InvalidParameterError(f"exp_neg_fixed needs x >= 0, got {numerator}/{denominator}")
    if numerator == 0:
        return 1 << bits, 1 << bits
    if numerator * _LN2_UP[1] > (bits + 1) * _LN2_UP[0] * denominator:
        return 0, 1
    width = bits + 32
    a, f = divmod(numerator, denominator)
    k, r = divmod(f << _STEP_BITS, denominator)
    a_lo, a_hi = _exp_neg_table(a, 1, width)
    k_lo, k_hi = _exp_neg_table(k, 1 << _STEP_BITS, width)
    r_lo, r_hi = _exp_neg_by_series(r, denominator << _STEP_BITS, width)
    shift = 3 * width - bits
    return (a_lo * k_lo * r_lo) >> shift, -(-(a_hi * k_hi * r_hi) >> shift)


@lru_cache(maxsize=None)
def _exp_neg_nearest(numerator: int, denominator: int) -> float:
    # A float within 2**-52 relative of e^{-numerator/denominator} (a table entry), from the enclosure at
    # _TABLE_BITS; the conversion is checked, not assumed correctly rounded.
    lo, hi = exp_neg_fixed(numerator, denominator, _TABLE_BITS)
    value = (lo + hi) / (1 << (_TABLE_BITS + 1))
    p, q = value.as_integer_ratio()
    # |value - e^{-x}| <= |value - mid| + 1 / 2**TABLE_BITS, and e^{-x} >= lo / 2**TABLE_BITS.
    if (abs(2 * p * (1 << _TABLE_BITS) - (lo + hi) * q) + 2 * q) << 52 > 2 * lo * q:
        raise RuntimeError("a table entry of exp_neg_float is not within 2**-52 of e^{-x}; please report it")
    return value


_SIXTH = 1.0 / 6.0
_TWENTY_FOURTH = 1.0 / 24.0


def exp_neg_float(numerator: int, denominator: int) -> Optional[float]:
    """A float within ``FLOAT_ERROR`` relative and ``FLOAT_FLOOR`` absolute of e^{-x}, x = numerator / denominator >= 0.

    x is taken as the float quotient (checked to lie within 2**-52 of x;
    None otherwise, which a correctly rounded division never gives), split
    exactly as a + i / 256 + r with a and i whole and 0 <= r < 1/256, and
    e^{-x} = e^{-a} e^{-i/256} e^{-r}: two table entries (each within
    2**-52, :func:`exp_neg_fixed` converted and checked once) times the
    series 1 - r + r^2/2 - r^3/6 + r^4/24 (its error below r^5 / 120 <
    2**-46.9).  From x = 46 on it is 0.0.  The error analysis is in the
    claim ``exact-inversion-sampler``.

    >>> exp_neg_float(0, 1), exp_neg_float(1, 1), exp_neg_float(50, 1)
    (1.0, 0.36787944117144233, 0.0)
    """
    if numerator < 0 or denominator <= 0:
        raise InvalidParameterError(f"exp_neg_float needs x >= 0, got {numerator}/{denominator}")
    if numerator == 0:
        return 1.0
    if numerator >= _FLOAT_CUT * denominator:
        return 0.0
    x = numerator / denominator
    p, q = x.as_integer_ratio()
    if abs(p * denominator - numerator * q) << 52 > numerator * q:
        return None
    a = int(x)  # floor, as x >= 0
    t = (x - a) * 256.0  # x - a is exact (Sterbenz, or a = 0), and so is the scaling by 256
    i = int(t)
    r = (t - i) / 256.0  # exact likewise; x = a + i / 256 + r in real numbers
    series = 1.0 - r * (1.0 - r * (0.5 - r * (_SIXTH - r * _TWENTY_FOURTH)))
    return _exp_neg_nearest(a, 1) * _exp_neg_nearest(i, 256) * series


def draw_first(rng: RandomSource) -> int:
    """The first :data:`FIRST_BITS` bits of the uniform, drawn as :func:`sample_by_inversion` draws them."""
    a, b = 0, 0
    while b < FIRST_BITS:
        a = (a << 32) | rng.getrandbits(32)
        b += 32
    return a


def certified_first(
    estimates: Sequence[float], units: Sequence[int], gap: int, drawn: int, slack: Fraction = FLOAT_ERROR,
    floor: Fraction = FLOAT_FLOOR,
) -> Optional[int]:
    """The index :func:`sample_by_inversion` returns at its first check with the uniform's first bits
    ``drawn``, when float estimates prove it; else None.

    The contract: the caller's enclosures at :data:`START_BITS` are
    ``lower[j] >= 2**START_BITS omega_j - gap units[j]`` and ``upper[j] <=
    2**START_BITS omega_j + gap units[j]`` (for the exponential mechanism,
    units are the integer base weights and gap is 2), and each estimate is
    ``units[j]`` times a float within ``slack`` relative and ``floor``
    absolute of omega_j / units[j].  The float partial sums of the
    estimates, bounded with the summation's rounding, bound the partial
    sums of the enclosures; the index is returned when those bounds alone
    pass both tests of :func:`sample_by_inversion` (checked in exact
    rational arithmetic), so the integer computation would return it too
    (claim ``exact-inversion-sampler``).

    >>> certified_first([1.0, 3.0], [1, 1], 2, 1 << (FIRST_BITS - 1))   # U = 1/2: the second of weights 1 and 3
    1
    """
    m = len(estimates)
    if m == 0 or m != len(units) or max(units) > 1 << 53 or min(units) < 0:
        return None
    sums = list(accumulate(map(float.__mul__, estimates, units)))
    total = sums[-1]
    if not total > 0 or total == math.inf:
        return None
    r = bisect_right(sums, total * (drawn / (1 << FIRST_BITS)))
    if r >= m:
        return None
    counts = list(accumulate(units))
    # Each product rounds by 2**-53 and the sums by at most 2 m 2**-53 of the running sum (m 2**-53 <= 1/2):
    # S_r, the real partial sum, lies within delta relative and kappa P_r absolute of the float one.
    delta = slack + Fraction(m + 2, 1 << 51)
    kappa = 2 * floor
    scale = 1 << START_BITS

    def low(j: int) -> Fraction:  # a lower bound of the enclosures' partial sum L_j
        return scale * (Fraction(sums[j]) - kappa * counts[j]) / (1 + delta) - gap * counts[j]

    def high(j: int) -> Fraction:  # an upper bound of H_j
        return scale * (Fraction(sums[j]) + kappa * counts[j]) / (1 - delta) + gap * counts[j]

    top = 1 << FIRST_BITS
    if low(r) < Fraction(drawn + 1, top) * high(m - 1) + 1:
        return None
    if r > 0 and high(r - 1) > Fraction(drawn, top) * low(m - 1) - 1:
        return None
    return r


def sample_by_inversion(weights: WeightEnclosure, rng: RandomSource, drawn: Optional[int] = None) -> int:
    """The index r with probability exactly omega_r / sum_j omega_j, from enclosures of the omega.

    U in [0, 1) is known as the dyadic interval [a / 2**b, (a + 1) / 2**b)
    of the bits drawn so far (``rng.getrandbits(32)`` at a time, kept at
    least 32 bits finer than the enclosures).  With partial sums of the
    lower ends L_r and of the upper ends H_r (so L_r <= S_r <= H_r, and
    L_last <= T <= H_last), r is certain when (a + 1) H_last <= 2**b L_r
    (every U' gives U' T < S_r) and a L_last >= 2**b H_{r-1} (every U'
    gives U' T >= S_{r-1}).  Otherwise the precision doubles and more bits
    are drawn.  Weights of 0 (both ends 0) are never returned.  ``drawn``:
    the uniform's first :data:`FIRST_BITS` bits, already drawn by
    :func:`draw_first` (the same words the sampler would draw itself).
    """
    bits = START_BITS
    a, b = (0, 0) if drawn is None else (drawn, FIRST_BITS)
    while bits <= _MAX_BITS:
        lower, upper = weights(bits)
        if len(lower) != len(upper) or not lower:
            raise InvalidParameterError("the weight enclosures must be two non-empty lists of equal length")
        low_sums = list(accumulate(lower))
        high_sums = list(accumulate(upper))
        t_lo, t_hi = low_sums[-1], high_sums[-1]
        if t_hi <= 0:
            raise InvalidParameterError("every weight is 0: there is nothing to sample")
        while b < bits + _U_MARGIN:
            a = (a << 32) | rng.getrandbits(32)
            b += 32
        if t_lo > 0:
            ceiling = -((-(a + 1) * t_hi) >> b)
            r = bisect_left(low_sums, ceiling)
            if r < len(low_sums) and (r == 0 or high_sums[r - 1] <= (a * t_lo) >> b):
                return r
        bits *= 2
    raise RuntimeError(
        "sample_by_inversion could not separate the candidates at 65536 bits; the weight enclosures do "
        "not shrink (a bug in the caller's enclosures), please report it"
    )
