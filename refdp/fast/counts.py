"""The array engine's :class:`~refdp.algorithms.greedy.NodeCounts`: counting at C speed.

Every kernel is a chain of standard-library calls that iterate in C
(``map`` over a column's ``__getitem__``, :class:`collections.Counter`,
:func:`itertools.compress`, :func:`itertools.accumulate`, ``sorted`` with a
C key), so no Python bytecode runs per row:

* class counts and (value x class) tables: one :class:`~collections.Counter`
  over the node's combined keys;
* interval counts of a continuous attribute: one Counter over the node's
  ``rank * |C| + label`` keys, one sort of the distinct keys present (not of
  the rows), cumulative sums per class;
* partitions: ``compress`` with the selector of a comparison, or one stable
  sort of the rows by their code (multiway), so children keep the parent's
  row order.

Scores of interval tables are computed column-wise with the very float
operations of :func:`refdp.algorithms.greedy.score_function`, in the same
order, so they are equal to the last bit (the equivalence tests check
whole models byte for byte).
"""

from __future__ import annotations

import math
from collections import Counter
from bisect import bisect_left
from functools import lru_cache
from itertools import accumulate, compress, repeat
from operator import add, floordiv, itemgetter, mul, neg, not_, sub, truediv
from typing import Dict, Iterable, List, Sequence, Tuple, TypeVar

from refdp.algorithms.greedy import Interval, Rows, Table, ThresholdCandidates
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.fast.columns import CodeColumn, ColumnStore

__all__ = ["ArrayCounts", "ArrayThresholds", "gather", "tally"]

T = TypeVar("T")

# Up to this many keys, counting each with bytes.count (memchr speed) beats one Counter.
_COUNT_LIMIT = 64
# Up to this many children, one translate-and-compress pass per child beats a loop over the rows.
_SELECT_LIMIT = 6


def gather(column: Sequence[T], rows: Rows) -> Tuple[T, ...]:
    """``column[i]`` for every ``i`` in ``rows``, in order: one :func:`operator.itemgetter` call."""
    if len(rows) > 1:
        return itemgetter(*rows)(column)  # type: ignore[no-any-return]
    return tuple(column[i] for i in rows)


def tally(keys: CodeColumn, rows: Rows, size: int) -> List[int]:
    """How many of ``rows`` have each key ``0 .. size - 1`` in ``keys``.

    Keys that fit in a byte are gathered into bytes and counted with
    ``bytes.count`` (a few small key spaces) or one Counter; others with a
    Counter over the gathered tuple.
    """
    picked = gather(keys, rows)
    if size <= 256:
        packed = bytes(picked)
        if size <= _COUNT_LIMIT:
            return [packed.count(k) for k in range(size)]
        found = Counter(packed)
    else:
        found = Counter(picked)
    return list(map(found.get, range(size), repeat(0)))


@lru_cache(maxsize=None)
def _selector_table(kind: str, cut: int) -> Tuple[bytes, bytes]:
    """``bytes.translate`` tables mapping a byte to 1 where it is ``== cut`` (or ``< cut``) and to 0
    elsewhere, and the complement."""
    hit = [int(b == cut) if kind == "eq" else int(b < cut) for b in range(256)]
    return bytes(hit), bytes(1 - h for h in hit)


def _split(rows: Rows, picked: bytes, kind: str, cut: int) -> Tuple[Rows, Rows]:
    yes, no = _selector_table(kind, cut)
    return list(compress(rows, picked.translate(yes))), list(compress(rows, picked.translate(no)))


def _column_sum(columns: Sequence[Sequence[int]]) -> List[int]:
    if len(columns) == 1:
        return list(columns[0])
    return list(map(sum, zip(*columns)))


def _column_max(columns: Sequence[Sequence[int]]) -> Iterable[int]:
    return iter(columns[0]) if len(columns) == 1 else map(max, *columns)


def _square_sum(columns: Sequence[Sequence[int]]) -> List[int]:
    return _column_sum([list(map(mul, c, c)) for c in columns])


class ArrayThresholds:
    """The intervals of one (node, continuous attribute) as columns.

    ``starts``, ``ends``: the interval bounds; ``below[c]``: the node's rows
    of class ``c`` below each interval; ``totals[c]``: the node's rows of
    class ``c``.
    """

    def __init__(
        self, starts: List[float], ends: List[float], below: List[List[int]], totals: List[int]
    ) -> None:
        self.starts = starts
        self.ends = ends
        self.below = below
        self.totals = totals
        self.above = [list(map(sub, repeat(t), b)) for t, b in zip(totals, below)]

    def __len__(self) -> int:
        return len(self.starts)

    def interval(self, index: int) -> Interval:
        return Interval(
            self.starts[index],
            self.ends[index],
            (tuple(b[index] for b in self.below), tuple(a[index] for a in self.above)),
        )

    def lengths(self) -> List[float]:
        return list(map(sub, self.ends, self.starts))

    def below_sizes(self) -> List[int]:
        return _column_sum(self.below)

    def scores(self, quality: str) -> List[float]:
        below, above = self.below, self.above
        if quality == "max":
            # float(sum(max(row) for row in table)): an int sum, exact.
            return list(map(float, map(add, _column_max(below), _column_max(above))))
        size_below = self.below_sizes()
        size_above = _column_sum(above)
        if quality == "gini":
            # total = 0.0; total += size - squares / size for each non-empty side; -total.
            # Each term is >= 0, so an empty side's 0.0 term changes nothing.
            return list(
                map(neg, map(add, _impurity(size_below, _square_sum(below)), _impurity(size_above, _square_sum(above))))
            )
        if quality == "info-gain":
            # math.fsum(c * log2(c / size) for every c > 0): fsum is exactly rounded, so the
            # order of the terms and the extra +-0.0 terms of c = 0 do not matter; + 0.0
            # turns an all-zero -0.0 into the reference's 0.0.
            nonzero_below = list(map(max, size_below, repeat(1)))
            nonzero_above = list(map(max, size_above, repeat(1)))
            terms = [_xlogx(c, nonzero_below) for c in below] + [_xlogx(c, nonzero_above) for c in above]
            return list(map(add, map(math.fsum, zip(*terms)), repeat(0.0)))
        raise InvalidParameterError(f"unknown quality function {quality!r}")


def _impurity(sizes: List[int], squares: List[int]) -> Iterable[float]:
    # size - squares / size; an empty side (size 0, squares 0) gives 0 - 0/1 = 0.0.
    return map(sub, sizes, map(truediv, squares, map(max, sizes, repeat(1))))


def _xlogx(counts: List[int], sizes: List[int]) -> List[float]:
    # c * log2(c / size) (sizes are >= 1 here), and 0 * log2(1 / size) = +-0.0 for c = 0.
    return list(map(mul, counts, map(math.log2, map(truediv, map(max, counts, repeat(1)), sizes))))


class ArrayCounts:
    """:class:`~refdp.algorithms.greedy.NodeCounts` over a :class:`ColumnStore`."""

    def __init__(self, data: Dataset) -> None:
        self.store = ColumnStore(data)
        self.n_classes = data.schema.n_classes

    def root(self) -> Rows:
        return list(self.store.rows)

    def class_counts(self, rows: Rows) -> List[int]:
        return tally(self.store.labels(), rows, self.n_classes)

    def value_table(self, rows: Rows, attribute: int, n_values: int) -> Table:
        k = self.n_classes
        flat = tally(self.store.keys(attribute), rows, n_values * k)
        return [flat[v * k : v * k + k] for v in range(n_values)]

    def thresholds(self, rows: Rows, attribute: int, lower: float, upper: float) -> ThresholdCandidates:
        k = self.n_classes
        found: Dict[int, int] = Counter(gather(self.store.keys(attribute), rows))
        ordered = sorted(found)
        ranks = list(dict.fromkeys(map(floordiv, ordered, repeat(k))))
        distinct = self.store.distinct(attribute)
        values = list(map(distinct.__getitem__, ranks))
        base = list(map(mul, ranks, repeat(k)))
        per_class = [list(map(found.get, map(add, base, repeat(c)), repeat(0))) for c in range(k)]
        totals = [sum(counts) for counts in per_class]
        starts = [lower] + values
        ends = values + [upper]
        below = [[0] + list(accumulate(counts)) for counts in per_class]
        # The first interval exists if the smallest value is above lower, the last if the
        # largest is below upper; the inner ones always (distinct values increase).
        first = 0 if not values or values[0] > lower else 1
        last = len(starts) if not values or upper > values[-1] else len(starts) - 1
        return ArrayThresholds(
            starts[first:last], ends[first:last], [b[first:last] for b in below], totals
        )

    def split_values(self, rows: Rows, attribute: int, n_values: int) -> List[Rows]:
        codes = self.store.codes(attribute)
        picked = gather(codes, rows)
        if isinstance(codes, bytes) and n_values <= _SELECT_LIMIT:
            packed = bytes(picked)
            return [list(compress(rows, packed.translate(_selector_table("eq", v)[0]))) for v in range(n_values)]
        buckets: List[Rows] = [[] for _ in range(n_values)]
        for i, code in zip(rows, picked):
            buckets[code].append(i)
        return buckets

    def split_value(self, rows: Rows, attribute: int, value: int) -> Tuple[Rows, Rows]:
        codes = self.store.codes(attribute)
        if isinstance(codes, bytes):
            return _split(rows, bytes(gather(codes, rows)), "eq", value)
        selector = [code == value for code in gather(codes, rows)]
        return list(compress(rows, selector)), list(compress(rows, map(not_, selector)))

    def split_threshold(self, rows: Rows, attribute: int, threshold: float) -> Tuple[Rows, Rows]:
        ranks = self.store.encoded_ranks(attribute)
        if isinstance(ranks, bytes):
            # x < t exactly when x's rank is below the number of distinct values < t.
            cut = bisect_left(self.store.distinct(attribute), threshold)
            if cut < 256:
                return _split(rows, bytes(gather(ranks, rows)), "lt", cut)
        # Two comprehensions beat a gathered selector and two compress passes on CPython 3.11.
        values = self.store.values(attribute)
        return [i for i in rows if values[i] < threshold], [i for i in rows if values[i] >= threshold]
