"""The thesis tree with a planted fault: float thresholds between data values (variant ``float-threshold``).

The sound learner (:mod:`refdp.algorithms.thesis_tree`) with one step
changed, a fault the audits must catch: a continuous attribute's candidate
splits are the intervals between the node's values (each weighted by its
length over the public range), chosen with the float sampler, and the
released threshold is a float drawn uniformly inside the chosen interval.
The float's bits depend on the data values around it (claim
``float-threshold-leaks``), so the receipt marks the split unsound.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import repeat
from operator import truediv
from typing import List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.derivation import refuse
from refdp.algorithms.registry import Param, Variant, register_variant
from refdp.algorithms.thesis_tree import (
    SPEC,
    Candidates,
    Rederivation,
    SoundBuilder,
    grow,
    value_vs_rest,
    walk_charges,
)
from refdp.data import ContinuousAttribute, Dataset
from refdp.data.grid import Threshold
from refdp.engine import REFERENCE, Engine, Interval, Rows, ThresholdCandidates
from refdp.mechanisms import exponential_charge
from refdp.privacy import Ledger, Partition, Relation
from refdp.rng import RandomSource
from refdp.scoring.kernels import score_function
from refdp.tree import Count, Node, TreeModel

__all__ = ["VARIANT", "fit_float_threshold", "derive_float_threshold", "sample_threshold", "PLANTED_LABEL"]

PLANTED_LABEL = "split (A_opt, v_opt), threshold interpolated between data values"
PLANTED_NOTE = "planted fault: the released float threshold is computed from data values"


def sample_threshold(interval: Interval, rng: RandomSource) -> float:
    """A threshold uniform on ``(start, end]`` in floating point, from ``rng.random()`` draws.

    ``t = start + U (end - start)``, clamped to ``end`` (the width may round
    up); a draw that rounds to ``start`` or below (U = 0, or a gap of a few
    ulps) is redrawn, because ``t = start`` would send the rows at ``start``
    to the other side.  Any ``t`` in ``(start, end]`` makes the interval's split.

    >>> import random
    >>> 1.0 < sample_threshold(Interval(1.0, 2.0, ((), ())), random.Random(3)) <= 2.0
    True
    """
    while True:
        t = min(interval.start + rng.random() * interval.length, interval.end)
        if t > interval.start:
            return t


def planted_claims(candidates: Candidates) -> Tuple[str, ...]:
    """The claims the fault's split cites: the mechanism, the quality's sensitivity, and the leak."""
    return ("exponential-mechanism", candidates.claim, "float-threshold-leaks")


class FloatThresholdBuilder(SoundBuilder):
    """:class:`~refdp.algorithms.thesis_tree.SoundBuilder` with the fault's split."""

    counts_engine = REFERENCE
    """The fault's interval candidates are the reference engine's only."""

    def split(
        self, rows: Rows, attributes: Tuple[int, ...], depth: int, path: Partition,
        total: Sequence[int], noisy: Optional[Sequence[Count]],
    ) -> Node:
        """The split as the fault makes it: the exponential mechanism over the intervals between the node's
        values (weighted by their length), with the float sampler, then a float threshold inside."""
        pairs: List[Tuple[int, int]] = []
        intervals: List[Tuple[int, ThresholdCandidates]] = []
        utilities: List[float] = []
        weights: List[float] = []
        score = score_function(self.quality)
        for a, v, table in value_vs_rest(self.counts, self.schema, rows, attributes, total):
            pairs.append((a, v))
            utilities.append(score(table))
            weights.append(1.0)
        for a in attributes:
            attribute = self.schema.attributes[a]
            if isinstance(attribute, ContinuousAttribute):
                width = attribute.upper - attribute.lower
                candidates = self.counts.thresholds(rows, a, attribute.lower, attribute.upper)
                intervals.append((a, candidates))
                utilities.extend(candidates.scores(self.quality))
                weights.extend(map(truediv, candidates.lengths(), repeat(width)))
        choice = self.exponential(
            utilities, epsilon=self.eps, sensitivity=self.sensitivity, rng=self.rng, ledger=self.ledger,
            label=PLANTED_LABEL, partition=path, claims=planted_claims(self.candidates),
            base_weights=weights, sound=False, note=PLANTED_NOTE,
        )
        if choice < len(pairs):
            a, v = pairs[choice]
            return self.value_split(rows, attributes, depth, path, a, v, noisy)
        choice -= len(pairs)
        for a, candidates in intervals:
            if choice < len(candidates):
                threshold = sample_threshold(candidates.interval(choice), self.rng)
                return self.threshold_split(rows, attributes, depth, path, a, threshold, noisy)
            choice -= len(candidates)
        raise AssertionError("the exponential mechanism returned an index past the candidates")



class FloatThresholdRederivation(Rederivation):
    """The fault's charges along a released tree: its split charge, thresholds inside the public range."""

    def split_charge(self, epsilon: Fraction, path: Partition) -> None:
        rule = self.candidates
        self.ledger.record(exponential_charge(
            epsilon=epsilon, sensitivity=rule.sensitivity, label=PLANTED_LABEL, partition=path,
            claims=planted_claims(rule), sound=False, note=PLANTED_NOTE,
        ))

    def check_threshold(self, a: int, threshold: Threshold, where: str) -> None:
        attribute = self.schema.attributes[a]
        assert isinstance(attribute, ContinuousAttribute)
        if not (isinstance(threshold, float) and attribute.lower < threshold <= attribute.upper):
            refuse(f"the threshold {threshold} at {where} lies outside the public range of {attribute.name!r}")


def fit_float_threshold(
    data: Dataset,
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train the sound thesis tree with the fault's split."""
    return grow(data, epsilon, params, rng, relation, engine, FloatThresholdBuilder)


def derive_float_threshold(model: TreeModel) -> Optional[Ledger]:
    """The charges of the fault's plan, node by node from the released tree (as the sound learner's)."""
    return walk_charges(model, FloatThresholdRederivation)


VARIANT = Variant(
    "float-threshold", False,
    "UNSOUND, a planted fault for the audits: the sound variant with thresholds drawn "
    "uniformly between data values in floating point (the float's bits are data)",
    claims=(
        "discrete-laplace-mechanism", "exponential-mechanism", "exponential-mechanism-float-sampler",
        "float-threshold-leaks", "max-operator-sensitivity", "noisy-size-plan", "parallel-composition",
        "sequential-composition",
    ),
)

register_variant(SPEC.name, VARIANT, fit_float_threshold, derive_float_threshold)
