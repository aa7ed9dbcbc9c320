"""Machinery shared by the greedy tree learners: node counts, split candidates, budget plans.

The greedy learners (DiffP-ID3/C4.5, the thesis tree, the non-private
baseline) grow a tree top-down.  At every node they need the same things,
and this module provides them:

* the training rows once, as index lists into the data set's own column
  tuples (:class:`TrainingView`; no copy of the data);
* count tables ``tau[j][c]`` of a node for a candidate split, in one pass
  over the node's rows (:func:`class_counts`, :func:`value_table`);
* the (grid code x class) table of a continuous attribute on its public
  threshold grid (:class:`refdp.data.grid.ThresholdGrid`), from which the
  count table of every grid threshold follows by prefix sums
  (:func:`grid_threshold_tables`): the thresholds a private learner may
  release;
* for the non-private baseline and the planted float-threshold fault only:
  the intervals of a continuous attribute's public range cut at the node's
  values (:func:`threshold_intervals`) and a float threshold inside one
  (:func:`sample_threshold`), which is data (claim
  ``continuous-split-exponential-mechanism``);
* the quality functions of :mod:`refdp.scoring` as fast functions on small
  tables: exact (int or Fraction) for the max operator and the Gini
  (:func:`exact_score_function`), floats for every quality
  (:func:`score_function`); the tests check that they agree with
  :mod:`refdp.scoring`, which also supplies the sensitivities;
* the budget plan (:func:`plan_units`, :func:`close_budget`): the worst-case
  cost of a tree of the planned depth, in units of the per-query epsilon,
  composed exactly as :func:`refdp.privacy.compose` composes a full tree,
  and the charge that reserves the part of the plan a shallower tree did not
  spend (claim ``tree-budget-plan``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, List, Mapping, Optional, Protocol, Sequence, Tuple, Union

from refdp.algorithms.registry import Param, Parameter
from refdp.data import ColumnView, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import MAX_CELLS, Threshold, ThresholdGrid, format_threshold
from refdp.errors import InvalidParameterError, PrivacyError
from refdp.mechanisms import SensitivityLike, discrete_laplace_mechanism, exponential_mechanism, noisy_histogram
from refdp.privacy import Ledger, Number, Partition, Relation, cell
from refdp.rng import RandomSource

__all__ = [
    "Rows",
    "Table",
    "TrainingView",
    "Interval",
    "NodeCost",
    "class_counts",
    "value_table",
    "threshold_intervals",
    "sample_threshold",
    "grid_threshold_tables",
    "score_function",
    "exact_score_function",
    "ExactScore",
    "xlogx",
    "plan_units",
    "close_budget",
    "child_path",
    "threshold_conditions",
    "non_negative_int",
    "grid_cells",
    "GRID_PARAMETER",
    "SPLIT_KEY",
    "NodeCounts",
    "ThresholdCandidates",
    "ExponentialMechanism",
    "NoisyHistogram",
    "NoisyCount",
    "reference_count",
    "reference_histogram",
    "ReferenceCounts",
    "ReferenceThresholds",
    "Engine",
    "REFERENCE",
]

Rows = List[int]
"""Row positions in the base columns of a :class:`TrainingView`."""

Table = List[List[int]]
"""A count table ``tau[j][c]``: one row per cell of a split, one column per class."""

SPLIT_KEY = "split"
"""The ledger key of a node's children: ``split=<condition>`` marks the disjoint cells of a split."""


@dataclass(frozen=True)
class TrainingView:
    """The training data as base columns plus the positions of its rows.

    A :class:`~refdp.data.Dataset` subset shares the column tuples of its base
    data set; working on those tuples and a list of positions avoids both
    copying and the per-item cost of a :class:`~refdp.data.ColumnView`.
    """

    schema: Schema
    columns: Tuple[Sequence[Union[int, float]], ...]
    labels: Sequence[int]
    rows: Tuple[int, ...]

    @staticmethod
    def of(data: Dataset) -> "TrainingView":
        """The view of ``data`` (every column shares ``data``'s storage)."""
        labels = data.labels
        columns = tuple(data.column(a) for a in range(data.schema.n_attributes))
        if isinstance(labels, ColumnView):
            return TrainingView(
                data.schema,
                tuple(c.base if isinstance(c, ColumnView) else c for c in columns),
                labels.base,
                labels.indices,
            )
        return TrainingView(data.schema, columns, labels, tuple(range(len(labels))))

    @property
    def n_classes(self) -> int:
        """|C|, the number of classes of the public schema."""
        return self.schema.n_classes


def class_counts(view: TrainingView, rows: Sequence[int]) -> List[int]:
    """The class histogram of ``rows`` (one count per class of the schema, zeros included)."""
    counts = [0] * view.n_classes
    labels = view.labels
    for i in rows:
        counts[labels[i]] += 1
    return counts


def value_table(view: TrainingView, rows: Sequence[int], attribute: int, n_values: int) -> Table:
    """``tau[v][c]``: rows of ``rows`` with value code ``v`` of a categorical attribute and class ``c``."""
    table = [[0] * view.n_classes for _ in range(n_values)]
    column = view.columns[attribute]
    labels = view.labels
    for i in rows:
        table[int(column[i])][labels[i]] += 1
    return table


@dataclass(frozen=True)
class Interval:
    """An interval ``(start, end)`` of thresholds that all make the same binary split.

    Every threshold ``t`` with ``start < t <= end`` sends the node's rows with
    ``x <= start`` (equivalently ``x < t``) below and the others at or above;
    ``table`` is ``[below counts, at-or-above counts]``.  ``length`` is
    ``end - start`` (positive), the interval's weight in the base measure.
    """

    start: float
    end: float
    table: Tuple[Tuple[int, ...], Tuple[int, ...]]

    @property
    def length(self) -> float:
        return self.end - self.start


def threshold_intervals(
    view: TrainingView, rows: Sequence[int], attribute: int, lower: float, upper: float
) -> List[Interval]:
    """The intervals of ``[lower, upper]`` between consecutive distinct node values.

    The cut points are ``lower``, the distinct values of the node's rows and
    ``upper``; every pair of consecutive cut points with a positive gap is an
    interval.  One sort of the rows, then one sweep that moves each row's
    class to the "below" side once: O(n log n) for n rows.  With no rows
    there is one interval, the whole public range.
    """
    column = view.columns[attribute]
    labels = view.labels
    order = sorted(rows, key=column.__getitem__)
    total = class_counts(view, rows)
    below = [0] * view.n_classes
    intervals: List[Interval] = []
    previous = lower
    position, n = 0, len(order)
    while True:
        # + 0.0 turns -0.0 into 0.0: the cut point must not depend on which of two equal values comes first.
        value = float(column[order[position]]) + 0.0 if position < n else upper
        if value > previous:
            above = tuple(t - b for t, b in zip(total, below))
            intervals.append(Interval(previous, value, (tuple(below), above)))
        if position >= n:
            return intervals
        while position < n and column[order[position]] == value:
            below[labels[order[position]]] += 1
            position += 1
        previous = value


def sample_threshold(interval: Interval, rng: RandomSource) -> float:
    """A threshold uniform on ``(start, end]`` in floating point, from ``rng.random()`` draws.

    ``t = start + U (end - start)``, clamped to ``end`` (the width may round
    up); a draw that rounds to ``start`` or below (U = 0, or a gap of a few
    ulps) is redrawn, because ``t = start`` would send the rows at ``start``
    to the other side.  Any ``t`` in ``(start, end]`` makes the interval's split.
    """
    while True:
        t = min(interval.start + rng.random() * interval.length, interval.end)
        if t > interval.start:
            return t


def grid_threshold_tables(table: Sequence[Sequence[int]]) -> List[Table]:
    """The count table ``[below, at or above]`` of every grid threshold g_1 .. g_{cells-1}.

    ``table[b]`` holds the class counts of the rows with grid code ``b``
    (:meth:`NodeCounts.grid_table`); threshold g_k sends codes below k below.
    """
    total = [sum(column) for column in zip(*table)]
    below = [0] * len(total)
    tables: List[Table] = []
    for row in table[:-1]:
        below = [b + r for b, r in zip(below, row)]
        tables.append([below, [t - b for t, b in zip(total, below)]])
    return tables


ExactScore = Callable[[Sequence[Sequence[int]]], Union[int, Fraction]]
"""A quality function with an exact (int or Fraction) value."""


def _max_operator_exact(table: Sequence[Sequence[int]]) -> int:
    return sum(max(row) for row in table)


def _gini_unnormalised_exact(table: Sequence[Sequence[int]]) -> Fraction:
    # -sum_j (n_j - S_j / n_j) = sum_j S_j / n_j - n, with S_j the sum of squared counts of cell j;
    # the sum of fractions is accumulated over one growing denominator and reduced once.
    numerator, denominator, size = 0, 1, 0
    for row in table:
        n = sum(row)
        if n:
            size += n
            numerator = numerator * n + sum(c * c for c in row) * denominator
            denominator *= n
    return Fraction(numerator - size * denominator, denominator)


_EXACT_SCORES: Dict[str, ExactScore] = {"max": _max_operator_exact, "gini": _gini_unnormalised_exact}


def exact_score_function(quality: str) -> ExactScore:
    """The quality ``q`` of :mod:`refdp.scoring` called ``quality`` as an exact int or Fraction.

    Equal to :func:`refdp.scoring.max_operator` and
    :func:`~refdp.scoring.gini_unnormalised` (without their validation);
    information gain has no exact value (logarithms) and is refused.
    """
    try:
        return _EXACT_SCORES[quality]
    except KeyError:
        raise InvalidParameterError(
            f"quality {quality!r} has no exact value; exact qualities: {', '.join(_EXACT_SCORES)}"
        ) from None


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


def _information_gain(table: Sequence[Sequence[int]]) -> float:
    # sum over cells of c log2(c / size) = sum over rows of (sum_c c log2 c) - size log2 size,
    # added left to right in this order, so that an engine can add the same floats column-wise
    # (from a table of c log2 c).  The difference loses a few ulps of size log2 size, about
    # 1e-8 for sizes up to 10**6: far below the sensitivity (more than log2 N).
    total = 0.0
    for row in table:
        total += sum(map(xlogx, row)) - xlogx(sum(row))
    return total


_SCORES: Dict[str, Callable[[Sequence[Sequence[int]]], float]] = {
    "max": _max_operator,
    "gini": _gini_unnormalised,
    "info-gain": _information_gain,
}


def score_function(quality: str) -> Callable[[Sequence[Sequence[int]]], float]:
    """The quality ``q`` of :mod:`refdp.scoring` called ``quality``, as a fast float function.

    Same formulas as :func:`refdp.scoring.max_operator`,
    :func:`~refdp.scoring.gini_unnormalised` and
    :func:`~refdp.scoring.information_gain`, without validation and
    Fractions (a node of a large data set scores thousands of candidate
    thresholds); the result agrees with those functions to rounding.
    """
    try:
        return _SCORES[quality]
    except KeyError:
        raise InvalidParameterError(
            f"unknown quality function {quality!r}; use one of: {', '.join(_SCORES)}"
        ) from None


@dataclass(frozen=True)
class NodeCost:
    """The cost of one node's own charges, in units of the per-query epsilon.

    ``one`` is the cost when one record is added or removed (add-remove),
    ``two`` when one record is replaced (substitute), both as the ledger
    composes them (``proofs/parallel-composition.md``).  For example a class
    histogram with the per-query epsilon on every class costs one unit for
    one record and two for a record that changes class.
    """

    one: Fraction
    two: Fraction


def plan_units(internal: NodeCost, leaf: NodeCost, depth: int, relation: Relation) -> Fraction:
    """The ledger total of a full tree of ``depth`` levels of splits, in per-query units.

    Bottom up from a leaf: a split node's children are disjoint cells, so one
    changed record costs the node plus one child (``one_k = internal.one +
    one_{k-1}``), and a replaced record costs the node plus either a
    substitution inside one child or a removal and an addition in two
    (``two_k = internal.two + max(two_{k-1}, 2 one_{k-1})``).  A tree that
    stops earlier, or splits into fewer than two children, costs at most this
    (claim ``tree-budget-plan``).
    """
    if isinstance(depth, bool) or not isinstance(depth, int) or depth < 0:
        raise InvalidParameterError(f"the depth of a plan must be an int >= 0, got {depth!r}")
    one, two = leaf.one, leaf.two
    for _ in range(depth):
        one, two = internal.one + one, internal.two + max(two, 2 * one)
    return one if relation is Relation.ADD_REMOVE else two


def close_budget(ledger: Ledger, planned: Fraction, claims: Sequence[str]) -> None:
    """Reserve, on the whole data set, the part of ``planned`` that this tree did not spend.

    A greedy tree stops where its noisy counts say so, so the charges of one
    run may total less than the plan.  The mechanism's guarantee is the
    plan's worst case all the same (another run on the same data may build
    the full tree), so the receipt must state the plan: the difference is
    recorded as a ``reserved`` charge, and the receipt's total equals
    ``planned`` exactly.  A ledger already above ``planned`` means the
    algorithm broke its own plan: PrivacyError.
    """
    spent = ledger.total()[0]
    if spent > planned:
        raise PrivacyError(
            f"the charges total {spent}, above the planned budget {planned}; this is a bug in "
            f"the algorithm's budget split, please report it"
        )
    if spent < planned:
        ledger.charge(
            label="reserved: planned for tree levels this run did not build",
            mechanism="reserved",
            epsilon=planned - spent,
            sensitivity=None,
            claims=tuple(claims),
            note="the guarantee is the plan's worst case, not the cost of the levels built",
        )


def child_path(path: Partition, condition: str) -> Partition:
    """The ledger partition of the child of ``path`` that holds the rows meeting ``condition``."""
    return path + (cell(SPLIT_KEY, condition),)


def threshold_conditions(attribute: ContinuousAttribute, threshold: Threshold) -> Tuple[str, str]:
    """The ledger conditions of the two sides of a threshold split (below first)."""
    shown = format_threshold(threshold)
    return f"{attribute.name}<{shown}", f"{attribute.name}>={shown}"


GRID_PARAMETER = Parameter(
    "grid", int, 64,
    "cells of the public threshold grid of a continuous attribute: thresholds lower + k (upper - lower) / grid, "
    "k = 1 .. grid - 1",
)
"""The learners' ``grid`` parameter (:class:`refdp.data.grid.ThresholdGrid`)."""


def grid_cells(params: Mapping[str, Param]) -> int:
    """``params["grid"]`` checked to be an int in [2, MAX_CELLS]."""
    value = params["grid"]
    if isinstance(value, bool) or not isinstance(value, int) or not 2 <= value <= MAX_CELLS:
        raise InvalidParameterError(f"parameter grid must be an integer in [2, {MAX_CELLS}], got {value!r}")
    return value


def non_negative_int(params: Mapping[str, Param], name: str) -> int:
    """``params[name]`` checked to be an int >= 0 (a depth, for example)."""
    value = params[name]
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidParameterError(f"parameter {name} must be an integer >= 0, got {value!r}")
    return value


class ThresholdCandidates(Protocol):
    """The intervals of :func:`threshold_intervals` of one (node, attribute), in order.

    An engine may keep them as columns rather than :class:`Interval` objects;
    every float it returns must equal what the reference computes from the
    intervals (same operations, same order).
    """

    def __len__(self) -> int:
        """The number of intervals."""

    def interval(self, index: int) -> Interval:
        """Interval ``index``."""

    def lengths(self) -> List[float]:
        """``end - start`` of every interval."""

    def scores(self, quality: str) -> List[float]:
        """``score_function(quality)(interval.table)`` of every interval."""

    def below_sizes(self) -> List[int]:
        """The number of the node's rows below each interval (``sum(interval.table[0])``)."""


class NodeCounts(Protocol):
    """The counting and partitioning a tree learner does at a node: the engine interface.

    A node is a list of row positions (:data:`Rows`) that only the engine
    that made it interprets; children keep their parent's row order, so a
    learner that walks rows in order sees the same order on every engine.
    """

    def root(self) -> Rows:
        """The rows of the whole training set, in data order."""

    def class_counts(self, rows: Rows) -> List[int]:
        """As :func:`class_counts`."""

    def value_table(self, rows: Rows, attribute: int, n_values: int) -> Table:
        """As :func:`value_table`."""

    def thresholds(self, rows: Rows, attribute: int, lower: float, upper: float) -> ThresholdCandidates:
        """As :func:`threshold_intervals` (the non-private baseline's candidates)."""

    def grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid) -> Table:
        """``tau[b][c]``: rows with grid code ``b`` (:meth:`ThresholdGrid.code`) of a continuous attribute and class ``c``."""

    def split_values(self, rows: Rows, attribute: int, n_values: int) -> List[Rows]:
        """The rows with each value code ``0 .. n_values - 1`` of a categorical attribute."""

    def split_value(self, rows: Rows, attribute: int, value: int) -> Tuple[Rows, Rows]:
        """(rows whose code is ``value``, the others) of a categorical attribute."""

    def split_threshold(self, rows: Rows, attribute: int, threshold: float) -> Tuple[Rows, Rows]:
        """(rows with ``x < threshold``, rows with ``x >= threshold``) of a continuous attribute.

        ``threshold`` is a float; a rational threshold t splits as its
        ``ThresholdSplit.cut``, the smallest float at or above t.
        """


class ExponentialMechanism(Protocol):
    """The signature of :func:`refdp.mechanisms.exponential_mechanism` that the learners use."""

    def __call__(
        self,
        utilities: Sequence[float],
        *,
        epsilon: Number,
        sensitivity: SensitivityLike,
        rng: RandomSource,
        ledger: Ledger,
        label: str,
        partition: Sequence[str] = (),
        claims: Sequence[str] = ("exponential-mechanism",),
        base_weights: Optional[Sequence[float]] = None,
        sound: bool = True,
        note: str = "",
    ) -> int:
        """Charge ``epsilon`` on ``partition`` and return the chosen candidate's index."""


class NoisyHistogram(Protocol):
    """The signature of :func:`refdp.mechanisms.noisy_histogram` (cells keyed ``class``) that the learners use."""

    def __call__(
        self,
        counts: Sequence[int],
        *,
        epsilon: Number,
        rng: RandomSource,
        ledger: Ledger,
        label: str,
        partition: Sequence[str] = (),
        noise: str = "discrete-laplace",
        names: Optional[Sequence[str]] = None,
    ) -> Union[List[int], List[float]]:
        """Charge ``epsilon`` on every cell and return the noisy counts."""


class NoisyCount(Protocol):
    """A count (sensitivity 1) plus exact discrete Laplace noise, as
    :func:`refdp.mechanisms.discrete_laplace_mechanism` charges and draws it."""

    def __call__(
        self, value: int, *, epsilon: Number, rng: RandomSource, ledger: Ledger, label: str,
        partition: Sequence[str] = (),
    ) -> int:
        """Charge ``epsilon`` on ``partition`` and return ``value`` plus noise."""


def reference_count(
    value: int, *, epsilon: Number, rng: RandomSource, ledger: Ledger, label: str, partition: Sequence[str] = ()
) -> int:
    """:func:`refdp.mechanisms.discrete_laplace_mechanism` with sensitivity 1."""
    return discrete_laplace_mechanism(
        value, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition
    )


def reference_histogram(
    counts: Sequence[int],
    *,
    epsilon: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    noise: str = "discrete-laplace",
    names: Optional[Sequence[str]] = None,
) -> Union[List[int], List[float]]:
    """:func:`refdp.mechanisms.noisy_histogram` with ``noise`` as a plain string."""
    if noise == "laplace":
        return noisy_histogram(
            counts, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition,
            noise="laplace", names=names,
        )
    if noise != "discrete-laplace":
        raise InvalidParameterError(f"noise must be discrete-laplace or laplace, got {noise!r}")
    return noisy_histogram(
        counts, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition, names=names
    )


class ReferenceThresholds:
    """:class:`ThresholdCandidates` as a list of :class:`Interval` objects."""

    def __init__(self, intervals: List[Interval]) -> None:
        self._intervals = intervals

    def __len__(self) -> int:
        return len(self._intervals)

    def interval(self, index: int) -> Interval:
        return self._intervals[index]

    def lengths(self) -> List[float]:
        return [interval.length for interval in self._intervals]

    def scores(self, quality: str) -> List[float]:
        score = score_function(quality)
        return [score(interval.table) for interval in self._intervals]

    def below_sizes(self) -> List[int]:
        return [sum(interval.table[0]) for interval in self._intervals]


class ReferenceCounts:
    """:class:`NodeCounts` by the plain loops of this module, one row at a time."""

    def __init__(self, data: Dataset) -> None:
        self.view = TrainingView.of(data)
        self._codes: Dict[Tuple[int, ThresholdGrid], List[int]] = {}

    def root(self) -> Rows:
        return list(self.view.rows)

    def grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid) -> Table:
        key = (attribute, grid)
        if key not in self._codes:
            self._codes[key] = grid.codes([float(x) for x in self.view.columns[attribute]])
        codes = self._codes[key]
        table = [[0] * self.view.n_classes for _ in range(grid.cells)]
        labels = self.view.labels
        for i in rows:
            table[codes[i]][labels[i]] += 1
        return table

    def class_counts(self, rows: Rows) -> List[int]:
        return class_counts(self.view, rows)

    def value_table(self, rows: Rows, attribute: int, n_values: int) -> Table:
        return value_table(self.view, rows, attribute, n_values)

    def thresholds(self, rows: Rows, attribute: int, lower: float, upper: float) -> ThresholdCandidates:
        return ReferenceThresholds(threshold_intervals(self.view, rows, attribute, lower, upper))

    def split_values(self, rows: Rows, attribute: int, n_values: int) -> List[Rows]:
        buckets: List[Rows] = [[] for _ in range(n_values)]
        column = self.view.columns[attribute]
        for i in rows:
            buckets[int(column[i])].append(i)
        return buckets

    def split_value(self, rows: Rows, attribute: int, value: int) -> Tuple[Rows, Rows]:
        column = self.view.columns[attribute]
        return [i for i in rows if column[i] == value], [i for i in rows if column[i] != value]

    def split_threshold(self, rows: Rows, attribute: int, threshold: float) -> Tuple[Rows, Rows]:
        column = self.view.columns[attribute]
        return [i for i in rows if column[i] < threshold], [i for i in rows if column[i] >= threshold]


@dataclass(frozen=True)
class Engine:
    """An engine: how nodes are counted (``counts(data)``), the exponential mechanism's sampler,
    the noisy histogram's and the noisy count's."""

    name: str
    counts: Callable[[Dataset], NodeCounts]
    exponential: ExponentialMechanism
    histogram: NoisyHistogram
    count: NoisyCount


REFERENCE = Engine("reference", ReferenceCounts, exponential_mechanism, reference_histogram, reference_count)
"""The plain engine: :class:`ReferenceCounts`, :func:`refdp.mechanisms.exponential_mechanism`,
:func:`refdp.mechanisms.noisy_histogram` and :func:`refdp.mechanisms.discrete_laplace_mechanism`."""
