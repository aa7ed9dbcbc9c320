"""The counting-engine interface and the reference engine's counting, below every learner.

A tree learner needs, at every node, counts of the node's rows (by class,
by value and class, by grid code and class, by interval of a continuous
attribute; plain, or summed over integer record weights as boosting does)
and the node's children's rows.  :class:`NodeCounts` is that
interface; :class:`ReferenceCounts` implements it with plain loops over the
data set's own column tuples (:class:`TrainingView`, no copy of the data).
An engine may offer :class:`RowMasks` besides (``masks()``), sets of rows as
integers, so that a random tree routes all rows at once.

The faster engine (:mod:`refdp.fast`) implements the same interface; the
tests check that every number it returns equals the reference's.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from typing import Dict, List, Optional, Protocol, Sequence, Tuple, Union

from refdp.data import ColumnView, Dataset, Schema
from refdp.data.grid import ThresholdGrid
from refdp.scoring.kernels import score_function
from refdp.tree.nodes import Node, route

__all__ = [
    "Rows",
    "Table",
    "TrainingView",
    "Interval",
    "class_counts",
    "value_table",
    "weighted_class_counts",
    "weighted_table",
    "threshold_intervals",
    "ThresholdCandidates",
    "first_best",
    "RowMasks",
    "NodeCounts",
    "ReferenceThresholds",
    "ReferenceCounts",
]

Rows = List[int]
"""Row positions in the base columns of a :class:`TrainingView`."""

Table = List[List[int]]
"""A count table ``tau[j][c]``: one row per cell of a split, one column per class."""

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


def weighted_class_counts(view: TrainingView, rows: Sequence[int], weights: Sequence[int]) -> List[int]:
    """The sum of ``weights[i]`` over the rows of ``rows`` of each class (integers: exact)."""
    totals = [0] * view.n_classes
    labels = view.labels
    for i in rows:
        totals[labels[i]] += weights[i]
    return totals


def weighted_table(
    view: TrainingView, codes: Sequence[Union[int, float]], n_codes: int, rows: Sequence[int], weights: Sequence[int]
) -> Table:
    """``tau[j][c]``: the sum of ``weights[i]`` over the rows of ``rows`` with code ``j`` and class ``c``."""
    table = [[0] * view.n_classes for _ in range(n_codes)]
    labels = view.labels
    for i in rows:
        table[int(codes[i])][labels[i]] += weights[i]
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

    def best(self, quality: str, floor: float) -> Optional[Tuple[float, int]]:
        """The highest score of an interval with rows on both sides and the first index where it
        occurs, if it is above ``floor``; else None (also when no interval has rows on both sides)."""


class RowMasks(Protocol):
    """Sets of rows as masks, which an engine may offer besides :class:`NodeCounts`.

    A mask is an int with bit ``i`` set when base row ``i`` is in the set, so
    intersections and differences of sets are single integer operations and
    a tree routes all rows at once, node by node.
    """

    def root_mask(self, rows: "Rows") -> int:
        """The mask of ``rows``."""

    def value_mask(self, attribute: int, value: int) -> int:
        """The rows whose categorical ``attribute`` has code ``value``."""

    def threshold_masks(self, attribute: int, threshold: float) -> Tuple[int, int]:
        """(rows with ``x < threshold``, rows with ``x >= threshold``) of continuous ``attribute``."""

    def mask_class_counts(self, mask: int) -> List[int]:
        """The class histogram of the rows of ``mask``."""


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

    def masks(self) -> Optional[RowMasks]:
        """The same rows as masks, if this engine offers them (None otherwise)."""

    def weighted_class_counts(self, rows: Rows, weights: Sequence[int]) -> List[int]:
        """As :func:`weighted_class_counts`; ``weights[i]`` is the integer weight of row ``i``."""

    def weighted_value_table(self, rows: Rows, attribute: int, n_values: int, weights: Sequence[int]) -> Table:
        """:meth:`value_table` with each row counted ``weights[i]`` times (:func:`weighted_table`)."""

    def weighted_grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid, weights: Sequence[int]) -> Table:
        """:meth:`grid_table` with each row counted ``weights[i]`` times (:func:`weighted_table`)."""

    def labels(self, rows: Rows) -> List[int]:
        """The class code of each of ``rows``."""

    def predictions(self, tree: Node, rows: Rows) -> List[int]:
        """The class predicted by the leaf each of ``rows`` reaches in ``tree``
        (:func:`refdp.tree.route` and :attr:`refdp.tree.Leaf.prediction`)."""



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

    def best(self, quality: str, floor: float) -> Optional[Tuple[float, int]]:
        if not self._intervals:
            return None
        # The rows below grow from interval to interval: those with rows on both sides are the ones
        # from `first` to `last` - 1.
        below = self.below_sizes()
        first, last = bisect_right(below, 0), bisect_left(below, sum(map(sum, self._intervals[0].table)))
        return first_best(self.scores(quality)[first:last], first, floor) if first < last else None


def first_best(scores: List[float], offset: int, floor: float) -> Optional[Tuple[float, int]]:
    """The highest of ``scores`` and ``offset`` plus the first index where it occurs, if it is above ``floor``."""
    # max keeps the first of equal floats, index finds it.
    top = max(scores)
    return (top, offset + scores.index(top)) if top > floor else None


class ReferenceCounts:
    """:class:`NodeCounts` by the plain loops of this module, one row at a time (of a data set, or of a
    :class:`TrainingView` already made, whose rows are then the nodes' rows)."""

    def __init__(self, data: Union[Dataset, TrainingView]) -> None:
        self.view = data if isinstance(data, TrainingView) else TrainingView.of(data)
        self._codes: Dict[Tuple[int, ThresholdGrid], List[int]] = {}

    def root(self) -> Rows:
        return list(self.view.rows)

    def _grid_codes(self, attribute: int, grid: ThresholdGrid) -> List[int]:
        key = (attribute, grid)
        if key not in self._codes:
            self._codes[key] = grid.codes([float(x) for x in self.view.columns[attribute]])
        return self._codes[key]

    def grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid) -> Table:
        codes = self._grid_codes(attribute, grid)
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

    def masks(self) -> Optional[RowMasks]:
        return None

    def weighted_class_counts(self, rows: Rows, weights: Sequence[int]) -> List[int]:
        return weighted_class_counts(self.view, rows, weights)

    def weighted_value_table(self, rows: Rows, attribute: int, n_values: int, weights: Sequence[int]) -> Table:
        return weighted_table(self.view, self.view.columns[attribute], n_values, rows, weights)

    def weighted_grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid, weights: Sequence[int]) -> Table:
        return weighted_table(self.view, self._grid_codes(attribute, grid), grid.cells, rows, weights)

    def labels(self, rows: Rows) -> List[int]:
        labels = self.view.labels
        return [labels[i] for i in rows]

    def predictions(self, tree: Node, rows: Rows) -> List[int]:
        return [route(tree, self.view.columns, i).prediction for i in rows]
