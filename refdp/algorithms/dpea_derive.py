"""DPEA's re-derivation: a model's charges re-issued from its public parts (:mod:`refdp.algorithms.dpea`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Optional, Tuple

from refdp.algorithms.binning import PublicBins
from refdp.algorithms.derivation import (
    NO_RANDOMNESS, NOISY_SIZE, check_plan_inputs, refuse, replay_size, start_single_tree
)
from refdp.algorithms.dpea_plan import (
    BUDGET_CLAIMS, LEAF_LABEL, SOUND, Rules, Selections, search_of, selection_charge, selections_of, tree_plan
)
from refdp.algorithms.greedy import child_path, close_budget
from refdp.algorithms.noisy_depth import DepthPlan
from refdp.algorithms.registry import Param
from refdp.data import CategoricalAttribute, Schema
from refdp.mechanisms import histogram_charges
from refdp.privacy import Ledger, Partition
from refdp.tree import CategoricalSplit, IntervalSplit, Leaf, Node, TreeModel

__all__ = ["derive_dpea", "derive_with"]


def derive_dpea(model: TreeModel) -> Optional[Ledger]:
    """The charges of the plan along the released tree: a selection where a subtree of d levels starts,
    the noisy counts of every leaf, and the reserve.

    Selections start at the root and wherever a selected subtree ends above
    depth D with attributes left: the sound learner grows there (rules that
    stop on true counts may have a leaf there, :meth:`Rules.leaf_may_stop`).  Every split is one attribute's public cells (its domain, or public
    bins), not yet used on the path; counts are whole numbers.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("dpea", load("vote"), 1, rng=1)
    >>> derive_dpea(model).charges == model.receipt.charges
    True
    """
    return derive_with(model, SOUND)


def derive_with(model: TreeModel, rules: Rules) -> Ledger:
    """:func:`derive_dpea` for a tree grown under ``rules``."""
    params, schema = model.params, model.schema
    epsilon, ledger = start_single_tree(model)
    relation = ledger.relation
    if rules.sized_plan:
        plan = tree_plan(schema, epsilon, params, relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    else:
        plan = DepthPlan(int(params["max_depth"]), epsilon, None)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    leak = rules.leak(int(params["min_size"]))
    if leak is not None:
        ledger.record_leak(leak)
    chosen = selections_of(plan, params, relation, rules)
    bins = PublicBins.of(schema, int(params["bins"]))
    _Rederivation(schema, ledger, bins, chosen, params, rules).grow(model.root, tuple(range(schema.n_attributes)), 0, ())
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


@dataclass
class _Rederivation:
    """The builder's charges re-issued along a released tree (see :func:`derive_dpea`)."""

    schema: Schema
    ledger: Ledger
    bins: PublicBins
    plan: Selections
    params: Mapping[str, Param]
    rules: Rules

    def leaf(self, node: Node, path: Partition) -> None:
        if not isinstance(node, Leaf):
            refuse(f"the tree splits at {'/'.join(path) or 'the root'}, where its plan has a leaf")
        for charge in histogram_charges(epsilon=self.plan.eps, label=LEAF_LABEL, partition=path, names=self.schema.classes):
            self.ledger.record(charge)

    def grow(self, node: Node, attributes: Tuple[int, ...], depth: int, path: Partition) -> None:
        levels = min(self.plan.embed, self.plan.max_depth - depth)
        if levels == 0 or not attributes:
            self.leaf(node, path)
            return
        search = search_of(str(self.params["search"]), levels)
        note = self.rules.mcmc_note(int(self.params["steps"]))
        self.ledger.record(selection_charge(search, levels, self.plan.eps, self.plan.monotone, note, path))
        self.attach(node, attributes, depth, path, levels)

    def attach(self, node: Node, attributes: Tuple[int, ...], depth: int, path: Partition, levels: int) -> None:
        if levels == 0 or not attributes:
            if depth >= self.plan.max_depth or not attributes or (self.rules.leaf_may_stop() and isinstance(node, Leaf)):
                self.leaf(node, path)
            else:
                self.grow(node, attributes, depth, path)
            return
        a = node.attribute if isinstance(node, (CategoricalSplit, IntervalSplit)) else -1
        if a not in attributes or (isinstance(node, IntervalSplit) and node.thresholds != self.bins.thresholds.get(a)):
            refuse(
                f"the node at {'/'.join(path) or 'the root'} is not a split of the selected subtree on an "
                "attribute's public cells not yet used on its path"
            )
        assert isinstance(node, (CategoricalSplit, IntervalSplit))
        rest = tuple(b for b in attributes if b != a)
        attribute = self.schema.attributes[a]
        # the builder splits a continuous attribute binned: its values are the public cells' conditions
        values = attribute.values if isinstance(attribute, CategoricalAttribute) else self.bins.conditions[a]
        for child, value in zip(node.children, values):
            self.attach(child, rest, depth + 1, child_path(path, f"{attribute.name}={value}"), levels - 1)
