"""The thesis tree's laws at the root: what the audits and cross-checks compare another implementation with.

:func:`root_split_law` is the exact law of the sound learner's root outcome
(a split, or a leaf), :func:`root_counts_law` that of the class counts it
releases at the root (:mod:`refdp.algorithms.root_law`); ``crosscheck-cmd``
reaches them through :func:`refdp.algorithms.registry.root_law`.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.derivation import NO_RANDOMNESS
from refdp.algorithms.registry import Param
from refdp.algorithms.root_law import (
    TAIL, CountsLaw, PlanBranch, RootCountsLaw, RootSplitLaw, SplitCandidate, SplitLaw, mixed_counts,
    noisy_size_plans
)
from refdp.algorithms.thesis_tree_plan import Candidates, TreePlan, depth_plan, stops, tree_plan
from refdp.data import CategoricalAttribute, Dataset, Schema
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace_cdf, discrete_laplace_pmf, histogram_scale
from refdp.privacy import Ledger, Relation

__all__ = ["root_split_law", "root_counts_law"]


def _plans(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, what: str
) -> Tuple[List[Tuple[TreePlan, float]], Optional[Fraction]]:
    """The sound variant's tree plans (levels' epsilons and quality) with their probabilities over N~."""
    if params["variant"] != "sound":
        raise InvalidParameterError(
            f"the law of thesis-tree's {what} is known for variant=sound only, got variant={params['variant']}"
        )

    def plan(engine: Engine) -> TreePlan:
        made = depth_plan(data.schema, epsilon, params, relation, 0, engine, NO_RANDOMNESS, Ledger(relation))
        return tree_plan(made, epsilon, params, relation)

    return noisy_size_plans(len(data), plan)


def _stopped_split(counts: Sequence[int], scale: Fraction, min_samples: int) -> float:
    """P[the root splits] when its noisy class counts (two classes, noise ``DLap(scale)``) decide by :func:`stops`.

    For each first count x1, the rule lets the node split exactly when the
    second count x2 is at least some t(x1) (a larger count never stops a
    node that a smaller one splits), found by bisection; the probability is
    the sum over x1 of P[x1] P[x2 >= t(x1)].
    """
    s = float(scale)
    reach = math.ceil(TAIL * s) + 1
    c1, c2 = counts
    lowest, highest = c2 - reach, c2 + reach + 1  # x2 = highest stands for "beyond the range"

    def threshold(x1: int) -> int:
        low, high = lowest, highest
        if not stops([x1, lowest], min_samples):
            return lowest
        while high - low > 1:
            middle = (low + high) // 2
            if stops([x1, middle], min_samples):
                low = middle
            else:
                high = middle
        return high

    total = []
    for x1 in range(c1 - reach, c1 + reach + 1):
        t = threshold(x1)
        if t < highest:
            total.append(discrete_laplace_pmf(x1 - c1, s) * (1 - discrete_laplace_cdf(t - 1 - c2, s)))
    return math.fsum(total)


def _root_split(data: Dataset, params: Mapping[str, Param], plan: TreePlan) -> Optional[float]:
    """The probability that the root splits under ``plan`` (None: not computed, for more than two classes)."""
    if plan.depth == 0 or data.schema.n_attributes == 0:
        return 0.0
    if params["node_counts"] == "leaves":
        return 1.0
    if data.schema.n_classes != 2:
        return None
    counts = REFERENCE.counts(data)
    true = counts.class_counts(counts.root())
    return _stopped_split(true, histogram_scale(plan.counts_epsilon(plan.depth, False)), int(params["min_samples"]))


def _describe(plan: TreePlan, params: Mapping[str, Param]) -> str:
    quality = f", quality {plan.quality}" if params["quality"] == "auto" else ""
    weights = f", split weights {plan.split_weights}" if params["split_weights"] == "auto" else ""
    return f"depth {plan.depth}{quality}{weights}"


def root_split_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootSplitLaw:
    """The law of the sound variant's root outcome: a pair (attribute, value or threshold), or a leaf.

    Under each plan :func:`depth_plan` may make (one, or one per value of
    the noisy size N~ that chooses it, which also picks ``quality=auto``'s
    quality), the root is a leaf when the plan has depth 0; with
    ``node_counts="every-node"`` also when its noisy class counts stop it,
    a probability computed for two classes (with more, leaves are left out
    of the law and the plan must not depend on N~).

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.data import load
    >>> params = get_algorithm("thesis-tree").resolve({"size_share": 0.05, "leaf_sigmas": 3, "max_depth": 6})
    >>> law = root_split_law(load("vote"), Fraction(1, 5), params, Relation.ADD_REMOVE)
    >>> for b in law.branches:
    ...     if b.weight > 1e-6:
    ...         print(b.plan, round(b.weight, 3))
    depth 0, quality max, split weights pair 0.023
    depth 1, quality max, split weights pair 0.907
    depth 2, quality max, split weights pair 0.07
    depth 3, quality max, split weights pair 0.0
    """
    if int(params["max_depth"]) == 0 or data.schema.n_attributes == 0:
        raise InvalidParameterError(
            "thesis-tree never splits its root with max_depth=0 or without attributes; give max_depth=1 or more"
        )
    plans, noisy_size = _plans(data, epsilon, params, relation, "root split")
    counts = REFERENCE.counts(data)
    rows = counts.root()
    attributes = tuple(range(data.schema.n_attributes))
    by_plan: Dict[Tuple[str, str], Candidates] = {}
    named: List[SplitCandidate] = []
    branches = []
    for plan, weight in plans:
        key = (plan.quality, plan.split_weights)
        candidates = by_plan.get(key)
        if candidates is None:
            candidates = by_plan[key] = Candidates(counts, data.schema, plan, int(params["grid"]), relation)
        pairs, utilities, weights = candidates(rows, attributes, counts.class_counts(rows))
        named = [_named(data.schema, candidates, a, v) for a, v in pairs]
        law = None if plan.depth == 0 else SplitLaw(
            tuple(named), tuple(utilities), tuple(weights), plan.at(plan.depth), candidates.sensitivity,
            candidates.quality, candidates.monotone,
        )
        branches.append(PlanBranch(_describe(plan, params), weight, _root_split(data, params, plan), law))
    law_of = RootSplitLaw(tuple(named), tuple(branches), noisy_size)
    if not law_of.leaf_is_outcome and len(branches) > 1:
        raise InvalidParameterError(
            "with node_counts=every-node on data of more than two classes, the probability that thesis-tree's "
            "root stops on its noisy counts is not computed, so its law is known only where one plan is made for "
            "sure: give size_share=0, or node_counts=leaves"
        )
    return law_of


def _named(schema: Schema, candidates: Candidates, a: int, v: int) -> SplitCandidate:
    attribute = schema.attributes[a]
    grid = candidates.grids.get(a)
    if grid is None:
        assert isinstance(attribute, CategoricalAttribute)
        return SplitCandidate(attribute.name, value=attribute.values[v])
    return SplitCandidate(attribute.name, threshold=grid.point(v))


def root_counts_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootCountsLaw:
    """The law of the class counts the sound variant releases at the root, given that it releases them.

    With ``node_counts="every-node"`` the root releases them under every
    plan (its level's epsilon, the deepest level's at depth 0); with
    ``"leaves"`` only under a plan of depth 0.
    """
    plans, noisy_size = _plans(data, epsilon, params, relation, "root counts")
    counts = REFERENCE.counts(data)
    true = tuple(counts.class_counts(counts.root()))
    every = params["node_counts"] != "leaves"
    branches = []
    for plan, weight in plans:
        leaf = plan.depth == 0 or data.schema.n_attributes == 0
        law = CountsLaw(data.schema.classes, true, plan.counts_epsilon(plan.depth, leaf), "discrete-laplace")
        branches.append((weight, 1.0 if leaf or every else 0.0, law))
    if not any(released for _, released, _ in branches):
        raise InvalidParameterError(
            "thesis-tree with node_counts=leaves releases class counts at the leaves only, and its root is a leaf "
            "only under a plan of depth 0, which these parameters never make; give max_depth=0 or "
            "node_counts=every-node"
        )
    return mixed_counts(branches, noisy_size)

