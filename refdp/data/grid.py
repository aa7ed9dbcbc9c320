"""Public threshold grids: where a tree may cut a continuous attribute.

A learner that releases a threshold must release a function of public
information and the mechanism's draws only.  A threshold interpolated
between data values is data: its floating-point bits depend on the
records (claim ``continuous-split-exponential-mechanism`` shows the leak).
So a continuous attribute with public bounds [lower, upper] is cut only at
the interior points of an equal-width grid,

    g_k = lower + k (upper - lower) / cells,    k = 1 .. cells - 1,

exact rationals computed from the schema's bounds and the public ``cells``.
A row's *code* is the number of grid points at or below its value
(0 .. cells - 1), so the split ``x < g_k`` is ``code < k``; codes are what
the counting engines tabulate.

Comparisons stay exact without Fraction arithmetic per row: for a float x
and a rational t, ``x < t`` exactly when ``x < ceil_float(t)``, the
smallest float at or above t (if x < t then x < ceil_float(t), since that is
>= t; if x >= t then x >= ceil_float(t), since x is a float >= t).
"""

from __future__ import annotations

import functools
import math
from bisect import bisect_right
from dataclasses import dataclass, field
from fractions import Fraction
from typing import List, Sequence, Tuple, Union

from refdp.data.schema import ContinuousAttribute
from refdp.errors import InvalidParameterError

__all__ = ["Threshold", "ThresholdGrid", "ceil_float", "format_threshold", "canonical_threshold", "MAX_CELLS"]

Threshold = Union[float, Fraction]
"""A released threshold: a float, or an exact rational that no float equals."""

MAX_CELLS = 1 << 16
"""The largest grid a learner accepts (a grid point per candidate keeps every node's work bounded)."""


def ceil_float(t: Threshold) -> float:
    """The smallest float at or above ``t`` (``t`` itself for a float)."""
    if isinstance(t, float):
        return t
    f = float(t)
    return f if Fraction(f) >= t else math.nextafter(f, math.inf)


def canonical_threshold(t: Threshold) -> Threshold:
    """``t`` as a float when a float equals it, else as a Fraction (one form per value)."""
    if isinstance(t, float):
        if not math.isfinite(t):
            raise InvalidParameterError(f"a threshold must be finite, got {t!r}")
        return t + 0.0  # -0.0 and 0.0 are one threshold
    f = float(t)
    return f + 0.0 if Fraction(f) == t else t


def format_threshold(t: Threshold) -> str:
    """``repr`` of a float, ``p/q`` of a rational: the exact value in a form that reads back."""
    return repr(t) if isinstance(t, float) else str(t)


def _point_and_cut(numerator: int, denominator: int) -> Tuple[Threshold, float]:
    """(:func:`canonical_threshold`, :func:`ceil_float`) of t = numerator / denominator (denominator > 0, unreduced)."""
    # int / int is correctly rounded, so f is float(Fraction(numerator, denominator)).
    f = numerator / denominator
    f_numerator, f_denominator = f.as_integer_ratio()
    excess = f_numerator * denominator - numerator * f_denominator  # the sign of f - t
    if excess == 0:
        return f + 0.0, f + 0.0
    return Fraction(numerator, denominator), f if excess > 0 else math.nextafter(f, math.inf)


@dataclass(frozen=True)
class ThresholdGrid:
    """The interior points of ``cells`` equal-width cells of the public range ``[lower, upper]``."""

    lower: Fraction
    upper: Fraction
    cells: int
    points: Tuple[Threshold, ...] = field(init=False, repr=False, compare=False)
    cuts: Tuple[float, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.cells, bool) or not isinstance(self.cells, int) or not 2 <= self.cells <= MAX_CELLS:
            raise InvalidParameterError(
                f"a threshold grid needs an integer number of cells in [2, {MAX_CELLS}], got {self.cells!r}"
            )
        if not self.lower < self.upper:
            raise InvalidParameterError(f"a threshold grid needs lower < upper, got [{self.lower}, {self.upper}]")
        step = (self.upper - self.lower) / self.cells
        # g_k = (base + k increment) / denominator in integers: a Fraction per point only where no
        # float equals it; the same points and cuts as canonical_threshold and ceil_float give.
        denominator = self.lower.denominator * step.denominator
        base = self.lower.numerator * step.denominator
        increment = step.numerator * self.lower.denominator
        pairs = [_point_and_cut(base + k * increment, denominator) for k in range(1, self.cells)]
        object.__setattr__(self, "points", tuple(point for point, _ in pairs))
        object.__setattr__(self, "cuts", tuple(cut for _, cut in pairs))

    @staticmethod
    def of(attribute: ContinuousAttribute, cells: int) -> "ThresholdGrid":
        """The grid of ``attribute``'s public bounds (floats, taken by their exact values).

        >>> from refdp.data import load
        >>> age = load("credit-g").schema.attributes[1]
        >>> ThresholdGrid.of(age, 4) is ThresholdGrid.of(age, 4)  # one grid per bounds and cells: it is immutable
        True
        """
        return _grid(attribute.lower, attribute.upper, cells)

    def point(self, k: int) -> Threshold:
        """g_k, for k = 1 .. cells - 1."""
        if not 1 <= k < self.cells:
            raise InvalidParameterError(f"grid point {k} does not exist; use 1 .. {self.cells - 1}")
        return self.points[k - 1]

    def code(self, x: float) -> int:
        """The number of grid points at or below ``x`` (0 .. cells - 1)."""
        return bisect_right(self.cuts, x)

    def codes(self, values: Sequence[float]) -> List[int]:
        """:meth:`code` of every value."""
        cuts = self.cuts
        return [bisect_right(cuts, x) for x in values]


@functools.lru_cache(maxsize=1024)
def _grid(lower: float, upper: float, cells: int) -> ThresholdGrid:
    # A fit builds the grid of every continuous attribute; an audit fits thousands of times.
    return ThresholdGrid(Fraction(lower), Fraction(upper), cells)
