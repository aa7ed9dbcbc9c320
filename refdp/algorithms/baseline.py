"""A non-private greedy tree (ID3/C4.5/CART style), the yardstick of the DP trees.

It reads the data directly and is **not** differentially private: its
receipt has no charges and records the leak "non-private baseline: reads the
data directly", so it is marked unsound everywhere a receipt is shown.  It
shares the model of the DP trees so that accuracies compare like with like.

At each node, with the true class counts:

* stop (leaf with the true counts) when the depth is used up, the node has at
  most ``min_samples`` rows, a single class, no attribute left, or no split
  improves the quality;
* otherwise split on the best attribute by ``quality`` (unnormalised Gini or
  information gain, :mod:`refdp.scoring`): a categorical attribute splits
  multiway on its public domain and is then used up (``split=multiway``,
  ID3/C4.5), or value vs rest on its best value and stays available
  (``split=binary``, CART, the shape of the thesis tree); a continuous one
  splits at the midpoint between consecutive distinct values of the node
  (the best one) and stays available.

A child that receives no training row (a domain value absent from the node)
gets a leaf with its parent's counts, so that it predicts the parent's
majority class, as C4.5 does.  Ties between candidates go to the first in
schema order.  The random source is not used.
"""

from __future__ import annotations

from fractions import Fraction
from typing import List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.greedy import (
    Interval,
    TrainingView,
    class_counts,
    non_negative_int,
    score_function,
    threshold_intervals,
    value_table,
)
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, finish_model, register, start_ledger
from refdp.data import CategoricalAttribute, Dataset
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import CategoricalSplit, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

__all__ = ["SPEC", "fit_tree_baseline", "LEAK"]

LEAK = "non-private baseline: reads the data directly"

# A split must beat the unsplit node by more than this (relative to the node size) to be made,
# so that rounding in information gain never turns a useless split into a "gain".
_MIN_GAIN = 1e-9


def _midpoint(interval: Interval) -> float:
    t = interval.start + interval.length / 2
    return t if t > interval.start else interval.end


class _Builder:
    def __init__(self, view: TrainingView, quality: str, min_samples: int, binary: bool) -> None:
        self.view = view
        self.schema = view.schema
        self.score = score_function(quality)
        self.min_samples = min_samples
        self.binary = binary

    def _best(
        self, rows: Sequence[int], attributes: Tuple[int, ...]
    ) -> Tuple[float, int, Optional[float]]:
        """(score, attribute, threshold or value code, or None for multiway) of the best split."""
        best: Tuple[float, int, Optional[float]] = (float("-inf"), -1, None)
        total = class_counts(self.view, rows)
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, CategoricalAttribute):
                table = value_table(self.view, rows, a, attribute.n_values)
                if not self.binary:
                    candidate = self.score(table)
                    if candidate > best[0]:
                        best = (candidate, a, None)
                    continue
                for v, row in enumerate(table):
                    if 0 < sum(row) < len(rows):
                        candidate = self.score([row, [t - r for t, r in zip(total, row)]])
                        if candidate > best[0]:
                            best = (candidate, a, v)
                continue
            # The first and last intervals leave a side empty; only the inner ones split.
            inner = threshold_intervals(self.view, rows, a, attribute.lower, attribute.upper)
            for interval in inner:
                if sum(interval.table[0]) and sum(interval.table[1]):
                    candidate = self.score(interval.table)
                    if candidate > best[0]:
                        best = (candidate, a, _midpoint(interval))
        return best

    def build(self, rows: List[int], attributes: Tuple[int, ...], depth: int, parent: Sequence[int]) -> Node:
        counts = class_counts(self.view, rows)
        if not rows:
            return Leaf(tuple(parent))
        if depth == 0 or not attributes or len(rows) <= self.min_samples or sum(1 for c in counts if c) <= 1:
            return Leaf(tuple(counts))
        score, a, cut = self._best(rows, attributes)
        if a < 0 or score <= self.score([counts]) + _MIN_GAIN * len(rows):
            return Leaf(tuple(counts))
        column = self.view.columns[a]
        attribute = self.schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute) and cut is not None:
            v = int(cut)
            return ValueSplit(
                a,
                v,
                self.build([i for i in rows if column[i] == v], attributes, depth - 1, counts),
                self.build([i for i in rows if column[i] != v], attributes, depth - 1, counts),
                counts=tuple(counts),
            )
        if cut is None:
            assert isinstance(attribute, CategoricalAttribute)
            buckets: List[List[int]] = [[] for _ in attribute.values]
            for i in rows:
                buckets[int(column[i])].append(i)
            remaining = tuple(b for b in attributes if b != a)
            return CategoricalSplit(
                a, tuple(self.build(b, remaining, depth - 1, counts) for b in buckets), counts=tuple(counts)
            )
        return ThresholdSplit(
            a,
            cut,
            self.build([i for i in rows if column[i] < cut], attributes, depth - 1, counts),
            self.build([i for i in rows if column[i] >= cut], attributes, depth - 1, counts),
            counts=tuple(counts),
        )


def fit_tree_baseline(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
) -> TreeModel:
    """Grow the non-private tree; ``epsilon`` and ``rng`` are ignored (nothing is randomised)."""
    depth = non_negative_int(params, "max_depth")
    ledger = start_ledger(data, relation)
    ledger.record_leak(LEAK)
    view = TrainingView.of(data)
    builder = _Builder(view, str(params["quality"]), int(params["min_samples"]), params["split"] == "binary")
    counts = class_counts(view, view.rows)
    root = builder.build(list(view.rows), tuple(range(data.schema.n_attributes)), depth, counts)
    return finish_model(SPEC.name, data, params, [root], ledger)


SPEC = register(
    AlgorithmSpec(
        name="tree-baseline",
        summary="non-private greedy tree (ID3/CART style) for comparison; NOT differentially private",
        source="Quinlan's ID3/C4.5 and Breiman et al.'s CART, without privacy",
        variants=(Variant("non-private", False, "reads the data directly; no privacy at all"),),
        parameters=(
            Parameter("variant", str, "non-private", "which variant to run", ("non-private",)),
            Parameter("quality", str, "gini", "split quality", ("gini", "info-gain")),
            Parameter(
                "split", str, "multiway",
                "categorical splits: multiway on the domain (ID3) or value vs rest (CART)",
                ("multiway", "binary"),
            ),
            Parameter("max_depth", int, 5, "maximal depth (levels of splits)"),
            Parameter("min_samples", int, 5, "a node with at most this many rows becomes a leaf"),
        ),
        claims=(),
        fit=fit_tree_baseline,
    )
)
