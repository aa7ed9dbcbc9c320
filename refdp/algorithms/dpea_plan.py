"""DPEA's budget plan: the depth D, the embedding depth d, eps' per query, and the charge of a selection.

A tree of depth D with embedding depth d meets at most ceil(D/d)
selections and one leaf release on a root-to-leaf path (claim
``dpea-budget``); :func:`tree_plan` lets a noisy size of the data cap D
(claim ``noisy-size-plan``) and :class:`Selections` is the plan a tree is
grown to.  :class:`Rules` is what decides a tree besides its selections;
:data:`SOUND` reads public information only.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Optional, Sequence, Tuple

from refdp.algorithms.dpea_subtrees import QUALITY_SENSITIVITY
from refdp.algorithms.greedy import NodeCost, plan_units
from refdp.algorithms.noisy_depth import DepthRule, DepthPlan, laplace_variance, mean_branching, plan_depth, size_share
from refdp.algorithms.registry import Param
from refdp.data import Schema
from refdp.engine import Engine
from refdp.errors import InvalidParameterError
from refdp.mechanisms import exponential_charge
from refdp.params import MAX_DEPTH
from refdp.privacy import Charge, Ledger, Partition, Relation
from refdp.privacy.ledger import new_charge
from refdp.rng import RandomSource

__all__ = [
    "SELECTION",
    "LEAF",
    "SEARCHES",
    "DEFAULT_MAX_SUBTREES",
    "SELECTION_CLAIMS",
    "MONOTONE_CLAIMS",
    "LEAF_LABEL",
    "BUDGET_CLAIMS",
    "Rules",
    "SOUND",
    "Selections",
    "embedding_depth",
    "selections",
    "per_query_epsilon",
    "search_of",
    "selection_charge",
    "tree_plan",
    "selections_of",
]

SELECTION = NodeCost(Fraction(1), Fraction(1))
"""A subtree selection: one exponential mechanism (Delta q' = 2 covers a replaced record too)."""

LEAF = NodeCost(Fraction(1), Fraction(2))
"""A leaf: noisy counts of every class (2 units for a record that changes class)."""

SEARCHES: Tuple[str, ...] = ("exact", "exhaustive", "mcmc", "paper")

DEFAULT_MAX_SUBTREES = 1_000_000
"""The largest list exhaustive search builds unless told otherwise."""


def embedding_depth(value: Param, max_depth: int) -> int:
    """d from the ``embed_depth`` parameter: a positive integer, or "whole" for d = D (at least 1)."""
    text = str(value).strip()
    if text == "whole":
        return max(1, max_depth)
    # ASCII digits only: str.isdigit also accepts full-width and other scripts' digits
    digits = text.isascii() and text.isdigit() and len(text) <= 20
    if isinstance(value, bool) or not digits or not 1 <= int(text) <= MAX_DEPTH:
        raise InvalidParameterError(
            f"parameter embed_depth must be an integer in [1, {MAX_DEPTH}] (split levels per "
            f"selection) or 'whole' (one selection of the whole tree), got {str(value)[:40]!r}"
        )
    return int(text)


def selections(max_depth: int, embed: int) -> int:
    """ceil(D/d): the selections on a root-to-leaf path of a tree of depth D."""
    return -(-max_depth // embed)


def per_query_epsilon(budget: Fraction, max_depth: int, embed: int, relation: Relation) -> Fraction:
    """eps' = eps / K, K = ceil(D/d) + 1 under add-remove and 2 ceil(D/d) + 1 (2 for D = 0) under substitute."""
    return budget / plan_units(SELECTION, LEAF, selections(max_depth, embed), relation)


@dataclass(frozen=True)
class Rules:
    """What decides a tree besides its selections: here public information only (the sound learner).

    ``sized_plan``: a noisy size caps D; ``monotone``: under add-remove the
    exact and exhaustive samplers drop the exponential mechanism's factor 2
    (q' is monotone: claims ``split-quality-monotone``,
    ``exponential-mechanism-monotone``); ``hastings``: the MCMC is
    Hastings-corrected and runs exactly ``steps`` steps.
    """

    sized_plan: bool = True
    monotone: bool = True
    hastings: bool = True

    def stops(self, rows: int, class_counts: Sequence[int], min_size: int) -> bool:
        """Whether a subtree's leaf above depth D stops on its true counts: never."""
        return False

    def leaf_may_stop(self) -> bool:
        """Whether a leaf above depth D, attributes left, can be a stop (else the tree grows there)."""
        return False

    def leak(self, min_size: int) -> Optional[str]:
        """What the rules leak (None: nothing)."""
        return None

    def threshold(self, params: Mapping[str, Param]) -> Optional[float]:
        """The MCMC's variance stop (None: it runs its ``steps``)."""
        return None

    def mcmc_note(self, steps: int) -> str:
        """The note of an MCMC selection's (unsound) charge."""
        return (
            f"Metropolis-Hastings run for {steps} steps: a finite chain at total-variation "
            f"distance TV from the mechanism is at best (eps', (1 + e^eps') TV)-DP, and no bound "
            f"on TV is proved"
        )


SOUND = Rules()
"""The sound learner's rules: public information only."""


@dataclass(frozen=True)
class Selections:
    """The plan a tree is grown to: eps' per query, depth D, embedding depth d, and whether q' is monotone."""

    eps: Fraction
    max_depth: int
    embed: int
    monotone: bool


def selections_of(plan: DepthPlan, params: Mapping[str, Param], relation: Relation, rules: Rules) -> Selections:
    """The selections of a tree grown to ``plan``'s depth with its budget (D capped, d resolved for it).

    >>> selections_of(DepthPlan(2, Fraction(1), None), {"max_depth": 2, "embed_depth": "2"}, Relation.ADD_REMOVE,
    ...               SOUND)
    Selections(eps=Fraction(1, 2), max_depth=2, embed=2, monotone=True)
    """
    max_depth = int(params["max_depth"])
    embed = embedding_depth(params["embed_depth"], max_depth)
    if plan.depth < max_depth:
        max_depth, embed = plan.depth, embedding_depth(params["embed_depth"], plan.depth)
    eps = per_query_epsilon(plan.epsilon, max_depth, embed, relation)
    return Selections(eps, max_depth, embed, relation is Relation.ADD_REMOVE and rules.monotone)


SELECTION_CLAIMS = ("exponential-mechanism", "dpea-subtree-quality-sensitivity")
MONOTONE_CLAIMS = ("exponential-mechanism-monotone", "split-quality-monotone")
LEAF_LABEL = "NoiseCount N_c (leaf)"
BUDGET_CLAIMS = ("tree-budget-plan", "dpea-budget")


def search_of(search: str, levels: int) -> str:
    """The search a selection of ``levels`` levels runs: ``paper`` is exhaustive up to 2 levels, MCMC deeper.

    >>> search_of("paper", 2), search_of("paper", 3), search_of("exact", 3)
    ('exhaustive', 'mcmc', 'exact')
    """
    if search == "paper":
        return "exhaustive" if levels <= 2 else "mcmc"
    return search


def selection_charge(search: str, levels: int, epsilon: Fraction, monotone: bool, mcmc_note: str, path: Partition) -> Charge:
    """The charge of one subtree selection of ``levels`` levels at ``path`` by ``search`` (see :func:`search_of`).

    ``mcmc_note`` is the note of an MCMC selection (:meth:`Rules.mcmc_note`).

    >>> selection_charge("exact", 2, Fraction(1, 3), True, "", ()).label
    "subtree of 2 level(s), exponential mechanism on q' (factorised exact sampler)"
    """
    label = f"subtree of {levels} level(s), exponential mechanism on q'"
    if search == "exhaustive":
        return exponential_charge(
            epsilon=epsilon, sensitivity=QUALITY_SENSITIVITY, label=label + " (exhaustive list, Algorithm 2)",
            partition=path, claims=SELECTION_CLAIMS + (MONOTONE_CLAIMS[1:] if monotone else ()), monotone=monotone,
        )
    if search == "exact":
        return new_charge(
            label=label + " (factorised exact sampler)", mechanism="exponential", epsilon=epsilon,
            sensitivity=Fraction(QUALITY_SENSITIVITY),
            claims=SELECTION_CLAIMS + ("dpea-factorised-sampler", "exact-inversion-sampler") + (MONOTONE_CLAIMS if monotone else ()),
            partition=path,
            note="monotone utilities: weights exp(epsilon q' / Delta)" if monotone else "",
        )
    return new_charge(
        label=label + " (MCMC, Algorithm 3)", mechanism="exponential (MCMC)", epsilon=epsilon,
        sensitivity=Fraction(QUALITY_SENSITIVITY), claims=SELECTION_CLAIMS + ("dpea-mcmc",), partition=path,
        sound=False, note=mcmc_note,
    )


def tree_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The tree's budget and depth D: a noisy size of the ``size`` rows (charged to ``ledger``) caps D.  The embedding depth is then ``embedding_depth(embed_depth, D)``.

    A function of public values and the released noisy size only: a
    verifier calls it with :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> from refdp.engine import REFERENCE
    >>> params = get_algorithm("dpea").resolve({"size_share": 0})
    >>> tree_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...           Ledger()).depth
    2
    """
    max_depth = int(params["max_depth"])
    share, sigmas = size_share(params)
    branching = mean_branching(schema, int(params["bins"]))
    plan = plan_depth(
        size, epsilon, share,
        DepthRule(
            sigmas, max_depth, schema.n_classes,
            leaves=lambda d: branching**d,
            variance=lambda d, left: laplace_variance(
                per_query_epsilon(left, d, embedding_depth(params["embed_depth"], d), relation)
            ),
        ),
        engine, rng, ledger,
    )
    return DepthPlan(min(plan.depth, max_depth), plan.epsilon, plan.noisy_size)
