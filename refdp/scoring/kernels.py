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
from itertools import accumulate
from operator import sub
from typing import Callable, Dict, List, Sequence, Tuple, Union

from refdp.errors import InvalidParameterError

__all__ = [
    "ExactScore",
    "ExactThresholdScores",
    "FloatScore",
    "exact_score_function",
    "exact_threshold_scores",
    "score_function",
    "xlogx",
]

ExactScore = Callable[[Sequence[Sequence[int]]], Union[int, Fraction]]
"""A quality function with an exact (int or Fraction) value."""

FloatScore = Callable[[Sequence[Sequence[int]]], float]
"""A quality function computed in floating point."""

ExactThresholdScores = Callable[[Sequence[Sequence[int]]], Sequence[Union[int, Fraction]]]
"""The exact quality of every threshold split of a table of ordered cells (see :func:`exact_threshold_scores`)."""


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


def _cumulative_below(table: Sequence[Sequence[int]]) -> Tuple[List[int], List[Tuple[int, ...]]]:
    """The class totals of ``table`` and, for k = 1 .. len(table) - 1, the class counts of its first k rows."""
    columns = [list(accumulate(column)) for column in zip(*table)]
    return [column[-1] for column in columns], list(zip(*(column[:-1] for column in columns)))


def max_operator_thresholds(table: Sequence[Sequence[int]]) -> List[int]:
    """:func:`max_operator_exact` of every threshold's table ``[first k rows, the rest]``, k = 1 .. len - 1."""
    total, belows = _cumulative_below(table)
    return [max(below) + max(map(sub, total, below)) for below in belows]


def gini_thresholds(table: Sequence[Sequence[int]]) -> List[Fraction]:
    """:func:`gini_unnormalised_exact` of every threshold's table ``[first k rows, the rest]``, k = 1 .. len - 1."""
    total, belows = _cumulative_below(table)
    size = sum(total)
    squares = sum(t * t for t in total)
    scores: List[Fraction] = []
    for below in belows:
        n_below = sum(below)
        n_above = size - n_below
        s_below = sum(c * c for c in below)
        # sum_c (t_c - b_c)^2 = sum t^2 - 2 sum t b + sum b^2
        s_above = squares - 2 * sum(t * b for t, b in zip(total, below)) + s_below
        if n_below and n_above:
            numerator, denominator = s_below * n_above + s_above * n_below, n_below * n_above
        elif n_below or n_above:
            numerator, denominator = (s_below, n_below) if n_below else (s_above, n_above)
        else:
            numerator, denominator = 0, 1
        scores.append(Fraction(numerator - size * denominator, denominator))
    return scores


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


_EXACT_THRESHOLDS: Dict[str, ExactThresholdScores] = {
    "max": max_operator_thresholds,
    "gini": gini_thresholds,
}


def exact_threshold_scores(quality: str) -> ExactThresholdScores:
    """The exact quality of every threshold split of a table of ordered cells, in one pass.

    For a table of the class counts of ordered cells (a grid's codes), the
    k-th score (k = 1 .. cells - 1) equals ``exact_score_function(quality)``
    of the two-row table ``[cells below k, cells from k]``; a node scores
    hundreds of thresholds per attribute, so the rows are not built.
    """
    exact_score_function(quality)
    return _EXACT_THRESHOLDS[quality]


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
