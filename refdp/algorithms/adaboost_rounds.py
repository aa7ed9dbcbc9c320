"""One sound round of CART-DPsAdaBoost (:mod:`refdp.algorithms.adaboost`): weights, candidates, the tree.

Record weights as integers in units of 1/:data:`WEIGHT_UNITS` and their
exact update (:func:`next_weight`), the split candidates of a node and their
weighted Gini (:func:`split_candidates`), a round's tree
(:class:`RoundBuilder`), the per-query epsilon and the number of rounds the
noisy size affords (:func:`round_plan`), and the labels and charges a round
records (which :mod:`refdp.algorithms.adaboost_derive` re-issues).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.greedy import (
    NodeCost, child_path, grid_threshold_tables, plan_units, threshold_conditions
)
from refdp.algorithms.noisy_depth import DepthRule, DepthPlan, laplace_variance, plan_depth, size_share
from refdp.algorithms.registry import (
    Param
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.data.grid import ThresholdGrid
from refdp.engine import REFERENCE, Engine, NodeCounts, ReferenceCounts, TrainingView
from refdp.scoring.kernels import exact_score_function
from refdp.errors import InvalidParameterError
from refdp.mechanisms import (
    joins_sample, discrete_laplace_mechanism, exponential_mechanism
)
from refdp.privacy import Charge, Ledger, Partition, Relation, as_fraction, cell
from refdp.privacy.ledger import data_independent_charge
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, ThresholdSplit, ValueSplit

__all__ = [
    "INCLUDE_PROBABILITY",
    "TAU_FLOOR",
    "TAU_FLOOR_EXACT",
    "WEIGHT_UNITS",
    "SOUND_INTERNAL",
    "SOUND_LEAF",
    "Candidate",
    "weighted_gini",
    "weight_cap",
    "GridCodes",
    "split_candidates",
    "round_epsilon",
    "query_epsilon",
    "tree_weight",
    "noisy_error",
    "next_weight",
    "random_subspace",
    "RoundPlan",
    "RoundBuilder",
    "LEAF_LABEL",
    "LEAF_CLAIMS",
    "SPLIT_LABEL",
    "MAJORITY_LABEL",
    "BUDGET_CLAIMS",
    "split_claims",
    "subspace_charge",
    "bootstrap_charge",
    "majority_epsilon",
    "round_plan",
    "joins_sample",
    "LOG_INCLUDE_PROBABILITY",
]

INCLUDE_PROBABILITY = 1.0 - math.exp(-1.0)
"""P[a record joins a round's sample]: 1 - 1/e, its chance to appear in a bootstrap of size n (n large).

A float for reference and tests; the sampler draws the event exactly (:func:`joins_sample`, and the
engine's ``bootstrap``, which draws it for every record of a round with the same draws)."""

LOG_INCLUDE_PROBABILITY = math.log(-math.expm1(-1.0))
"""ln(1 - 1/e), the log of :data:`INCLUDE_PROBABILITY`, as a round's row sample declares it to an audit."""

TAU_FLOOR = 1e-10
"""tau_t is clipped to [TAU_FLOOR, 1 - TAU_FLOOR] so that alpha_t stays finite."""

TAU_FLOOR_EXACT = Fraction(1, 10**10)
"""The sound variant's clip of tau_t, exact (the float TAU_FLOOR is the nearest float to it)."""

WEIGHT_UNITS = 1 << 10
"""Q: the sound variant's record weights are integers in units of 1/Q (the initial weight is Q units).

Any public Q makes the round exact; its size trades only resolution.  The
exponential mechanism is scale-free (utilities and sensitivity both scale
by Q) and the leaf noise DLap(floor(theta Q)/eps) in units of 1/Q is the
Laplace noise of scale theta/eps up to a lattice of step 1/Q.  What Q
decides is where flooring bites: a weight loses less than 1/Q per update
(relative error 1/k for a weight of k units) and a weight that falls below
1/Q of the initial one becomes 0 for good (after about ln(1024) / alpha
rounds in a row classified right: 14 at alpha = 1/2, by then it weighs
under 0.1% of a fresh record).  2**10 keeps the integers small (a node's
weighted count is below n theta 2**10, far under 2**53, so k / Q is an
exact float) while the rounding stays below what the noise hides.
"""

SOUND_INTERNAL = NodeCost(Fraction(1), Fraction(1))
"""A node's exponential mechanism: sensitivity 2 theta holds for a substitution too."""

SOUND_LEAF = NodeCost(Fraction(1), Fraction(2))
"""A leaf's weighted class histogram: one cell per class."""

Candidate = Tuple[int, int]
"""(attribute, value code) of a categorical pair, or (attribute, k) of the grid point g_k of a continuous one."""

_GINI = exact_score_function("gini")


def weighted_gini(table: Sequence[Sequence[int]]) -> Fraction:
    """q(T) = -sum_j (W_j - sum_c W_{j,c}^2 / W_j), the unnormalised Gini of integer weighted counts, exactly.

    With weights in units of 1/Q the value is Q times the Gini of the real
    weights; with every record weight in [0, cap] units its sensitivity is
    2 cap units (claim ``adaboost-sound``, Lemma 2).  With unit weights this
    is :func:`refdp.scoring.gini_unnormalised`.
    """
    return Fraction(_GINI(table))


def weight_cap(theta: Fraction) -> int:
    """floor(theta Q): the largest record weight of the sound variant, in units of 1/Q."""
    return math.floor(theta * WEIGHT_UNITS)


@dataclass(frozen=True)
class GridCodes:
    """The public grid of every continuous attribute (the engine codes each row's cell: x < g_k has code < k)."""

    cells: int
    grids: Mapping[int, ThresholdGrid]

    @staticmethod
    def of(view: TrainingView, cells: int) -> "GridCodes":
        grids = {
            a: ThresholdGrid.of(attribute, cells)
            for a, attribute in enumerate(view.schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }
        return GridCodes(cells, grids)


def split_candidates(
    view: TrainingView, grids: GridCodes, rows: Sequence[int], weights: Sequence[int], attributes: Sequence[int],
    counts: Optional[NodeCounts] = None,
) -> Tuple[List[Candidate], List[Fraction], List[int]]:
    """Every split of ``attributes`` at a node: (candidates, exact weighted Gini utilities, base weights).

    Categorical attribute a: one candidate ``a = v`` vs ``a != v`` per value v
    of the public domain, base weight ``grids.cells - 1``.  Continuous
    attribute a: one candidate per interior grid point g_k (``x < g_k`` vs
    ``x >= g_k``), base weight 1.  ``weights[i]`` is record i's weight in
    units of 1/Q (any integers; 0 for a record outside the sample).  The
    weighted counts come from ``counts`` (an engine's; ``rows`` are then its
    rows), by default the reference loops over ``view``.
    """
    node = ReferenceCounts(view) if counts is None else counts
    rows = list(rows)
    total = node.weighted_class_counts(rows, weights)
    candidates: List[Candidate] = []
    utilities: List[Fraction] = []
    base: List[int] = []
    pair_weight = grids.cells - 1
    for a in attributes:
        attribute = view.schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            table = node.weighted_value_table(rows, a, attribute.n_values, weights)
            for v, row in enumerate(table):
                candidates.append((a, v))
                utilities.append(weighted_gini([row, [t - r for t, r in zip(total, row)]]))
                base.append(pair_weight)
            continue
        table = node.weighted_grid_table(rows, a, grids.grids[a], weights)
        for k, split in enumerate(grid_threshold_tables(table), 1):
            candidates.append((a, k))
            utilities.append(weighted_gini(split))
            base.append(1)
    return candidates, utilities, base


def round_epsilon(epsilon: Fraction, n_estimators: int) -> Fraction:
    """eps_p / T, the data-independent budget of one round (sound variant)."""
    return epsilon / n_estimators


def query_epsilon(epsilon: Fraction, n_estimators: int, depth: int, relation: Relation) -> Fraction:
    """The budget of one node's query: eps_p / (T K), K the cost of a full tree of depth d (d + 1 under add-remove)."""
    return round_epsilon(epsilon, n_estimators) / plan_units(SOUND_INTERNAL, SOUND_LEAF, depth, relation)


def tree_weight(tau: float, n_classes: int = 2) -> float:
    """alpha_t = 1/2 ln((1 - tau)(K - 1) / tau) (SAMME; K = 2: AdaBoost), tau clipped to [TAU_FLOOR, 1 - TAU_FLOOR]."""
    tau = min(max(tau, TAU_FLOOR), 1.0 - TAU_FLOOR)
    return 0.5 * math.log((1.0 - tau) * (n_classes - 1) / tau)


def noisy_error(tree: Node) -> Fraction:
    """tau from released leaf counts, exactly: clipped weight outside each leaf's predicted class over the clipped total.

    1 when no released count is positive.  Every released count is a float,
    taken at its exact value.
    """
    stack, wrong, total = [tree], Fraction(0), Fraction(0)
    while stack:
        node = stack.pop()
        if isinstance(node, Leaf):
            clipped = [max(Fraction(0), Fraction(c)) for c in node.counts]
            leaf_total = sum(clipped, Fraction(0))
            total += leaf_total
            wrong += leaf_total - clipped[node.prediction]
        elif isinstance(node, ValueSplit):
            stack.extend((node.equal, node.rest))
        elif isinstance(node, ThresholdSplit):
            stack.extend((node.below, node.at_or_above))
    return wrong / total if total > 0 else Fraction(1)


def next_weight(units: int, right: bool, tau: Fraction, cap: int, n_classes: int = 2) -> int:
    """min(cap, floor(units e^{-alpha})) if ``right``, else min(cap, floor(units e^{alpha})), exactly.

    e^{2 alpha} = (1 - tau)(K - 1) / tau, so floor(units e^{+-alpha}) =
    floor(sqrt(units^2 r)) = isqrt(floor(units^2 r)) with r = e^{2 alpha}
    or its inverse (floor(sqrt(floor(y))) = floor(sqrt(y)) for y >= 0).
    ``tau`` must lie in (0, 1).
    """
    if not 0 < tau < 1:
        raise InvalidParameterError(f"tau must lie in (0, 1) for a weight update, got {tau}")
    odds = (1 - tau) * (n_classes - 1) / tau
    ratio = 1 / odds if right else odds
    return min(cap, math.isqrt(units * units * ratio.numerator // ratio.denominator))


def random_subspace(n_attributes: int, k: int, rng: RandomSource) -> Tuple[int, ...]:
    """k attribute indices uniformly without replacement (partial Fisher-Yates), in ascending order."""
    pool = list(range(n_attributes))
    for j in range(k):
        swap = j + rng.randrange(n_attributes - j)
        pool[j], pool[swap] = pool[swap], pool[j]
    return tuple(sorted(pool[:k]))


@dataclass(frozen=True)
class RoundPlan:
    """What every round of a fit shares: ``k`` attributes per node, the query epsilon, the weight cap (units)."""

    k: int
    eps: Fraction
    cap: int


class RoundBuilder:
    """One sound round's tree: every node's data, weights, budget, randomness and ledger.

    ``build(rows, depth, path)`` grows a full tree of ``depth`` levels on the
    sampled ``rows``: an exact exponential mechanism (budget ``eps``,
    sensitivity 2 ``cap``) per internal node, a discrete Laplace weighted
    class histogram (sensitivity ``cap`` per class) per leaf, charged on
    ``path`` and its split cells.  Weights and ``cap`` are in units of 1/Q.
    ``counts``: the engine's counts of the data (``rows`` are its rows), by
    default the reference loops over ``view``.
    """

    def __init__(
        self,
        view: TrainingView,
        grids: GridCodes,
        weights: Sequence[int],
        plan: RoundPlan,
        rng: RandomSource,
        ledger: Ledger,
        engine: Engine = REFERENCE,
        counts: Optional[NodeCounts] = None,
    ) -> None:
        self.view = view
        self.counts = ReferenceCounts(view) if counts is None else counts
        self.grids = grids
        self.weights = weights
        self.k = plan.k
        self.eps = plan.eps
        self.cap = plan.cap
        self.rng = rng
        self.ledger = ledger
        self.engine = engine

    def build(self, rows: List[int], depth: int, path: Partition) -> Node:
        schema = self.view.schema
        if depth == 0:
            totals = self.counts.weighted_class_counts(rows, self.weights)
            return Leaf(tuple(
                discrete_laplace_mechanism(
                    totals[c], sensitivity=self.cap, epsilon=self.eps, rng=self.rng, ledger=self.ledger,
                    sampler=self.engine.discrete_laplace, label=LEAF_LABEL,
                    partition=path + (cell("class", name),), claims=LEAF_CLAIMS,
                ) / WEIGHT_UNITS
                for c, name in enumerate(schema.classes)
            ))
        attributes = random_subspace(schema.n_attributes, self.k, self.rng)
        self.ledger.record(subspace_charge(path, attributes))
        candidates, utilities, base = split_candidates(
            self.view, self.grids, rows, self.weights, attributes, self.counts
        )
        continuous = any(a in self.grids.grids for a in attributes)
        # Under add-remove a record joining the node adds weight to one cell of every candidate, and the
        # other records' weights depend on released trees only: every utility moves down (claim
        # split-quality-monotone), so no factor 2.
        monotone = self.ledger.relation is Relation.ADD_REMOVE
        choice = exponential_mechanism(
            utilities, epsilon=self.eps, sensitivity=2 * self.cap, rng=self.rng, ledger=self.ledger,
            label=SPLIT_LABEL, partition=path, claims=split_claims(continuous, monotone),
            base_weights=base, exact=True, monotone=monotone,
        )
        a, v = candidates[choice]
        attribute = schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            name, shown = attribute.name, attribute.values[v]
            equal, rest = self.counts.split_value(rows, a, v)
            return ValueSplit(
                a, v,
                self.build(equal, depth - 1, child_path(path, f"{name}={shown}")),
                self.build(rest, depth - 1, child_path(path, f"{name}!={shown}")),
            )
        assert isinstance(attribute, ContinuousAttribute)
        grid = self.grids.grids[a]
        threshold = grid.point(v)
        low, high = threshold_conditions(attribute, threshold)
        # x < g_v exactly when x < cuts[v - 1], the smallest float at or above g_v (its grid code is below v).
        below, above = self.counts.split_threshold(rows, a, grid.cuts[v - 1])
        return ThresholdSplit(
            a, threshold,
            self.build(below, depth - 1, child_path(path, low)),
            self.build(above, depth - 1, child_path(path, high)),
        )


LEAF_LABEL = f"leaf weighted class count (units of 1/{WEIGHT_UNITS})"
LEAF_CLAIMS = ("discrete-laplace-mechanism", "parallel-composition", "adaboost-sound")
SPLIT_LABEL = f"split (attribute, value or grid point), weighted Gini in units of 1/{WEIGHT_UNITS}"
MAJORITY_LABEL = "class histogram (no boosting round: the noisy size is too small)"
BUDGET_CLAIMS = ("tree-budget-plan", "adaboost-sound")


def split_claims(continuous: bool, monotone: bool) -> Tuple[str, ...]:
    return (
        ("exponential-mechanism", "adaboost-sound")
        + (("continuous-split-exponential-mechanism",) if continuous else ())
        + (("split-quality-monotone",) if monotone else ())
    )


def subspace_charge(path: Partition, attributes: Tuple[int, ...]) -> Charge:
    return data_independent_charge(label="random subspace", partition=path, note=f"attributes {attributes}")


def bootstrap_charge(t: int) -> Charge:
    return data_independent_charge(
        label=f"round {t}: Poissonised bootstrap", partition=(f"round {t}",),
        note="each record joins with probability exactly 1 - 1/e, at most once",
    )


def majority_epsilon(epsilon: Fraction, relation: Relation) -> Fraction:
    return epsilon if relation is Relation.ADD_REMOVE else epsilon / 2


def round_plan(
    schema: Schema, epsilon: Fraction, params: Mapping[str, Param], relation: Relation, size: int,
    engine: Engine, rng: RandomSource, ledger: Ledger,
) -> DepthPlan:
    """The sound variant's number of rounds T (as ``depth``): a noisy size of the ``size`` rows caps it.

    Each round's leaf counts, of noise scale theta / eps in records, must
    stand out of their noise (claim ``noisy-size-plan``); 0 rounds is one
    noisy histogram.  A function of public values and the released noisy
    size only: a verifier calls it with
    :func:`~refdp.algorithms.derivation.replay_size`.

    >>> from refdp.algorithms import get_algorithm
    >>> from refdp.algorithms.derivation import NO_RANDOMNESS
    >>> from refdp.data import load
    >>> params = get_algorithm("dp-adaboost").resolve({"size_share": 0})
    >>> round_plan(load("vote").schema, Fraction(1), params, Relation.ADD_REMOVE, 435, REFERENCE, NO_RANDOMNESS,
    ...            Ledger()).depth
    5
    """
    depth = int(params["max_depth"])
    theta = as_fraction(float(params["theta"]), "theta")
    share, sigmas = size_share(params)
    return plan_depth(
        size, epsilon, share,
        DepthRule(
            sigmas, int(params["n_estimators"]), schema.n_classes,
            # a round's sample holds about (1 - 1/e) N ~ 0.632 N rows: its leaves count as 1/0.632 as many
            leaves=lambda rounds: Fraction(2) ** depth * Fraction(1000, 632),
            variance=lambda rounds, left: laplace_variance(query_epsilon(left, rounds, depth, relation) / theta),
        ),
        engine, rng, ledger,
    )
