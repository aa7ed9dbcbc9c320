"""The quality functions' arithmetic on plain count tables, written once.

:mod:`refdp.scoring.quality` validates a table and calls these; the
learners call them directly on the tables their counting engine built (a
node of a large data set scores hundreds of candidates).  Two forms:

* exact (:func:`exact_score_function`): the max operator as an int and the
  unnormalised Gini as a Fraction, for the exact exponential mechanism;
* float (:func:`score_function`): all three qualities in floating point,
  in a fixed order of operations that an engine may reproduce column-wise
  (``refdp.fast.counts``) -- the float sampler, the non-private baseline
  and the planted float-threshold fault use them.

Information gain has logarithms and only the float form.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Dict, Sequence, Union

from refdp.errors import InvalidParameterError

__all__ = ["ExactScore", "FloatScore", "exact_score_function", "score_function", "xlogx"]

ExactScore = Callable[[Sequence[Sequence[int]]], Union[int, Fraction]]
"""A quality function with an exact (int or Fraction) value."""

FloatScore = Callable[[Sequence[Sequence[int]]], float]
"""A quality function computed in floating point."""


def max_operator_exact(table: Sequence[Sequence[int]]) -> int:
    """``sum_j max_c tau_{j,c}``."""
    return sum(max(row) for row in table)


def gini_unnormalised_exact(table: Sequence[Sequence[int]]) -> Fraction:
    """``-sum_j (tau_j - sum_c tau_{j,c}^2 / tau_j)`` over non-empty cells, exactly."""
    # = sum_j S_j / n_j - n, with S_j the sum of squared counts of cell j; the sum of fractions is
    # accumulated over one growing denominator and reduced once.
    numerator, denominator, size = 0, 1, 0
    for row in table:
        n = sum(row)
        if n:
            size += n
            numerator = numerator * n + sum(c * c for c in row) * denominator
            denominator *= n
    return Fraction(numerator - size * denominator, denominator)


def _max_operator(table: Sequence[Sequence[int]]) -> float:
    return float(sum(max(row) for row in table))


def _gini_unnormalised(table: Sequence[Sequence[int]]) -> float:
    total = 0.0
    for row in table:
        size = sum(row)
        if size:
            total += size - sum(c * c for c in row) / size
    return -total


def xlogx(c: int) -> float:
    """``c log2 c``, and 0.0 for ``c = 0`` (its limit)."""
    return c * math.log2(c) if c > 0 else 0.0


def information_gain_float(table: Sequence[Sequence[int]]) -> float:
    """``sum_j sum_c tau_{j,c} log2(tau_{j,c} / tau_j)`` in floating point."""
    # = sum over rows of (sum_c c log2 c) - size log2 size, added left to right in this order, so
    # that an engine can add the same floats column-wise (from a table of c log2 c).  The
    # difference loses a few ulps of size log2 size, about 1e-8 for sizes up to 10**6: far below
    # the sensitivity (more than log2 N).
    total = 0.0
    for row in table:
        total += sum(map(xlogx, row)) - xlogx(sum(row))
    return total


_EXACT: Dict[str, ExactScore] = {"max": max_operator_exact, "gini": gini_unnormalised_exact}

_FLOAT: Dict[str, FloatScore] = {
    "max": _max_operator,
    "gini": _gini_unnormalised,
    "info-gain": information_gain_float,
}


def exact_score_function(quality: str) -> ExactScore:
    """The quality called ``quality`` as an exact int or Fraction (no validation of the table).

    Information gain has no exact value (logarithms) and is refused.
    """
    try:
        return _EXACT[quality]
    except KeyError:
        raise InvalidParameterError(
            f"quality {quality!r} has no exact value; exact qualities: {', '.join(_EXACT)}"
        ) from None


def score_function(quality: str) -> FloatScore:
    """The quality called ``quality`` in floating point (no validation of the table)."""
    try:
        return _FLOAT[quality]
    except KeyError:
        raise InvalidParameterError(
            f"unknown quality function {quality!r}; use one of: {', '.join(_FLOAT)}"
        ) from None
