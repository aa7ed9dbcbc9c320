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
from typing import Mapping, Optional, Sequence, Tuple

from refdp.engine import REFERENCE, Engine, Interval, NodeCounts, Rows
from refdp.scoring.kernels import score_function
from refdp.algorithms.derivation import check_plan_inputs, check_trees, check_voting, check_weights, fresh_ledger, integer_counts, tree_depth
from refdp.algorithms.derivation import refuse
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.params import MAX_DEPTH
from refdp.data import CategoricalAttribute, Dataset, Schema
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource
from refdp.tree import CategoricalSplit, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

__all__ = ["SPEC", "fit_tree_baseline", "derive_tree_baseline", "LEAK"]

LEAK = "non-private baseline: reads the data directly"

# A split must beat the unsplit node by more than this (relative to the node size) to be made,
# so that rounding in information gain never turns a useless split into a "gain".
_MIN_GAIN = 1e-9


def _midpoint(interval: Interval) -> float:
    t = interval.start + interval.length / 2
    return t if t > interval.start else interval.end


class _Builder:
    def __init__(self, counts: NodeCounts, schema: Schema, quality: str, min_samples: int, binary: bool) -> None:
        self.counts = counts
        self.schema = schema
        self.quality = quality
        self.score = score_function(quality)
        self.min_samples = min_samples
        self.binary = binary

    def _best(self, rows: Rows, attributes: Tuple[int, ...]) -> Tuple[float, int, Optional[float]]:
        """(score, attribute, threshold or value code, or None for multiway) of the best split."""
        best: Tuple[float, int, Optional[float]] = (float("-inf"), -1, None)
        total = self.counts.class_counts(rows)
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, CategoricalAttribute):
                table = self.counts.value_table(rows, a, attribute.n_values)
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
            # Only intervals with rows on both sides split; only a score above the best so far counts.
            intervals = self.counts.thresholds(rows, a, attribute.lower, attribute.upper)
            found = intervals.best(self.quality, best[0])
            if found is not None:
                best = (found[0], a, _midpoint(intervals.interval(found[1])))
        return best

    def build(self, rows: Rows, attributes: Tuple[int, ...], depth: int, parent: Sequence[int]) -> Node:
        if not rows:
            return Leaf(tuple(parent))
        counts = self.counts.class_counts(rows)
        if depth == 0 or not attributes or len(rows) <= self.min_samples or sum(1 for c in counts if c) <= 1:
            return Leaf(tuple(counts))
        score, a, cut = self._best(rows, attributes)
        if a < 0 or score <= self.score([counts]) + _MIN_GAIN * len(rows):
            return Leaf(tuple(counts))
        attribute = self.schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute) and cut is not None:
            equal, rest = self.counts.split_value(rows, a, int(cut))
            return ValueSplit(
                a,
                int(cut),
                self.build(equal, attributes, depth - 1, counts),
                self.build(rest, attributes, depth - 1, counts),
                counts=tuple(counts),
            )
        if cut is None:
            assert isinstance(attribute, CategoricalAttribute)
            remaining = tuple(b for b in attributes if b != a)
            buckets = self.counts.split_values(rows, a, attribute.n_values)
            return CategoricalSplit(
                a, tuple(self.build(b, remaining, depth - 1, counts) for b in buckets), counts=tuple(counts)
            )
        below_rows, above_rows = self.counts.split_threshold(rows, a, cut)
        return ThresholdSplit(
            a,
            cut,
            self.build(below_rows, attributes, depth - 1, counts),
            self.build(above_rows, attributes, depth - 1, counts),
            counts=tuple(counts),
        )


def fit_tree_baseline(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train the non-private baseline tree (no noise, no receipt promise)."""
    depth = int(params["max_depth"])
    ledger = start_ledger(data, relation)
    ledger.record_leak(LEAK)
    counts = engine.counts(data)
    builder = _Builder(
        counts, data.schema, str(params["quality"]), int(params["min_samples"]), params["split"] == "binary"
    )
    rows = counts.root()
    root = builder.build(rows, tuple(range(data.schema.n_attributes)), depth, counts.class_counts(rows))
    return finish_model(SPEC.name, data, params, [root], ledger, budget=epsilon)


def derive_tree_baseline(model: TreeModel) -> Optional[Ledger]:
    """No charge and one leak: the baseline reads the data and says so; its tree is one of at most max_depth levels.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> derive_tree_baseline(train("tree-baseline", load("monk1"), 1, rng=1)).leaks
    ('non-private baseline: reads the data directly',)
    """
    check_plan_inputs(model, {})
    check_trees(model, 1)
    check_weights(model, (1.0,))
    check_voting(model, "vote")
    integer_counts(model, "true counts")
    if tree_depth(model.trees[0]) > int(model.params["max_depth"]):
        refuse(f"the tree has {tree_depth(model.trees[0])} levels of splits, more than max_depth={model.params['max_depth']}")
    ledger = fresh_ledger(model)
    ledger.record_leak(LEAK)
    return ledger


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
            Parameter("max_depth", int, 5, "maximal depth (levels of splits)", minimum=0, maximum=MAX_DEPTH),
            Parameter(
                "min_samples", int, 5, "a node with at most this many rows becomes a leaf", minimum=0, maximum=10**9
            ),
        ),
        claims=(),
        fit=fit_tree_baseline,
        engines=("reference", "array"),
        derive=derive_tree_baseline,
    )
)
