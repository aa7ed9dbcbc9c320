"""Decision nodes and how a row finds its leaf.

Three kinds of decision node, as in the papers:

* :class:`CategoricalSplit`: multiway on a categorical attribute, one child
  per value of its public domain (DiffP-ID3, DPDF, random decision trees);
* :class:`ValueSplit`: binary, value-vs-rest on a categorical attribute
  (the thesis tree, CART stumps);
* :class:`ThresholdSplit`: binary, ``x < threshold`` vs ``x >= threshold`` on a
  continuous attribute;
* :class:`IntervalSplit`: multiway on a continuous attribute, one child per
  interval between increasing public thresholds (DPDF on a public grid).

A node may carry the counts released at it (``counts``); rules for inner
nodes use them, or else the sum of their children's released counts (a
post-processing of released values, so free of privacy cost).

Values never seen in training: every categorical split has a child for every
value of the public domain, so a value that no training row had follows its
own child (whose counts are pure noise).  A value outside the declared domain
cannot reach a model: datasets are validated against the schema when they are
read, with a clear error that says to declare the value or map it to one.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Callable, Iterator, List, Optional, Sequence, Tuple, Union

from refdp.data.grid import Threshold, canonical_threshold, ceil_float
from refdp.errors import InvalidParameterError, ModelError
from refdp.tree.leaf import Count, Leaf

__all__ = [
    "CategoricalSplit",
    "ValueSplit",
    "ThresholdSplit",
    "IntervalSplit",
    "Node",
    "Split",
    "children_of",
    "route",
    "route_informed",
    "leaves",
    "released_counts",
    "depth",
    "n_nodes",
]


@dataclass(frozen=True)
class CategoricalSplit:
    """Multiway split on categorical attribute ``attribute`` (its index in the schema)."""

    attribute: int
    children: Tuple["Node", ...]
    counts: Optional[Tuple[Count, ...]] = None


@dataclass(frozen=True)
class ValueSplit:
    """Binary split: rows whose value code is ``value`` go to ``equal``, the rest to ``rest``."""

    attribute: int
    value: int
    equal: "Node"
    rest: "Node"
    counts: Optional[Tuple[Count, ...]] = None


@dataclass(frozen=True)
class ThresholdSplit:
    """Binary split on a continuous attribute: ``x < threshold`` goes to ``below``.

    ``threshold`` is a float, or an exact rational (a public grid point that
    no float equals); it is stored in one canonical form
    (:func:`refdp.data.grid.canonical_threshold`).  ``cut`` is the smallest
    float at or above it: for the float values of the data, ``x < threshold``
    exactly when ``x < cut``, so routing compares floats only.
    """

    attribute: int
    threshold: Threshold
    below: "Node"
    at_or_above: "Node"
    counts: Optional[Tuple[Count, ...]] = None
    cut: float = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            threshold = canonical_threshold(self.threshold)
        except InvalidParameterError as exc:
            raise ModelError(str(exc)) from None
        object.__setattr__(self, "threshold", threshold)
        object.__setattr__(self, "cut", ceil_float(threshold))


@dataclass(frozen=True)
class IntervalSplit:
    """Multiway split on a continuous attribute at increasing ``thresholds`` t_1 < ... < t_k.

    Child i (0-based) takes t_i <= x < t_{i+1} with t_0 = -inf and
    t_{k+1} = +inf, so there are k + 1 children: ``x < t_1`` goes to the first
    and ``x >= t_k`` to the last.
    """

    attribute: int
    thresholds: Tuple[float, ...]
    children: Tuple["Node", ...]
    counts: Optional[Tuple[Count, ...]] = None

    def __post_init__(self) -> None:
        t = self.thresholds
        if not t or not all(math.isfinite(x) for x in t) or any(a >= b for a, b in zip(t, t[1:])):
            raise ModelError(
                f"an interval split needs one or more finite, strictly increasing thresholds, got {t!r}"
            )
        if len(self.children) != len(self.thresholds) + 1:
            raise ModelError(
                f"an interval split with {len(self.thresholds)} thresholds needs "
                f"{len(self.thresholds) + 1} children, got {len(self.children)}"
            )

    def child_index(self, value: float) -> int:
        """The index of the child that takes ``value``: the number of thresholds <= value."""
        return bisect_right(self.thresholds, value)


Split = Union[CategoricalSplit, ValueSplit, ThresholdSplit, IntervalSplit]
Node = Union[Leaf, CategoricalSplit, ValueSplit, ThresholdSplit, IntervalSplit]


def children_of(node: Node) -> Tuple[Node, ...]:
    """The children of ``node`` in a fixed order (none for a leaf)."""
    if isinstance(node, Leaf):
        return ()
    if isinstance(node, (CategoricalSplit, IntervalSplit)):
        return node.children
    if isinstance(node, ValueSplit):
        return (node.equal, node.rest)
    return (node.below, node.at_or_above)


def route(node: Node, columns: Sequence[Sequence[Union[int, float]]], row: int) -> Leaf:
    """The leaf that row ``row`` reaches; ``columns[a]`` is attribute ``a``'s column."""
    while not isinstance(node, Leaf):
        node = _child(node, columns[node.attribute][row])
    return node


def route_informed(
    node: Node,
    columns: Sequence[Sequence[Union[int, float]]],
    row: int,
    released: Callable[[Node], Tuple[Count, ...]],
) -> Leaf:
    """The leaf that row ``row`` reaches, or, when that leaf released no positive count, a leaf
    with the released counts of its deepest ancestor that did.

    An empty or fully suppressed leaf says nothing about the class; its
    ancestors' released counts do (``released(node)``, usually
    :func:`released_counts`), and reading them is post-processing of what the
    model already released.  Without this, such a leaf would predict the
    class listed first in the schema, and accuracy would depend on the order
    of the class values.  When no node on the path released a positive
    count, the leaf itself is returned.
    """
    fallback: Optional[Tuple[Count, ...]] = None
    while not isinstance(node, Leaf):
        counts = released(node)
        if counts and max(counts) > 0:
            fallback = counts
        node = _child(node, columns[node.attribute][row])
    if node.informative or fallback is None:
        return node
    return Leaf(fallback)


def _child(node: Split, value: Union[int, float]) -> Node:
    if isinstance(node, CategoricalSplit):
        return node.children[int(value)]
    if isinstance(node, ValueSplit):
        return node.equal if value == node.value else node.rest
    if isinstance(node, IntervalSplit):
        return node.children[node.child_index(value)]
    return node.below if value < node.cut else node.at_or_above


def leaves(node: Node) -> Iterator[Leaf]:
    """Every leaf below ``node``, left to right."""
    if isinstance(node, Leaf):
        yield node
        return
    for child in children_of(node):
        yield from leaves(child)


def released_counts(node: Node) -> Tuple[Count, ...]:
    """Counts released at ``node``, or else the sum of its children's released counts."""
    if node.counts is not None:
        return node.counts
    total: List[Count] = []
    for child in children_of(node):
        counts = released_counts(child)
        if not total:
            total = list(counts)
        elif len(counts) != len(total):
            raise ModelError("the children of one node have different numbers of classes")
        else:
            total = [a + b for a, b in zip(total, counts)]
    return tuple(total)


def depth(node: Node) -> int:
    """Number of decision nodes on the longest root-to-leaf path."""
    kids = children_of(node)
    return 0 if not kids else 1 + max(depth(k) for k in kids)


def n_nodes(node: Node) -> int:
    """Number of nodes, leaves included."""
    return 1 + sum(n_nodes(k) for k in children_of(node))
