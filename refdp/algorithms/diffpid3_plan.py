"""DiffP-ID3's budget plan: the per-query epsilon, the depth a noisy size allows, the stopping rule and the quality.

:func:`depth_plan` lets a noisy size of the data cap the depth (claim
``noisy-size-plan``); :class:`Quality` is the split's quality with its
sensitivity under the relation; the labels are the charges' (:mod:`refdp.algorithms.diffpid3`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Mapping, Optional, Sequence, Tuple, Union

from refdp.algorithms.greedy import (
    NodeCost, plan_units
)
from refdp.algorithms.noisy_depth import (
    DepthRule,
    DepthPlan, laplace_variance, mean_branching, plan_depth, size_share
)
from refdp.engine import Engine, NodeCounts, Rows
from refdp.scoring.kernels import exact_score_function, score_function
from refdp.algorithms.registry import Param
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.mechanisms import exponential_charge
from refdp.errors import InvalidParameterError
from refdp.privacy import Charge, Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.scoring import get_quality, monotone_under

__all__ = [
    "INTERNAL",
    "LEAF",
    "Score",
    "DEFAULT_MAX_SIZE",
    "per_query_epsilon",
    "split_share",
    "stops",
    "size_bound",
    "public_bound",
    "reads_public_size",
    "domain_size",
    "Quality",
    "SIZE_LABEL",
    "COUNTS_LABEL",
    "SPLIT_LABEL",
    "THRESHOLD_CLAIMS",
    "BUDGET_CLAIMS",
    "SIZE_BOUND",
    "threshold_label",
    "depth_plan",
]


INTERNAL = NodeCost(Fraction(2), Fraction(2))
"""A split node: N_T (1 unit) and the split choices, which share 1 unit."""


LEAF = NodeCost(Fraction(2), Fraction(3))
"""A leaf: N_T (1 unit) and the class counts (1 unit; 2 for a record that changes class)."""


Score = Union[int, Fraction, float]


DEFAULT_MAX_SIZE = 1_000_000
"""The public bound N on the data set's size that info-gain uses under add-remove unless given."""


def per_query_epsilon(budget: Fraction, depth: int, relation: Relation) -> Fraction:
    """eps = B / K with K the cost of a full tree: 2(d+1) under add-remove, 4d+2 (3 for d=0) under substitute."""
    return budget / plan_units(INTERNAL, LEAF, depth, relation)


def split_share(epsilon: Fraction, continuous: int) -> Fraction:
    """The budget of each of a node's split choices: the ``continuous`` thresholds and the attribute share eps."""
    return epsilon / (continuous + 1)


def stops(noisy_size: int, largest_domain: int, n_classes: int, epsilon: Fraction) -> bool:
    """The stopping rule N_T / (t |C|) < sqrt(2) / eps, decided exactly.

    Equivalent to N_T eps < sqrt(2) t |C|: true when N_T eps <= 0, and
    otherwise when (N_T eps)^2 < 2 (t |C|)^2, in exact rational arithmetic.
    """
    x = noisy_size * epsilon
    bound = largest_domain * n_classes
    return x <= 0 or x * x < 2 * bound * bound


def size_bound(params: Mapping[str, Param], data: Dataset, relation: Relation) -> Optional[int]:
    """The public bound N on node sizes that information gain's sensitivity needs (None otherwise).

    ``max_size`` > 0 is used as given; 0 means the default: the data set's
    size under ``substitute`` (public: every neighbour has it) and
    :data:`DEFAULT_MAX_SIZE` under ``add-remove`` (where the size is private).
    A data set with more rows than N breaks the declared bound and is refused.
    """
    bound = public_bound(params, relation, len(data))
    if bound is None:
        return None
    if len(data) > bound:
        raise InvalidParameterError(
            f"the data set has more rows than max_size={bound}, the public bound on its size that "
            f"the sensitivity of info-gain relies on; declare a larger max_size (chosen without "
            f"looking at the data) or use quality=max or quality=gini"
        )
    return bound


def public_bound(params: Mapping[str, Param], relation: Relation, size: int) -> Optional[int]:
    """The bound N of :func:`size_bound` for a data set of ``size`` rows, public under ``substitute``.

    >>> public_bound({"quality": "info-gain", "max_size": 0}, Relation.SUBSTITUTE, 435)
    435
    >>> public_bound({"quality": "max", "max_size": 0}, Relation.SUBSTITUTE, 435) is None
    True
    """
    if params["quality"] != "info-gain":
        return None
    given = params["max_size"]
    if isinstance(given, bool) or not isinstance(given, int) or given < 0:
        raise InvalidParameterError(
            f"parameter max_size must be an integer >= 0 (0 for the default bound), got {given!r}"
        )
    if given > 0:
        return given
    return max(1, size) if relation is Relation.SUBSTITUTE else DEFAULT_MAX_SIZE


def reads_public_size(params: Mapping[str, Param], relation: Relation) -> bool:
    """Whether the plan reads the number of rows as public: info-gain under substitute without max_size.

    That number is public only where the data set is the neighbours' own:
    a transformation that depends on a record (dropping the rows with a
    missing value) changes it under a substitution, and the bound is then
    not public (``train`` refuses ``--missing drop`` with it).

    >>> reads_public_size({"quality": "info-gain", "max_size": 0}, Relation.SUBSTITUTE)
    True
    >>> reads_public_size({"quality": "info-gain", "max_size": 1000}, Relation.SUBSTITUTE)
    False
    """
    return params["quality"] == "info-gain" and params["max_size"] == 0 and relation is Relation.SUBSTITUTE


def domain_size(schema: Schema, a: int) -> int:
    attribute = schema.attributes[a]
    return attribute.n_values if isinstance(attribute, CategoricalAttribute) else 2


class Quality:
    """The quality q at a node: its scores and its sensitivity under the relation (with the size bound N)."""

    def __init__(self, quality: str, relation: Relation, bound: Optional[int]) -> None:
        scoring = get_quality(quality)
        self.name = quality
        self.sensitivity = scoring.sensitivity(relation, max_size=bound)
        # Under add-remove the max operator's and the Gini's utilities of every candidate move one way
        # when a record joins the node: no factor 2 (claim split-quality-monotone).
        self.monotone = monotone_under(quality, relation)
        self.claims = ("exponential-mechanism", scoring.claim) + (("split-quality-monotone",) if self.monotone else ())
        self.note = "" if bound is None else f"information gain with the public size bound N={bound}"
        # Rational qualities are scored and sampled exactly; information gain (logarithms) in floats.
        self.exact = quality != "info-gain"
        self.score: Callable[[Sequence[Sequence[int]]], Score] = (
            exact_score_function(quality) if self.exact else score_function(quality)
        )

    def charge(self, epsilon: Fraction, label: str, path: Partition, claims: Tuple[str, ...]) -> Charge:
        """The charge of one of the node's exponential mechanisms (:meth:`_Builder._choose`)."""
        return exponential_charge(
            epsilon=epsilon, sensitivity=self.sensitivity, label=label, partition=path, claims=claims, note=self.note,
            exact=self.exact, monotone=self.monotone and self.exact,
        )

    def of_attribute(self, counts: NodeCounts, rows: Rows, a: int, n_values: int) -> Score:
        """The utility of the multiway split on categorical attribute ``a`` of the node holding ``rows``."""
        return self.score(counts.value_table(rows, a, n_values))


SIZE_LABEL = "node size N_T"


COUNTS_LABEL = "class counts N_c"


SPLIT_LABEL = "split attribute A_bar"


THRESHOLD_CLAIMS = ("continuous-split-exponential-mechanism",)


BUDGET_CLAIMS = ("tree-budget-plan", "diffpid3-budget")


SIZE_BOUND = "size_bound"
"""The plan input that holds info-gain's public bound N on the node sizes."""


def threshold_label(attribute: ContinuousAttribute) -> str:
    """The label of the exponential mechanism that picks ``attribute``'s threshold at a node.

    >>> threshold_label(ContinuousAttribute("age", 0.0, 120.0))
    'threshold of age'
    """
    return f"threshold of {attribute.name}"


def depth_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The depth d: a noisy size of the ``size`` rows (charged to ``ledger``) caps max_depth.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> from refdp.engine import REFERENCE
    >>> params = get_algorithm("diffpid3").resolve({"size_share": 0, "max_depth": 3})
    >>> depth_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...            Ledger()).depth
    3
    """
    share, sigmas = size_share(params)
    branching = mean_branching(schema, 2)
    return plan_depth(
        size, epsilon, share,
        DepthRule(
            sigmas, int(params["max_depth"]), schema.n_classes,
            leaves=lambda d: branching**d, variance=lambda d, left: laplace_variance(per_query_epsilon(left, d, relation)),
        ),
        engine, rng, ledger,
    )
