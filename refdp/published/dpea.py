"""DPEA as published: Bai et al. (2017), the stopping rule on true counts and the uncorrected MCMC.

Variant ``published`` of ``dpea`` (the sound learner is
:mod:`refdp.algorithms.dpea`), unsound: besides depth D and running out of
attributes, a subtree leaf with fewer than ``min_size`` rows, or with a
single class, becomes a leaf (section 4.1) -- which releases those counts
through the tree's shape (claim ``dpea-structure-leak``); its MCMC has no
Hastings correction and stops when the scores' variance falls below
``threshold``; D is the paper's (no noisy size), and the exponential
mechanism keeps its factor 2.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Mapping, Optional, Sequence

from refdp.algorithms.dpea import SPEC, Rules, derive_with, grow
from refdp.algorithms.registry import Param, Variant, register_variant
from refdp.data import Dataset
from refdp.engine import REFERENCE, Engine
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["PaperRules", "PUBLISHED", "VARIANT", "fit_published", "derive_published"]


@dataclass(frozen=True)
class PaperRules(Rules):
    """The paper's rules: stops on true counts, its MCMC, its calibration, its D."""

    sized_plan: bool = False
    monotone: bool = False
    hastings: bool = False

    def stops(self, rows: int, class_counts: Sequence[int], min_size: int) -> bool:
        """Section 4.1: fewer than ``min_size`` rows, or one class only.

        >>> PaperRules().stops(30, [30, 0], 20), PaperRules().stops(30, [20, 10], 20)
        (True, False)
        """
        return rows < min_size or sum(1 for n in class_counts if n) <= 1

    def leaf_may_stop(self) -> bool:
        return True

    def leak(self, min_size: int) -> Optional[str]:
        return (
            f"DPEA published: a subtree leaf with fewer than min_size={min_size} training rows, "
            f"or with one class only, becomes a leaf; the decision reads the true counts and the "
            f"tree's shape releases it"
        )

    def threshold(self, params: Mapping[str, Param]) -> Optional[float]:
        return float(params["threshold"])

    def mcmc_note(self, steps: int) -> str:
        return (
            "Algorithm 3 as published: no Hastings correction for an asymmetric proposal and a "
            "data-dependent stop (score variance below threshold); not the exponential mechanism"
        )


PUBLISHED = PaperRules()


def fit_published(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train the paper's DPEA with total budget ``epsilon``, marked unsound."""
    return grow(data, epsilon, params, rng, relation, engine, PUBLISHED)


def derive_published(model: TreeModel) -> Optional[Ledger]:
    """The paper's charges along the released tree, with its leak (a leaf above D may be its stop)."""
    return derive_with(model, PUBLISHED)


VARIANT = Variant(
    "published", False,
    "the paper's stopping rule on true counts (fewer than min_size rows or one class) and "
    "its MCMC without Hastings correction, stopped when the scores' variance is small",
    claims=(
        "discrete-laplace-mechanism", "dpea-budget", "dpea-factorised-sampler",
        "dpea-subtree-quality-sensitivity", "exact-inversion-sampler", "exponential-mechanism",
        "parallel-composition", "tree-budget-plan",
    ),
)

register_variant(SPEC.name, VARIANT, fit_published, derive_published, ("dpea-structure-leak",))
