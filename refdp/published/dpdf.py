"""DPDF as published: Fletcher & Islam (2015), Q2 calibrated with Theorem 1's sensitivity (variant ``published``).

The sound forest (:mod:`refdp.algorithms.dpdf`) with Q2's sensitivity of
the weighted Gini index taken from Theorem 1: the local sensitivity
1 - (n/(n+1))^2 - (1/(n+1))^2 at the noisy size n = |D|.  It is not eps-DP
(claim ``dpdf-published-unsound``): the formula is a local sensitivity at
the true size, which Q1 only estimates, and even at the true size it misses
removals; the ledger marks the charge unsound.  The depth is the paper's
delta (no noisy size), and the weighted index is sampled in floating point.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Mapping, Sequence

from refdp.algorithms.dpdf import Q2_LABEL, SPEC, ForestBuilder, grow_forest, weighted_gini
from refdp.algorithms.noisy_depth import DepthPlan
from refdp.algorithms.registry import Param, Variant, register_variant
from refdp.data import Dataset
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError
from refdp.privacy import Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["VARIANT", "published_sensitivity", "PublishedBuilder", "fit_published"]


def published_sensitivity(noisy_size: int) -> Fraction:
    """Theorem 1: Delta(G_D) = 1 - (n/(n+1))^2 - (1/(n+1))^2 = 2n/(n+1)^2 at n = |D|, exactly.

    >>> published_sensitivity(3)
    Fraction(3, 8)
    """
    if noisy_size < 1:
        raise InvalidParameterError(f"Theorem 1 needs a node size n >= 1, got {noisy_size}")
    n = Fraction(noisy_size)
    return 1 - (n / (n + 1)) ** 2 - (1 / (n + 1)) ** 2


class PublishedBuilder(ForestBuilder):
    """The paper's forest: Q2 on the weighted Gini index with Theorem 1's sensitivity, depth delta as given."""

    def choose(self, tables: Sequence[Sequence[Sequence[int]]], counts: Sequence[int], path: Partition) -> int:
        return self.exponential(
            [weighted_gini(table) for table in tables], epsilon=self.eps,
            sensitivity=published_sensitivity(sum(counts)),
            rng=self.rng, ledger=self.ledger, label=Q2_LABEL, partition=path,
            claims=("exponential-mechanism", "dpdf-published-unsound"), sound=False,
            note="Theorem 1's local sensitivity at the noisy size |D|; not a bound on the "
            "change of the weighted Gini index (proofs/dpdf-published-unsound.md)",
        )

    @staticmethod
    def quality_of(params: Mapping[str, Param]) -> str:
        """The paper's weighted Gini index, whatever ``quality`` says."""
        return "gini-weighted"

    @staticmethod
    def plan(
        data: Dataset, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, engine: Engine,
        rng: RandomSource, ledger: Ledger,
    ) -> DepthPlan:
        """The paper's delta and the whole budget: no noisy size."""
        return DepthPlan(int(params["max_depth"]), epsilon, None)

    def finish(self, epsilon: Fraction) -> None:
        """The reserve of the levels this run did not build, unsound as their planned Q2 is."""
        spent = self.ledger.total()[0]
        if self.max_depth > 1 and self.schema.n_attributes and spent < epsilon:
            self.ledger.charge(
                label="reserved: planned for tree levels this run did not build",
                mechanism="reserved",
                epsilon=epsilon - spent,
                sensitivity=None,
                claims=("tree-budget-plan", "dpdf-published-unsound"),
                sound=False,
                note="the plan's split levels use Theorem 1's calibration, which is not DP",
            )


def fit_published(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train the paper's DPDF with total budget ``epsilon`` (beta), marked unsound."""
    return grow_forest(data, epsilon, params, rng, relation, engine, PublishedBuilder)


VARIANT = Variant(
    "published", False,
    "Theorem 1's local sensitivity 2n/(n+1)^2 at the noisy node size (not DP)",
    claims=(
        "discrete-laplace-mechanism", "dpdf-published-unsound", "exponential-mechanism",
        "exponential-mechanism-float-sampler", "parallel-composition", "tree-budget-plan",
    ),
)

# Theorem 1's calibration is unsound: no re-derivation.
register_variant(SPEC.name, VARIANT, fit_published, None, ("dpdf-published-unsound",))
