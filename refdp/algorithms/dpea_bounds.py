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
adds up over a product, is at most the largest term's (plus a rounding)
over a sum, and is at most ``EXP_UNITS`` u for :func:`exp_neg`;
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
    "add",
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


def add(a: Enclosure, b: Enclosure, p: int) -> Enclosure:
    """An enclosure of the sum.

    Both terms are brought to one exponent t: the smaller of theirs when
    that keeps the sum within p + 2 bits of its leading bit (exact), else
    the leading bit's position minus p + 2 (the term of smaller exponent
    rounded outwards, off by less than 2**t on each end).
    """
    if not b[1]:
        return a
    if not a[1]:
        return b
    top = max(a[2] + a[1].bit_length(), b[2] + b[1].bit_length())
    t = max(min(a[2], b[2]), top - p - 2)
    lo = _down(a[0], a[2] - t) + _down(b[0], b[2] - t)
    hi = _up(a[1], a[2] - t) + _up(b[1], b[2] - t)
    return normalise(lo, hi, t, p)


def _down(x: int, shift: int) -> int:
    """floor(x 2**shift)."""
    return x << shift if shift >= 0 else x >> -shift


def _up(x: int, shift: int) -> int:
    """ceil(x 2**shift)."""
    return x << shift if shift >= 0 else -((-x) >> -shift)


def total(terms: Iterable[Enclosure], p: int) -> Enclosure:
    """An enclosure of the sum of ``terms`` (0 for none), folded left to right."""
    result: Enclosure = (0, 0, 0)
    for term in terms:
        result = add(result, term, p)
    return result


def product(factors: Iterable[Enclosure], p: int) -> Enclosure:
    """An enclosure of the product of ``factors`` (1 for none), folded left to right."""
    result = ONE
    for factor in factors:
        result = multiply(result, factor, p)
    return result


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


def guard_bits(max_domain: int, n_attributes: int, levels: int) -> int:
    """Extra bits G so that a factorised sampler's weights at precision bits + G have ln(hi/lo) <= 2**-(bits + 4).

    With u = 2**(4 - p) a bound on the cost of one rounding
    (proofs/dpea-factorised-sampler.md), a leaf weighs at most
    E(0) = ``EXP_UNITS`` units (:func:`exp_neg`), and a node of k levels at
    most E(k) = M E(k-1) + (M - 1) + (|A| - 1) units: a product of
    M = ``max_domain`` children (M - 1 roundings) and a sum over at most
    |A| = ``n_attributes`` roots (|A| - 1 roundings).  G = bits of E(k) + 8
    makes E(k) u <= 2**-(bits + 4) at p = bits + G.
    """
    units = EXP_UNITS
    for _ in range(levels):
        units = max(1, max_domain) * units + max(0, max_domain - 1) + max(0, n_attributes - 1)
    return units.bit_length() + 8
