"""The thesis tree's re-derivation: a model's charges re-issued from its public parts (:mod:`refdp.algorithms.thesis_tree`)."""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Optional, Tuple, Type

from refdp.algorithms.derivation import (
    check_plan_inputs, NO_RANDOMNESS, NOISY_SIZE, grid_index, refuse, replay_size, start_single_tree
)
from refdp.algorithms.thesis_tree_plan import (
    SPLIT_LABEL, COUNTS_LABEL, BUDGET_CLAIMS, stops, TreePlan, tree_plan, Candidates, depth_plan
)
from refdp.algorithms.greedy import (
    child_path, close_budget, threshold_conditions
)
from refdp.algorithms.registry import Param
from refdp.data import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.data.grid import Threshold
from refdp.mechanisms import (
    exponential_charge, histogram_charges
)
from refdp.privacy import Ledger, Partition
from refdp.tree import Leaf, Node, ThresholdSplit, TreeModel, ValueSplit
__all__ = ["derive_thesis_tree", "walk_charges", "Rederivation"]


def derive_thesis_tree(model: TreeModel) -> Optional[Ledger]:
    """The charges of a sound tree's plan, node by node from the released tree.

    The depth plan is replayed with the released noisy size; each node of
    the released tree gets the charges its builder makes at its level: the
    class counts of a leaf (the deepest level's epsilon, or its own level's
    where it stopped on them), the counts of an inner node under
    ``node_counts=every-node``, the split's exponential mechanism; then the
    reserve of the levels not built.  The tree must be one the builder can
    release: value-vs-rest splits on categorical attributes that no equal
    side of the path has used, thresholds on the public grid, a leaf only where the plan
    stops, discrete Laplace counts (whole numbers), one tree of weight 1.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("thesis-tree", load("vote"), 1, rng=1)
    >>> derive_thesis_tree(model).charges == model.receipt.charges
    True
    """
    return walk_charges(model, Rederivation)


def walk_charges(model: TreeModel, rederivation_type: Type[Rederivation]) -> Ledger:
    """The depth plan replayed, then the charges ``rederivation_type`` re-issues along the released tree."""
    params, schema = model.params, model.schema
    epsilon, ledger = start_single_tree(model)
    plan = depth_plan(schema, epsilon, params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    tree = tree_plan(plan, epsilon, params, ledger.relation)
    candidates = Candidates(None, schema, tree, int(params["grid"]), ledger.relation)
    rederivation_type(schema, params, tree, candidates, ledger).walk(
        model.root, tuple(range(schema.n_attributes)), tree.depth, ()
    )
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


class Rederivation:
    """:class:`SoundBuilder`'s charges re-issued along a released tree (see :func:`derive_thesis_tree`)."""

    def __init__(
        self, schema: Schema, params: Mapping[str, Param], plan: TreePlan, candidates: Candidates, ledger: Ledger,
    ) -> None:
        self.schema = schema
        self.plan = plan
        self.candidates = candidates
        self.ledger = ledger
        self.leaves_only = params["node_counts"] == "leaves"
        self.min_samples = int(params["min_samples"])

    def _counts(self, path: Partition, depth: int, leaf: bool) -> None:
        for charge in histogram_charges(
            epsilon=self.plan.counts_epsilon(depth, leaf), label=COUNTS_LABEL, partition=path,
            names=self.schema.classes,
        ):
            self.ledger.record(charge)

    def walk(self, node: Node, attributes: Tuple[int, ...], depth: int, path: Partition) -> None:
        where = "/".join(path) or "the root"
        if not attributes or depth == 0:
            if not isinstance(node, Leaf):
                refuse(f"the tree splits at {where}, where its plan of depth {self.plan.depth} has a leaf")
            self._counts(path, depth, leaf=True)
            return
        if self.leaves_only:
            if isinstance(node, Leaf) or node.counts is not None:
                refuse(
                    f"the tree has {'a leaf' if isinstance(node, Leaf) else 'inner counts'} at {where}; with "
                    "node_counts=leaves every node above the planned depth splits and releases no counts"
                )
        else:
            counts = node.counts
            if counts is None:
                refuse(f"the split at {where} releases no counts, which node_counts=every-node releases at every node")
            self._counts(path, depth, leaf=False)
            if isinstance(node, Leaf) != stops(counts, self.min_samples):
                refuse(
                    f"the node at {where} {'stops' if isinstance(node, Leaf) else 'splits'} on the counts "
                    f"{list(counts)}, where the stopping rule (min_samples={self.min_samples}) "
                    f"{'splits' if isinstance(node, Leaf) else 'stops'}"
                )
            if isinstance(node, Leaf):
                return
        self.split_charge(self.plan.at(depth), path)
        if isinstance(node, ValueSplit) and node.attribute in attributes:
            attribute = self.schema.attributes[node.attribute]
            assert isinstance(attribute, CategoricalAttribute)
            name, value = attribute.name, attribute.values[node.value]
            remaining = tuple(b for b in attributes if b != node.attribute)
            self.walk(node.equal, remaining, depth - 1, child_path(path, f"{name}={value}"))
            self.walk(node.rest, attributes, depth - 1, child_path(path, f"{name}!={value}"))
            return
        if not isinstance(node, ThresholdSplit):
            refuse(
                f"the node at {where} is a {type(node).__name__} on an attribute its path has used; the thesis tree "
                "splits value vs rest on a categorical attribute no equal side of its path has used, or at a "
                "threshold"
            )
        attribute = self.schema.attributes[node.attribute]
        assert isinstance(attribute, ContinuousAttribute)
        threshold = node.threshold
        self.check_threshold(node.attribute, threshold, where)
        low, high = threshold_conditions(attribute, threshold)
        self.walk(node.below, attributes, depth - 1, child_path(path, low))
        self.walk(node.at_or_above, attributes, depth - 1, child_path(path, high))

    def split_charge(self, epsilon: Fraction, path: Partition) -> None:
        """The charge of the split at ``path``: the exponential mechanism over the public domain."""
        rule = self.candidates
        self.ledger.record(exponential_charge(
            epsilon=epsilon, sensitivity=rule.sensitivity, label=SPLIT_LABEL, partition=path,
            claims=rule.split_claims, exact=True, monotone=rule.monotone,
        ))

    def check_threshold(self, a: int, threshold: Threshold, where: str) -> None:
        """ModelError unless ``threshold`` on attribute ``a`` is a point of its public grid."""
        attribute = self.schema.attributes[a]
        grid_index(self.candidates.grids[a], threshold, f"the split on {attribute.name!r} at {where}")
