"""The array engine's :class:`~refdp.engine.NodeCounts`: counting at C speed.

Most kernels are chains of standard-library calls that iterate in C
(:func:`operator.itemgetter` over a column, :class:`collections.Counter`,
``bytes.count``/``translate``, :func:`itertools.compress`,
:func:`itertools.accumulate`), so no Python bytecode runs per row:

* class counts and (value x class) tables: the node's combined keys,
  counted with ``bytes.count`` or one Counter; a node's byte-sized keys of
  every column are gathered at once, as slices of the node's rows of a
  per-row block of them all (:meth:`ColumnStore.row_block`), others with
  one itemgetter per node; but the root's tables are the whole data set's (counted
  once per data set, :meth:`ColumnStore.histogram`), and the largest child
  of a split gets its parent's table less its siblings' (integers, so the
  same counts), which makes a level of the tree cost the rows outside its
  largest nodes rather than all rows;
* interval counts of a continuous attribute: a large node counts its
  ``rank * |C| + label`` keys into the whole key space with one Counter
  (the root reads the data set's histogram), read in key order, with
  cumulative sums per class; a small one sorts its keys and reads running
  class counts at the last key of each value;
* the best threshold (:meth:`ArrayThresholds.best`, the non-private
  baseline's): two-class gini, convex in the counts below, is scored at
  the edges and box corners of blocks of intervals first, and inside a
  block only where a corner may reach the best or the score to beat (a
  large sorted node first tries the same on blocks of rows, before
  counting per value); every float skipped is provably below, so the
  choice is that of scoring every interval;
* partitions: ``compress`` with the selector of a comparison, or one pass
  that appends each row to its side; children keep the parent's row order;
* masks (:class:`refdp.engine.RowMasks`): a random tree routes all
  rows at once, node by node, as ints with one bit per row (made from a
  byte selector by one ``translate`` and one base-2 ``int``, counted with
  ``int.bit_count``); value masks are kept with the column store;
* weighted tables (boosting's integer record weights): a node's rows are
  grouped by weight once (boosting's weights take few values), each group
  counted as above and its counts multiplied by its weight (integers, so
  the same sums as adding weights row by row);
* predictions of a released tree for every row: the tree compiled and
  routed column-wise (:mod:`refdp.tree.compiled`, without the fallback of
  prediction, as :func:`refdp.tree.route` routes).

Float work per candidate (scores of interval tables) runs as list
comprehensions, which CPython executes faster than chains of maps, with
the very float operations of :func:`refdp.scoring.kernels.score_function`
in the same order, so the scores are equal to the last bit (the
equivalence tests check whole models byte for byte).
"""

from __future__ import annotations

import math
from collections import Counter
from bisect import bisect_left
from functools import lru_cache, partial
from itertools import accumulate, chain, compress, islice, repeat
from operator import add, eq, floordiv, ge, itemgetter, mod, mul, ne, neg, not_, sub, truediv
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple, TypeVar, Union, cast

from refdp.engine import Interval, RowMasks, Rows, Table, ThresholdCandidates, first_best
from refdp.data import CategoricalAttribute, Dataset
from refdp.data.grid import ThresholdGrid
from refdp.errors import InvalidParameterError
from refdp.fast.columns import CodeColumn, ColumnStore
from refdp.tree.compiled import Columns, compile_tree, cuts_by_attribute, leaf_numbers
from refdp.tree.nodes import Node

__all__ = ["ArrayCounts", "ArrayThresholds", "gather", "tally", "xlogx_table"]

T = TypeVar("T")

# Up to this many keys, counting each with bytes.count (memchr speed) beats one Counter.
_COUNT_LIMIT = 64
# A node with at least 1/_DENSE_RATIO as many rows as keys counts into the whole key space, unsorted.
_DENSE_RATIO = 8
# Up to this many keys, a continuous attribute's dense interval counts come from a table of the node
# (derived from its parent's where it can be); a larger table would cost more than the node's rows.
_TABLE_KEYS = 1024
# Counting a table costs about as much as counting this many more rows.
_TABLE_COST = 64
# A float gini score of n rows is within 3 n 2**-53 of its real value; blocks of intervals are
# skipped with this much wider margin (times n), see _gini_best_by_blocks.
_ROUNDING = 2.0**-48
# Intervals (or rows) per block of _gini_best_by_blocks (or _gini_below).
_BLOCK = 32
# From this many rows on, a node that sorts its two-class keys first tries to rule out every split
# by gini from the rows' running counts (see LazyThresholds).
_BOUND_FROM = 256
# With at least this many byte columns counted, a node gathers them all at once from a row block
# (see ArrayCounts._picked).
_ROW_BLOCK_COLUMNS = 4
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
    return _tally(gather(keys, rows), size)


def _tally(picked: Sequence[int], size: int) -> List[int]:
    if size <= 256:
        packed = picked if isinstance(picked, bytes) else bytes(picked)
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
    cut = min(max(cut, 0), 256) if kind == "lt" else cut
    if kind == "eq":
        hit = bytes(cut) + b"\x01" + bytes(255 - cut) if 0 <= cut < 256 else bytes(256)
    else:
        hit = b"\x01" * cut + bytes(256 - cut)
    return hit, hit.translate(bytes([1, 0]) + bytes(254))


popcount: Callable[[int], int] = getattr(int, "bit_count", None) or (lambda x: bin(x).count("1"))
"""The number of 1 bits of a non-negative int (``int.bit_count`` from Python 3.10 on)."""

_BINARY = bytes.maketrans(b"\x00\x01", b"01")


def bit_mask(selector: bytes) -> int:
    """The int with bit ``i`` set where ``selector[i]`` is 1 (``selector``: one 0 or 1 byte per row)."""
    return int(selector.translate(_BINARY)[::-1], 2) if selector else 0


def _split(rows: Rows, picked: bytes, kind: str, cut: int) -> Tuple[Rows, Rows]:
    yes, no = _selector_table(kind, cut)
    return list(compress(rows, picked.translate(yes))), list(compress(rows, picked.translate(no)))


def _rows(flat: List[int], k: int) -> List[List[int]]:
    """``flat`` cut into consecutive rows of ``k``: ``[flat[0:k], flat[k:2k], ...]``."""
    return list(map(list, zip(*[iter(flat)] * k)))


def _column_sum(columns: Sequence[Sequence[int]]) -> List[int]:
    total: Iterable[int] = columns[0]
    for column in columns[1:]:
        total = map(add, total, column)
    return list(total)


def _column_max(columns: Sequence[Sequence[int]]) -> Iterable[int]:
    return iter(columns[0]) if len(columns) == 1 else map(max, *columns)


def _square_sum(columns: Sequence[Sequence[int]]) -> List[int]:
    return _column_sum([list(map(mul, c, c)) for c in columns])


def xlogx_table(size: int) -> List[float]:
    """``[xlogx(c) for c in range(size + 1)]`` (:func:`refdp.scoring.kernels.xlogx`), at C speed."""
    counts = range(1, size + 1)
    return [0.0] + list(map(mul, counts, map(math.log2, counts)))


class ArrayThresholds:
    """The intervals of one (node, continuous attribute) as columns.

    ``cuts``: ``lower``, the node's distinct values (increasing), ``upper``;
    ``upto[c][t]``: the node's rows of class ``c`` with a value up to
    ``cuts[t]`` (``upto[c][0]`` is 0, ``upto[c][-1]`` all rows of class
    ``c``); ``sizes``: the same for all classes, or None (summed when
    needed).  The intervals are ``(cuts[t], cuts[t + 1])`` for ``t`` from
    ``lo`` to ``hi - 1`` (the first cut may equal the smallest value, the
    last the largest).  ``xlogx``, ``squares``: functions returning tables
    of ``c log2 c`` (info-gain's terms) and ``c * c`` (gini's) for counts up
    to the node's size at least.
    """

    def __init__(
        self,
        cuts: List[float],
        upto: List[List[int]],
        sizes: Optional[List[int]],
        lo: int,
        hi: int,
        xlogx: Callable[[], List[float]],
        squares: Callable[[], List[int]],
    ) -> None:
        self.cuts = cuts
        self.upto = upto
        self.sizes = sizes
        self.lo = lo
        self.hi = hi
        self._xlogx = xlogx
        self._squares = squares

    def __len__(self) -> int:
        return self.hi - self.lo

    def interval(self, index: int) -> Interval:
        t = self.lo + index
        return Interval(
            self.cuts[t], self.cuts[t + 1], (tuple(c[t] for c in self.upto), tuple(c[-1] - c[t] for c in self.upto))
        )

    def lengths(self) -> List[float]:
        return list(map(sub, self.cuts[self.lo + 1 : self.hi + 1], self.cuts[self.lo : self.hi]))

    def below_sizes(self) -> List[int]:
        if self.sizes is None:
            self.sizes = _column_sum(self.upto)
        return self.sizes[self.lo : self.hi]

    def best(self, quality: str, floor: float) -> Optional[Tuple[float, int]]:
        # Each value has rows, so the intervals with rows on both sides are those from cut 1 to the
        # last value; only they are scored.
        first, last = max(self.lo, 1) - self.lo, min(self.hi, len(self.cuts) - 2) - self.lo
        if first >= last:
            return None
        if len(self.upto) == 2 and quality == "gini":
            zeros, ones = self.upto
            start, stop = self.lo + first, self.lo + last
            if stop - start < 2 * _BLOCK:
                scores = _gini_of_splits(zeros[start:stop], ones[start:stop], zeros[-1], ones[-1], self._squares())
                return first_best(scores, first, floor)
            found = _gini_best_by_blocks(zeros, ones, start, stop, floor, self._squares())
            return None if found is None else (found[0], found[1] - self.lo)
        return first_best(self.scores(quality)[first:last], first, floor)

    def scores(self, quality: str) -> List[float]:
        below = [c[self.lo : self.hi] for c in self.upto]
        totals = [c[-1] for c in self.upto]
        if len(below) == 2 and quality in ("gini", "info-gain"):
            return _two_class_scores(quality, below, totals, self._xlogx, self._squares)
        above = [list(map(sub, repeat(t), b)) for t, b in zip(totals, below)]
        if quality == "max":
            # float(sum(max(row) for row in table)): an int sum, exact.
            return list(map(float, map(add, _column_max(below), _column_max(above))))
        size_below = self.below_sizes()
        size_above = list(map(sub, repeat(sum(totals)), size_below))
        if quality == "gini":
            # total = 0.0; total += size - squares / size for each non-empty side; -total.
            # Each term is >= 0, so an empty side's 0.0 term changes nothing.
            return list(
                map(neg, map(add, _impurity(size_below, _square_sum(below)), _impurity(size_above, _square_sum(above))))
            )
        if quality == "info-gain":
            # Per side (sum_c xlogx(c)) - xlogx(size), the classes added left to right as sum()
            # does (0 + x is x); then 0.0 + below + above, where 0.0 + below is below (never -0.0).
            table = self._xlogx().__getitem__
            return list(map(add, _entropy_terms(table, below, size_below), _entropy_terms(table, above, size_above)))
        raise InvalidParameterError(f"unknown quality function {quality!r}")


def _two_class_scores(
    quality: str,
    below: List[List[int]],
    totals: List[int],
    xlogx: Callable[[], List[float]],
    squares: Callable[[], List[int]],
) -> List[float]:
    # Two classes (the common case) in one comprehension: CPython runs int and float arithmetic
    # in a comprehension faster than chains of maps, and reads a square from a table faster than
    # it multiplies (the same ints, so the same floats).  The operations and their order are
    # those of the general case above; t0 - b0, t1 - b1 are the counts at or above.
    t0, t1 = totals
    n = t0 + t1
    rows = zip(below[0], below[1])
    if quality == "gini":
        q = squares()
        # s, u: the sizes below and at or above (ints, each computed once).
        return [
            -(
                (s - (q[b0] + q[b1]) / s if (s := b0 + b1) else 0.0)
                + (u - (q[t0 - b0] + q[t1 - b1]) / u if (u := n - s) else 0.0)
            )
            for b0, b1 in rows
        ]
    x = xlogx()
    return [(x[b0] + x[b1] - x[(s := b0 + b1)]) + (x[t0 - b0] + x[t1 - b1] - x[n - s]) for b0, b1 in rows]


def _gini_of_splits(below0: List[int], below1: List[int], t0: int, t1: int, q: List[int]) -> List[float]:
    # The gini of _two_class_scores where every interval has rows on both sides (no empty-side branch).
    n = t0 + t1
    return [
        -(((s := b0 + b1) - (q[b0] + q[b1]) / s) + ((u := n - s) - (q[t0 - b0] + q[t1 - b1]) / u))
        for b0, b1 in zip(below0, below1)
    ]


def _gini_best_by_blocks(
    zeros: List[int], ones: List[int], start: int, stop: int, floor: float, q: List[int]
) -> Optional[Tuple[float, int]]:
    """:func:`first_best` of :func:`_gini_of_splits` of the intervals ``start .. stop - 1``, by blocks.

    ``zeros``, ``ones``: the rows of each class below each interval (never
    fewer from one interval to the next).  In real numbers the two-class
    gini score is ``-2 (h(b0, b1) + h(a0, a1))`` with ``h(x, y) = xy / (x +
    y)`` (half the harmonic mean, concave where x + y > 0), b the counts
    below and a = t - b above: a concave function of b negated.  The
    intervals from one block edge to the next (``_BLOCK`` apart) have their
    counts in the box spanned by the edges' counts (no side empty there), so
    none scores above the best corner of the box, in real numbers.  A float
    score is within 3 n 2**-53 of its real value (n rows: one rounding of at
    most s 2**-53 for the division of each side of s rows, one for its
    difference, one for the sum), far less than the margin ``n *
    _ROUNDING``.  So the edges and the corners are scored first, and the
    inside of a block only if its best corner comes within the margin of the
    best edge or of ``floor``: every interval skipped scores below both, so
    the result is that of scoring every interval.
    """
    t0, t1 = zeros[-1], ones[-1]
    last = stop - 1
    edges = [*range(start, last, _BLOCK), last]
    scores, corners = _block_corners(
        [*zeros[start:last:_BLOCK], zeros[last]], [*ones[start:last:_BLOCK], ones[last]], t0, t1, q
    )
    top = max(scores)
    index = edges[scores.index(top)]
    limit = max(top, floor) - (t0 + t1) * _ROUNDING
    for k in compress(range(len(edges) - 1), map(ge, corners, repeat(limit))):
        a, b = edges[k] + 1, edges[k + 1]
        if a < b:
            inside = _gini_of_splits(zeros[a:b], ones[a:b], t0, t1, q)
            high = max(inside)
            if high > top or (high == top and a + inside.index(high) < index):
                top, index = high, a + inside.index(high)
    return (top, index) if top > floor else None


def _block_corners(
    zeros_at: List[int], ones_at: List[int], t0: int, t1: int, q: List[int]
) -> Tuple[List[float], List[float]]:
    """The gini scores at the block edges (counts below ``zeros_at``, ``ones_at``), and the best
    of the four corners of each block's box (:func:`_gini_best_by_blocks`)."""
    scores = _gini_of_splits(zeros_at, ones_at, t0, t1, q)
    # The other two corners of each block's box: fewer of class 0 and more of class 1, and the reverse.
    corners = list(map(
        max,
        scores,
        islice(scores, 1, None),
        _gini_of_splits(zeros_at, ones_at[1:], t0, t1, q),
        _gini_of_splits(zeros_at[1:], ones_at, t0, t1, q),
    ))
    return scores, corners


def _impurity(sizes: List[int], squares: List[int]) -> Iterable[float]:
    # size - squares / size; an empty side (size 0, squares 0) gives 0 - 0/1 = 0.0.
    return map(sub, sizes, map(truediv, squares, map(max, sizes, repeat(1))))


def _entropy_terms(table: Callable[[int], float], columns: Sequence[Sequence[int]], sizes: List[int]) -> Iterable[float]:
    total: Iterable[float] = map(table, columns[0])
    for column in columns[1:]:
        total = map(add, total, map(table, column))
    return map(sub, total, map(table, sizes))


class LazyThresholds:
    """:class:`ArrayThresholds` of a node's sorted two-class keys, made on first use but by
    :meth:`best`, which may first rule out every interval from the rows' running counts.

    ``ones[r]``: the rows of class 1 among the first r rows (in value order, ``r = 0 .. n``);
    ``build``: makes the intervals.
    """

    def __init__(self, ones: List[int], build: Callable[[], ArrayThresholds], squares: Callable[[], List[int]]) -> None:
        self._ones = ones
        self._build = build
        self._squares = squares
        self._made: Optional[ArrayThresholds] = None

    def _full(self) -> ArrayThresholds:
        if self._made is None:
            self._made = self._build()
        return self._made

    def __len__(self) -> int:
        return len(self._full())

    def interval(self, index: int) -> Interval:
        return self._full().interval(index)

    def lengths(self) -> List[float]:
        return self._full().lengths()

    def scores(self, quality: str) -> List[float]:
        return self._full().scores(quality)

    def below_sizes(self) -> List[int]:
        return self._full().below_sizes()

    def best(self, quality: str, floor: float) -> Optional[Tuple[float, int]]:
        if quality == "gini" and _gini_below(self._ones, floor, self._squares()):
            return None
        return self._full().best(quality, floor)


def _gini_below(ones: List[int], floor: float, q: List[int]) -> bool:
    """Whether no split of n rows in this order, with ``ones[r]`` of class 1 among the first r
    (``r = 0 .. n``), has a two-class gini score above ``floor`` (False if unsure).

    Every interval with rows on both sides has the counts below of a prefix of 1 .. n - 1 rows, so
    the argument of :func:`_gini_best_by_blocks`, with blocks of ``_BLOCK`` rows: every such score
    is at most the best corner of its block's box plus twice the rounding, below ``floor`` when the
    best corner is below ``floor`` less the margin.
    """
    n = len(ones) - 1
    if floor == -math.inf or n < 3:
        return False
    t1 = ones[-1]
    t0 = n - t1
    edges = [*range(1, n - 1, _BLOCK), n - 1]
    ones_at = [*ones[1 : n - 1 : _BLOCK], ones[n - 1]]
    _, corners = _block_corners(list(map(sub, edges, ones_at)), ones_at, t0, t1, q)
    return max(corners) < floor - n * _ROUNDING


class ArrayCounts:
    """:class:`~refdp.engine.NodeCounts` over a :class:`ColumnStore`, with :class:`~refdp.engine.RowMasks`."""

    def __init__(self, data: Dataset) -> None:
        self.store = ColumnStore.of(data)
        self.n_classes = data.schema.n_classes
        self._xlogx: List[float] = []
        self._squares: List[int] = []
        self._zero_tables: Dict[int, Dict[int, int]] = {}
        self._masked: Optional[Rows] = None
        self._root_mask = 0
        self._getters: Dict[int, Tuple[Rows, Callable[[Sequence[int]], Tuple[int, ...]]]] = {}
        self._roots: Dict[int, Rows] = {}
        self._grids: Dict[int, Tuple[ThresholdGrid, int]] = {}
        # Tables counted so far, by (node, column); the rows list is kept, so its id stays the node's.
        self._tables: Dict[Tuple[int, Tuple[object, ...]], Tuple[Rows, List[int]]] = {}
        # The byte columns counted so far, by name, until the block is made (see _picked): their
        # names' positions and the rows of the block; the rows gathered one byte column at a time.
        self._byte_columns: Dict[Tuple[object, ...], bytes] = {}
        self._block: Optional[Tuple[Dict[Tuple[object, ...], int], List[bytes]]] = None
        self._gathered = 0
        # The block's rows of a node, joined.
        self._joined: Dict[int, Tuple[Rows, bytes]] = {}
        # The parent, the children (itself among them) and the largest child of every node a split made.
        self._family: Dict[int, Tuple[Rows, Rows, Sequence[Rows], Rows]] = {}
        # A node's rows grouped by weight, for the weights object they were grouped by.
        self._groups: Dict[int, Tuple[Rows, Sequence[int], List[Tuple[int, Rows]]]] = {}

    def _zeros(self, attribute: int, size: int) -> Dict[int, int]:
        """``{key: 0}`` for the keys ``0 .. size - 1`` of ``attribute``, in order, made once."""
        if attribute not in self._zero_tables:
            self._zero_tables[attribute] = dict.fromkeys(range(size), 0)
        return self._zero_tables[attribute]

    def xlogx(self) -> List[float]:
        """:func:`xlogx_table` up to the data set's size, computed on first use."""
        if not self._xlogx:
            self._xlogx = xlogx_table(len(self.store.rows))
        return self._xlogx

    def squares(self) -> List[int]:
        """``[c * c for c in range(size + 1)]`` up to the data set's size, computed on first use."""
        if not self._squares:
            counts = range(len(self.store.rows) + 1)
            self._squares = list(map(mul, counts, counts))
        return self._squares

    def root(self) -> Rows:
        rows = list(self.store.rows)
        self._roots[id(rows)] = rows
        return rows

    def _gather(self, column: Sequence[T], rows: Rows) -> Tuple[T, ...]:
        # A node's rows are gathered from every attribute's column in turn: one itemgetter per
        # node, not per column.  Rows lists are the engine's own and never change once made,
        # so the list object identifies the node (kept here, so that its id is not reused).
        if len(rows) <= 1:
            return gather(column, rows)
        known = self._getters.get(id(rows))
        if known is None or known[0] is not rows:
            known = self._getters[id(rows)] = (rows, itemgetter(*rows))
        return known[1](column)  # type: ignore[arg-type, return-value]

    def _picked(self, rows: Rows, name: Tuple[object, ...], column: CodeColumn) -> Sequence[int]:
        """``column[i]`` for every ``i`` in ``rows`` (``column`` named ``name``).

        A node counts most byte columns a learner counts at all, so the
        node's rows of the block (the byte columns counted so far, one bytes
        object per base row, kept with the column store) are gathered and
        joined once, and a column is a slice of that: one gather per node
        rather than one per column.  The block is made when the data set
        has it already, or when gathering column by column has cost as much.
        """
        if len(rows) > 1 and isinstance(column, bytes):
            block = self._block or self._made_block()
            if block is not None:
                offsets, records = block
                position = offsets.get(name)
                if position is not None:
                    joined = self._joined.get(id(rows))
                    if joined is None or joined[0] is not rows:
                        joined = self._joined[id(rows)] = (rows, b"".join(self._gather(records, rows)))
                    return joined[1][position :: len(offsets)]
            self._gathered += len(rows)
        return self._gather(column, rows)

    def _made_block(self) -> Optional[Tuple[Dict[Tuple[object, ...], int], List[bytes]]]:
        # The block of the byte columns counted so far, once the data set has it (an earlier fit
        # made it) or once the rows gathered one column at a time cost as much as making it.
        names = tuple(self._byte_columns)
        if len(names) < _ROW_BLOCK_COLUMNS or (
            not self.store.has_row_block(names) and self._gathered < len(self.store.rows) * len(names)
        ):
            return None
        records = self.store.row_block(names, list(self._byte_columns.values()))
        self._block = (dict(zip(names, range(len(names)))), records)
        return self._block

    def _adopt(self, parent: Rows, children: Sequence[Rows]) -> None:
        if not children:
            return
        largest = max(children, key=len)
        for child in children:
            self._family[id(child)] = (child, parent, children, largest)

    def _flat(self, rows: Rows, name: Tuple[object, ...], column: CodeColumn, size: int) -> List[int]:
        """How many of ``rows`` have each key ``0 .. size - 1`` of ``column`` (named ``name``), counted once."""
        known = self._tables.get((id(rows), name))
        if known is not None and known[0] is rows:
            return known[1]
        if self._block is None and isinstance(column, bytes):
            self._byte_columns.setdefault(name, column)
        flat = self._count(rows, name, column, size)
        self._tables[id(rows), name] = (rows, flat)
        return flat

    def _count(self, rows: Rows, name: Tuple[object, ...], column: CodeColumn, size: int) -> List[int]:
        if self._roots.get(id(rows)) is rows:
            return list(self.store.histogram(name, column, size))
        family = self._family.get(id(rows))
        if family is not None and family[0] is rows:
            _, parent, children, largest = family
            counted = self._tables.get((id(parent), name))
            # The largest child costs its parent's table less its smaller siblings' (counted directly),
            # when that is cheaper.
            if (
                counted is not None
                and counted[0] is parent
                and largest is rows
                and self._cheaper(rows, name, children)
            ):
                # An empty sibling has nothing to subtract.
                others = [self._flat(child, name, column, size) for child in children if child and child is not rows]
                return list(map(sub, counted[1], _column_sum(others))) if others else list(counted[1])
        return _tally(self._picked(rows, name, column), size)

    def _cheaper(self, rows: Rows, name: Tuple[object, ...], children: Sequence[Rows]) -> bool:
        # Whether the siblings of ``rows`` not counted yet cost less to count than ``rows`` (a
        # multiway split's many small children may never need their tables otherwise).
        todo = 0
        for child in children:
            if child and child is not rows:
                known = self._tables.get((id(child), name))
                if known is None or known[0] is not child:
                    todo += len(child) + _TABLE_COST
        return todo < len(rows)

    def class_counts(self, rows: Rows) -> List[int]:
        return list(self._flat(rows, ("labels",), self.store.labels(), self.n_classes))

    def value_table(self, rows: Rows, attribute: int, n_values: int) -> Table:
        k = self.n_classes
        flat = self._flat(rows, ("keys", attribute), self.store.keys(attribute), n_values * k)
        return _rows(flat, k)

    def grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid) -> Table:
        k = self.n_classes
        known = self._grids.get(id(grid))
        if known is None or known[0] is not grid:
            known = self._grids[id(grid)] = (grid, self.store.grid_number(grid))
        name = ("grid", attribute, known[1])
        flat = self._flat(rows, name, self.store.grid_keys(attribute, grid), grid.cells * k)
        return _rows(flat, k)

    def thresholds(self, rows: Rows, attribute: int, lower: float, upper: float) -> ThresholdCandidates:
        k = self.n_classes
        keys = self.store.keys(attribute)
        distinct = self.store.distinct(attribute)
        size = len(distinct) * k
        # upto[c][j] (ArrayThresholds): the node's rows of class c with a value below values[j]
        # (j = 0) or up to values[j - 1].
        if len(rows) * _DENSE_RATIO >= size:
            # Many keys may occur: count into the whole key space, in key order (the root's is
            # the data set's histogram, counted once; a Counter keeps the order its keys were
            # first inserted in), then keep the values present, rather than sort the keys found.
            flat: Sequence[int]
            if size <= _TABLE_KEYS:
                flat = self._flat(rows, ("keys", attribute), keys, size)
            elif self._roots.get(id(rows)) is rows:
                flat = self.store.histogram(("keys", attribute), keys, size)
            else:
                table = Counter(self._zeros(attribute, size))
                table.update(self._gather(keys, rows))
                flat = list(table.values())
            columns = [flat[c::k] for c in range(k)]
            present = _column_sum(columns)
            values = list(compress(distinct, present))
            upto = [list(accumulate(compress(column, present), initial=0)) for column in columns]
            return self._intervals(values, upto, None, lower, upper)
        # Few rows: sort their keys (rank * k + label), so that a value's rows are consecutive.
        ordered = sorted(self._picked(rows, ("keys", attribute), keys))
        key_values = self.store.key_values(attribute)
        if k == 2 and len(ordered) >= _BOUND_FROM:
            ones = list(accumulate(map(mod, ordered, repeat(2)), initial=0))
            return LazyThresholds(
                ones, partial(self._sorted_intervals, ordered, key_values, ones, lower, upper), self.squares
            )
        return self._sorted_intervals(ordered, key_values, None, lower, upper)

    def _sorted_intervals(
        self, ordered: List[int], key_values: Tuple[float, ...], ones: Optional[List[int]], lower: float, upper: float
    ) -> "ArrayThresholds":
        # Read the running class counts (from 0) at the last row of each value; ``ones``: the running
        # count of class 1 row by row, if made already.
        k = self.n_classes
        # The value of each row (a float of the store's, not a new object), in order.
        cells = list(map(key_values.__getitem__, ordered))
        at = list(chain((True,), map(ne, cells, chain(islice(cells, 1, None), (None,)))))
        values = list(compress(cells, islice(at, 1, None)))
        sizes = list(compress(range(len(ordered) + 1), at))
        if k == 2:
            if ones is None:
                ones = list(accumulate(map(mod, ordered, repeat(2)), initial=0))
            kept = list(compress(ones, at))
            upto = [list(map(sub, sizes, kept)), kept]
        else:
            labels = list(map(mod, ordered, repeat(k)))
            upto = [list(compress(accumulate(map(eq, labels, repeat(c)), initial=0), at)) for c in range(k)]
        return self._intervals(values, upto, sizes, lower, upper)

    def _intervals(
        self, values: List[float], upto: List[List[int]], sizes: Optional[List[int]], lower: float, upper: float
    ) -> "ArrayThresholds":
        # The cut points are lower, values, upper.  The first interval (lower, values[0]) exists
        # if the smallest value is above lower, the last (values[-1], upper) if the largest is
        # below upper; the inner ones always (distinct values increase).
        lo = 0 if not values or values[0] > lower else 1
        hi = len(values) + (1 if not values or upper > values[-1] else 0)
        return ArrayThresholds([lower, *values, upper], upto, sizes, lo, hi, self.xlogx, self.squares)

    def masks(self) -> RowMasks:
        return self

    def _weight_groups(self, rows: Rows, weights: Sequence[int]) -> List[Tuple[int, Rows]]:
        """(weight, the rows of ``rows`` with it, in order) for every positive weight, made once per node
        and weights object (the weights of a round never change once made)."""
        known = self._groups.get(id(rows))
        if known is not None and known[0] is rows and known[1] is weights:
            return known[2]
        picked = self._gather(weights, rows)
        distinct = set(picked)
        if len(distinct) == 1:
            groups = [(picked[0], rows)]
        elif len(distinct) <= _SELECT_LIMIT:
            groups = [(w, list(compress(rows, map(eq, picked, repeat(w))))) for w in distinct]
        else:
            buckets: Dict[int, Rows] = {w: [] for w in distinct}
            adds = {w: bucket.append for w, bucket in buckets.items()}
            for i, w in zip(rows, picked):
                adds[w](i)
            groups = list(buckets.items())
        found = [(w, group) for w, group in groups if w]
        self._groups[id(rows)] = (rows, weights, found)
        return found

    def _weighted(
        self, rows: Rows, weights: Sequence[int], name: Tuple[object, ...], column: CodeColumn, size: int
    ) -> List[int]:
        total = [0] * size
        for weight, group in self._weight_groups(rows, weights):
            total = list(map(add, total, map(mul, self._flat(group, name, column, size), repeat(weight))))
        return total

    def weighted_class_counts(self, rows: Rows, weights: Sequence[int]) -> List[int]:
        return self._weighted(rows, weights, ("labels",), self.store.labels(), self.n_classes)

    def weighted_value_table(self, rows: Rows, attribute: int, n_values: int, weights: Sequence[int]) -> Table:
        k = self.n_classes
        return _rows(self._weighted(rows, weights, ("keys", attribute), self.store.keys(attribute), n_values * k), k)

    def weighted_grid_table(self, rows: Rows, attribute: int, grid: ThresholdGrid, weights: Sequence[int]) -> Table:
        k = self.n_classes
        keys = self.store.grid_keys(attribute, grid)
        return _rows(self._weighted(rows, weights, ("grid", attribute, self.store.grid_number(grid)), keys,
                                    grid.cells * k), k)

    def labels(self, rows: Rows) -> List[int]:
        return list(self._gather(self.store.labels(), rows))

    def predictions(self, tree: Node, rows: Rows) -> List[int]:
        # Plain leaves: a node's released counts are not consulted (route has no fallback).
        compiled = compile_tree(tree, lambda node: ())
        cuts = cuts_by_attribute([tree])
        schema = self.store.schema
        columns: List[Sequence[Union[int, float]]] = [
            self.store.codes(a) if isinstance(attribute, CategoricalAttribute) else self.store.values(a)
            for a, attribute in enumerate(schema.attributes)
        ]
        numbers = leaf_numbers(compiled, Columns(columns, len(self.store.rows), cuts))
        chosen = [leaf.prediction for leaf in compiled.leaves]
        return list(map(chosen.__getitem__, numbers if self._roots.get(id(rows)) is rows else gather(numbers, rows)))

    def _mask(self, selector: bytes) -> int:
        return bit_mask(selector)

    def root_mask(self, rows: Rows) -> int:
        """:meth:`refdp.engine.RowMasks.root_mask`: bit i for base row i."""
        if self._masked is not rows:
            n = len(self.store.rows)
            if self._roots.get(id(rows)) is rows:
                mask = (1 << n) - 1
            else:
                selector = bytearray(n)
                for i in rows:
                    selector[i] = 1
                mask = bit_mask(bytes(selector))
            # Rows lists never change once made (see _gather): a forest routes the same root rows.
            self._masked, self._root_mask = rows, mask
        return self._root_mask

    def value_mask(self, attribute: int, value: int) -> int:
        """:meth:`refdp.engine.RowMasks.value_mask`, made once per (attribute, value) and data set."""
        key = ("value", attribute, value)
        masks = self.store.masks
        if key not in masks:
            codes = self.store.codes(attribute)
            if isinstance(codes, bytes) and 0 <= value < 256:
                selector = codes.translate(_selector_table("eq", value)[0])
            else:
                selector = bytes([code == value for code in codes])
            masks[key] = bit_mask(selector)
        return masks[key]

    def threshold_masks(self, attribute: int, threshold: float) -> Tuple[int, int]:
        """:meth:`refdp.engine.RowMasks.threshold_masks`, from the rows' ranks.

        x < t exactly when x's rank is below ``bisect_left(distinct, t)``;
        ranks of up to 2**16 distinct values are compared a byte at a time
        (high byte below, or equal and low byte below).
        """
        if threshold != threshold:
            return 0, 0  # NaN: no row is below or at-or-above, as in the reference
        n = len(self.store.rows)
        everyone = (1 << n) - 1
        distinct = self.store.distinct(attribute)
        cut = bisect_left(distinct, threshold)
        if cut >= len(distinct):
            return everyone, 0
        rank_bytes = self._rank_bytes(attribute)
        if rank_bytes is None:
            values = self.store.values(attribute)
            below = bit_mask(bytes([x < threshold for x in values]))
        elif rank_bytes[1] is None:
            below = self._rank_mask(attribute, 0, "lt", cut)
        else:
            top, bottom = divmod(cut, 256)
            below = self._rank_mask(attribute, 0, "lt", top) | (
                self._rank_mask(attribute, 0, "eq", top) & self._rank_mask(attribute, 1, "lt", bottom)
            )
        return below, everyone ^ below

    def _rank_mask(self, attribute: int, level: int, kind: str, cut: int) -> int:
        # The rows whose rank byte (0: the only or high byte, 1: the low byte) is below (or equal to)
        # cut: at most 257 masks per byte and kind, kept with the column store for every later fit.
        key = ("rank", attribute, level, kind, cut)
        masks = self.store.masks
        if key not in masks:
            rank_bytes = self._rank_bytes(attribute)
            assert rank_bytes is not None
            column = rank_bytes[level]
            assert column is not None
            masks[key] = bit_mask(column.translate(_selector_table(kind, cut)[0]))
        return masks[key]

    def _rank_bytes(self, attribute: int) -> Optional[Tuple[bytes, Optional[bytes]]]:
        # The ranks as one byte column, or as high and low bytes when there are up to 2**16
        # distinct values; None above that (the values are compared directly).  Kept with the store.
        cache = self.store.rank_bytes
        if attribute not in cache:
            ranks = self.store.ranks(attribute)
            if isinstance(ranks, bytes):
                cache[attribute] = (ranks, None)
            elif len(self.store.distinct(attribute)) <= 1 << 16:
                cache[attribute] = (bytes(map(floordiv, ranks, repeat(256))), bytes(map(mod, ranks, repeat(256))))
            else:
                cache[attribute] = None
        return cache[attribute]

    def mask_class_counts(self, mask: int) -> List[int]:
        """:meth:`refdp.engine.RowMasks.mask_class_counts`: one AND and one bit count per class but the last."""
        labels = self.store.labels()
        label_masks = [self.store.masks.get(("label", c)) for c in range(self.n_classes - 1)]
        for c, known in enumerate(label_masks):
            if known is None:
                label_masks[c] = self.store.masks["label", c] = bit_mask(
                    labels.translate(_selector_table("eq", c)[0]) if isinstance(labels, bytes)
                    else bytes([label == c for label in labels])
                )
        counts = [popcount(mask & m) for m in cast(List[int], label_masks)]
        return counts + [popcount(mask) - sum(counts)]

    def split_values(self, rows: Rows, attribute: int, n_values: int) -> List[Rows]:
        children = self._split_values(rows, attribute, n_values)
        self._adopt(rows, children)
        return children

    def _split_values(self, rows: Rows, attribute: int, n_values: int) -> List[Rows]:
        codes = self.store.codes(attribute)
        picked = self._gather(codes, rows)
        if isinstance(codes, bytes) and n_values <= _SELECT_LIMIT:
            packed = bytes(picked)
            return [list(compress(rows, packed.translate(_selector_table("eq", v)[0]))) for v in range(n_values)]
        buckets: List[Rows] = [[] for _ in range(n_values)]
        for i, code in zip(rows, picked):
            buckets[code].append(i)
        return buckets

    def split_value(self, rows: Rows, attribute: int, value: int) -> Tuple[Rows, Rows]:
        children = self._split_value(rows, attribute, value)
        self._adopt(rows, children)
        return children

    def _split_value(self, rows: Rows, attribute: int, value: int) -> Tuple[Rows, Rows]:
        codes = self.store.codes(attribute)
        if isinstance(codes, bytes):
            return _split(rows, bytes(self._gather(codes, rows)), "eq", value)
        selector = [code == value for code in self._gather(codes, rows)]
        return list(compress(rows, selector)), list(compress(rows, map(not_, selector)))

    def split_threshold(self, rows: Rows, attribute: int, threshold: float) -> Tuple[Rows, Rows]:
        children = self._split_threshold(rows, attribute, threshold)
        self._adopt(rows, children)
        return children

    def _split_threshold(self, rows: Rows, attribute: int, threshold: float) -> Tuple[Rows, Rows]:
        ranks = self.store.encoded_ranks(attribute)
        if isinstance(ranks, bytes):
            # x < t exactly when x's rank is below the number of distinct values < t.
            cut = bisect_left(self.store.distinct(attribute), threshold)
            if cut < 256:
                return _split(rows, bytes(self._gather(ranks, rows)), "lt", cut)
        values = self.store.values(attribute)
        if threshold != threshold:
            # NaN: no row is below or at-or-above, as in the reference.
            return [], []
        on_grid = self.store.grid_split(attribute, threshold)
        if on_grid is not None and isinstance(on_grid[0], bytes):
            # A cut of a public grid whose keys were counted (a greedy tree's split): compare keys.
            return _split(rows, bytes(self._gather(on_grid[0], rows)), "lt", on_grid[1])
        # One pass that appends each row to its side beats two comprehensions, and a gathered
        # selector with compress, on CPython 3.11.  The values are finite reals (the data set
        # checks), so a row that is not below is at or above.
        below: Rows = []
        above: Rows = []
        to_below, to_above = below.append, above.append
        for i in rows:
            (to_below if values[i] < threshold else to_above)(i)
        return below, above
