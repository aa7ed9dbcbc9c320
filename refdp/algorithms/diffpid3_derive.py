"""DiffP-ID3's re-derivation: a model's charges re-issued from its public parts (:mod:`refdp.algorithms.diffpid3`)."""

from __future__ import annotations

from typing import Optional, Tuple

from refdp.algorithms.derivation import (
    NO_RANDOMNESS, NOISY_SIZE, check_plan_inputs, grid_index, refuse, replay_size, start_single_tree
)
from refdp.algorithms.greedy import (
    child_path, close_budget, threshold_conditions
)
from refdp.data import CategoricalAttribute, ContinuousAttribute
from refdp.data.grid import ThresholdGrid
from refdp.mechanisms import count_charge, histogram_charges
from refdp.privacy import Ledger, Partition
from refdp.tree import CategoricalSplit, Leaf, Node, ThresholdSplit, TreeModel
from refdp.algorithms.diffpid3_plan import (
    per_query_epsilon, split_share, public_bound, Quality, SIZE_LABEL, COUNTS_LABEL, SPLIT_LABEL, THRESHOLD_CLAIMS,
    BUDGET_CLAIMS, SIZE_BOUND, threshold_label, depth_plan
)

__all__ = [
    "derive_diffpid3",
]


def derive_diffpid3(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan along the released tree: at every node N_T, then the leaf's class counts or
    the split's exponential mechanisms (one per continuous attribute left, then the attribute), and the reserve.

    The depth plan is replayed with the released noisy size; info-gain's
    bound N is the parameter's, 10**6 under add-remove, or the stated public
    size under substitute.  The tree must be one the builder releases:
    multiway splits on categorical attributes not yet used on the path,
    thresholds on the public grid, at most d levels, discrete Laplace counts.
    (Whether a node stopped reads its noisy size N_T, which is not released:
    a leaf above depth d is not checked against the rule.)

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("diffpid3", load("vote"), 1, rng=1)
    >>> derive_diffpid3(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    epsilon, ledger = start_single_tree(model)
    relation = ledger.relation
    plan = depth_plan(schema, epsilon, params, relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    stated = model.plan_inputs.get(SIZE_BOUND)
    bound = public_bound(params, relation, stated if stated is not None and stated > 0 else 0)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size, SIZE_BOUND: bound})
    quality = Quality(str(params["quality"]), relation, bound)
    eps = per_query_epsilon(plan.epsilon, plan.depth, relation)
    grids = {
        a: ThresholdGrid.of(attribute, int(params["grid"]))
        for a, attribute in enumerate(schema.attributes)
        if isinstance(attribute, ContinuousAttribute)
    }

    def walk(node: Node, attributes: Tuple[int, ...], depth: int, path: Partition) -> None:
        ledger.record(count_charge(epsilon=eps, label=SIZE_LABEL, partition=path))
        where = "/".join(path) or "the root"
        if isinstance(node, Leaf):
            for charge in histogram_charges(epsilon=eps, label=COUNTS_LABEL, partition=path, names=schema.classes):
                ledger.record(charge)
            return
        if depth == 0 or node.attribute not in attributes:
            refuse(f"the tree splits at {where} on an attribute the plan of depth {plan.depth} no longer has there")
        continuous = [a for a in attributes if a in grids]
        share = split_share(eps, len(continuous))
        for a in continuous:
            attribute = schema.attributes[a]
            assert isinstance(attribute, ContinuousAttribute)
            ledger.record(quality.charge(share, threshold_label(attribute), path, quality.claims + THRESHOLD_CLAIMS))
        ledger.record(quality.charge(share, SPLIT_LABEL, path, quality.claims))
        attribute = schema.attributes[node.attribute]
        if isinstance(node, CategoricalSplit):
            assert isinstance(attribute, CategoricalAttribute)
            remaining = tuple(b for b in attributes if b != node.attribute)
            for child, value in zip(node.children, attribute.values):
                walk(child, remaining, depth - 1, child_path(path, f"{attribute.name}={value}"))
            return
        if not isinstance(node, ThresholdSplit) or not isinstance(attribute, ContinuousAttribute):
            refuse(f"the node at {where} is a {type(node).__name__}, which DiffP-ID3/C4.5 does not make")
        grid_index(grids[node.attribute], node.threshold, f"the split on {attribute.name!r} at {where}")
        low, high = threshold_conditions(attribute, node.threshold)
        walk(node.below, attributes, depth - 1, child_path(path, low))
        walk(node.at_or_above, attributes, depth - 1, child_path(path, high))

    walk(model.root, tuple(range(schema.n_attributes)), plan.depth, ())
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger
