"""Random decision tree structures (Fan, Wang, Yu & Ma, ICDM 2003), from the public schema only.

BuildTreeStructure (Algorithm 1 of Waseda, Nojima & Wang 2024): every node
below ``max_depth`` picks an attribute F uniformly among the eligible ones
and gets one child per outcome of F:

* a categorical attribute is eligible once per path (it leaves the set X of
  remaining features); ``categorical="multiway"`` (Fan et al.) gives one
  child per value of its public domain, ``categorical="binary"`` splits
  value-vs-rest on a value drawn uniformly from the domain (2^depth leaves
  at most, which is what makes noise on every leaf affordable on wide
  domains such as Adult's);
* a continuous attribute is always eligible; its threshold t is drawn
  uniformly from the interval the path leaves it in (the public bounds,
  narrowed by earlier thresholds on the same attribute), with children
  ``x < t`` and ``x >= t``.  The learners can instead cut a continuous
  attribute into public equal-width bins first
  (:class:`~refdp.algorithms.binning.PublicBins`, parameter
  ``continuous="bins"``): it is then a categorical attribute with one value
  per bin, split multiway (one child per bin, ``multiway`` of
  :class:`RandomTreeBuilder`) and used once per path.

A node with no eligible attribute, or at depth ``max_depth``, is a leaf.
Nothing here reads the data: the tree's shape is data-independent
randomness, recorded as such in the ledger by the algorithms.

:class:`RandomTreeBuilder` draws the structure *lazily*: a node is drawn the
first time something needs it (a routed row, or :meth:`~RandomTreeBuilder.expand`).
Each node's draws depend only on its path and are fresh, so by the principle
of deferred decisions the nodes drawn have exactly the joint distribution
they would have in a tree drawn in full first; drawing lazily only skips
nodes that nothing reaches.  Replay: nodes are drawn in the order they are
first needed (rows in data order, children on first visit; :meth:`expand`
visits depth first and draws a node's missing children in order), each with one ``rng.randrange`` for
the attribute (none when the levels' attributes are given), then one
``rng.randrange`` for a binary split's value or one ``rng.random()`` for a
threshold.

Per-level trees (``structure="per-level"``, a random *oblivious* tree):
every node of a level splits on the same attribute, so a tree with
multiway splits is a full cross-table of its attributes; the attributes of
the whole forest are dealt first (:func:`forest_levels`), so that every
attribute is tested about equally often across the trees.  This too reads
nothing but the schema and the rng.
"""

from __future__ import annotations

from typing import AbstractSet, Callable, Dict, List, Optional, Sequence, Tuple, Union

from refdp.engine import NodeCounts, RowMasks, Rows
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.dataset import ColumnView
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.rng import RandomSource
from refdp.tree import CategoricalSplit, Count, Leaf, Node, ThresholdSplit, ValueSplit

__all__ = [
    "CATEGORICAL_SPLITS",
    "CONTINUOUS_SPLITS",
    "RDT_VOTING",
    "MAX_DEPTH",
    "default_max_depth",
    "resolve_max_depth",
    "worst_case_leaves",
    "forest_weights",
    "forest_levels",
    "STRUCTURES",
    "base_columns",
    "RandomTreeBuilder",
]


CATEGORICAL_SPLITS = ("multiway", "binary")
"""How a categorical attribute splits: one child per value, or value-vs-rest."""

CONTINUOUS_SPLITS = ("bins", "threshold")
"""How a continuous attribute splits: one child per public bin, or at a threshold drawn from its range."""

STRUCTURES = ("per-level", "per-node")
"""Where a random tree draws its attributes: once per level, from a forest-wide deal (:func:`forest_levels`),
or at every node (Fan et al.)."""

RDT_VOTING = ("log-odds", "sum-counts")
"""How a forest of random trees votes (:data:`refdp.tree.VOTING`)."""

_LEAF, _MULTIWAY, _VALUE, _THRESHOLD = range(4)

Column = Sequence[Union[int, float]]


def default_max_depth(schema: Schema) -> int:
    """Half the number of attributes, rounded down, at least 1 (the papers' rule of thumb)."""
    return max(1, schema.n_attributes // 2)


def resolve_max_depth(schema: Schema, max_depth: int) -> int:
    """``max_depth``, or the default for ``-1``; an error for anything else below 0."""
    if isinstance(max_depth, bool) or not isinstance(max_depth, int):
        raise InvalidParameterError(f"max_depth must be an int, got {max_depth!r}")
    if max_depth == -1:
        return default_max_depth(schema)
    if not 0 <= max_depth <= MAX_DEPTH:
        raise InvalidParameterError(
            f"max_depth must be in 0..{MAX_DEPTH}, or -1 for half the number of attributes; "
            f"got {max_depth}"
        )
    return max_depth


def _check_categorical(categorical: str) -> str:
    if categorical not in CATEGORICAL_SPLITS:
        raise InvalidParameterError(
            f"categorical must be one of {', '.join(CATEGORICAL_SPLITS)}, got {categorical!r}"
        )
    return categorical


def worst_case_leaves(
    schema: Schema, max_depth: int, categorical: str, multiway: AbstractSet[int] = frozenset()
) -> int:
    """The largest number of leaves any structure drawn with these settings can have.

    A path meets each categorical attribute at most once and continuous
    attributes any number of times, so the worst case multiplies the
    ``max_depth`` largest branching factors available: the domain sizes
    (multiway, and the attributes in ``multiway``) or 2 (binary) of the
    categorical attributes, and 2 for every further level when a continuous
    attribute exists.
    """
    _check_categorical(categorical)
    factors = sorted(
        (a.n_values if categorical == "multiway" or i in multiway else 2)
        for i, a in enumerate(schema.attributes)
        if isinstance(a, CategoricalAttribute)
    )
    factors.reverse()
    has_continuous = any(isinstance(a, ContinuousAttribute) for a in schema.attributes)
    product = 1
    for level in range(max_depth):
        best = factors[level] if level < len(factors) else 0
        if has_continuous and best < 2:
            best = 2
        if best == 0:
            break
        product *= max(best, 1)
    return product


def forest_weights(n_attributes: int, n_trees: int, depth: int) -> List[float]:
    """Log-odds weights: min(1, A / (N_t d)), so that each attribute counts about once per row.

    A row meets about N_t d attribute tests over the forest; with more tests
    than the A attributes, each attribute's evidence would be counted
    N_t d / A times, which the weight undoes (naive Bayes, where every
    attribute is one depth-1 tree, has weight 1).
    """
    if depth == 0 or n_attributes == 0:
        return [1.0] * n_trees
    return [min(1.0, n_attributes / (n_trees * depth))] * n_trees


def base_columns(data: Dataset) -> Tuple[List[Column], Sequence[int], Sequence[int]]:
    """The base column tuples of ``data``, its base label tuple, and its rows' positions in them.

    Routing reads the shared base tuples directly (a subset's
    :class:`~refdp.data.dataset.ColumnView` would add a Python call per
    cell).  Row ``i`` of ``data`` is position ``rows[i]`` of every base tuple.
    """
    columns: List[Column] = []
    for j in range(data.schema.n_attributes):
        column = data.column(j)
        columns.append(column.base if isinstance(column, ColumnView) else column)
    labels = data.labels
    return columns, labels.base if isinstance(labels, ColumnView) else labels, data.indices


class _Slot:
    """A node of a structure being drawn; ``children`` entries are None until drawn."""

    __slots__ = ("depth", "free", "bounds", "kind", "attribute", "cut", "children", "leaf", "path")

    def __init__(
        self, depth: int, free: Tuple[int, ...], bounds: Tuple[Tuple[float, float], ...], path: Tuple[int, ...] = ()
    ) -> None:
        self.depth = depth
        self.path = path  # the child indices from the root: a name for the node that no drawing order changes
        self.free = free  # categorical attributes not yet used on the path
        self.bounds = bounds  # (lower, upper) per attribute; used for continuous ones
        self.kind = _LEAF
        self.attribute = -1
        self.cut: float = 0.0  # the value code (binary) or the threshold
        self.children: List[Optional[_Slot]] = []
        self.leaf = -1


def forest_levels(n_attributes: int, n_trees: int, depth: int, rng: RandomSource) -> List[Tuple[int, ...]]:
    """The attribute of every level of every tree of a per-level forest, from ``rng`` only.

    The attributes are dealt from a stream of random permutations (each
    drawn by Fisher-Yates with ``rng.randrange``), ``depth`` at a time; when a
    permutation has fewer than ``depth`` attributes left they are skipped
    and a new one is drawn.  Every tree gets ``min(depth, n_attributes)``
    distinct attributes, and over the forest every attribute appears about
    equally often (a tree drawn per node can miss the one attribute that
    matters in every tree).
    """
    size = min(depth, n_attributes)
    if size == 0:
        return [()] * n_trees
    out: List[Tuple[int, ...]] = []
    deck: List[int] = []
    while len(out) < n_trees:
        if len(deck) < size:
            deck = list(range(n_attributes))
            for i in range(n_attributes - 1, 0, -1):
                j = rng.randrange(i + 1)
                deck[i], deck[j] = deck[j], deck[i]
        out.append(tuple(deck[:size]))
        deck = deck[size:]
    return out


class RandomTreeBuilder:
    """One random decision tree structure over ``schema``, drawn lazily from ``rng``.

    Leaves are numbered 0, 1, ... in the order they are drawn.  The
    categorical attributes in ``multiway`` always get one child per value,
    whatever ``categorical`` says (the public bins of a continuous
    attribute, :class:`~refdp.algorithms.binning.PublicBins`).  With
    ``levels`` (distinct attributes, :func:`forest_levels`), every node at
    depth i splits on ``levels[i]`` instead of an attribute drawn for it,
    and the tree is at most ``len(levels)`` deep.
    """

    def __init__(
        self, schema: Schema, max_depth: int, categorical: str, rng: RandomSource,
        multiway: AbstractSet[int] = frozenset(), levels: Optional[Sequence[int]] = None,
    ) -> None:
        if not 0 <= max_depth <= MAX_DEPTH:
            raise InvalidParameterError(f"max_depth must be in 0..{MAX_DEPTH}, got {max_depth}")
        if levels is not None and len(set(levels)) != len(levels):
            raise InvalidParameterError(f"the attributes of the levels must be distinct, got {list(levels)}")
        self._schema = schema
        self._max_depth = max_depth if levels is None else min(max_depth, len(levels))
        self._levels = levels
        self._binary = _check_categorical(categorical) == "binary"
        self._multiway = multiway
        self._rng = rng
        self._continuous = tuple(
            i for i, a in enumerate(schema.attributes) if isinstance(a, ContinuousAttribute)
        )
        self._n_leaves = 0
        free = tuple(i for i, a in enumerate(schema.attributes) if isinstance(a, CategoricalAttribute))
        bounds = tuple(
            (a.lower, a.upper) if isinstance(a, ContinuousAttribute) else (0.0, 0.0)
            for a in schema.attributes
        )
        self._root = self._draw(_Slot(0, free, bounds))

    @property
    def n_leaves(self) -> int:
        """How many leaves have been drawn so far."""
        return self._n_leaves

    def _draw(self, slot: _Slot) -> _Slot:
        eligible = sorted(slot.free + self._continuous)
        if slot.depth >= self._max_depth or not eligible:
            slot.leaf = self._n_leaves
            self._n_leaves += 1
            return slot
        if self._levels is None:
            attribute = eligible[self._rng.randrange(len(eligible))]
        else:
            attribute = self._levels[slot.depth]
        spec = self._schema.attributes[attribute]
        slot.attribute = attribute
        if isinstance(spec, CategoricalAttribute):
            if self._binary and attribute not in self._multiway:
                slot.kind = _VALUE
                slot.cut = self._rng.randrange(spec.n_values)
                slot.children = [None, None]
            else:
                slot.kind = _MULTIWAY
                slot.children = [None] * spec.n_values
        else:
            lower, upper = slot.bounds[attribute]
            slot.kind = _THRESHOLD
            slot.cut = lower + (upper - lower) * self._rng.random()
            slot.children = [None, None]
        return slot

    def _child(self, slot: _Slot, index: int) -> _Slot:
        child = slot.children[index]
        if child is not None:
            return child
        free = slot.free
        bounds = slot.bounds
        if slot.kind == _THRESHOLD:
            lower, upper = bounds[slot.attribute]
            narrowed = (lower, slot.cut) if index == 0 else (slot.cut, upper)
            bounds = bounds[: slot.attribute] + (narrowed,) + bounds[slot.attribute + 1 :]
        else:
            free = tuple(a for a in free if a != slot.attribute)
        child = self._draw(_Slot(slot.depth + 1, free, bounds, slot.path + (index,)))
        slot.children[index] = child
        return child

    def leaf_paths(self) -> Dict[int, Tuple[int, ...]]:
        """Every drawn leaf's number and its path (the child indices from the root).

        Leaves are numbered in the order rows first reach them; the path
        names a leaf whatever the order, so that counts keyed by it mean the
        same leaf on two data sets (:mod:`refdp.audit.replay`).
        """
        paths: Dict[int, Tuple[int, ...]] = {}
        stack = [self._root]
        while stack:
            slot = stack.pop()
            if slot.kind == _LEAF:
                paths[slot.leaf] = slot.path
            else:
                stack.extend(child for child in slot.children if child is not None)
        return paths

    def leaf_index(self, columns: Sequence[Column], row: int) -> int:
        """The leaf that row ``row`` of ``columns`` reaches, drawing the nodes on its way."""
        slot = self._root
        while slot.kind != _LEAF:
            value = columns[slot.attribute][row]
            if slot.kind == _MULTIWAY:
                index = int(value)
            elif slot.kind == _VALUE:
                index = 0 if value == slot.cut else 1
            else:
                index = 0 if value < slot.cut else 1
            child = slot.children[index]
            slot = child if child is not None else self._child(slot, index)
        return slot.leaf

    def expand(self) -> int:
        """Draw every node not drawn yet; return the number of leaves.

        Nodes are visited depth first; at each, its missing children are
        drawn in order.
        """
        stack = [self._root]
        while stack:
            slot = stack.pop()
            kids = [self._child(slot, index) for index in range(len(slot.children))]
            stack.extend(reversed(kids))
        return self._n_leaves

    def leaf_class_counts(self, counts: NodeCounts, rows: Rows) -> List[List[int]]:
        """The class histogram of the rows of ``rows`` that reach each leaf, by leaf number.

        For a structure drawn in full (:meth:`expand`): the rows are split
        node by node with ``counts`` (each row ends in the leaf that
        :meth:`leaf_index` gives it), and each leaf's rows are counted once.
        An engine that offers :class:`RowMasks` splits masks instead of row
        lists (the same rows reach the same leaves).  Nothing is drawn.
        """
        masks = counts.masks()
        if masks is not None:
            return self._leaf_class_counts_masked(masks, masks.root_mask(rows))
        result = [[0] * self._schema.n_classes for _ in range(self._n_leaves)]
        stack: List[Tuple[_Slot, Rows]] = [(self._root, rows)]
        while stack:
            slot, reached = stack.pop()
            if not reached:
                continue
            if slot.kind == _LEAF:
                result[slot.leaf] = counts.class_counts(reached)
                continue
            parts: Sequence[Rows]
            if slot.kind == _MULTIWAY:
                parts = counts.split_values(reached, slot.attribute, len(slot.children))
            elif slot.kind == _VALUE:
                parts = counts.split_value(reached, slot.attribute, int(slot.cut))
            else:
                parts = counts.split_threshold(reached, slot.attribute, slot.cut)
            for child, part in zip(slot.children, parts):
                if child is None:
                    raise InvalidParameterError("leaf_class_counts needs a structure drawn in full; call expand() first")
                stack.append((child, part))
        return result

    def _leaf_class_counts_masked(self, masks: RowMasks, root: int) -> List[List[int]]:
        result = [[0] * self._schema.n_classes for _ in range(self._n_leaves)]
        stack: List[Tuple[_Slot, int]] = [(self._root, root)]
        while stack:
            slot, reached = stack.pop()
            if not reached:
                continue
            if slot.kind == _LEAF:
                result[slot.leaf] = masks.mask_class_counts(reached)
                continue
            parts: Sequence[int]
            if slot.kind == _MULTIWAY:
                parts = [reached & masks.value_mask(slot.attribute, v) for v in range(len(slot.children))]
            elif slot.kind == _VALUE:
                equal = reached & masks.value_mask(slot.attribute, int(slot.cut))
                parts = (equal, reached ^ equal)
            else:
                below, at_or_above = masks.threshold_masks(slot.attribute, slot.cut)
                parts = (reached & below, reached & at_or_above)
            for child, part in zip(slot.children, parts):
                if child is None:
                    raise InvalidParameterError("leaf_class_counts needs a structure drawn in full; call expand() first")
                stack.append((child, part))
        return result

    def build(self, counts: Callable[[int], Tuple[Count, ...]], *, collapse_zeros: bool) -> Node:
        """The immutable tree, with ``counts(leaf)`` at every drawn leaf.

        A child never drawn gets all-zero counts.  With ``collapse_zeros``
        every subtree whose leaves all have zero counts becomes one zero
        leaf: a function of the full tree's released counts only (used for
        suppressed counts, where zero is what a full tree would show).
        """
        zero = Leaf((0,) * self._schema.n_classes)

        def convert(slot: Optional[_Slot]) -> Node:
            if slot is None:
                return zero
            if slot.kind == _LEAF:
                values = counts(slot.leaf)
                return zero if collapse_zeros and not any(values) else Leaf(values)
            kids = tuple(convert(child) for child in slot.children)
            if collapse_zeros and all(kid is zero for kid in kids):
                return zero
            if slot.kind == _MULTIWAY:
                return CategoricalSplit(slot.attribute, kids)
            if slot.kind == _VALUE:
                return ValueSplit(slot.attribute, int(slot.cut), kids[0], kids[1])
            return ThresholdSplit(slot.attribute, slot.cut, kids[0], kids[1])

        return convert(self._root)
