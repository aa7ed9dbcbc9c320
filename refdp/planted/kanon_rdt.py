"""k-AnonToRdt with a planted fault: suppression on a leaf's total (variant ``leaf-total``).

The sound learner (:mod:`refdp.algorithms.kanon_rdt`) with one step
changed, a fault the audits must catch: a leaf's counts are set to 0 only
when the leaf's *total* is below k.  One minority record in a large leaf is
then released with probability beta, so no delta below beta holds (claim
``leaf-total-suppression-not-private``); the receipt states the per-cell
guarantee and is marked unsound.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.kanon_rdt import SIZE_CLAIMS, SOUND_CLAIMS, SPEC, Suppression, derive_forest, grow_forest
from refdp.algorithms.registry import Param, Variant, register_variant
from refdp.data import Dataset
from refdp.engine import REFERENCE, Engine
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource
from refdp.tree import Count, TreeModel

__all__ = ["LeafTotal", "LEAF_TOTAL", "VARIANT", "fit_leaf_total", "derive_leaf_total"]

FAULT_CLAIM = "leaf-total-suppression-not-private"


@dataclass(frozen=True)
class LeafTotal(Suppression):
    """A leaf's counts released whole when the leaf's total is k or more, else all set to 0."""

    what: str = "on the leaf total (UNSOUND)"
    claims: Tuple[str, ...] = SOUND_CLAIMS + SIZE_CLAIMS[:2] + ("parallel-composition", FAULT_CLAIM)
    sound: bool = False

    def compared(self, counts: Sequence[int]) -> List[int]:
        """The value compared with k: the leaf's total."""
        return [sum(counts)]

    def suppress(self, counts: Sequence[int], k: int) -> Tuple[Count, ...]:
        """The released counts: all of them when their total is at least k, else zeros.

        >>> LeafTotal().suppress([30, 2], 5), LeafTotal().suppress([3, 1], 5)
        ((30, 2), (0, 0))
        """
        return tuple(counts) if sum(counts) >= k else (0,) * len(counts)


LEAF_TOTAL = LeafTotal()


def fit_leaf_total(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train the sound forest with the fault's suppression."""
    return grow_forest(data, epsilon, params, rng, relation, engine, LEAF_TOTAL)


def derive_leaf_total(model: TreeModel) -> Optional[Ledger]:
    """The fault's charges (as the sound learner's, its sample charge unsound); each leaf total 0 or at least k."""
    return derive_forest(model, LEAF_TOTAL)


VARIANT = Variant(
    "leaf-total", False, "suppression on the leaf total only (planted fault: delta >= beta)",
    claims=(
        "discrete-laplace-mechanism", "exact-bernoulli-positions", "kanon-rdt-privacy",
        "leaf-total-suppression-not-private", "lqs-delta-certified", "lqs-sampling-suppression",
        "noisy-size-plan", "parallel-composition", "sequential-composition",
    ),
)

register_variant(SPEC.name, VARIANT, fit_leaf_total, derive_leaf_total, (FAULT_CLAIM,))
