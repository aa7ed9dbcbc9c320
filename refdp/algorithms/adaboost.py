"""CART-DPsAdaBoost: Jia and Qiu (IEEE Access 8, 2020), Algorithms 1, 3 and 4, section IV.C.

AdaBoost of CART stumps (depth d = 1 by default) with total budget eps_p
and T rounds.  Round t builds a tree on a bootstrap sample, choosing at every
node among k attributes drawn at random (random subspace; the paper's
experiments use k = 5, refdp's default ``n_features=0`` draws every
attribute, which cross-validation on training data preferred, see
docs/results.md): continuous split
points by the exponential mechanism, categorical attributes by a binary
partition (value vs rest: ``a = v`` against ``a != v``, for each value v of
the public domain, instead of the paper's every subset).  Its leaves release
noisy weighted class counts; its error tau_t gives the tree's weight
alpha_t = 1/2 ln((1 - tau_t) / tau_t) and the records' new weights; a round
with tau_t > 1/2 stops the paper's loop.  Prediction is the alpha-weighted
vote of the trees (Algorithm 4; ``TreeModel(voting="vote")``).  The paper
has two classes.  With K > 2 classes AdaBoost.M1's rule (keep a round when
tau_t < 1/2) discards nearly every round of a noisy weak learner, so the
sound variant uses SAMME (Zhu, Zou, Rosset and Hastie 2009) in symmetric
form: alpha_t = 1/2 ln((1 - tau_t)(K - 1) / tau_t), a round is kept when
alpha_t >= 0 (tau_t <= 1 - 1/K), right records' weights times e^{-alpha_t}
and wrong ones' times e^{alpha_t}; with K = 2 this is exactly the binary
rule.  When no round is kept, the model is one leaf holding the dropped
trees' clipped leaf counts summed (a function of released values).

The sound variant first spends ``size_share`` of eps_p on a noisy size of
the data that caps the number of rounds T (:mod:`refdp.algorithms.noisy_depth`,
claim ``noisy-size-plan``): each round's leaf counts, of noise scale
theta / eps in records, must stand ``leaf_sigmas`` standard deviations out
of their noise; with no round affordable the model is one noisy class
histogram (the noisy majority).  Under add-remove the split's exponential
mechanism drops the factor 2: a record joining a node adds weight to one
cell of every candidate, so every utility moves down (claims
``split-quality-monotone``, ``exponential-mechanism-monotone``).

This module is the sound learner (claim ``adaboost-sound``), exact wherever it decides
  or releases anything.  Record weights live on a public grid: record i's
  weight is k_i / Q with Q = :data:`WEIGHT_UNITS` and an integer k_i in
  {0, ..., floor(theta Q)}; k_{1,i} = Q and

      k_{t+1,i} = min(floor(theta Q), floor(k_{t,i} e^{-alpha_t}))   (tree t right on record i),
      k_{t+1,i} = min(floor(theta Q), floor(k_{t,i} e^{alpha_t}))    (wrong),

  computed exactly with integer square roots (e^{2 alpha_t} = (1 - tau_t)/tau_t
  is rational), so a weight depends only on the record and on released
  values and never exceeds theta.  (The paper's eq. 17 sets a weight above
  theta to 0 instead; with noisy trees that drops whole classes after one
  bad round, so the sound variant clips.)  Weighted counts are then
  integers in units of 1/Q.  Budget eps_p / T per round, composed
  sequentially; one exponential mechanism per node, sampled exactly, over
  every value-vs-rest pair of the node's categorical attributes (base
  weight grid - 1 each) and every interior point of the public grid of its
  continuous attributes (base weight 1 each, so a whole range weighs as
  much as one pair), quality the unnormalised Gini of the integer weighted
  counts (an exact Fraction), sensitivity 2 floor(theta Q) units; a
  threshold is released as the grid point itself.  Leaves release the
  weighted class counts plus discrete Laplace noise of sensitivity
  floor(theta Q) units, as k / Q (an exact float).  tau_t is the exact
  rational computed from the released leaf counts (clipped at 0), and
  alpha_t is a float computed from it (post-processing, used only as the
  tree's vote).  The bootstrap is Poissonised with multiplicities clipped
  to 1: every record joins round t's sample independently with probability
  exactly 1 - 1/e (the chance that it appears in an ordinary bootstrap
  sample of size n; ``not bernoulli_exp(1)``), so no record counts twice.
  The receipt total is eps_p exactly.
The paper's Algorithm 3 as printed is another variant, which the registry
adds from its own package (:data:`~refdp.algorithms.registry.VARIANT_MODULES`).

``theta`` is in units of the initial weight.  ``grid`` is used by ``sound`` only.
"""

from __future__ import annotations

import math
from itertools import compress, repeat
from operator import add, eq, mul
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms.derivation import (
    model_budget,
    check_plan_inputs,
    NO_RANDOMNESS,
    NOISY_SIZE,
    check_trees,
    check_voting,
    check_weights,
    fresh_ledger,
    grid_index,
    integer_counts,
    receipt_children,
    refuse,
    replay_size,
)
from refdp.algorithms.greedy import (
    GRID_PARAMETER,
    SPLIT_KEY,
    NodeCost,
    child_path,
    close_budget,
    grid_threshold_tables,
    plan_units,
    threshold_conditions,
)
from refdp.algorithms.noisy_depth import DepthPlan, laplace_variance, plan_depth, size_parameters, size_share
from refdp.algorithms.registry import (
    AlgorithmSpec,
    Param,
    Parameter,
    Variant,
    finish_model,
    register,
    start_ledger,
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import ThresholdGrid
from refdp.engine import REFERENCE, Engine, NodeCounts, ReferenceCounts, TrainingView
from refdp.scoring.kernels import exact_score_function
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import (
    joins_sample,
    count_charge,
    discrete_laplace_mechanism,
    exponential_charge,
    exponential_mechanism,
    histogram_charges,
)
from refdp.privacy import Charge, Ledger, Partition, Relation, as_fraction, cell
from refdp.privacy.ledger import data_independent_charge
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, ThresholdSplit, TreeModel, ValueSplit
from refdp.tree import leaves as all_leaves

__all__ = [
    "CLAIMS",
    "SPEC",
    "INCLUDE_PROBABILITY",
    "TAU_FLOOR",
    "WEIGHT_UNITS",
    "Candidate",
    "GridCodes",
    "RoundBuilder",
    "weighted_gini",
    "weight_cap",
    "split_candidates",
    "joins_sample",
    "noisy_error",
    "next_weight",
    "random_subspace",
    "check_attributes",
    "Rounds",
    "fit_boosted",
    "round_epsilon",
    "query_epsilon",
    "tree_weight",
    "fit_adaboost",
    "derive_adaboost",
    "round_plan",
]

CLAIMS = (
    "noisy-size-plan",
    "exponential-mechanism-monotone",
    "split-quality-monotone",
    "adaboost-sound",
    "exponential-mechanism",
    "exponential-mechanism-exact-sampler",
    "continuous-split-exponential-mechanism",
    "discrete-laplace-mechanism",
    "cks-bernoulli-exp",
    "sequential-composition",
    "parallel-composition",
    "tree-budget-plan",
)

INCLUDE_PROBABILITY = 1.0 - math.exp(-1.0)
"""P[a record joins a round's sample]: 1 - 1/e, its chance to appear in a bootstrap of size n (n large).

A float for reference and tests; the sampler draws the event exactly (:func:`joins_sample`, and the
engine's ``bootstrap``, which draws it for every record of a round with the same draws)."""

TAU_FLOOR = 1e-10
"""tau_t is clipped to [TAU_FLOOR, 1 - TAU_FLOOR] so that alpha_t stays finite."""

_TAU_FLOOR_EXACT = Fraction(1, 10**10)
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
        k: int,
        eps: Fraction,
        cap: int,
        rng: RandomSource,
        ledger: Ledger,
        engine: Engine = REFERENCE,
        counts: Optional[NodeCounts] = None,
    ) -> None:
        self.view = view
        self.counts = ReferenceCounts(view) if counts is None else counts
        self.grids = grids
        self.weights = weights
        self.k = k
        self.eps = eps
        self.cap = cap
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
        self.ledger.record(_subspace_charge(path, attributes))
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
            label=SPLIT_LABEL, partition=path, claims=_split_claims(continuous, monotone),
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


def _split_claims(continuous: bool, monotone: bool) -> Tuple[str, ...]:
    return (
        ("exponential-mechanism", "adaboost-sound")
        + (("continuous-split-exponential-mechanism",) if continuous else ())
        + (("split-quality-monotone",) if monotone else ())
    )


def _subspace_charge(path: Partition, attributes: Tuple[int, ...]) -> Charge:
    return data_independent_charge(label="random subspace", partition=path, note=f"attributes {attributes}")


def _bootstrap_charge(t: int) -> Charge:
    return data_independent_charge(
        label=f"round {t}: Poissonised bootstrap", partition=(f"round {t}",),
        note="each record joins with probability exactly 1 - 1/e, at most once",
    )


def _majority_epsilon(epsilon: Fraction, relation: Relation) -> Fraction:
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
        size, epsilon, share, sigmas, int(params["n_estimators"]), schema.n_classes,
        # a round's sample holds about (1 - 1/e) N ~ 0.632 N rows: its leaves count as 1/0.632 as many
        leaves=lambda rounds: Fraction(2) ** depth * Fraction(1000, 632),
        variance=lambda rounds, left: laplace_variance(query_epsilon(left, rounds, depth, relation) / theta),
        engine=engine, rng=rng, ledger=ledger,
    )


def _fit_sound(
    data: Dataset, view: TrainingView, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource,
    ledger: Ledger, engine: Engine,
) -> Tuple[List[Node], List[float], Optional[int]]:
    counts = engine.counts(data)
    depth, k = int(params["max_depth"]), int(params["n_features"])
    theta = as_fraction(float(params["theta"]), "theta")
    cap = weight_cap(theta)
    plan = round_plan(view.schema, epsilon, params, ledger.relation, len(view.rows), engine, rng, ledger)
    T = plan.depth
    if T == 0:
        majority, weight = _majority_leaf(view, counts, plan.epsilon, rng, ledger, engine)
        return majority, weight, plan.noisy_size
    eps = query_epsilon(plan.epsilon, T, depth, ledger.relation)
    grids = GridCodes.of(view, int(params["grid"]))
    n_classes = view.n_classes
    # Weights are kept by the engine's row numbers (the rows of the data in data order, as positions
    # in its columns), so the rows are drawn and updated in the same order on every engine.
    rows = counts.root()
    labels = counts.labels(rows)
    weights: List[int] = [0] * (max(rows) + 1 if rows else 0)
    for i in rows:
        weights[i] = WEIGHT_UNITS
    every_position = rows == list(range(len(weights)))
    trees: List[Node] = []
    alphas: List[float] = []
    dropped: List[Node] = []
    for t in range(T):
        sample = list(compress(rows, engine.bootstrap(len(rows), rng)))
        ledger.record(_bootstrap_charge(t))
        builder = RoundBuilder(view, grids, weights, k, eps, cap, rng, ledger, engine, counts)
        tree = builder.build(sample, depth, (f"round {t}",))
        tau = noisy_error(tree)
        if tau > 1 - Fraction(1, n_classes):
            dropped.append(tree)
            continue  # worse than guessing: alpha_t would be negative
        tau = max(tau, _TAU_FLOOR_EXACT)
        trees.append(tree)
        alphas.append(tree_weight(float(tau), n_classes))
        # Many records share a weight, so each (weight, right) pair is updated once per round; the
        # round's weights are a new list (an engine may keep what it derived from the last one).
        # The pair (weight w, right r) as the int 2 w + r (hashed faster than a tuple).
        pairs = list(map(add, map(mul, map(weights.__getitem__, rows), repeat(2)),
                         map(eq, counts.predictions(tree, rows), labels)))
        updated = {pair: next_weight(pair >> 1, bool(pair & 1), tau, cap, n_classes) for pair in set(pairs)}
        new = list(map(updated.__getitem__, pairs))
        if every_position:
            weights = new
        else:
            weights = list(weights)
            for i, value in zip(rows, new):
                weights[i] = value
    if not trees and dropped:
        # No round beat guessing: the model says what the released leaves say about the classes overall
        # (their clipped counts summed), a function of released values only.
        totals = [0.0] * n_classes
        for leaf in (leaf for tree in dropped for leaf in all_leaves(tree)):
            for c, count in enumerate(leaf.counts):
                totals[c] += max(0.0, float(count))
        return [Leaf(tuple(totals))], [1.0], plan.noisy_size
    return trees, alphas, plan.noisy_size


def _majority_leaf(
    view: TrainingView, counts: NodeCounts, epsilon: Fraction, rng: RandomSource, ledger: Ledger, engine: Engine
) -> Tuple[List[Node], List[float]]:
    """No round: one leaf with the class histogram of all rows, discrete Laplace noise (the noisy majority)."""
    noisy = engine.histogram(
        counts.class_counts(counts.root()), epsilon=_majority_epsilon(epsilon, ledger.relation),
        rng=rng, ledger=ledger, label=MAJORITY_LABEL, names=view.schema.classes,
    )
    return [Leaf(tuple(noisy))], [1.0]


def _distinct_rows(data: Dataset) -> Dataset:
    """``data`` itself, or a copy with its rows as a new base data set when a row position repeats.

    Weights are kept per row position; a data set that is itself a sample
    with repeats (``Dataset.subset``) must still give each of its rows its own weight.
    """
    if len(set(data.indices)) == len(data):
        return data
    columns = [list(data.column(a)) for a in range(data.schema.n_attributes)]
    return Dataset.from_codes(data.schema, columns, list(data.labels), missing=data.missing)


def check_attributes(n_attributes: int) -> None:
    """InvalidParameterError when the schema has no attribute to split on.

    >>> check_attributes(0)
    Traceback (most recent call last):
    refdp.errors.InvalidParameterError: dp-adaboost needs at least one attribute; the schema has none
    """
    if n_attributes == 0:
        raise InvalidParameterError("dp-adaboost needs at least one attribute; the schema has none")


Rounds = Callable[
    [Dataset, TrainingView, Fraction, Mapping[str, Param], RandomSource, Ledger, Engine],
    Tuple[List[Node], List[float], Optional[int]],
]
"""The boosting rounds of a variant: ``rounds(data, view, epsilon, params, rng, ledger, engine)`` gives the kept
trees, their weights alpha_t and the noisy size its plan drew (None: none)."""


def fit_adaboost(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine = REFERENCE,
) -> TreeModel:
    """Train CART-DPsAdaBoost with total budget ``epsilon`` (eps_p)."""
    check_attributes(data.schema.n_attributes)
    if data.schema.n_classes < 2:
        # SAMME's alpha_t = 1/2 ln((1 - tau_t)(K - 1) / tau_t) has no value for K = 1.
        raise InvalidParameterError("dp-adaboost needs at least two classes; the schema has one class")
    return fit_boosted(data, epsilon, params, rng, relation, engine, _fit_sound)


def fit_boosted(
    data: Dataset, epsilon: Fraction, params: Mapping[str, Param], rng: RandomSource, relation: Relation,
    engine: Engine, rounds: Rounds,
) -> TreeModel:
    """The model of the trees ``rounds`` keeps, with its receipt (``n_features`` resolved: 0 is every attribute)."""
    resolved = dict(params)
    k = int(params["n_features"])
    resolved["n_features"] = data.schema.n_attributes if k == 0 else min(k, data.schema.n_attributes)
    ledger = start_ledger(data, relation)
    data = _distinct_rows(data)
    view = TrainingView.of(data)
    trees, alphas, noisy_size = rounds(data, view, epsilon, resolved, rng, ledger, engine)
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    if not trees:
        # A loop that ends without a tree (the paper's may): the released model predicts the first class.
        trees, alphas = [Leaf((0.0,) * data.schema.n_classes)], [1.0]
    return finish_model(
        SPEC.name, data, params, trees, ledger, budget=epsilon, weights=tuple(alphas), plan_inputs={NOISY_SIZE: noisy_size}
    )


def derive_adaboost(model: TreeModel) -> Optional[Ledger]:
    """The sound variant's charges: the rounds' plan replayed with the released noisy size, every round's
    bootstrap, subspaces, splits and leaves at the query epsilon, and the reserve.

    A round left out of the vote (worse than guessing) is in the receipt
    only: its structure is read from the receipt's partitions, and checked
    as the kept rounds' are (each split value vs rest on a categorical
    attribute or at a point of the public grid, of an attribute of its
    subspace).  The kept trees must be released rounds, in order; each
    weight alpha_t is the one the tree's released counts give (tau_t at most
    1 - 1/K); every leaf count is a whole number of units of 1/1024.

    >>> from refdp.algorithms import train
    >>> from refdp.data import load
    >>> model = train("dp-adaboost", load("vote"), 1, rng=1)
    >>> derive_adaboost(model).charges == model.receipt.charges
    True
    """
    params, schema = model.params, model.schema
    check_voting(model, "vote")
    epsilon, ledger = model_budget(model), fresh_ledger(model)
    plan = round_plan(schema, epsilon, params, ledger.relation, 0, replay_size(model), NO_RANDOMNESS, ledger)
    check_plan_inputs(model, {NOISY_SIZE: plan.noisy_size})
    if plan.depth == 0:
        check_trees(model, 1)
        check_weights(model, (1.0,))
        integer_counts(model, "discrete Laplace class counts")
        for charge in histogram_charges(
            epsilon=_majority_epsilon(plan.epsilon, ledger.relation), label=MAJORITY_LABEL, names=schema.classes,
        ):
            ledger.record(charge)
    else:
        _Rounds(model, plan, ledger).derive()
    close_budget(ledger, epsilon, BUDGET_CLAIMS)
    return ledger


class _Rounds:
    """The sound rounds' charges re-issued from the receipt's structure and checked against the kept trees."""

    def __init__(self, model: TreeModel, plan: DepthPlan, ledger: Ledger) -> None:
        params, schema = model.params, model.schema
        self.model = model
        self.schema = schema
        self.ledger = ledger
        self.rounds = plan.depth
        self.depth = int(params["max_depth"])
        k = int(params["n_features"])
        self.k = schema.n_attributes if k == 0 else min(k, schema.n_attributes)
        self.cap = weight_cap(as_fraction(float(params["theta"]), "theta"))
        self.eps = query_epsilon(plan.epsilon, plan.depth, self.depth, ledger.relation)
        self.monotone = ledger.relation is Relation.ADD_REMOVE
        self.grids = {
            a: ThresholdGrid.of(attribute, int(params["grid"]))
            for a, attribute in enumerate(schema.attributes)
            if isinstance(attribute, ContinuousAttribute)
        }
        # Each split's first (left) condition, to the split and its second condition.
        self.splits: Dict[str, Tuple[int, str]] = {}
        for a, attribute in enumerate(schema.attributes):
            if isinstance(attribute, CategoricalAttribute):
                for value in attribute.values:
                    self.splits[f"{attribute.name}={value}"] = (a, f"{attribute.name}!={value}")
            else:
                for point in self.grids[a].points:
                    low, high = threshold_conditions(attribute, point)
                    self.splits[low] = (a, high)

    def _subspace(self, path: Partition) -> Tuple[int, ...]:
        n = self.schema.n_attributes
        if self.k == n:
            return tuple(range(n))
        stated = [c for c in self.model.receipt.charges if c.partition == path and c.label == "random subspace"]
        text = stated[0].note[len("attributes "):] if stated and stated[0].note.startswith("attributes ") else ""
        try:
            attributes = tuple(int(a) for a in text.strip("(,)").split(","))
        except ValueError:
            refuse(f"the receipt states no random subspace of {self.k} attributes at {'/'.join(path)}")
        if len(set(attributes)) != self.k or list(attributes) != sorted(attributes) or not all(
            0 <= a < n for a in attributes
        ):
            refuse(f"the random subspace {attributes} at {'/'.join(path)} is not {self.k} distinct attributes in order")
        return attributes

    def _node(self, path: Partition, depth: int) -> Tuple[object, ...]:
        """Re-issue the charges of the node at ``path`` with ``depth`` levels below; return its shape."""
        if depth == 0:
            for name in self.schema.classes:
                self.ledger.record(count_charge(
                    epsilon=self.eps, sensitivity=self.cap, label=LEAF_LABEL, partition=path + (cell("class", name),),
                    claims=LEAF_CLAIMS,
                ))
            return ()
        attributes = self._subspace(path)
        self.ledger.record(_subspace_charge(path, attributes))
        self.ledger.record(exponential_charge(
            epsilon=self.eps, sensitivity=2 * self.cap, label=SPLIT_LABEL, partition=path,
            claims=_split_claims(any(a in self.grids for a in attributes), self.monotone), exact=True,
            monotone=self.monotone,
        ))
        conditions = receipt_children(self.model.receipt.charges, path, SPLIT_KEY)
        split = self.splits.get(conditions[0]) if conditions else None
        if split is None or conditions != [conditions[0], split[1]] or split[0] not in attributes:
            refuse(
                f"the receipt's cells below {'/'.join(path)} ({', '.join(conditions) or 'none'}) are not the two sides of "
                "a split of the round's subspace, value vs rest or at a point of the public grid"
            )
        return (conditions[0],) + tuple(self._node(child_path(path, c), depth - 1) for c in conditions)

    def _shape(self, node: Node) -> Tuple[object, ...]:
        if isinstance(node, Leaf):
            return ()
        attribute = self.schema.attributes[node.attribute]
        if isinstance(node, ValueSplit) and isinstance(attribute, CategoricalAttribute):
            first = f"{attribute.name}={attribute.values[node.value]}"
            return (first, self._shape(node.equal), self._shape(node.rest))
        if isinstance(node, ThresholdSplit) and isinstance(attribute, ContinuousAttribute):
            grid_index(self.grids[node.attribute], node.threshold, f"the split on {attribute.name!r}")
            first = threshold_conditions(attribute, node.threshold)[0]
            return (first, self._shape(node.below), self._shape(node.at_or_above))
        refuse(f"a {type(node).__name__} on {attribute.name!r}, which a CART stump does not make")

    def derive(self) -> None:
        kept = list(zip(self.model.trees, self.model.weights))
        shapes = [(self._shape(tree), tree, weight) for tree, weight in kept]
        matched = 0
        for t in range(self.rounds):
            self.ledger.record(_bootstrap_charge(t))
            shape = self._node((f"round {t}",), self.depth)
            if matched < len(shapes) and shapes[matched][0] == shape:
                self._check_kept(t, shapes[matched][1], shapes[matched][2])
                matched += 1
        if matched == len(shapes):
            return
        if matched == 0 and len(shapes) == 1 and isinstance(self.model.trees[0], Leaf) and self.model.weights == (1.0,):
            return  # no round beat guessing: one leaf with the dropped rounds' clipped counts summed
        refuse(
            f"tree {matched} of the model is not a round of the receipt, in order ({len(shapes)} trees, "
            f"{self.rounds} rounds)"
        )

    def _check_kept(self, t: int, tree: Node, weight: float) -> None:
        for leaf in all_leaves(tree):
            if any(not (float(c) * WEIGHT_UNITS).is_integer() for c in leaf.counts):
                refuse(f"round {t}'s leaf counts {list(leaf.counts)} are not whole numbers of units of 1/{WEIGHT_UNITS}")
        n_classes = self.schema.n_classes
        tau = noisy_error(tree)
        if tau > 1 - Fraction(1, n_classes):
            refuse(f"round {t}'s tree has tau_t = {float(tau):.6g} > 1 - 1/K: it is left out of the vote, not weighted")
        alpha = tree_weight(float(max(tau, _TAU_FLOOR_EXACT)), n_classes)
        if weight != alpha:
            refuse(f"round {t}'s tree has weight {weight!r} where its released counts give alpha_t = {alpha!r}")


SPEC = register(
    AlgorithmSpec(
        name="dp-adaboost",
        summary="AdaBoost of DP CART stumps on bootstrap samples with random subspaces "
        "(CART-DPsAdaBoost, Jia and Qiu 2020)",
        source="J. Jia and W. Qiu, Research on an ensemble classification algorithm based on "
        "differential privacy, IEEE Access 8, 2020",
        variants=(
            Variant(
                "sound", True,
                "eps_p/T per round, exact exponential mechanism over the subspace's value-vs-rest pairs and "
                "public grid points on capped weights (integers in units of 1/1024), discrete Laplace leaves, "
                "tau_t from released counts, Poissonised bootstrap",
                claims=(
                    "adaboost-sound", "continuous-split-exponential-mechanism", "discrete-laplace-mechanism",
                    "exact-inversion-sampler", "exponential-mechanism", "exponential-mechanism-exact-sampler",
                    "exponential-mechanism-monotone", "noisy-size-plan", "parallel-composition",
                    "sequential-composition", "split-quality-monotone",
                ),
            ),
        ),
        parameters=(
            Parameter("variant", str, "sound", "which variant to run", ("sound",)),
            Parameter("n_estimators", int, 5, "T, the number of boosting rounds (trees; at most, see size_share)",
                      minimum=1, maximum=1000),
            Parameter("max_depth", int, 1, "d, the depth of each tree (1: a stump)", minimum=1, maximum=MAX_DEPTH),
            Parameter(
                "n_features", int, 0,
                "k, the attributes drawn at each node (random subspace); 0: every attribute (the paper used 5)",
                minimum=0, maximum=10000,
            ),
            Parameter("theta", float, 1.5, "weight cap theta, in units of the initial weight", minimum=1.0, maximum=1e6),
            GRID_PARAMETER,
            *size_parameters(0.05, 6.0),
        ),
        claims=CLAIMS,
        fit=fit_adaboost,
        engines=("reference", "array"),
        derive=derive_adaboost,
    )
)
