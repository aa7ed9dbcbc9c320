"""What a learner releases at the root of its tree, as an exact law, for cross-checks.

A cross-check (``crosscheck-cmd``, :mod:`refdp.audit.program_crosscheck`)
tests another implementation's outputs against these laws.  Each law is
computed by the learner's own code -- its budget plan for the per-query
epsilon, its candidates, quality function and sensitivity for the
utilities, whether the mechanism drops its factor 2 -- so that it cannot
drift from what ``train`` does.

A learner that first draws a noisy size ``N~`` of the data (``size_share``
> 0) lets that draw choose its plan (the depth, hence every query's epsilon,
and for thesis-tree's ``quality=auto`` the quality): what it releases is a
mixture over the plans, each weighted by the probability of the values of
``N~`` that choose it.  :func:`noisy_size_plans` computes those
probabilities by calling the learner's own planning function (its
``depth_plan``) with an engine that hands it a chosen ``N~``, as a verifier
replays a model's plan (:func:`refdp.algorithms.derivation.replay_size`),
so a change to a plan carries over to the laws (claim
``crosscheck-noisy-size-mixture``).

* :class:`SplitLaw`: the exponential mechanism that chooses the root's split
  under one plan; :class:`RootSplitLaw` the root's outcome -- a candidate
  split or a leaf -- over every plan (``root_split_law`` in
  :mod:`refdp.algorithms.thesis_tree` and :mod:`refdp.algorithms.diffpid3`);
* :class:`CountsLaw`: the noise on the root's class counts under one plan;
  :class:`RootCountsLaw` the counts over every plan, given that the root
  releases them (``root_counts_law`` in :mod:`refdp.algorithms.majority`,
  :mod:`refdp.algorithms.thesis_tree` and :mod:`refdp.algorithms.diffpid3`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, Hashable, List, Optional, Tuple, TypeVar, Union

from refdp.data.grid import Threshold, format_threshold
from refdp.engine import REFERENCE, Engine
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace_cdf, exponential_probabilities, histogram_scale
from refdp.rng import RandomSource

__all__ = [
    "TAIL",
    "SplitCandidate",
    "SplitLaw",
    "PlanBranch",
    "RootSplitLaw",
    "CountsLaw",
    "RootCountsLaw",
    "discrete_laplace_partition",
    "mixed_counts",
    "noisy_size_plans",
    "split_probability",
]

Utility = Union[int, float, Fraction]
K = TypeVar("K", bound=Hashable)

TAIL = 40
"""The partitions cover ``center +- TAIL * scale``; beyond, the mass is below 2 e^-40 (about 1e-17)."""

_GRID = 512  # points of the coarse scan of a partition; breakpoints between them are found by bisection


def discrete_laplace_partition(center: int, scale: Fraction, key: Callable[[int], K]) -> List[Tuple[K, float]]:
    """``P[key(center + Z) = k]`` for ``Z ~ DLap(scale)``, for every value ``k`` the key takes (first seen first).

    ``key`` must be a step function of its argument that is constant between
    two points where it takes the same value (true of a function whose
    values are tuples of coordinates each monotone in the argument, such as
    a plan's depth and quality in ``N~``).  It is evaluated on a grid of
    about :data:`_GRID` points over ``center +- TAIL * scale`` and by
    bisection between grid points where it changes, so every breakpoint is
    found exactly; the two pieces that reach the ends of that range take
    the tails beyond them (less than 1e-17 in all).  Values whose
    probability is 0 in floating point are left out.

    >>> [(k, round(p, 6)) for k, p in discrete_laplace_partition(10, Fraction(2), lambda n: n >= 10)]
    [(False, 0.377541), (True, 0.622459)]
    """
    s = float(scale)
    reach = math.ceil(TAIL * s) + 1
    step = max(1, reach // (_GRID // 2))
    points = list(range(-reach, reach, step)) + [reach]
    keys = {z: key(center + z) for z in points}

    def breaks(low: int, high: int) -> List[int]:
        """The first z of every new piece in (low, high], with ``keys`` known at both ends."""
        if keys[low] == keys[high]:
            return []
        if high - low == 1:
            return [high]
        middle = (low + high) // 2
        keys[middle] = key(center + middle)
        return breaks(low, middle) + breaks(middle, high)

    starts = [points[0]] + [b for low, high in zip(points, points[1:]) for b in breaks(low, high)]
    ends = [b - 1 for b in starts[1:]]
    weights: Dict[K, float] = {}
    for i, (start, value) in enumerate((z, keys[z]) for z in starts):
        below = discrete_laplace_cdf(start - 1, s) if i > 0 else 0.0
        upto = discrete_laplace_cdf(ends[i], s) if i < len(ends) else 1.0
        weights[value] = weights.get(value, 0.0) + (upto - below)
    # a piece far in a tail can weigh less than the floats resolve: it is no outcome
    return [(value, weight) for value, weight in weights.items() if weight > 0]


def noisy_size_plans(size: int, plan: Callable[[Engine], K]) -> Tuple[List[Tuple[K, float]], Optional[Fraction]]:
    """A learner's plans with their probabilities, over its noisy size ``N~ = size + DLap(b)``.

    ``plan(engine)`` runs the learner's own planning function (``depth_plan``
    with ``size`` 0) with ``engine``'s discrete Laplace sampler drawing
    ``N~``, and returns what of the plan the law needs (hashable; the depth
    and budget, say, not ``N~`` itself).  A first call with a sampler that
    records the scale ``b`` it is asked for finds whether a noisy size is
    drawn at all: if not, the one plan has probability 1; if so, the plans
    are those of :func:`discrete_laplace_partition` around ``size``.
    Returns the plans with their probabilities, and ``b`` (None: no noisy size).

    >>> noisy_size_plans(100, lambda engine: "no noisy size")
    ([('no noisy size', 1.0)], None)
    """
    scales: List[Fraction] = []
    first = plan(_replay(size, scales))
    if not scales:
        return [(first, 1.0)], None
    if len(scales) > 1:
        raise InvalidParameterError("the plan draws more than one noisy size; its law is not a mixture over one N~")
    return discrete_laplace_partition(size, scales[0], lambda n: plan(_replay(n, []))), scales[0]


def _replay(value: int, scales: List[Fraction]) -> Engine:
    """An engine whose discrete Laplace sampler records the scale it gets and returns ``value`` (with size 0)."""

    def sampler(scale: Fraction, rng: RandomSource) -> int:
        scales.append(Fraction(scale))
        return value

    return dataclasses.replace(REFERENCE, name="replay", discrete_laplace=sampler)


def split_probability(center: int, scale: Fraction, stops: Callable[[int], bool]) -> float:
    """``P[not stops(center + Z)]`` for ``Z ~ DLap(scale)``: the probability that a node of noisy size
    ``center + Z`` splits, for a stopping rule ``stops`` that changes once (a threshold on the noisy size).

    >>> split_probability(0, Fraction(1), lambda n: n < 0)
    0.7310585786300049
    """
    return math.fsum(p for stopped, p in discrete_laplace_partition(center, scale, stops) if not stopped)


@dataclass(frozen=True)
class SplitCandidate:
    """One split the root may take: an attribute, with the value (value vs rest) or threshold it releases."""

    attribute: str
    value: Optional[str] = None
    threshold: Optional[Threshold] = None

    def describe(self) -> str:
        """``a`` (multiway), ``a=v`` (value vs rest) or ``a>=t`` (threshold)."""
        if self.value is not None:
            return f"{self.attribute}={self.value}"
        if self.threshold is not None:
            return f"{self.attribute}>={format_threshold(self.threshold)}"
        return self.attribute


@dataclass(frozen=True)
class SplitLaw:
    """The exponential mechanism over the root's candidates: ``P[r] ~ w_r exp(epsilon u_r / (2 sensitivity))``.

    ``epsilon`` is the per-query budget of the learner's plan, ``weights``
    the base measure (None: uniform), ``quality`` the utility's name;
    ``monotone``: the learner drops the factor 2 (``P[r] ~ w_r exp(epsilon
    u_r / sensitivity)``, claim ``exponential-mechanism-monotone``).  The
    law is that of the split *given that the root splits*: the learners
    decide whether to split with noise drawn independently of this mechanism.
    """

    candidates: Tuple[SplitCandidate, ...]
    utilities: Tuple[Utility, ...]
    weights: Optional[Tuple[Utility, ...]]
    epsilon: Fraction
    sensitivity: Union[Fraction, float]
    quality: str
    monotone: bool

    def probabilities(self) -> List[float]:
        """Each candidate's probability (:func:`refdp.mechanisms.exponential_probabilities`)."""
        return exponential_probabilities(
            self.utilities, epsilon=self.epsilon, sensitivity=self.sensitivity, base_weights=self.weights,
            monotone=self.monotone,
        )


@dataclass(frozen=True)
class PlanBranch:
    """One plan the learner may make: its probability ``weight``, the probability ``split`` that the root
    then splits (None: not computed), and the split's law (None when the root never splits under it).

    ``plan`` says which plan it is, for reports (``depth 3``, ``depth 2, quality gini``).
    """

    plan: str
    weight: float
    split: Optional[float]
    law: Optional[SplitLaw]


@dataclass(frozen=True)
class RootSplitLaw:
    """The root's outcome over the learner's plans: each candidate of ``candidates``, or a leaf.

    ``P[r] = sum_b weight_b split_b P_b[r]`` and ``P[leaf] = sum_b weight_b
    (1 - split_b)`` over the branches ``b``.  Where some branch's split
    probability is not computed (it can then be the only branch), leaves
    are no outcome: the law is the split's given that the root splits,
    ``P_b``.  ``noisy_size`` is the scale of the noisy size that chooses the
    plan (None: no noisy size is drawn).
    """

    candidates: Tuple[SplitCandidate, ...]
    branches: Tuple[PlanBranch, ...]
    noisy_size: Optional[Fraction]

    @property
    def leaf_is_outcome(self) -> bool:
        """Whether a leaf at the root is an outcome of the law (else runs with a leaf are left out)."""
        return all(b.split is not None for b in self.branches)

    @property
    def single(self) -> Optional[SplitLaw]:
        """The split's law when one plan is made for sure, else None."""
        return self.branches[0].law if len(self.branches) == 1 else None

    def probabilities(self) -> List[float]:
        """Each candidate's probability, then the leaf's when it is an outcome (they sum to 1)."""
        if not self.leaf_is_outcome:
            law = self.single
            assert law is not None, "a law without leaves has one plan"
            return law.probabilities()
        total = [0.0] * len(self.candidates)
        leaf = 0.0
        for b in self.branches:
            split = b.split if b.split is not None else 1.0
            leaf += b.weight * (1 - split)
            if b.law is not None and split > 0:
                for i, p in enumerate(b.law.probabilities()):
                    total[i] += b.weight * split * p
        return total + [leaf]


@dataclass(frozen=True)
class CountsLaw:
    """The root's noisy class counts: ``counts[c] + noise``, independently per class, at ``epsilon`` per cell.

    ``noise`` is ``discrete-laplace`` (``P[z] ~ exp(-|z| / scale)`` on the
    integers) or ``laplace``; the scale is the histogram's
    (:func:`refdp.mechanisms.histogram_scale`).
    """

    classes: Tuple[str, ...]
    counts: Tuple[int, ...]
    epsilon: Fraction
    noise: str

    @property
    def scale(self) -> Fraction:
        """The noise scale of every cell."""
        return histogram_scale(self.epsilon)


@dataclass(frozen=True)
class RootCountsLaw:
    """The root's noisy class counts over the learner's plans, given that the root releases them.

    ``branches`` are ``(weight, law)``: the probability that the plan is
    one under which the root releases its counts with the per-cell epsilon
    of ``law``, and does (one entry per epsilon).  ``always``: the root
    releases them under every plan for sure (else a run may release none).
    Given a plan, the classes' noises are independent; over the plans they
    share the plan, so they are not independent when several epsilons are
    possible.  ``noisy_size`` is the scale of the noisy size that chooses
    the plan (None: none is drawn).
    """

    branches: Tuple[Tuple[float, CountsLaw], ...]
    always: bool
    noisy_size: Optional[Fraction]

    @property
    def released(self) -> float:
        """The probability that the root releases its counts."""
        return 1.0 if self.always else math.fsum(w for w, _ in self.branches)

    @property
    def first(self) -> CountsLaw:
        """The first branch's law: its classes, true counts and kind of noise are every branch's."""
        return self.branches[0][1]

    @property
    def single(self) -> Optional[CountsLaw]:
        """The law when the counts have one epsilon for sure, else None."""
        return self.branches[0][1] if len(self.branches) == 1 else None

    def mixture(self) -> List[Tuple[float, Fraction]]:
        """(probability given a release, noise scale) of each branch."""
        total = math.fsum(w for w, _ in self.branches)
        return [(w / total, law.scale) for w, law in self.branches]


def mixed_counts(plans: List[Tuple[float, float, CountsLaw]], noisy_size: Optional[Fraction]) -> RootCountsLaw:
    """A :class:`RootCountsLaw` from ``(plan's probability, probability that its root releases counts, law)``.

    Plans with equal epsilons are merged; those that release nothing dropped.

    >>> law = CountsLaw(("a", "b"), (3, 4), Fraction(1), "discrete-laplace")
    >>> mixed_counts([(0.25, 1.0, law), (0.75, 1.0, law)], None).branches[0][0]
    1.0
    """
    merged: Dict[Fraction, Tuple[float, CountsLaw]] = {}
    for weight, released, law in plans:
        if weight * released > 0:
            before = merged.get(law.epsilon, (0.0, law))[0]
            merged[law.epsilon] = (before + weight * released, law)
    if not merged:
        raise InvalidParameterError("the root never releases its class counts under these parameters")
    return RootCountsLaw(tuple(merged.values()), all(r == 1 for _, r, _ in plans), noisy_size)
