"""The depth of a tree from a noisy size of the data: shallower trees on data too small for their depth.

A DP tree of depth d releases about L(d) |C| noisy class counts (L(d)
leaves, |C| classes).  When the rows a leaf holds, N / L(d), are few
against the standard deviation of the noise on what a leaf says (which
grows with d, because more levels share the budget), the leaves mostly
say noise, and the tree predicts worse than the noisy majority class would
(a single leaf with the whole budget).  Friedman & Schuster's DiffP-ID3
stops a node by such a rule on its noisy size (N_T / (t |C|) < sqrt(2) /
eps); :func:`plan_depth` applies one once, before the tree is grown, to the
whole plan, with a public margin s (``leaf_sigmas``):

    N~ = |D| + DLap(1 / (share * epsilon))                     (one count, the whole data)
    d* = max { d in 0..D : N~ > 0 and N~^2 >= s^2 V(d) L(d)^2 |C| }     (0 when no d passes)

that is, the average leaf size divided by sqrt(|C|) stands s standard
deviations out of the noise.  (The rule of issue 19 divided by |C|: a
leaf's class counts, on average.  What a leaf predicts is its largest
count, which stands out of the noise long before every class's count
does; with |C| in full the rule sent 150-row sets of 3 classes to depth 0,
and sqrt(|C|) is what cross-validation on the tuning corpus chose,
docs/results.md.)  V(d) is the variance of the noise on one leaf's class
count when the tree (or forest) is planned for depth d with the remaining
budget (1 - share) epsilon: 2 / epsilon_c(d)^2 for one Laplace count of
budget epsilon_c(d), divided by N_t for a forest whose N_t trees each say
something about the row.  The tree is then grown to depth at most d* with
the remaining budget.  d* is a function of the released N~ and public
values, so the whole is (share epsilon) + ((1 - share) epsilon) = epsilon
by sequential composition, whatever d* is (claim ``noisy-size-plan``).  With
``share = 0`` nothing is spent and d* is D: the algorithms' behaviour
before this rule.

L(d) is public: each algorithm passes its own estimate from the schema
(:func:`mean_branching` to the power d, or 2^d for binary trees).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Mapping, Optional, Tuple

from refdp.algorithms.registry import Param, Parameter
from refdp.data import CategoricalAttribute, Schema
from refdp.engine import Engine
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace_mechanism
from refdp.privacy import Ledger, as_fraction
from refdp.rng import RandomSource

__all__ = [
    "DepthPlan",
    "DepthRule",
    "plan_depth",
    "noisy_size",
    "choose_depth",
    "tree_budget",
    "passes",
    "laplace_variance",
    "mean_branching",
    "size_share",
    "size_parameters",
]

CLAIMS = ("noisy-size-plan", "discrete-laplace-mechanism", "sequential-composition")

def size_parameters(share: float, sigmas: float) -> Tuple[Parameter, Parameter]:
    """The learners' ``size_share`` and ``leaf_sigmas`` parameters with their defaults (docs/results.md)."""
    return (
        Parameter(
            "size_share", float, share,
            "share of epsilon spent on a noisy size of the data that caps the depth; 0: always max_depth, "
            "nothing spent",
            minimum=0.0, maximum=1.0, maximum_open=True,
        ),
        Parameter(
            "leaf_sigmas", float, sigmas,
            "s: the depth is the deepest whose average leaf size over sqrt(classes) is at least s standard "
            "deviations of its noise (with size_share > 0)",
            minimum=0.0, maximum=1000.0,
        ),
    )


@dataclass(frozen=True)
class DepthPlan:
    """The depth to grow, the budget left for the tree, and the released noisy size (None when not drawn)."""

    depth: int
    epsilon: Fraction
    noisy_size: Optional[int]


def size_share(params: Mapping[str, Param]) -> Tuple[Fraction, Fraction]:
    """The exact ``size_share`` and ``leaf_sigmas`` of ``params``."""
    return as_fraction(params["size_share"], "size_share"), as_fraction(params["leaf_sigmas"], "leaf_sigmas")


def mean_branching(schema: Schema, continuous: int, binary: bool = False) -> Fraction:
    """The mean number of children of a split over the schema's attributes (at least 2).

    A categorical attribute has one child per value (2 when ``binary``:
    value-vs-rest), a continuous one ``continuous`` children (2 for a
    threshold, the number of bins for public bins).
    """
    if schema.n_attributes == 0:
        return Fraction(2)
    total = sum(
        (2 if binary else a.n_values) if isinstance(a, CategoricalAttribute) else continuous
        for a in schema.attributes
    )
    return max(Fraction(2), Fraction(total, schema.n_attributes))


def passes(noisy_size: int, leaves: Fraction, n_classes: int, variance: Fraction, sigmas: Fraction) -> bool:
    """N~ > 0 and N~^2 >= s^2 V L^2 |C|, decided exactly in rationals.

    >>> passes(150, Fraction(2), 3, Fraction(2), Fraction(3))  # 150^2 = 22500 >= 9 x 2 x 4 x 3
    True
    >>> passes(150, Fraction(64), 3, Fraction(2), Fraction(3))  # 22500 < 9 x 2 x 4096 x 3
    False
    """
    return noisy_size > 0 and noisy_size * noisy_size >= sigmas * sigmas * variance * leaves * leaves * n_classes


def laplace_variance(epsilon: Fraction) -> Fraction:
    """2 / epsilon^2, the variance of Laplace (and, at most, discrete Laplace) noise of a count at ``epsilon``."""
    return 2 / (epsilon * epsilon)


def tree_budget(epsilon: Fraction, share: Fraction) -> Fraction:
    """(1 - share) epsilon, what the tree (or forest) gets after the noisy size."""
    if not 0 <= share < 1:
        raise InvalidParameterError(f"size_share must be in [0, 1), got {share}")
    return (1 - share) * epsilon


@dataclass(frozen=True)
class DepthRule:
    """The public rule that turns a noisy size into a depth: d passes when its leaves' counts stand out.

    ``sigmas`` is s (``leaf_sigmas``); ``leaves(d)`` the public estimate L(d)
    of the leaves of a tree of depth d; ``variance(d, budget)`` V(d), the
    variance of the noise on what a leaf's class count says when the tree is
    planned for depth d with ``budget``.
    """

    sigmas: Fraction
    max_depth: int
    n_classes: int
    leaves: Callable[[int], Fraction]
    variance: Callable[[int, Fraction], Fraction]


def plan_depth(
    size: int, epsilon: Fraction, share: Fraction, rule: DepthRule, engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The deepest d <= ``rule.max_depth`` whose leaves' counts stand out of their noise (see the module notes).

    ``size`` is the number of training rows; the noisy size (``share`` of
    ``epsilon``) is charged on the whole data set.

    >>> import random
    >>> from refdp.engine import REFERENCE
    >>> rule = DepthRule(Fraction(1), 4, 2, leaves=lambda d: Fraction(2) ** d, variance=lambda d, b: 2 / b**2)
    >>> plan = plan_depth(1000, Fraction(1), Fraction(1, 10), rule, REFERENCE, random.Random(3), Ledger())
    >>> plan.epsilon, 0 <= plan.depth <= 4
    (Fraction(9, 10), True)
    """
    left = tree_budget(epsilon, share)
    noisy = noisy_size(size, epsilon, share, engine, rng, ledger)
    if noisy is None:
        return DepthPlan(rule.max_depth, epsilon, None)
    return DepthPlan(choose_depth(noisy, left, rule), left, noisy)


def noisy_size(
    size: int, epsilon: Fraction, share: Fraction, engine: Engine, rng: RandomSource, ledger: Ledger
) -> Optional[int]:
    """N~ = ``size`` + DLap(1 / (share epsilon)), charged on the whole data set; None (nothing drawn) at share 0."""
    if share == 0:
        return None
    return discrete_laplace_mechanism(
        size, epsilon=share * epsilon, rng=rng, ledger=ledger, label="noisy size N~ of the data (caps the depth)",
        claims=CLAIMS, sampler=engine.discrete_laplace,
    )


def choose_depth(noisy_size: int, budget: Fraction, rule: DepthRule) -> int:
    """d*: the deepest d in 1..``rule.max_depth`` that :func:`passes` for the released N~, else 0.

    A function of N~ and public values only; ``budget`` is what the tree gets.

    >>> rule = DepthRule(Fraction(1), 4, 2, leaves=lambda d: Fraction(2) ** d, variance=lambda d, b: 2 / b**2)
    >>> choose_depth(1000, Fraction(1), rule), choose_depth(0, Fraction(1), rule)
    (4, 0)
    """
    for d in range(rule.max_depth, 0, -1):
        if passes(noisy_size, rule.leaves(d), rule.n_classes, rule.variance(d, budget), rule.sigmas):
            return d
    return 0
