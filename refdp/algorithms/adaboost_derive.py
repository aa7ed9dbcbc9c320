"""CART-DPsAdaBoost's re-derivation: a model's charges re-issued from its public parts (:mod:`refdp.algorithms.adaboost`).

:func:`derive_adaboost` replays the rounds' plan with the released noisy
size and re-issues every round's charges, reading each round's structure
from the receipt and checking the kept trees against it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Dict, Optional, Tuple

from refdp.algorithms.derivation import (
    model_budget, check_plan_inputs, NO_RANDOMNESS, NOISY_SIZE, check_trees, check_voting, check_weights,
    fresh_ledger, grid_index, integer_counts, receipt_children, refuse, replay_size
)
from refdp.algorithms.adaboost_rounds import (
    BUDGET_CLAIMS, LEAF_CLAIMS, LEAF_LABEL, MAJORITY_LABEL, SPLIT_LABEL, TAU_FLOOR_EXACT, WEIGHT_UNITS,
    bootstrap_charge, majority_epsilon, noisy_error, query_epsilon, round_plan, split_claims, subspace_charge,
    tree_weight, weight_cap
)
from refdp.algorithms.greedy import (
    SPLIT_KEY, child_path, close_budget, threshold_conditions
)
from refdp.algorithms.noisy_depth import DepthPlan
from refdp.data import CategoricalAttribute, ContinuousAttribute
from refdp.data.grid import ThresholdGrid
from refdp.mechanisms import (
    count_charge, exponential_charge, histogram_charges
)
from refdp.privacy import Ledger, Partition, Relation, as_fraction, cell
from refdp.tree import Leaf, Node, ThresholdSplit, TreeModel, ValueSplit
from refdp.tree import leaves as all_leaves

__all__ = ["derive_adaboost"]


def derive_adaboost(model: TreeModel) -> Optional[Ledger]:
    """The sound variant's charges: the rounds' plan replayed with the released noisy size, every round's
    bootstrap, subspaces, splits and leaves at the query epsilon, and the reserve.

    A round left out of the vote (worse than guessing) is in the receipt
    only: its structure is read from the receipt's partitions, and checked
    as the kept rounds' are (each split value vs rest on a categorical
    attribute or at a point of the public grid, of an attribute of its
    subspace).  The kept trees must be released rounds, in order; each
    weight alpha_t is the one the tree's released counts give (tau_t at most
    1 - 1/K); every leaf count is a whole number of units of 1/1024.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("dp-adaboost", load("vote"), 1, rng=1)
    >>> derive_adaboost(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    check_voting(model, "vote")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    plan = round_plan(schema, epsilon, params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    if plan.depth == 0:
        check_trees(model, 1)
        check_weights(model, (1.0,))
        integer_counts(model, "discrete Laplace class counts")
        for charge in histogram_charges(
            epsilon=majority_epsilon(plan.epsilon, ledger.relation), label=MAJORITY_LABEL, names=schema.classes,
        ):
            ledger.record(charge)
    else:
        _Rounds(model, plan, ledger).derive()
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


class _Rounds:
    """The sound rounds' charges re-issued from the receipt's structure and checked against the kept trees."""

    def __init__(self, model: TreeModel, plan: DepthPlan, ledger: Ledger) -> None:
        params, schema = model.params, model.schema
        self.model = model
        self.schema = schema
        self.ledger = ledger
        self.rounds = plan.depth
        self.depth = int(params["max_depth"])
        k = int(params["n_features"])
        self.k = schema.n_attributes if k == 0 else min(k, schema.n_attributes)
        self.cap = weight_cap(as_fraction(float(params["theta"]), "theta"))
        self.eps = query_epsilon(plan.epsilon, plan.depth, self.depth, ledger.relation)
        self.monotone = ledger.relation is Relation.ADD_REMOVE
        self.grids = {
            a: ThresholdGrid.of(attribute, int(params["grid"]))
            for a, attribute in enumerate(schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }
        # Each split's first (left) condition, to the split and its second condition.
        self.splits: Dict[str, Tuple[int, str]] = {}
        for a, attribute in enumerate(schema.attributes):
            if isinstance(attribute, CategoricalAttribute):
                for value in attribute.values:
                    self.splits[f"{attribute.name}={value}"] = (a, f"{attribute.name}!={value}")
            else:
                for point in self.grids[a].points:
                    low, high = threshold_conditions(attribute, point)
                    self.splits[low] = (a, high)

    def _subspace(self, path: Partition) -> Tuple[int, ...]:
        n = self.schema.n_attributes
        if self.k == n:
            return tuple(range(n))
        stated = [c for c in self.model.receipt.charges if c.partition == path and c.label == "random subspace"]
        text = stated[0].note[len("attributes "):] if stated and stated[0].note.startswith("attributes ") else ""
        try:
            attributes = tuple(int(a) for a in text.strip("(,)").split(","))
        except ValueError:
            refuse(f"the receipt states no random subspace of {self.k} attributes at {'/'.join(path)}")
        if len(set(attributes)) != self.k or list(attributes) != sorted(attributes) or not all(
            0 <= a < n for a in attributes
        ):
            refuse(f"the random subspace {attributes} at {'/'.join(path)} is not {self.k} distinct attributes in order")
        return attributes

    def _node(self, path: Partition, depth: int) -> Tuple[object, ...]:
        """Re-issue the charges of the node at ``path`` with ``depth`` levels below; return its shape."""
        if depth == 0:
            for name in self.schema.classes:
                self.ledger.record(count_charge(
                    epsilon=self.eps, sensitivity=self.cap, label=LEAF_LABEL, partition=path + (cell("class", name),),
                    claims=LEAF_CLAIMS,
                ))
            return ()
        attributes = self._subspace(path)
        self.ledger.record(subspace_charge(path, attributes))
        self.ledger.record(exponential_charge(
            epsilon=self.eps, sensitivity=2 * self.cap, label=SPLIT_LABEL, partition=path,
            claims=split_claims(any(a in self.grids for a in attributes), self.monotone), exact=True,
            monotone=self.monotone,
        ))
        conditions = receipt_children(self.model.receipt.charges, path, SPLIT_KEY)
        split = self.splits.get(conditions[0]) if conditions else None
        if split is None or conditions != [conditions[0], split[1]] or split[0] not in attributes:
            refuse(
                f"the receipt's cells below {'/'.join(path)} ({', '.join(conditions) or 'none'}) are not the two sides of "
                "a split of the round's subspace, value vs rest or at a point of the public grid"
            )
        return (conditions[0],) + tuple(self._node(child_path(path, c), depth - 1) for c in conditions)

    def _shape(self, node: Node) -> Tuple[object, ...]:
        if isinstance(node, Leaf):
            return ()
        attribute = self.schema.attributes[node.attribute]
        if isinstance(node, ValueSplit) and isinstance(attribute, CategoricalAttribute):
            first = f"{attribute.name}={attribute.values[node.value]}"
            return (first, self._shape(node.equal), self._shape(node.rest))
        if isinstance(node, ThresholdSplit) and isinstance(attribute, ContinuousAttribute):
            grid_index(self.grids[node.attribute], node.threshold, f"the split on {attribute.name!r}")
            first = threshold_conditions(attribute, node.threshold)[0]
            return (first, self._shape(node.below), self._shape(node.at_or_above))
        refuse(f"a {type(node).__name__} on {attribute.name!r}, which a CART stump does not make")

    def derive(self) -> None:
        kept = list(zip(self.model.trees, self.model.weights))
        shapes = [(self._shape(tree), tree, weight) for tree, weight in kept]
        matched = 0
        for t in range(self.rounds):
            self.ledger.record(bootstrap_charge(t))
            shape = self._node((f"round {t}",), self.depth)
            if matched < len(shapes) and shapes[matched][0] == shape:
                self._check_kept(t, shapes[matched][1], shapes[matched][2])
                matched += 1
        if matched == len(shapes):
            return
        if matched == 0 and len(shapes) == 1 and isinstance(self.model.trees[0], Leaf) and self.model.weights == (1.0,):
            return  # no round beat guessing: one leaf with the dropped rounds' clipped counts summed
        refuse(
            f"tree {matched} of the model is not a round of the receipt, in order ({len(shapes)} trees, "
            f"{self.rounds} rounds)"
        )

    def _check_kept(self, t: int, tree: Node, weight: float) -> None:
        for leaf in all_leaves(tree):
            if any(not (float(c) * WEIGHT_UNITS).is_integer() for c in leaf.counts):
                refuse(f"round {t}'s leaf counts {list(leaf.counts)} are not whole numbers of units of 1/{WEIGHT_UNITS}")
        n_classes = self.schema.n_classes
        tau = noisy_error(tree)
        if tau > 1 - Fraction(1, n_classes):
            refuse(f"round {t}'s tree has tau_t = {float(tau):.6g} > 1 - 1/K: it is left out of the vote, not weighted")
        alpha = tree_weight(float(max(tau, TAU_FLOOR_EXACT)), n_classes)
        if weight != alpha:
            refuse(f"round {t}'s tree has weight {weight!r} where its released counts give alpha_t = {alpha!r}")
