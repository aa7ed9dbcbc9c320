"""Directed-rounding interval arithmetic on dyadic numbers, for DPEA's exact subtree sampler.

An :data:`Enclosure` ``(lo, hi, e)`` of a real v >= 0 means
``lo * 2**e <= v <= hi * 2**e`` with integers 0 <= lo <= hi: a pair of
binary floating-point numbers sharing an exponent.  Every operation at
precision ``p`` rounds its result to at most ``p + 1`` significant bits of
``hi``, ``lo`` down and ``hi`` up, so an enclosure stays valid whatever the
precision (claim ``dpea-factorised-sampler``).  The exponent is an
unbounded integer, so nothing overflows or underflows: DPEA's partition
functions range from e^{-thousands} (one leaf of a large impure node) to
10^{tens of thousands} (the public subtree counts of whole trees).

The log-width ln(hi / lo) grows by at most u = 2**(4 - p) per rounding,
adds up over a product, is at most the largest term's (plus one rounding)
over a :func:`total`, and is at most ``EXP_UNITS`` u for :func:`exp_neg`;
:func:`guard_bits` turns those rules into the precision a factorised
sampler needs (the derivation is in proofs/dpea-factorised-sampler.md).
"""

from __future__ import annotations

from typing import Iterable, Tuple

from refdp.errors import InvalidParameterError
from refdp.mechanisms.inversion import exp_neg_fixed

__all__ = [
    "Enclosure",
    "ONE",
    "EXP_UNITS",
    "exact",
    "normalise",
    "multiply",
    "total",
    "product",
    "exp_neg",
    "scaled",
    "guard_bits",
]

Enclosure = Tuple[int, int, int]
"""``(lo, hi, e)``: lo * 2**e <= v <= hi * 2**e."""

ONE: Enclosure = (1, 1, 0)

EXP_UNITS = 2
"""ln(hi / lo) of :func:`exp_neg` at precision p is at most 2 units 2**(4 - p)."""

# The smallest precision the width bounds are derived for (a rounding costs at most 2**(4 - p) below ln 2).
_MIN_PRECISION = 8


def exact(n: int, p: int) -> Enclosure:
    """An integer n >= 0 rounded outwards to ``p`` bits."""
    return normalise(n, n, 0, p)


def normalise(lo: int, hi: int, e: int, p: int) -> Enclosure:
    """(lo, hi, e) with ``hi`` cut to ``p`` bits: ``lo`` rounded down, ``hi`` up (the same real interval or wider)."""
    shift = hi.bit_length() - p
    if shift <= 0:
        return lo, hi, e
    return lo >> shift, -((-hi) >> shift), e + shift


def multiply(a: Enclosure, b: Enclosure, p: int) -> Enclosure:
    """An enclosure of the product (ends are non-negative, so products of ends are the ends)."""
    return normalise(a[0] * b[0], a[1] * b[1], a[2] + b[2], p)


def _down(x: int, shift: int) -> int:
    """floor(x 2**shift)."""
    return x << shift if shift >= 0 else x >> -shift


def _up(x: int, shift: int) -> int:
    """ceil(x 2**shift)."""
    return x << shift if shift >= 0 else -((-x) >> -shift)


def total(terms: Iterable[Enclosure], p: int) -> Enclosure:
    """An enclosure of the sum of ``terms`` (0 for none; a single term unchanged).

    All n terms are brought to one exponent t, the smallest of theirs unless
    that is more than p + 2 + bits(n) below the leading bit of the largest
    term, each end rounded outwards (less than 2**t per term and end, under
    2**-p of the sum in all), summed exactly and rounded once to p bits: one
    rounding for the whole sum, where a pairwise fold would have n - 1.
    """
    items = [term for term in terms if term[1]]
    if len(items) <= 1:
        return items[0] if items else (0, 0, 0)
    top = max(e + hi.bit_length() for _, hi, e in items)
    t = max(min(e for _, _, e in items), top - p - 2 - len(items).bit_length())
    lo = sum(_down(term[0], term[2] - t) for term in items)
    hi = sum(_up(term[1], term[2] - t) for term in items)
    return normalise(lo, hi, t, p)


def product(factors: Iterable[Enclosure], p: int) -> Enclosure:
    """An enclosure of the product of ``factors`` (1 for none): :func:`multiply` folded left to right.

    Written out because it is the inner loop of the factorised sampler (a
    product per attribute per node); the roundings are exactly those of the fold.
    """
    lo, hi, e = 1, 1, 0
    for f_lo, f_hi, f_e in factors:
        lo *= f_lo
        hi *= f_hi
        e += f_e
        shift = hi.bit_length() - p
        if shift > 0:
            lo >>= shift
            hi = -((-hi) >> shift)
            e += shift
    return lo, hi, e


def exp_neg(numerator: int, denominator: int, p: int) -> Enclosure:
    """An enclosure of e^{-x}, x = numerator / denominator >= 0, with ln(hi/lo) <= 2 * 2**(4 - p).

    y = x / 2**s <= 1 is enclosed by :func:`~refdp.mechanisms.inversion.exp_neg_fixed`
    at w = p + s fractional bits (gap <= 2 units on a value >= 2**w / e), and
    squared s times at w bits: e^{-x} = (e^{-y})^(2**s).  Squaring doubles
    the log-width, so the s extra bits absorb the 2**s growth.
    """
    if numerator < 0 or denominator <= 0:
        raise InvalidParameterError(f"exp_neg needs x >= 0, got {numerator}/{denominator}")
    if numerator == 0:
        return ONE
    s = 0
    while numerator > denominator << s:
        s += 1
    width = max(p, _MIN_PRECISION) + s
    lo, hi = exp_neg_fixed(numerator, denominator << s, width)
    result: Enclosure = (lo, hi, -width)
    for _ in range(s):
        result = multiply(result, result, width)
    return normalise(result[0], result[1], result[2], p)


def scaled(a: Enclosure, exponent: int) -> Tuple[int, int]:
    """Integers ``floor(lo 2**(e + exponent)) <= v 2**exponent <= ceil(hi 2**(e + exponent))``."""
    return _down(a[0], a[2] + exponent), _up(a[1], a[2] + exponent)


def guard_bits(max_domain: int, levels: int) -> int:
    """Extra bits G so that a factorised sampler's weights at precision bits + G have ln(hi/lo) <= 2**-(bits + 4).

    With u = 2**(4 - p) a bound on the cost of one rounding
    (proofs/dpea-factorised-sampler.md), a leaf weighs at most
    E(0) = ``EXP_UNITS`` units (:func:`exp_neg`), and a node of k levels at
    most E(k) = M E(k-1) + M + 1 units: a product of at most
    M = ``max_domain`` children (at most one rounding per factor) and one
    :func:`total` over the root attributes (one rounding).  G = bits of
    E(k) + 8 makes E(k) u <= 2**-(bits + 4) at p = bits + G.
    """
    units = EXP_UNITS
    m = max(1, max_domain)
    for _ in range(levels):
        units = m * units + m + 1
    return units.bit_length() + 8
