"""The column store of the array engine: a data set as compact, immutable code columns.

Made from a :class:`~refdp.data.Dataset` and encoded lazily, one column
the first time a kernel needs it; the array engine keeps the store with
the data set (:meth:`ColumnStore.of`), so that every fit on the same data
set reuses what earlier fits encoded.  A data set that is not a subset is
read in place; a subset's rows are gathered once (so that encoding costs
the subset's size, not its base's) and numbered 0, 1, ... in data order.
The columns:

* ``labels()``: the class code of every base row;
* ``codes(a)``: the value codes of categorical attribute ``a``;
* ``values(a)``: the floats of continuous attribute ``a`` (the data set's
  own tuple);
* ``ranks(a)``: the position of every row's value of continuous attribute
  ``a`` in ``distinct(a)``;
* ``distinct(a)``: the sorted distinct values of continuous attribute ``a``
  (-0.0 read as 0.0, as the reference reads it);
* ``keys(a)``: the combined attribute-label key of every row, ``code * |C| +
  label`` (categorical) or ``rank * |C| + label`` with ``rank`` the position
  of the row's value in ``distinct(a)`` (continuous): the cell of the
  (value x class) table the row falls in, so one count over a node's keys
  gives its whole table, and interval counts need no per-node sort of rows;
* ``grid_keys(a, grid)``: ``code * |C| + label`` with ``code`` the row's
  cell of the public threshold grid (:meth:`ThresholdGrid.code`);
* ``key_values(a)``: the value of each key of continuous ``a``;
* ``row_block(names, columns)``: one bytes object per row holding its byte
  of each of the byte ``columns``, so that a node gathers them all at once;
* ``histogram(name, column, size)``: how many rows of the whole data set
  carry each key of a key column (the root's table).

Columns whose entries fit in a byte are :class:`bytes`, others tuples of
ints; both index at C speed and cannot be changed by anyone holding them.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from itertools import chain, repeat
from operator import add, mul
from typing import Dict, List, Optional, Sequence, Tuple, Union, cast

from refdp.data import CategoricalAttribute, ColumnView, Dataset, Schema
from refdp.data.grid import ThresholdGrid

__all__ = ["CodeColumn", "ColumnStore", "code_column"]

# Up to this many keys, counting each with bytes.count (memchr speed) beats one Counter.
_COUNT_LIMIT = 64

CodeColumn = Union[bytes, Tuple[int, ...]]
"""Non-negative integer codes: bytes when every code is below 256, else a tuple of ints."""


def code_column(codes: Sequence[int], size: int) -> CodeColumn:
    """``codes`` (each in ``range(size)``) as bytes when ``size <= 256``, else as a tuple.

    A tuple holds its int objects ready: gathering a node's codes from it
    costs a reference each, four times less than boxing them from an array.
    """
    return bytes(codes) if size <= 256 else tuple(codes)


class ColumnStore:
    """The base columns of a data set, encoded for counting on first use (see the module notes).

    ``rows`` are the positions of the data set's rows in the store's
    columns, in data order.
    """

    def __init__(self, data: Dataset) -> None:
        self.schema: Schema = data.schema
        self.rows: Sequence[int] = range(len(data))
        # The data set's columns, not the data set: the store is kept with it (see of()).
        self._source = tuple(data.column(a) for a in range(data.schema.n_attributes))
        self._source_labels = data.labels
        self._histograms: Dict[Tuple[object, ...], List[int]] = {}
        self._blocks: Dict[Tuple[Tuple[object, ...], ...], List[bytes]] = {}
        self._grid_numbers: Dict[ThresholdGrid, int] = {}
        self.masks: Dict[Tuple[object, ...], int] = {}
        """Row masks (:class:`refdp.engine.RowMasks`) that depend on the data alone, made by the engine."""
        self.rank_bytes: Dict[int, Optional[Tuple[bytes, Optional[bytes]]]] = {}
        """The ranks of a continuous attribute as one byte column, or high and low bytes (made by the engine)."""
        self._gathered: Dict[int, Sequence[Union[int, float]]] = {}
        self._labels: Dict[None, CodeColumn] = {}
        self._codes: Dict[int, CodeColumn] = {}
        self._distinct: Dict[int, Tuple[float, ...]] = {}
        self._keys: Dict[int, CodeColumn] = {}
        self._key_values: Dict[int, Tuple[float, ...]] = {}
        self._ranks: Dict[int, CodeColumn] = {}
        self._grid_keys: Dict[Tuple[int, ThresholdGrid], CodeColumn] = {}

    @staticmethod
    def of(data: Dataset) -> "ColumnStore":
        """The store of ``data``, made on first use and kept with the (immutable) data set."""
        return data.derived("refdp.fast.ColumnStore", ColumnStore)

    def _column(self, attribute: int) -> Sequence[Union[int, float]]:
        column = self._source[attribute]
        if not isinstance(column, ColumnView):
            return column
        if attribute not in self._gathered:
            self._gathered[attribute] = tuple(map(column.base.__getitem__, column.indices))
        return self._gathered[attribute]

    def labels(self) -> CodeColumn:
        """The class code of every base row."""
        if None not in self._labels:
            self._labels[None] = code_column(self._source_labels, self.schema.n_classes)
        return self._labels[None]

    def codes(self, attribute: int) -> CodeColumn:
        """The value codes of categorical ``attribute``, one per base row."""
        if attribute not in self._codes:
            spec = self.schema.attributes[attribute]
            assert isinstance(spec, CategoricalAttribute)
            column = cast(Sequence[int], self._column(attribute))
            self._codes[attribute] = code_column(column, spec.n_values)
        return self._codes[attribute]

    def values(self, attribute: int) -> Sequence[float]:
        """The floats of continuous ``attribute``, one per base row."""
        return cast(Sequence[float], self._column(attribute))

    def distinct(self, attribute: int) -> Tuple[float, ...]:
        """The sorted distinct values of continuous ``attribute`` in the base columns (no -0.0)."""
        if attribute not in self._distinct:
            self._distinct[attribute] = tuple(sorted(set(map(add, self.values(attribute), repeat(0.0)))))
        return self._distinct[attribute]

    def ranks(self, attribute: int) -> CodeColumn:
        """The position of each base row's value of continuous ``attribute`` in :meth:`distinct`."""
        if attribute not in self._ranks:
            ordered = self.distinct(attribute)
            rank_of: Dict[float, int] = dict(zip(ordered, range(len(ordered))))
            self._ranks[attribute] = code_column(list(map(rank_of.__getitem__, self.values(attribute))), len(ordered))
        return self._ranks[attribute]

    def encoded_ranks(self, attribute: int) -> Optional[CodeColumn]:
        """:meth:`ranks` if already encoded (by :meth:`keys`, say), else None: encoding costs a sort."""
        return self._ranks.get(attribute)

    def keys(self, attribute: int) -> CodeColumn:
        """The combined key ``code_or_rank * |C| + label`` of every base row."""
        if attribute not in self._keys:
            k = self.schema.n_classes
            spec = self.schema.attributes[attribute]
            ranks: Sequence[int]
            if isinstance(spec, CategoricalAttribute):
                ranks = self.codes(attribute)
                size = spec.n_values * k
            else:
                ranks = self.ranks(attribute)
                size = max(1, len(self.distinct(attribute))) * k
            labels = self.labels()
            if size <= 256 and isinstance(ranks, bytes) and isinstance(labels, bytes):
                # Every key fits its byte, so code * k + label has no carry between bytes: one
                # multiplication and one addition of the columns read as big-endian integers.
                n = len(labels)
                packed = int.from_bytes(ranks, "big") * k + int.from_bytes(labels, "big")
                self._keys[attribute] = packed.to_bytes(n, "big")
            else:
                self._keys[attribute] = code_column(list(map(add, map(mul, ranks, repeat(k)), labels)), size)
        return self._keys[attribute]

    def key_values(self, attribute: int) -> Tuple[float, ...]:
        """The value of each key of continuous ``attribute`` (``distinct(a)[key // |C|]``), made once."""
        if attribute not in self._key_values:
            k = self.schema.n_classes
            self._key_values[attribute] = tuple(chain.from_iterable(map(repeat, self.distinct(attribute), repeat(k))))
        return self._key_values[attribute]

    def grid_keys(self, attribute: int, grid: ThresholdGrid) -> CodeColumn:
        """The combined key ``grid code * |C| + label`` of every base row of continuous ``attribute``."""
        key = (attribute, grid)
        if key not in self._grid_keys:
            k = self.schema.n_classes
            # One bisection per row in C (ThresholdGrid.code): cheaper than sorting the distinct values
            # first, which only an attribute with few of them repays.
            codes = list(map(bisect_right, repeat(grid.cuts), self.values(attribute)))
            labels = self.labels()
            size = grid.cells * k
            if size <= 256 and isinstance(labels, bytes):
                # As in keys(): code * k + label has no carry between bytes.
                packed = int.from_bytes(bytes(codes), "big") * k + int.from_bytes(labels, "big")
                self._grid_keys[key] = packed.to_bytes(len(labels), "big")
            else:
                self._grid_keys[key] = code_column(list(map(add, map(mul, codes, repeat(k)), labels)), size)
        return self._grid_keys[key]

    def grid_split(self, attribute: int, cut: float) -> Optional[Tuple[CodeColumn, int]]:
        """(grid keys, c) with ``x < cut`` exactly when a row's key is below c, when ``cut`` is a cut of a
        grid of continuous ``attribute`` whose keys are made (:meth:`grid_keys`); else None.

        A row's grid code is the number of cuts at or below x, so x < cuts[j] exactly when the code is
        at most j, that is when ``code * |C| + label < (j + 1) * |C|``.
        """
        k = self.schema.n_classes
        for (a, grid), keys in self._grid_keys.items():
            if a == attribute:
                j = bisect_left(grid.cuts, cut)
                if j < len(grid.cuts) and grid.cuts[j] == cut:
                    return keys, (j + 1) * k
        return None

    def grid_number(self, grid: ThresholdGrid) -> int:
        """A small int naming ``grid`` (equal grids, equal numbers): a grid's hash is slow to compute."""
        return self._grid_numbers.setdefault(grid, len(self._grid_numbers))

    def has_row_block(self, names: Tuple[Tuple[object, ...], ...]) -> bool:
        """Whether :meth:`row_block` of ``names`` is made."""
        return names in self._blocks

    def row_block(self, names: Tuple[Tuple[object, ...], ...], columns: Sequence[bytes]) -> List[bytes]:
        """Every base row's byte of each of the byte ``columns`` (named ``names``), one bytes object per row, made once."""
        if names not in self._blocks:
            self._blocks[names] = list(map(bytes, zip(*columns)))
        return self._blocks[names]

    def histogram(self, name: Tuple[object, ...], column: CodeColumn, size: int) -> List[int]:
        """How many base rows have each key ``0 .. size - 1`` of ``column`` (named ``name``), counted once."""
        if name not in self._histograms:
            if isinstance(column, bytes) and size <= _COUNT_LIMIT:
                self._histograms[name] = [column.count(k) for k in range(size)]
            else:
                found = Counter(column)
                self._histograms[name] = list(map(found.get, range(size), repeat(0)))
        return self._histograms[name]
