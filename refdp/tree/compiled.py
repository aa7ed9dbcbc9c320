"""Trees compiled once for routing every row at once, node by node, column-wise.

:func:`refdp.tree.nodes.route_informed` walks one row down one tree in
Python; predicting a data set that way costs a Python loop per row, tree
and level.  A :class:`CompiledTree` routes all rows of a data set together:

* its leaves are numbered left to right (depth first), and each is stored
  as the leaf :func:`~refdp.tree.nodes.route_informed` returns for it (a
  leaf that released no positive count is replaced, once, by its deepest
  informative ancestor's counts: the path is fixed, so is the fallback);
* a row's leaf number is the sum, over the decision nodes on its path, of
  the number of leaves left of the child it takes (the *offset* of that
  child), so routing adds offsets;
* a set of rows is an int with one slot of ``width`` bytes per row, holding
  1 for a row in the set (``width`` is the fewest bytes, 1, 2 or 4, that
  hold every leaf number).  A node's children's sets are its set ANDed with
  a condition's set (``x < cut``, ``code == v``), and the offsets are added
  as ``set * offset`` (or, for a multiway split, the rows' offsets as one
  int ANDed with the node's set spread to whole slots).  No slot ever
  carries into the next: every partial sum is at most the leaf number;
* the conditions' sets come from :class:`Columns`, made once per call and
  shared by every tree of a model: a condition is one ``bytes.translate``
  of a byte column (the codes of a categorical attribute; the ranks of a
  continuous attribute's values, when they fit a byte and the model
  compares the attribute with several cuts), or else one comparison per
  row in C (``map``).

So a tree of d levels costs O(d) passes in C over the rows, each a few
big-integer operations, and no Python bytecode runs per row.  The leaf
numbers it returns (:func:`leaf_numbers`) are those of the leaves each row
reaches when routed by :func:`~refdp.tree.nodes.route_informed`;
``tests/test_compiled_prediction.py`` checks it on random trees and rows.
"""

from __future__ import annotations

import sys
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from functools import lru_cache
from itertools import repeat
from operator import eq, lt
from typing import Callable, Dict, List, Optional, Sequence, Set, Tuple, Union

from refdp.tree.leaf import Count, Leaf
from refdp.tree.nodes import CategoricalSplit, IntervalSplit, Node, Split, ThresholdSplit, ValueSplit, children_of

__all__ = ["CompiledTree", "Columns", "compile_tree", "cuts_by_attribute", "leaf_numbers"]

# An attribute with at least this many distinct cuts in a model gets a rank column (a sort of its
# values per call), so that each cut costs a byte translation rather than a comparison per row.
_RANKS_FROM = 4


@dataclass(frozen=True)
class _Branch:
    """A decision node: the offset of each child and the child's branch (None: a leaf)."""

    node: Split
    offsets: Tuple[int, ...]
    children: Tuple[Optional["_Branch"], ...]


@dataclass(frozen=True)
class CompiledTree:
    """A tree's leaves in left-to-right order (each as routing returns it), and its decision nodes."""

    leaves: Tuple[Leaf, ...]
    root: Optional[_Branch]
    """None when the tree is a single leaf."""
    width: int
    """Bytes per row of a leaf number: 1, 2 or 4."""


def compile_tree(tree: Node, released: Callable[[Node], Tuple[Count, ...]]) -> CompiledTree:
    """``tree`` compiled; ``released(node)`` is a node's released counts (as for ``route_informed``).

    >>> from refdp.tree.nodes import released_counts
    >>> tree = ValueSplit(0, 1, Leaf((3, 1)), Leaf((0, 0)), counts=(1, 5))
    >>> compiled = compile_tree(tree, released_counts)
    >>> [leaf.counts for leaf in compiled.leaves]   # the empty leaf speaks with its parent's counts
    [(3, 1), (1, 5)]
    """
    leaves: List[Leaf] = []
    root = _compile(tree, None, released, leaves)
    width = 1 if len(leaves) <= 1 << 8 else 2 if len(leaves) <= 1 << 16 else 4
    return CompiledTree(tuple(leaves), root, width)


def _compile(
    node: Node,
    fallback: Optional[Tuple[Count, ...]],
    released: Callable[[Node], Tuple[Count, ...]],
    leaves: List[Leaf],
) -> Optional[_Branch]:
    if isinstance(node, Leaf):
        leaves.append(node if node.informative or fallback is None else Leaf(fallback))
        return None
    counts = released(node)
    if counts and max(counts) > 0:
        fallback = counts
    offsets: List[int] = []
    children: List[Optional[_Branch]] = []
    for child in children_of(node):
        offsets.append(len(leaves))
        children.append(_compile(child, fallback, released, leaves))
    start = offsets[0]
    return _Branch(node, tuple(o - start for o in offsets), tuple(children))


def cuts_by_attribute(trees: Sequence[Node]) -> Dict[int, int]:
    """How many distinct cuts ``trees`` compare each continuous attribute with (:class:`Columns`'s hint)."""
    cuts: Dict[int, Set[float]] = {}
    stack = list(trees)
    while stack:
        node = stack.pop()
        if isinstance(node, ThresholdSplit):
            cuts.setdefault(node.attribute, set()).add(node.cut)
        stack.extend(children_of(node))
    return {a: len(found) for a, found in cuts.items()}


@lru_cache(maxsize=None)
def _table(kind: str, cut: int) -> bytes:
    """A ``bytes.translate`` table mapping a byte to 1 where it is ``== cut`` (``"eq"``) or ``< cut`` (``"lt"``)."""
    if kind == "eq":
        return bytes(cut) + b"\x01" + bytes(255 - cut) if 0 <= cut < 256 else bytes(256)
    cut = min(max(cut, 0), 256)
    return b"\x01" * cut + bytes(256 - cut)


Column = Sequence[Union[int, float]]


class Columns:
    """The rows' columns, and the row sets of conditions on them, made once per call.

    ``columns[a]`` is attribute ``a``'s column (codes or floats, one per
    row); ``cuts`` (:func:`cuts_by_attribute`) says which continuous
    attributes get a rank column.
    """

    def __init__(self, columns: Sequence[Column], n: int, cuts: Dict[int, int]) -> None:
        self.columns = columns
        self.n = n
        self._cuts = cuts
        self._bytes: Dict[int, Optional[bytes]] = {}
        self._ranks: Dict[int, Tuple[Tuple[float, ...], Optional[bytes]]] = {}
        self._bins: Dict[Tuple[int, Tuple[float, ...]], Sequence[int]] = {}
        self._sets: Dict[Tuple[object, ...], int] = {}
        self._everyone: Dict[int, int] = {}

    def everyone(self, width: int) -> int:
        """The set of every row, in slots of ``width`` bytes."""
        if width not in self._everyone:
            self._everyone[width] = int.from_bytes((bytes(width - 1) + b"\x01") * self.n, "big")
        return self._everyone[width]

    def _spread(self, key: Tuple[object, ...], width: int, selector: Callable[[], bytes]) -> int:
        # The set of rows whose selector byte is 1, in slots of ``width`` bytes, made once.
        full = key + (width,)
        found = self._sets.get(full)
        if found is None:
            chosen = selector()
            if width > 1:
                slots = bytearray(width * self.n)
                slots[width - 1 :: width] = chosen
                chosen = bytes(slots)
            found = self._sets[full] = int.from_bytes(chosen, "big")
        return found

    def code_bytes(self, attribute: int) -> Optional[bytes]:
        """Categorical ``attribute``'s codes as bytes, or None when a code is 256 or more."""
        if attribute not in self._bytes:
            column = self.columns[attribute]
            try:
                self._bytes[attribute] = bytes(column)  # type: ignore[arg-type]
            except ValueError:
                self._bytes[attribute] = None
        return self._bytes[attribute]

    def equal(self, attribute: int, value: int, width: int) -> int:
        """The rows whose code of ``attribute`` is ``value``."""

        def selector() -> bytes:
            codes = self.code_bytes(attribute)
            if codes is not None:
                return codes.translate(_table("eq", value))
            return bytes(map(eq, self.columns[attribute], repeat(value)))

        return self._spread(("eq", attribute, value), width, selector)

    def below(self, attribute: int, cut: float, width: int) -> int:
        """The rows whose value of ``attribute`` is below ``cut``."""

        def selector() -> bytes:
            if self._cuts.get(attribute, 0) >= _RANKS_FROM and cut == cut:
                ranked = self._ranked(attribute)
                if ranked is not None:
                    return ranked(bisect_left(self._rank_values(attribute), cut))
            return bytes(map(lt, self.columns[attribute], repeat(cut)))

        return self._spread(("lt", attribute, cut), width, selector)

    def _rank_values(self, attribute: int) -> Tuple[float, ...]:
        return self._ranks[attribute][0]

    def _ranked(self, attribute: int) -> Optional[Callable[[int], bytes]]:
        # x < cut exactly when x's rank among the sorted distinct values is below the number of them
        # below cut.  Ranks pay where they fit a byte; with more distinct values, sorting them costs
        # more than comparing every row with each cut a model has.
        if attribute not in self._ranks:
            column = self.columns[attribute]
            distinct = tuple(sorted(set(column)))
            if len(distinct) <= 1 << 8:
                rank_of = dict(zip(distinct, range(len(distinct))))
                self._ranks[attribute] = (distinct, bytes(map(rank_of.__getitem__, column)))
            else:
                self._ranks[attribute] = (distinct, None)
        ranks = self._ranks[attribute][1]
        if ranks is None:
            return None
        return lambda rank: ranks.translate(_table("lt", rank))

    def cells(self, node: Union[CategoricalSplit, IntervalSplit]) -> Sequence[int]:
        """The child of ``node`` each row takes: its code, or its interval's index."""
        if isinstance(node, CategoricalSplit):
            codes = self.code_bytes(node.attribute)
            return codes if codes is not None else [int(x) for x in self.columns[node.attribute]]
        key = (node.attribute, node.thresholds)
        if key not in self._bins:
            found = list(map(node.child_index, self.columns[node.attribute]))
            self._bins[key] = bytes(found) if len(node.thresholds) < 256 else found
        return self._bins[key]

    def cell(self, node: Union[CategoricalSplit, IntervalSplit], child: int, width: int) -> int:
        """The rows that take child ``child`` of ``node``."""
        if isinstance(node, CategoricalSplit):
            return self.equal(node.attribute, child, width)

        def selector() -> bytes:
            cells = self.cells(node)
            if isinstance(cells, bytes):
                return cells.translate(_table("eq", child))
            return bytes(map(eq, cells, repeat(child)))

        return self._spread(("cell", node.attribute, node.thresholds, child), width, selector)


def leaf_numbers(tree: CompiledTree, columns: Columns) -> Sequence[int]:
    """The number (position in ``tree.leaves``) of the leaf each row reaches.

    >>> from refdp.tree.nodes import released_counts
    >>> tree = compile_tree(ThresholdSplit(0, 2.5, Leaf((1, 0)), Leaf((0, 1))), released_counts)
    >>> list(leaf_numbers(tree, Columns([(1.0, 3.0, 2.5)], 3, {})))
    [0, 1, 1]
    """
    n = columns.n
    if tree.root is None or n == 0:
        return bytes(n)
    width = tree.width
    number = 0
    pending: List[Tuple[_Branch, int]] = [(tree.root, columns.everyone(width))]
    while pending:
        branch, rows = pending.pop()
        node = branch.node
        parts: Tuple[int, ...]
        if isinstance(node, (ValueSplit, ThresholdSplit)):
            if isinstance(node, ValueSplit):
                first = rows & columns.equal(node.attribute, node.value, width)
            else:
                first = rows & columns.below(node.attribute, node.cut, width)
            second = rows ^ first
            number += second * branch.offsets[1]
            parts = (first, second)
        else:
            number += _offsets(node, branch.offsets, columns, width) & (rows * ((1 << (8 * width)) - 1))
            parts = tuple(
                rows & columns.cell(node, j, width) if child is not None else 0
                for j, child in enumerate(branch.children)
            )
        for child, part in zip(branch.children, parts):
            if child is not None and part:
                pending.append((child, part))
    return _numbers(number, n, width)


def _offsets(node: Union[CategoricalSplit, IntervalSplit], offsets: Tuple[int, ...], columns: Columns, width: int) -> int:
    """Every row's offset of the child it takes, one slot of ``width`` bytes per row."""
    cells = columns.cells(node)
    if width == 1 and isinstance(cells, bytes):
        return int.from_bytes(cells.translate(bytes(offsets) + bytes(256 - len(offsets))), "big")
    slots = [o.to_bytes(width, "big") for o in offsets]
    return int.from_bytes(b"".join(map(slots.__getitem__, cells)), "big")


_TYPECODES = {array(code).itemsize: code for code in "QLIH"}


def _numbers(number: int, n: int, width: int) -> Sequence[int]:
    packed = number.to_bytes(width * n, "big")
    if width == 1:
        return packed
    numbers = array(_TYPECODES[width], packed)
    if sys.byteorder == "little":
        numbers.byteswap()
    return numbers

