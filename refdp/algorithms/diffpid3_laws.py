"""DiffP-ID3's laws at the root: what the cross-checks compare another implementation with.

:func:`root_split_law` is the exact law of the root's outcome (an
attribute, or a leaf) on categorical data, :func:`root_counts_law` that of
the class counts a leaf root releases (:mod:`refdp.algorithms.root_law`);
``crosscheck-cmd`` reaches them through :func:`refdp.algorithms.registry.root_law`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import List, Mapping, Optional, Tuple

from refdp.algorithms.derivation import NO_RANDOMNESS
from refdp.algorithms.diffpid3_plan import (
    Quality, depth_plan, domain_size, per_query_epsilon, size_bound, split_share, stops,
)
from refdp.algorithms.registry import Param
from refdp.algorithms.root_law import (
    CountsLaw, PlanBranch, RootCountsLaw, RootSplitLaw, SplitCandidate, SplitLaw, mixed_counts, noisy_size_plans,
    split_probability
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError
from refdp.privacy import Ledger, Relation

__all__ = ["root_split_law", "root_counts_law"]


def _plans(data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> Tuple[
    List[Tuple[Tuple[int, Fraction], float]], Optional[Fraction]
]:
    """The (depth, per-query epsilon) plans :func:`depth_plan` makes for ``data``, with their probabilities."""

    def plan(engine: Engine) -> Tuple[int, Fraction]:
        made = depth_plan(data.schema, epsilon, params, relation, 0, engine, NO_RANDOMNESS, Ledger(relation))
        return made.depth, per_query_epsilon(made.epsilon, made.depth, relation)

    return noisy_size_plans(len(data), plan)


def _root_split(data: Dataset, depth: int, eps: Fraction) -> float:
    """The probability that the root splits: its noisy size N_T (a count at ``eps``) does not stop it."""
    schema = data.schema
    attributes = range(schema.n_attributes)
    if depth == 0 or not attributes:
        return 0.0
    largest = max(domain_size(schema, a) for a in attributes)
    return split_probability(len(data), 1 / eps, lambda n_t: stops(n_t, largest, schema.n_classes, eps))


def root_split_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootSplitLaw:
    """The law of the root's outcome (an attribute, or a leaf) on data with categorical attributes only.

    With continuous attributes the split is two stages of exponential
    mechanisms (a threshold per attribute, then the attribute), not one.
    Under each plan :func:`depth_plan` may make (one, or one per value of
    the noisy size N~ that chooses it), the root is a leaf when the plan
    has depth 0 or its noisy size N_T stops it, and otherwise splits by
    the exponential mechanism at the plan's per-query epsilon.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.data import load
    >>> params = get_algorithm("diffpid3").resolve({"size_share": 0.05, "leaf_sigmas": 3, "max_depth": 5})
    >>> law = root_split_law(load("vote"), Fraction(1, 5), params, Relation.ADD_REMOVE)
    >>> [(b.plan, round(b.weight, 5)) for b in law.branches], round(law.probabilities()[-1], 5)
    ([('depth 0', 0.28418), ('depth 1', 0.71582), ('depth 2', 0.0)], 0.28418)
    """
    schema = data.schema
    continuous = [a.name for a in schema.attributes if isinstance(a, ContinuousAttribute)]
    if continuous:
        raise InvalidParameterError(
            f"diffpid3's root split on continuous attributes ({', '.join(continuous[:3])}) chains two exponential "
            "mechanisms (a threshold per attribute, then the attribute): use data with categorical attributes only"
        )
    if int(params["max_depth"]) == 0:
        raise InvalidParameterError("diffpid3 with max_depth=0 never splits its root; give max_depth=1 or more")
    quality = Quality(str(params["quality"]), relation, size_bound(params, data, relation))
    counts = REFERENCE.counts(data)
    rows = counts.root()
    candidates, utilities = [], []
    for a, attribute in enumerate(schema.attributes):
        assert isinstance(attribute, CategoricalAttribute)
        candidates.append(SplitCandidate(attribute.name))
        utilities.append(quality.of_attribute(counts, rows, a, attribute.n_values))
    plans, noisy_size = _plans(data, epsilon, params, relation)
    branches = []
    for (depth, eps), weight in plans:
        law = None if depth == 0 else SplitLaw(
            tuple(candidates), tuple(utilities), None, split_share(eps, 0), quality.sensitivity, quality.name,
            quality.monotone,
        )
        branches.append(PlanBranch(f"depth {depth}", weight, _root_split(data, depth, eps), law))
    return RootSplitLaw(tuple(candidates), tuple(branches), noisy_size)


def root_counts_law(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation
) -> RootCountsLaw:
    """The law of the class counts the root releases when it is a leaf (depth 0, or stopped by N_T)."""
    counts = REFERENCE.counts(data)
    true = tuple(counts.class_counts(counts.root()))
    plans, noisy_size = _plans(data, epsilon, params, relation)
    return mixed_counts(
        [
            (weight, 1 - _root_split(data, depth, eps), CountsLaw(data.schema.classes, true, eps, "discrete-laplace"))
            for (depth, eps), weight in plans
        ],
        noisy_size,
    )
