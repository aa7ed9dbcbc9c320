"""Views of a released model: the reductions an audit searches over.

Each view is a public post-processing of the model (so a violation it shows
is one of the learner) that keeps one kind of thing a tree releases:

* ``structure``: the trees' shapes (attributes, values, thresholds, which
  nodes are leaves);
* ``depth`` and ``leaves``: the deepest tree's depth and the number of
  leaves (numbers: a stopping rule that reads the data shows here even when
  the shapes are too varied to repeat);
* ``probe-count``: the released count of the changed record's class at the
  leaves it reaches (a number: threshold events);
* ``exact-zeros``: how many released counts are exactly 0 (noise that is
  missing for some cells shows here);
* ``totals``: each tree's total released count, rounded to an integer
  (a count released without enough noise shows here);
* ``weights``: the trees' weights in the vote (a weight computed from the
  data without noise shows here);
* ``float-bits``: whether some released threshold is not a multiple of
  2**-53 (a float interpolated between data values shows here).

Every view is a frozen dataclass, so it pickles into a process pool.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, Hashable, Iterator

from refdp.audit.neighbours import Record
from refdp.audit.reductions import ModelProbeCount, ModelStructure
from refdp.tree import IntervalSplit, Node, ThresholdSplit, TreeModel, children_of, depth, leaves

__all__ = ["VIEWS", "NUMERIC_VIEWS", "view"]


def _nodes(node: Node) -> Iterator[Node]:
    yield node
    for child in children_of(node):
        yield from _nodes(child)


@dataclass(frozen=True)
class Depth:
    """The depth of the deepest tree."""

    def __call__(self, model: TreeModel) -> Hashable:
        return max(depth(tree) for tree in model.trees)


@dataclass(frozen=True)
class LeafCount:
    """The number of leaves over all trees."""

    def __call__(self, model: TreeModel) -> Hashable:
        return sum(1 for tree in model.trees for _ in leaves(tree))


@dataclass(frozen=True)
class ExactZeros:
    """The number of released counts (at every node) that are exactly 0."""

    def __call__(self, model: TreeModel) -> Hashable:
        return sum(
            1 for tree in model.trees for node in _nodes(tree) if node.counts is not None
            for count in node.counts if count == 0
        )


@dataclass(frozen=True)
class RoundedTotals:
    """Each tree's total released leaf count, rounded to the nearest integer."""

    def __call__(self, model: TreeModel) -> Hashable:
        return tuple(round(math.fsum(float(c) for leaf in leaves(tree) for c in leaf.counts)) for tree in model.trees)


@dataclass(frozen=True)
class Weights:
    """The trees' vote weights, as their exact float values."""

    def __call__(self, model: TreeModel) -> Hashable:
        return tuple(float(w).hex() for w in model.weights)


@dataclass(frozen=True)
class FloatBits:
    """Whether some released threshold is not a multiple of 2**-53."""

    def __call__(self, model: TreeModel) -> Hashable:
        for tree in model.trees:
            for node in _nodes(tree):
                cuts = node.thresholds if isinstance(node, IntervalSplit) else (
                    (node.threshold,) if isinstance(node, ThresholdSplit) else ()
                )
                if any((Fraction(t) * 2**53).denominator != 1 for t in cuts):
                    return True
        return False


VIEWS = ("structure", "depth", "leaves", "probe-count", "exact-zeros", "totals", "weights", "float-bits")
"""The names of the views, in the order an audit tries them."""

NUMERIC_VIEWS = frozenset({"probe-count", "depth", "leaves"})
"""Views whose outcomes are numbers (threshold events); the others give sets of outcomes."""

_MAKERS: Dict[str, Callable[[Record], Callable[[TreeModel], Hashable]]] = {
    "structure": lambda probe: ModelStructure(),
    "depth": lambda probe: Depth(),
    "leaves": lambda probe: LeafCount(),
    "probe-count": ModelProbeCount,
    "exact-zeros": lambda probe: ExactZeros(),
    "totals": lambda probe: RoundedTotals(),
    "weights": lambda probe: Weights(),
    "float-bits": lambda probe: FloatBits(),
}


def view(name: str, probe: Record) -> Callable[[TreeModel], Hashable]:
    """The view called ``name``; ``probe`` is the record in which the pair differs."""
    return _MAKERS[name](probe)
