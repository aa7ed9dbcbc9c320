"""DPDF's re-derivation: a model's charges re-issued from its public parts (:mod:`refdp.algorithms.dpdf`)."""

from __future__ import annotations

from typing import List, Optional, Sequence, Set, Tuple

from refdp.algorithms.binning import PublicBins
from refdp.algorithms.derivation import (
    model_budget, NO_RANDOMNESS, NOISY_SIZE, check_plan_inputs, check_trees, check_voting, check_weights,
    fresh_ledger, integer_counts, receipt_children, refuse, replay_size
)
from refdp.algorithms.greedy import SPLIT_KEY, child_path, close_budget
from refdp.algorithms.noisy_depth import (
    DepthPlan
)
from refdp.mechanisms import exponential_charge, histogram_charges
from refdp.privacy import Ledger, Partition
from refdp.scoring import get_quality, monotone_under
from refdp.tree import CategoricalSplit, IntervalSplit, Leaf, Node, TreeModel
from refdp.algorithms.dpdf_plan import (
    split_claims, per_query_epsilon, splits, Q1_LABEL, Q2_LABEL, BUDGET_CLAIMS, tree_plan
)

__all__ = [
    "derive_dpdf",
]


def derive_dpdf(model: TreeModel) -> Optional[Ledger]:
    """The sound variant's charges: its plan replayed with the released noisy size, then every node's Q1
    and every split's Q2 at the per-query epsilon, tree by tree, and the reserve.

    A node that PRUNETREE turned into a leaf (post-processing) keeps its
    counts; its subtree's structure is read from the receipt's partitions,
    each split one attribute's public cells.  Every split must be on an
    attribute not yet used on its path (at a root, not the root of an
    earlier tree), above depth delta, where the node's released counts pass
    the splitting test; a released leaf that did not split must fail it or
    have no candidate left, or be a pruned split.  Counts are whole numbers
    (discrete Laplace); the vote is by confidence with weight 1.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("dpdf", load("vote"), 1, rng=1)
    >>> derive_dpdf(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    n_trees = int(params["n_trees"])
    check_trees(model, n_trees)
    check_weights(model, [1.0] * n_trees)
    check_voting(model, "confidence")
    integer_counts(model, "discrete Laplace class counts")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    plan = tree_plan(schema, epsilon, params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    _Forest(model, plan, ledger).derive()
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


def _whole(counts: Sequence[float]) -> List[int]:
    return [int(c) for c in counts]


class _Forest:
    """:class:`ForestBuilder`'s charges re-issued along the released trees (and the receipt below pruned nodes)."""

    def __init__(self, model: TreeModel, plan: DepthPlan, ledger: Ledger) -> None:
        params, schema = model.params, model.schema
        self.model = model
        self.schema = schema
        self.ledger = ledger
        self.max_depth = plan.depth
        self.min_size = int(params["min_size"])
        self.bins = PublicBins.of(schema, int(params["bins"]))
        self.by_conditions = {conditions: a for a, conditions in enumerate(self.bins.conditions)}
        self.eps = per_query_epsilon(plan.epsilon, int(params["n_trees"]), plan.depth, ledger.relation)
        quality = str(params["quality"])
        self.sensitivity = get_quality(quality).sensitivity(ledger.relation)
        self.monotone = monotone_under(quality, ledger.relation)
        self.claims = split_claims(quality, self.monotone)
        self.roots: Set[int] = set()

    def derive(self) -> None:
        attributes = tuple(range(self.schema.n_attributes))
        for t, tree in enumerate(self.model.trees):
            self._walk(tree, attributes, 1, (f"tree-{t}",))

    def _split(self, a: int, attributes: Tuple[int, ...], d: int, path: Partition, where: str) -> None:
        candidates = tuple(b for b in attributes if not (d == 1 and b in self.roots))
        if d >= self.max_depth or a not in candidates:
            refuse(f"the split at {where} on {self.schema.attributes[a].name!r} is not one the plan can make there")
        if d == 1:
            self.roots.add(a)
        self.ledger.record(exponential_charge(
            epsilon=self.eps, sensitivity=self.sensitivity, label=Q2_LABEL, partition=path,
            claims=self.claims, exact=True, monotone=self.monotone,
        ))

    def _walk(self, node: Optional[Node], attributes: Tuple[int, ...], d: int, path: Partition) -> None:
        """Re-issue the charges of ``node`` at ``path`` (None: a node below a pruned one, in the receipt only)."""
        where = "/".join(path)
        for charge in histogram_charges(epsilon=self.eps, label=Q1_LABEL, partition=path, names=self.schema.classes):
            self.ledger.record(charge)
        stated = receipt_children(self.model.receipt.charges, path, SPLIT_KEY)
        if isinstance(node, (CategoricalSplit, IntervalSplit)):
            a = node.attribute
        elif stated:
            found = self.by_conditions.get(tuple(stated))
            if found is None:
                refuse(f"the receipt's cells below {where} are not the cells of one attribute's split")
            a = found
        else:
            candidates = [b for b in attributes if not (d == 1 and b in self.roots)]
            if isinstance(node, Leaf) and d < self.max_depth and candidates and splits(_whole(node.counts), self.min_size):
                refuse(f"the leaf at {where} has counts {list(node.counts)} that pass the splitting test: it would split")
            if node is not None and not isinstance(node, Leaf):
                refuse(f"the node at {where} is a {type(node).__name__}, which DPDF does not make")
            return
        if node is not None and not splits(_whole(node.counts or ()), self.min_size):
            refuse(f"the node at {where} splits on counts {list(node.counts or ())} that fail the splitting test")
        self._split(a, attributes, d, path, where)
        remaining = tuple(b for b in attributes if b != a)
        children: Sequence[Optional[Node]] = node.children if isinstance(node, (CategoricalSplit, IntervalSplit)) else ()
        kids = list(children) or [None] * len(self.bins.conditions[a])
        if isinstance(node, IntervalSplit) and node.thresholds != self.bins.thresholds.get(a):
            refuse(f"the interval split at {where} is not on the public bins of {self.schema.attributes[a].name!r}")
        for child, condition in zip(kids, self.bins.conditions[a]):
            self._walk(child, remaining, d + 1, child_path(path, condition))
