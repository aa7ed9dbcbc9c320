"""DPDF's budget plan: the per-query epsilon, the depth a noisy size allows, the splitting test and the charges' labels.

:func:`tree_plan` lets a noisy size of the data cap delta (claim
``noisy-size-plan``); :func:`per_query_epsilon` divides the trees' budget by
the cost of a full tree (:mod:`refdp.algorithms.dpdf`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence, Tuple

from refdp.algorithms.greedy import NodeCost, plan_units
from refdp.algorithms.noisy_depth import (
    DepthRule,
    DepthPlan, laplace_variance, mean_branching, plan_depth, size_share
)
from refdp.engine import Engine
from refdp.algorithms.registry import Param
from refdp.data import Schema
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource

__all__ = [
    "INTERNAL",
    "LEAF",
    "per_query_epsilon",
    "splits",
    "Q1_LABEL",
    "Q2_LABEL",
    "BUDGET_CLAIMS",
    "split_claims",
    "tree_plan",
]


INTERNAL = NodeCost(Fraction(2), Fraction(3))
"""A split node: Q1 (1 unit; 2 for a record that changes class) and Q2 (1 unit under both relations)."""


LEAF = NodeCost(Fraction(1), Fraction(2))
"""A leaf: Q1 only."""


def per_query_epsilon(budget: Fraction, n_trees: int, max_depth: int, relation: Relation) -> Fraction:
    """eps = beta / (tau K), K the cost of a full tree of delta levels: 2 delta - 1 under add-remove."""
    return budget / (n_trees * plan_units(INTERNAL, LEAF, max_depth - 1, relation))


def splits(noisy_counts: Sequence[int], min_size: int) -> bool:
    """The paper's data-dependent stopping test on Q1: |D| >= min_size and f_c / |D| < 1 for every class.

    |D| is the sum of the noisy counts; with |D| >= min_size >= 1 > 0 the
    confidence test is f_c < |D|, decided exactly on integers.
    """
    size = sum(noisy_counts)
    return size >= min_size and size > 0 and all(f < size for f in noisy_counts)


Q1_LABEL = "class histogram Q1"


Q2_LABEL = "split attribute Q2"


BUDGET_CLAIMS = ("tree-budget-plan", "dpdf-budget")


def split_claims(quality: str, monotone: bool) -> Tuple[str, ...]:
    claim = "gini-weighted-sensitivity" if quality == "gini-weighted" else "gini-unnormalised-sensitivity"
    return ("exponential-mechanism", claim) + (("split-quality-monotone",) if monotone else ())


def tree_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The trees' budget and depth delta (node levels, as ``depth``); a noisy size of the ``size`` rows
    (charged to ``ledger``) caps delta.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> from refdp.engine import REFERENCE
    >>> params = get_algorithm("dpdf").resolve({"size_share": 0})
    >>> tree_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...           Ledger()).depth
    5
    """
    max_depth = int(params["max_depth"])
    n_trees = int(params["n_trees"])
    share, sigmas = size_share(params)
    branching = mean_branching(schema, int(params["bins"]))
    plan = plan_depth(
        size, epsilon, share,
        DepthRule(
            sigmas, max_depth - 1, schema.n_classes,
            leaves=lambda d: branching**d,
            variance=lambda d, left: laplace_variance(per_query_epsilon(left, n_trees, d + 1, relation)),
        ),
        engine, rng, ledger,
    )
    return DepthPlan(plan.depth + 1, plan.epsilon, plan.noisy_size)
