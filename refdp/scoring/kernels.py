"""The quality functions' arithmetic on plain count tables, written once.

:mod:`refdp.scoring.quality` validates a table and calls these; the
learners call them directly on the tables their counting engine built (a
node of a large data set scores hundreds of candidates).  Two forms:

* exact (:func:`exact_score_function`): the max operator as an int and the
  unnormalised Gini as a Fraction, for the exact exponential mechanism; or
  the same values as unreduced (numerator, denominator) pairs
  (:func:`exact_ratio_function`, :func:`exact_threshold_ratios`), which
  skip a gcd per candidate (:class:`refdp.mechanisms.ratios.Ratios`);
* float (:func:`score_function`): all three qualities in floating point,
  in a fixed order of operations that an engine may reproduce column-wise
  (``refdp.fast.counts``) -- the float sampler, the non-private baseline
  and the planted float-threshold fault use them.

Information gain has logarithms and only the float form.
"""

from __future__ import annotations

import math
from fractions import Fraction
from itertools import accumulate, compress, repeat
from operator import sub
from typing import Callable, Dict, List, Sequence, Tuple, Union

from refdp.errors import InvalidParameterError
from refdp.mechanisms.ratios import Ratio

__all__ = [
    "ExactRatio",
    "ExactScore",
    "ExactThresholdRatios",
    "ExactThresholdScores",
    "FloatScore",
    "exact_ratio_function",
    "exact_score_function",
    "exact_threshold_ratios",
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

ExactRatio = Callable[[Sequence[Sequence[int]]], Ratio]
"""A quality function with an exact value, as a :data:`Ratio`."""

ExactThresholdRatios = Callable[[Sequence[Sequence[int]]], List[Ratio]]
""":data:`ExactThresholdScores` as :data:`Ratio` pairs (see :func:`exact_threshold_ratios`)."""


def max_operator_exact(table: Sequence[Sequence[int]]) -> int:
    """``sum_j max_c tau_{j,c}``."""
    return sum(max(row) for row in table)


def gini_unnormalised_ratio(table: Sequence[Sequence[int]]) -> Ratio:
    """:func:`gini_unnormalised_exact` as an unreduced (numerator, denominator > 0) pair."""
    # = sum_j S_j / n_j - n, with S_j the sum of squared counts of cell j; the sum of fractions is
    # accumulated over one growing denominator.
    numerator, denominator, size = 0, 1, 0
    for row in table:
        n = sum(row)
        if n:
            size += n
            numerator = numerator * n + sum(c * c for c in row) * denominator
            denominator *= n
    return numerator - size * denominator, denominator


def gini_unnormalised_exact(table: Sequence[Sequence[int]]) -> Fraction:
    """``-sum_j (tau_j - sum_c tau_{j,c}^2 / tau_j)`` over non-empty cells, exactly."""
    return Fraction(*gini_unnormalised_ratio(table))


def max_operator_ratio(table: Sequence[Sequence[int]]) -> Ratio:
    """:func:`max_operator_exact` as the pair (value, 1)."""
    return max_operator_exact(table), 1


def _cumulative_below(table: Sequence[Sequence[int]]) -> Tuple[List[int], List[Tuple[int, ...]]]:
    """The class totals of ``table`` and, for k = 1 .. len(table) - 1, the class counts of its first k rows."""
    columns = [list(accumulate(column)) for column in zip(*table)]
    return [column[-1] for column in columns], list(zip(*(column[:-1] for column in columns)))


def max_operator_thresholds(table: Sequence[Sequence[int]]) -> List[int]:
    """:func:`max_operator_exact` of every threshold's table ``[first k rows, the rest]``, k = 1 .. len - 1."""
    total, belows = _cumulative_below(table)
    return [max(below) + max(map(sub, total, below)) for below in belows]


def max_operator_threshold_ratios(table: Sequence[Sequence[int]]) -> List[Ratio]:
    """:func:`max_operator_thresholds` as pairs (value, 1)."""
    return [(score, 1) for score in max_operator_thresholds(table)]


def gini_threshold_ratios(table: Sequence[Sequence[int]]) -> List[Ratio]:
    """:func:`gini_unnormalised_ratio` of every threshold's table ``[first k rows, the rest]``, k = 1 .. len - 1."""
    total = [sum(column) for column in zip(*table)]
    size = sum(total)
    squares = sum(t * t for t in total)
    below = [0] * len(total)
    # Running sums over the rows below the threshold: n_below, s_below = sum_c b_c^2 and
    # dot = sum_c t_c b_c, so that sum_c (t_c - b_c)^2 = squares - 2 dot + s_below.
    n_below = s_below = dot = 0
    scores: List[Ratio] = []
    # An empty cell moves no count: its threshold splits the node as the one before it, so the pair
    # changes only at the first threshold and at a non-empty cell (a grid's cells are mostly empty).
    last = len(table) - 1
    changes = [0, *compress(range(1, last), map(sum, table[1:last])), last]
    for k, end in zip(changes, changes[1:]):
        row = table[k]
        for c, x in enumerate(row):
            if x:
                b = below[c]
                s_below += (2 * b + x) * x
                dot += total[c] * x
                below[c] = b + x
        n_below += sum(row)
        n_above = size - n_below
        s_above = squares - 2 * dot + s_below
        if n_below and n_above:
            numerator, denominator = s_below * n_above + s_above * n_below, n_below * n_above
        elif n_below or n_above:
            numerator, denominator = (s_below, n_below) if n_below else (s_above, n_above)
        else:
            numerator, denominator = 0, 1
        scores.extend(repeat((numerator - size * denominator, denominator), end - k))
    return scores


def gini_thresholds(table: Sequence[Sequence[int]]) -> List[Fraction]:
    """:func:`gini_unnormalised_exact` of every threshold's table ``[first k rows, the rest]``, k = 1 .. len - 1."""
    return [Fraction(n, d) for n, d in gini_threshold_ratios(table)]


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


_EXACT_RATIOS: Dict[str, ExactRatio] = {"max": max_operator_ratio, "gini": gini_unnormalised_ratio}

_EXACT_THRESHOLD_RATIOS: Dict[str, ExactThresholdRatios] = {
    "max": max_operator_threshold_ratios,
    "gini": gini_threshold_ratios,
}


def exact_ratio_function(quality: str) -> ExactRatio:
    """:func:`exact_score_function` as an unreduced (numerator, denominator) pair of the same value."""
    exact_score_function(quality)
    return _EXACT_RATIOS[quality]


def exact_threshold_ratios(quality: str) -> ExactThresholdRatios:
    """:func:`exact_threshold_scores` as unreduced (numerator, denominator) pairs of the same values."""
    exact_score_function(quality)
    return _EXACT_THRESHOLD_RATIOS[quality]


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
