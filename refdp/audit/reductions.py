"""Reductions: public post-processings of a released output to a finite, hashable outcome.

An audit compares the laws of ``reduce(M(D))`` and ``reduce(M(D'))``.  A
reduction is post-processing, so any violation it shows is a violation of
``M`` itself; a good one keeps the part of the output where the two data
sets differ and makes the outcome set small enough to enumerate (exact
checks) or to estimate (Monte-Carlo checks).  A reduction may depend on the
pair -- the auditor knows both data sets -- but never on the runs.

Every reduction here is a module-level function or a frozen dataclass, so it
pickles into a process pool.
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from typing import Hashable, Sequence, Tuple, Union

from refdp.audit.neighbours import Record
from refdp.tree import CategoricalSplit, IntervalSplit, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit, leaves, route

__all__ = [
    "LEAF",
    "bin_index",
    "identity",
    "structure_of",
    "probe_leaf",
    "Clamp",
    "Bins",
    "ClampHistogram",
    "ClampScore",
    "ProbeLeafCount",
    "ModelStructure",
    "ModelPredictions",
    "ModelProbeCount",
]

Number = Union[int, float]

LEAF = "leaf"
"""The structure of a leaf."""


def identity(output: Hashable) -> Hashable:
    """The output itself, for mechanisms whose outputs are already few and hashable."""
    return output


def structure_of(node: Node) -> Hashable:
    """The tree's shape with its split attributes, values and thresholds; no counts.

    ``"leaf"``; ``("categorical", a, children)``; ``("value", a, v, equal,
    rest)``; ``("threshold", a, t, below, at_or_above)``; ``("intervals", a,
    thresholds, children)``.
    """
    if isinstance(node, Leaf):
        return LEAF
    if isinstance(node, CategoricalSplit):
        return ("categorical", node.attribute, tuple(structure_of(c) for c in node.children))
    if isinstance(node, ValueSplit):
        return ("value", node.attribute, node.value, structure_of(node.equal), structure_of(node.rest))
    if isinstance(node, IntervalSplit):
        return ("intervals", node.attribute, node.thresholds, tuple(structure_of(c) for c in node.children))
    assert isinstance(node, ThresholdSplit)
    return (
        "threshold",
        node.attribute,
        node.threshold,
        structure_of(node.below),
        structure_of(node.at_or_above),
    )


def probe_leaf(node: Node, record: Record) -> Leaf:
    """The leaf that ``record`` reaches."""
    return route(node, [[value] for value in record.values], 0)


@dataclass(frozen=True)
class Clamp:
    """A released number moved into the public range ``[lo, hi]``."""

    lo: int
    hi: int

    def __call__(self, value: Number) -> Number:
        return self.lo if value < self.lo else self.hi if value > self.hi else value


def bin_index(value: float, edges: Sequence[float]) -> int:
    """The bin of ``value``: 0 for ``value <= edges[0]``, ``i`` for ``edges[i-1] < value <= edges[i]``.

    >>> bin_index(0.5, [0.0, 1.0]), bin_index(1.0, [0.0, 1.0]), bin_index(2.0, [0.0, 1.0])
    (1, 1, 2)
    """
    return bisect.bisect_left(edges, value)


@dataclass(frozen=True)
class Bins:
    """The bin of a released real: see :func:`bin_index`."""

    edges: Tuple[float, ...]

    def __call__(self, value: float) -> int:
        return bin_index(value, self.edges)


@dataclass(frozen=True)
class ClampHistogram:
    """A released ``((class, count), ...)`` histogram with every count clamped to ``[lo, hi]``."""

    lo: int
    hi: int

    def __call__(self, histogram: Sequence[Tuple[str, int]]) -> Tuple[Tuple[str, int], ...]:
        clamp = Clamp(self.lo, self.hi)
        return tuple((name, int(clamp(count))) for name, count in histogram)


@dataclass(frozen=True)
class ClampScore:
    """A released ``(choice, score)`` pair with the score clamped to ``[lo, hi]``."""

    lo: int
    hi: int

    def __call__(self, released: Tuple[int, int]) -> Tuple[int, int]:
        choice, score = released
        return (choice, int(Clamp(self.lo, self.hi)(score)))


@dataclass(frozen=True)
class ProbeLeafCount:
    """A released tree as ``(structure, clamped count of the probe's class at the probe's leaf)``.

    The probe is the record in which the two data sets differ: its leaf is
    the only one whose counts differ, so the rest of the leaves can be
    dropped without losing any of the log-ratio.
    """

    probe: Record
    lo: int
    hi: int

    def __call__(self, tree: Node) -> Tuple[Hashable, int]:
        count = probe_leaf(tree, self.probe).counts[self.probe.label]
        return (structure_of(tree), int(Clamp(self.lo, self.hi)(count)))


@dataclass(frozen=True)
class ModelStructure:
    """A trained model as the structures of its trees."""

    def __call__(self, model: TreeModel) -> Hashable:
        return tuple(structure_of(tree) for tree in model.trees)


@dataclass(frozen=True)
class ModelPredictions:
    """A trained model as the predicted class of every leaf, tree by tree, left to right."""

    def __call__(self, model: TreeModel) -> Hashable:
        return tuple(leaf.prediction for tree in model.trees for leaf in leaves(tree))


@dataclass(frozen=True)
class ModelProbeCount:
    """A trained model as the weighted released count of the probe's class at the probe's leaves.

    A number, so that the audit can use threshold events.  The probe is the
    record in which the two data sets differ.
    """

    probe: Record

    def __call__(self, model: TreeModel) -> float:
        return math.fsum(
            weight * float(probe_leaf(tree, self.probe).counts[self.probe.label])
            for tree, weight in zip(model.trees, model.weights)
        )
