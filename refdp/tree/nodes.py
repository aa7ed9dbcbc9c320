"""Decision nodes and how a row finds its leaf.

Three kinds of decision node, as in the papers:

* :class:`CategoricalSplit`: multiway on a categorical attribute, one child
  per value of its public domain (DiffP-ID3, DPDF, random decision trees);
* :class:`ValueSplit`: binary, value-vs-rest on a categorical attribute
  (the thesis tree, CART stumps);
* :class:`ThresholdSplit`: binary, ``x < threshold`` vs ``x >= threshold`` on a
  continuous attribute.

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

from dataclasses import dataclass
from typing import Iterator, List, Optional, Sequence, Tuple, Union

from refdp.errors import ModelError
from refdp.tree.leaf import Count, Leaf

__all__ = [
    "CategoricalSplit",
    "ValueSplit",
    "ThresholdSplit",
    "Node",
    "Split",
    "children_of",
    "route",
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
    """Binary split on a continuous attribute: ``x < threshold`` goes to ``below``."""

    attribute: int
    threshold: float
    below: "Node"
    at_or_above: "Node"
    counts: Optional[Tuple[Count, ...]] = None


Split = Union[CategoricalSplit, ValueSplit, ThresholdSplit]
Node = Union[Leaf, CategoricalSplit, ValueSplit, ThresholdSplit]


def children_of(node: Node) -> Tuple[Node, ...]:
    """The children of ``node`` in a fixed order (none for a leaf)."""
    if isinstance(node, Leaf):
        return ()
    if isinstance(node, CategoricalSplit):
        return node.children
    if isinstance(node, ValueSplit):
        return (node.equal, node.rest)
    return (node.below, node.at_or_above)


def route(node: Node, columns: Sequence[Sequence[Union[int, float]]], row: int) -> Leaf:
    """The leaf that row ``row`` reaches; ``columns[a]`` is attribute ``a``'s column."""
    while not isinstance(node, Leaf):
        value = columns[node.attribute][row]
        if isinstance(node, CategoricalSplit):
            node = node.children[int(value)]
        elif isinstance(node, ValueSplit):
            node = node.equal if value == node.value else node.rest
        else:
            node = node.below if value < node.threshold else node.at_or_above
    return node


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
