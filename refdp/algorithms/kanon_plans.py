"""k-AnonToRdt's plans: the forests a noisy size may choose, certified before anything is read, and the choice.

:func:`candidate_plans` lists the forests (trees, beta, k, depth) whose
receipt delta certifies; :func:`kanon_plan` lets the total of a noisy class
histogram (:func:`class_histogram`) choose one, or the histogram plan when no
forest's sample fills its cells (claim ``noisy-size-plan``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import List, Mapping, Optional, Sequence, Tuple

from refdp.engine import Engine
from refdp.algorithms.rdt import (
    resolve_max_depth
)
from refdp.algorithms.noisy_depth import mean_branching
from refdp.algorithms.registry import Param
from refdp.data import Dataset, Schema
from refdp.errors import InvalidParameterError
from refdp.mechanisms import cell_epsilon, histogram_charges
from refdp.privacy import Charge, Ledger, Relation, as_fraction
from refdp.rng import RandomSource
from refdp.algorithms.kanon_guarantee import (
    AUTO_K, TreeGuarantee, Settings, _passes, show, _advise_k, certify
)

__all__ = [
    "Plan",
    "PLAN_TREES",
    "PLAN_BETAS",
    "Given",
    "candidate_plans",
    "fills",
    "choose_plan",
    "PRIOR_LABEL",
    "SIZE_LABEL",
    "SECOND_LABEL",
    "class_histogram",
    "class_histogram_charges",
    "ChosenPlan",
    "plans_of",
    "kanon_plan",
]


@dataclass(frozen=True)
class Plan:
    """One forest kanon-rdt may train: its settings, depth and certified per-tree guarantee."""

    settings: Settings
    depth: int
    guarantee: TreeGuarantee

    @property
    def delta(self) -> Fraction:
        return self.settings.n_trees * self.guarantee.delta


PLAN_TREES = (1, 2, 4, 8, 16, 32)
"""The numbers of trees a plan chooses from when ``n_trees`` is not given."""


PLAN_BETAS = tuple(Fraction(b) for b in ("0.01", "0.02", "0.03", "0.05", "0.07", "0.1", "0.15", "0.2", "0.3", "0.4", "0.5"))
"""The sampling probabilities a plan chooses from when ``beta`` is not given."""


@dataclass(frozen=True)
class Given:
    """The forest settings the caller fixed (None: chosen by :func:`candidate_plans`)."""

    n_trees: Optional[int]
    beta: Optional[Fraction]
    k: Optional[int]

    @property
    def fixed(self) -> bool:
        """All three given: the forest of Algorithm 3, at depth ``max_depth`` exactly."""
        return self.n_trees is not None and self.beta is not None and self.k is not None

    @staticmethod
    def of(params: Mapping[str, Param]) -> "Given":
        n_trees, beta, k = int(params["n_trees"]), as_fraction(params["beta"], "beta"), int(params["k"])
        return Given(n_trees or None, beta or None, None if k == AUTO_K else k)


def _cheapest(
    epsilon: Fraction, n_trees: int, relation: Relation, share: Fraction, max_delta: Fraction, given: Given
) -> Optional[Tuple[Fraction, int]]:
    """(beta, k) with the fewest rows k / beta that a (leaf, label) cell needs to be released: beta from
    :data:`PLAN_BETAS` (or the given one), k the smallest that certifies ``n_trees`` trees within
    ``max_delta`` (or the given one, if it certifies)."""
    best: Optional[Tuple[Fraction, int]] = None
    for beta in (given.beta,) if given.beta is not None else PLAN_BETAS:
        settings = Settings(epsilon, n_trees, given.k or 0, beta, relation, share)
        k = _advise_k(settings, max_delta) if given.k is None else given.k if _passes(settings, max_delta) else None
        if k is not None and (best is None or Fraction(max(k, 1)) / beta <= Fraction(max(best[1], 1)) / best[0]):
            best = (beta, k)
    return best


@lru_cache(maxsize=64)
def candidate_plans(
    epsilon: Fraction, relation: Relation, max_delta: Fraction, share: Fraction, max_depth: int, given: Given
) -> Tuple[Plan, ...]:
    """The forests a fit may train, all certified: public, computed before anything is read.

    With ``n_trees``, ``beta`` and ``k`` all given, the one forest of
    Algorithm 3 at depth ``max_depth`` (refused with advice when it does not
    certify).  Otherwise, for every N_t of :data:`PLAN_TREES` (or the given
    one): the (beta, k) of :func:`_cheapest`, at every depth 1 ..
    ``max_depth``; N_t without a certified (beta, k) are left out.  The
    receipt states the largest delta of them all, whichever runs (claim
    ``noisy-size-plan``).

    >>> auto = Given(None, None, None)
    >>> plans = candidate_plans(Fraction(1, 10), Relation.ADD_REMOVE, Fraction(1, 10**5), Fraction(1, 20), 1, auto)
    >>> [(p.settings.n_trees, p.settings.beta, p.settings.k) for p in plans]
    [(1, Fraction(1, 20), 24), (2, Fraction(1, 50), 20), (4, Fraction(1, 100), 22), (8, Fraction(1, 100), 48)]
    """
    if given.fixed:
        assert given.n_trees is not None and given.beta is not None and given.k is not None
        forest = Settings(epsilon, given.n_trees, given.k, given.beta, relation, share)
        return (Plan(forest, max_depth, certify(forest, max_delta)),)
    plans: List[Plan] = []
    for n_trees in (given.n_trees,) if given.n_trees is not None else PLAN_TREES:
        found = _cheapest(epsilon, n_trees, relation, share, max_delta, given)
        if found is None:
            continue
        settings = Settings(epsilon, n_trees, found[1], found[0], relation, share)
        guarantee = certify(settings, max_delta)
        plans += [Plan(settings, depth, guarantee) for depth in range(1, max_depth + 1)]
    if not plans and given != Given(None, None, None):
        raise InvalidParameterError(
            f"no kanon-rdt forest with {_given_text(given)} is certified at epsilon {show(epsilon)} within "
            f"--param max_delta={show(max_delta)}; leave n_trees, beta and k unset (chosen from epsilon) or "
            "raise epsilon"
        )
    return tuple(plans)


def _given_text(given: Given) -> str:
    parts = [f"n_trees={given.n_trees}"] if given.n_trees is not None else []
    parts += [f"beta={show(given.beta)}"] if given.beta is not None else []
    parts += [f"k={given.k}"] if given.k is not None else []
    return " and ".join(parts)


def fills(noisy_size: int, plan: Plan, n_classes: int, branching: Fraction, min_fill: Fraction) -> bool:
    """N~ beta >= m k |C| B^d: a tree's expected sample fills its (leaf, class) cells with m k rows each.

    B is the mean number of children of a split and d the plan's depth; a
    sample that cannot fill the cells with about k rows loses nearly all its
    counts to suppression, and a forest of such trees says nothing.
    """
    settings = plan.settings
    cells = n_classes * branching**plan.depth
    return noisy_size * settings.beta >= min_fill * max(settings.k, 1) * cells


def choose_plan(
    noisy_size: int, plans: Sequence[Plan], n_classes: int, branching: Fraction, min_fill: Fraction
) -> Optional[Plan]:
    """The plan to train, a function of N~ and public values only.

    The plan with the most attribute tests N_t d (then the deepest) among
    those whose sample :func:`fills` its cells with ``min_fill`` k rows; when
    none does, the one-tree, one-level plan if its sample fills them with
    half as many (one random attribute still says something on small data);
    else None: the model is then a noisy class histogram.

    >>> auto = Given(None, None, None)
    >>> plans = candidate_plans(Fraction(1), Relation.ADD_REMOVE, Fraction(1, 10**5), Fraction(1, 20), 2, auto)
    >>> chosen = choose_plan(30000, plans, 2, Fraction(5), Fraction(1))
    >>> chosen.settings.n_trees, chosen.depth
    (32, 1)
    >>> single = choose_plan(400, plans, 2, Fraction(3), Fraction(1))
    >>> single.settings.n_trees, single.depth, single.settings.beta, single.settings.k
    (1, 1, Fraction(3, 10), 18)
    >>> choose_plan(100, plans, 2, Fraction(5), Fraction(1)) is None
    True
    """
    for need, plan in _ladder(tuple(plans), n_classes, branching, min_fill):
        if noisy_size >= need:
            return plan
    return None


def _fill_size(plan: Plan, n_classes: int, branching: Fraction, min_fill: Fraction) -> Fraction:
    """The least N~ for which ``plan``'s sample :func:`fills` its cells with ``min_fill`` k rows."""
    settings = plan.settings
    return min_fill * max(settings.k, 1) * n_classes * branching**plan.depth / settings.beta


@lru_cache(maxsize=256)
def _ladder(
    plans: Tuple[Plan, ...], n_classes: int, branching: Fraction, min_fill: Fraction
) -> Tuple[Tuple[Fraction, Plan], ...]:
    """(the least N~ that takes it, plan) in the order :func:`choose_plan` prefers the plans (computed once)."""
    ranked = sorted(plans, key=lambda p: (p.settings.n_trees * p.depth, p.depth), reverse=True)
    ladder = [(_fill_size(p, n_classes, branching, min_fill), p) for p in ranked]
    single = [p for p in plans if p.settings.n_trees == 1 and p.depth == 1]
    ladder += [(_fill_size(p, n_classes, branching, min_fill / 2), p) for p in single[:1]]
    return tuple(ladder)


PRIOR_LABEL = "noisy class histogram (the prior)"


SIZE_LABEL = "noisy class histogram (the prior; its total chooses the plan)"


SECOND_LABEL = "class histogram"


def _histogram_order(classes: Sequence[str]) -> List[int]:
    """The class indices in the order of their names: the order a class histogram's noise is drawn in."""
    return sorted(range(len(classes)), key=classes.__getitem__)


def class_histogram(
    data: Dataset, epsilon: Fraction, relation: Relation, engine: Engine, rng: RandomSource, ledger: Ledger,
    label: str,
) -> Tuple[int, ...]:
    """The class histogram with discrete Laplace noise of budget ``epsilon`` (add-remove; each cell
    ``epsilon / 2`` under substitute), its noise drawn in the order of the class names, not of their
    listing: listing the classes in another order permutes the released counts and nothing else."""
    classes = data.schema.classes
    true = [0] * len(classes)
    for label_code in data.labels:
        true[label_code] += 1
    order = _histogram_order(classes)
    noisy = engine.histogram(
        [true[c] for c in order], epsilon=cell_epsilon(epsilon, relation), rng=rng, ledger=ledger, label=label,
        names=[classes[c] for c in order],
    )
    out = [0] * len(classes)
    for position, c in enumerate(order):
        out[c] = int(noisy[position])
    return tuple(out)


def class_histogram_charges(classes: Sequence[str], epsilon: Fraction, relation: Relation, label: str) -> Tuple[Charge, ...]:
    """The charges :func:`class_histogram` records."""
    return histogram_charges(
        epsilon=cell_epsilon(epsilon, relation), label=label, names=[classes[c] for c in _histogram_order(classes)],
    )


@dataclass(frozen=True)
class ChosenPlan:
    """The forest a run trains (None: the second histogram), the delta the receipt states, and the N~ that chose."""

    plan: Optional[Plan] = field(metadata={"none": "no forest fills its cells; the model is a second noisy class "
                                                   "histogram, released as one leaf"})
    total_delta: Fraction = field()
    noisy_size: Optional[int] = field()

    @property
    def delta(self) -> Fraction:
        return self.plan.delta if self.plan is not None else Fraction(0)


def plans_of(schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation) -> Tuple[Plan, ...]:
    """:func:`candidate_plans` for these parameters, refusing a plan to choose without a noisy histogram."""
    given = Given.of(params)
    share = as_fraction(params["size_share"], "size_share")
    if not given.fixed and share == 0:
        raise InvalidParameterError(
            "kanon-rdt chooses the forest settings left unset (n_trees, beta, k) from a noisy class histogram, "
            "which needs size_share > 0: give --param size_share=0.05, or all of --param n_trees, beta and k"
        )
    max_delta = as_fraction(params["max_delta"], "max_delta")
    return candidate_plans(epsilon, relation, max_delta, share, resolve_max_depth(schema, int(params["max_depth"])), given)


def kanon_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, noisy_size: Optional[int]
) -> ChosenPlan:
    """The plan a run follows: a function of public values and the histogram's total N~ only.

    With ``n_trees``, ``beta`` and ``k`` all given, their forest (N~ is not
    read); otherwise :func:`choose_plan` among :func:`candidate_plans` by
    ``noisy_size``.  A verifier calls it with the model's plan input.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.data import load
    >>> params = get_algorithm("kanon-rdt").resolve({})
    >>> chosen = kanon_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435)
    >>> chosen.plan.settings.n_trees, chosen.plan.depth, chosen.noisy_size
    (1, 1, 435)
    """
    plans = plans_of(schema, epsilon, params, relation)
    total_delta = max((plan.delta for plan in plans), default=Fraction(0))
    if Given.of(params).fixed:
        return ChosenPlan(plans[0], total_delta, None)
    if noisy_size is None:
        raise InvalidParameterError("kanon-rdt's plan reads the noisy histogram's total; none was given")
    categorical = str(params["categorical"])
    binned = params["continuous"] == "bins"
    branching = mean_branching(schema, int(params["bins"]) if binned else 2, categorical == "binary")
    min_fill = as_fraction(params["min_fill"], "min_fill")
    return ChosenPlan(choose_plan(noisy_size, plans, schema.n_classes, branching, min_fill), total_delta, noisy_size)
