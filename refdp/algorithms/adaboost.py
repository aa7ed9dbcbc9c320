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

from itertools import repeat
from operator import add, eq, mul
from fractions import Fraction
from typing import Callable, List, Mapping, Optional, Tuple

from refdp.algorithms.derivation import (
    NOISY_SIZE
)
from refdp.algorithms.greedy import (
    GRID_PARAMETER, close_budget
)
from refdp.algorithms.noisy_depth import size_parameters
from refdp.algorithms.adaboost_derive import derive_adaboost
from refdp.algorithms.adaboost_rounds import (
    BUDGET_CLAIMS, Candidate, GridCodes, INCLUDE_PROBABILITY, LOG_INCLUDE_PROBABILITY, MAJORITY_LABEL, RoundBuilder,
    RoundPlan, TAU_FLOOR, TAU_FLOOR_EXACT, WEIGHT_UNITS, bootstrap_charge, majority_epsilon, next_weight, noisy_error, query_epsilon,
    random_subspace, round_epsilon, round_plan, split_candidates, tree_weight, weight_cap, weighted_gini
)
from refdp.algorithms.registry import AlgorithmSpec, Param, Parameter, Variant, register
from refdp.algorithms.models import finish_model, start_ledger
from refdp.data import Dataset
from refdp.engine import REFERENCE, Engine, NodeCounts, TrainingView
from refdp.errors import InvalidParameterError
from refdp.params import MAX_DEPTH
from refdp.mechanisms import (
    joins_sample
)
from refdp.privacy import Ledger, Relation, as_fraction
from refdp.mechanisms.sampling import row_sample
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, TreeModel
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
    "RoundPlan",
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
        sample = [rows[i] for i in row_sample(
            len(rows), engine.bootstrap, rng, log_keep=LOG_INCLUDE_PROBABILITY, ledger=ledger,
            label=f"round {t}: Poissonised bootstrap", partition=(f"round {t}",),
        )]
        ledger.record(bootstrap_charge(t))
        builder = RoundBuilder(view, grids, weights, RoundPlan(k, eps, cap), rng, ledger, engine, counts)
        tree = builder.build(sample, depth, (f"round {t}",))
        tau = noisy_error(tree)
        if tau > 1 - Fraction(1, n_classes):
            dropped.append(tree)
            continue  # worse than guessing: alpha_t would be negative
        tau = max(tau, TAU_FLOOR_EXACT)
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
        counts.class_counts(counts.root()), epsilon=majority_epsilon(epsilon, ledger.relation),
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
