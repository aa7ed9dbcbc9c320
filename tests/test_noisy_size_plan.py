"""A plan chosen by a noisy size (claim noisy-size-plan): receipts, the depth rule, and an exact check.

The sized forest's output has a closed-form law, checked on every
neighbour (``exact-max-log-ratio``) and tied to the implementation by a
total-variation test: false alarm 1e-6, runs sized to reject a planted
wrong calibration with probability 1 - 1e-6, fixed seed in the message.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Dict, List, Tuple

import pytest

from refdp.algorithms import Param, get_algorithm, train
from refdp.algorithms.kanon_rdt import Given, candidate_plans
from refdp.algorithms.noisy_depth import DepthRule, choose_depth, laplace_variance, mean_branching, passes, plan_depth
from refdp.audit import LOG_SLACK, Distribution, all_neighbours, max_log_ratio, mixture, push_forward
from refdp.audit.goodness_of_fit import crosscheck_finite, tv_sample_size
from refdp.data import CategoricalAttribute, Dataset, Schema, load_builtin
from refdp.engine import REFERENCE
from refdp.mechanisms import discrete_laplace_cdf, discrete_laplace_pmf
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource
from refdp.tree import Leaf, TreeModel, depth, route

SCHEMA = Schema((CategoricalAttribute("a", ("x", "y")),), "c", ("no", "yes"))


def _dataset(rows: List[Tuple[str, str]]) -> Dataset:
    return Dataset.from_rows(SCHEMA, [(a,) for a, _ in rows], [c for _, c in rows])


def _repeated(data: Dataset, times: int) -> Dataset:
    columns = [list(data.column(j)) * times for j in range(data.schema.n_attributes)]
    return Dataset.from_codes(data.schema, columns, list(data.labels) * times)


def _size_charges(model: TreeModel) -> List[Fraction]:
    return [c.epsilon for c in model.receipt.charges if c.label.startswith("noisy size")]


@pytest.mark.claim("noisy-size-plan", "private-rdt-budget", "sequential-composition")
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE])
@pytest.mark.parametrize("rows", [12, 435, 4350])
def test_private_rdt_receipt_is_epsilon_whatever_depth_the_size_chose(relation: Relation, rows: int) -> None:
    vote = load_builtin("vote")
    data = vote.subset(range(rows)) if rows <= len(vote) else _repeated(vote, rows // len(vote))
    model = train("private-rdt", data, Fraction(1, 2), {"max_depth": 3}, rng=rows, relation=relation)
    assert model.receipt.epsilon == Fraction(1, 2) and model.receipt.delta == 0 and model.receipt.sound
    assert _size_charges(model) == [Fraction(1, 40)]  # size_share 0.05 of epsilon 1/2
    depths = {depth(t) for t in model.trees}
    assert len(depths) == 1
    if rows == 12:
        assert depths == {0} and len(model.trees) == 1  # too few rows for any split: one noisy histogram
    if rows == 4350:
        assert depths == {3}


@pytest.mark.claim("noisy-size-plan")
def test_size_share_zero_spends_nothing_and_keeps_the_full_depth() -> None:
    model = train("private-rdt", load_builtin("vote").subset(range(12)), 1, {"max_depth": 2, "size_share": 0}, rng=1)
    assert _size_charges(model) == [] and {depth(t) for t in model.trees} == {2}
    assert model.receipt.epsilon == 1


@pytest.mark.claim("noisy-size-plan")
def test_the_depth_rule_never_deepens_a_tree_on_less_data() -> None:
    branching = mean_branching(load_builtin("vote").schema, 2)
    assert branching == 3

    def leaves(d: int) -> Fraction:
        return branching**d

    def variance(d: int, budget: Fraction) -> Fraction:
        return laplace_variance(budget / (2 * d + 1))  # a leaf's count at a full tree's per-query epsilon

    for budget in (Fraction(1, 10), Fraction(1), Fraction(10)):
        chosen = [choose_depth(noisy, budget, DepthRule(Fraction(5, 2), 5, 2, leaves, variance)) for noisy in range(-50, 50000, 37)]
        assert chosen == sorted(chosen), budget
        assert chosen[0] == 0 and chosen[-1] >= 1, (budget, chosen[-1])
    # no positive size, no split
    assert not passes(0, Fraction(1), 2, Fraction(0), Fraction(0))
    assert choose_depth(0, Fraction(100), DepthRule(Fraction(0), 5, 2, leaves, variance)) == 0
    # plan_depth grows the depth the rule chooses for the N~ it draws
    for seed in range(20):
        ledger = Ledger(Relation.ADD_REMOVE)
        plan = plan_depth(
            40 * seed, Fraction(1), Fraction(1, 10), DepthRule(Fraction(5, 2), 5, 2, leaves=leaves, variance=variance),
            engine=REFERENCE, rng=random.Random(seed), ledger=ledger,
        )
        assert plan.noisy_size is not None
        assert plan.depth == choose_depth(plan.noisy_size, Fraction(9, 10), DepthRule(Fraction(5, 2), 5, 2, leaves, variance))


@pytest.mark.claim("noisy-size-plan", "discrete-laplace-mechanism")
def test_plan_depth_charges_the_share_and_leaves_the_rest() -> None:
    ledger = Ledger(Relation.ADD_REMOVE)
    plan = plan_depth(
        1000, Fraction(1), Fraction(1, 10),
        DepthRule(Fraction(1), 4, 2, leaves=lambda d: Fraction(2) ** d,
                  variance=lambda d, budget: laplace_variance(budget / (2 * d + 1))),
        engine=REFERENCE, rng=random.Random(3), ledger=ledger,
    )
    assert plan.epsilon == Fraction(9, 10) and plan.noisy_size is not None and 0 <= plan.depth <= 4
    assert ledger.total() == (Fraction(1, 10), Fraction(0))
    assert plan_depth(
        10, Fraction(1), Fraction(0), DepthRule(Fraction(1), 4, 2, leaves=lambda d: Fraction(1), variance=lambda d, b: b),
        engine=REFERENCE, rng=random.Random(3), ledger=ledger,
    ).depth == 4


@pytest.mark.claim("noisy-size-plan", "kanon-rdt-privacy", "lqs-delta-certified")
def test_kanon_rdt_states_the_largest_delta_of_its_plans() -> None:
    defaults = get_algorithm("kanon-rdt").resolve({})
    share = Fraction(repr(defaults["size_share"]))
    plans = candidate_plans(Fraction(1), Relation.ADD_REMOVE, Fraction(1, 10**5), share, 3, Given.of(defaults))
    stated = max(p.delta for p in plans)
    vote = load_builtin("vote")
    small = train("kanon-rdt", vote.subset(range(40)), 1, {}, rng=1)  # no forest fills: a second histogram
    large = train("kanon-rdt", _repeated(vote, 80), 1, {}, rng=1)  # 34,800 rows: a forest
    assert len(small.trees) == 1 and len(large.trees) > 2
    for model in (small, large):
        assert model.receipt.epsilon == 1 and model.receipt.delta == stated and model.receipt.sound
        prior = [c.epsilon for c in model.receipt.charges if c.label.startswith("noisy class histogram")]
        assert prior == [share] * vote.schema.n_classes  # one cell per class, in parallel: share epsilon
        forest = sum(c.delta for c in model.receipt.charges if c.mechanism == "sample-and-suppress")
        reserved = [c for c in model.receipt.charges if c.mechanism == "reserved"]
        assert sum(c.delta for c in reserved) == stated - forest and all(c.epsilon == 0 for c in reserved)
    assert not [c for c in small.receipt.charges if c.mechanism == "sample-and-suppress"]


@pytest.mark.claim("noisy-size-plan")
def test_kanon_rdt_without_a_noisy_size_runs_the_forest_alone() -> None:
    model = train("kanon-rdt", load_builtin("vote"), 2, {"size_share": 0, "n_trees": 2, "beta": 0.2, "k": 22}, rng=1)
    assert _size_charges(model) == [] and len(model.trees) == 2
    assert not [c for c in model.receipt.charges if c.mechanism == "reserved"]


SIZED_EPSILON = Fraction(1)
SIZED_PARAMS: Dict[str, Param] = {
    "n_trees": 1, "max_depth": 1, "size_share": 0.5, "leaf_sigmas": 1.5, "voting": "sum-counts", "structure": "per-level",
}
SPLITS_FROM = 12
"""N~ at which the sized forest grows its level: N~^2 >= s^2 V L^2 |C| = 2.25 x 8 x 2^2 x 2 = 144 (11^2 < 144 <= 12^2).

V = 2 / (1/2)^2 = 8 for one leaf count at the half of epsilon 1 the tree gets, L = 2 leaves (a has 2 values)."""
CLIP = (-2, 10)


def _sized_forest(data: Dataset, rng: RandomSource) -> TreeModel:
    """private-rdt of one tree, at most one level, half the budget on the noisy size."""
    spec = get_algorithm("private-rdt")
    return spec.fit(data, SIZED_EPSILON, spec.resolve(SIZED_PARAMS), rng, Relation.ADD_REMOVE)


def depth_and_count(model: TreeModel) -> Tuple[int, int]:
    """Whether the tree split, and the released 'yes' count that a row with a = x reaches (clipped)."""
    tree = model.trees[0]
    leaf = tree if isinstance(tree, Leaf) else route(tree, [[0]], 0)
    return depth(tree), max(CLIP[0], min(CLIP[1], int(leaf.counts[1])))


def _clipped_count(true: int, scale: Fraction) -> Distribution:
    """max(-2, min(10, true + Z)), Z discrete Laplace of ``scale``."""
    low, high = CLIP
    masses = {low: discrete_laplace_cdf(low - true, scale), high: discrete_laplace_cdf(true - high, scale)}
    masses.update({v: discrete_laplace_pmf(v - true, scale) for v in range(low + 1, high)})
    return Distribution({v: math.log(p) for v, p in masses.items() if p > 0})


def _sized_forest_law(data: Dataset, cell_epsilon: Fraction = SIZED_EPSILON / 2) -> Distribution:
    """The exact law of :func:`depth_and_count` of the sized forest, from the claim's plan written out.

    N~ = |D| + DLap(1 / (share epsilon)) with share epsilon = 1/2; the level
    grows iff N~ >= 12; the one tree's leaf that a = x reaches (the root at
    depth 0) releases its 'yes' count with discrete Laplace noise at
    ``cell_epsilon`` (refdp's: the other half of epsilon, one tree).
    """
    size_scale = 1 / (SIZED_EPSILON / 2)
    # P(N~ >= 12) = P(Z >= 12 - |D|) = P(Z <= |D| - 12)
    grows = discrete_laplace_cdf(len(data) - SPLITS_FROM, size_scale)
    yes = [data.labels[i] == 1 for i in range(len(data))]
    at_x = [data.codes(0)[i] == 0 for i in range(len(data))]
    whole = sum(yes)
    reached = sum(1 for y, x in zip(yes, at_x) if y and x)
    scale = 1 / cell_epsilon
    return mixture([
        (math.log(1 - grows), push_forward(_clipped_count(whole, scale), lambda v: (0, v))),
        (math.log(grows), push_forward(_clipped_count(reached, scale), lambda v: (1, v))),
    ])


# N~ ~ 11 + DLap(2): the data and its neighbours straddle the rule (11 rows, and 10 or 12).
SIZED_D = _dataset([("x", "yes")] * 4 + [("x", "no")] * 2 + [("y", "no")] * 5)


@pytest.mark.claim("noisy-size-plan", "private-rdt-budget", "exact-max-log-ratio", "discrete-laplace-mechanism")
def test_the_sized_forest_is_within_epsilon_on_every_neighbour() -> None:
    law = _sized_forest_law(SIZED_D)
    assert abs(law.log_mass()) < 1e-12
    worst = max(max_log_ratio(law, _sized_forest_law(n)) for _, n in all_neighbours(SIZED_D, Relation.ADD_REMOVE))
    assert worst <= float(SIZED_EPSILON) + LOG_SLACK, worst
    # The noisy size's half and the count's half both show: more than either alone.
    print(f"worst log-ratio {worst:.4f}")
    assert worst > 0.6 * float(SIZED_EPSILON), worst
    # With the count's noise at the whole epsilon (its half forgotten), some neighbour breaks epsilon.
    careless = max(
        max_log_ratio(_sized_forest_law(SIZED_D, SIZED_EPSILON), _sized_forest_law(n, SIZED_EPSILON))
        for _, n in all_neighbours(SIZED_D, Relation.ADD_REMOVE)
    )
    print(f"with the count at the whole epsilon {careless:.4f}")
    assert careless > float(SIZED_EPSILON) + 0.1, careless


@pytest.mark.claim("noisy-size-plan", "private-rdt-budget", "crosscheck-finite-tv")
def test_the_sized_forest_follows_its_exact_law() -> None:
    """The implementation's outputs against the exact law by total variation (false alarm 1e-6).

    The runs are sized to reject, with probability 1 - 1e-6, the law of a
    count calibrated at the whole epsilon instead of its half.
    """
    law = _sized_forest_law(SIZED_D)
    outcomes = sorted(law, key=repr)
    exact = [law.probability(o) for o in outcomes]
    planted = _sized_forest_law(SIZED_D, SIZED_EPSILON)
    wrong = [planted.probability(o) for o in outcomes]
    tv = 0.5 * math.fsum(abs(a - b) for a, b in zip(exact, wrong))
    n = tv_sample_size(exact, tv, alpha=1e-6, beta=1e-6)
    print(f"total variation to the planted law {tv:.4f}, {n} runs")
    assert tv > 0.2 and n < 2000, (tv, n)
    seed = 20260519
    rng = random.Random(seed)
    index = {o: k for k, o in enumerate(outcomes)}
    samples = [index.get(depth_and_count(_sized_forest(SIZED_D, rng)), -1) for _ in range(n)]
    fit = crosscheck_finite(samples, exact, alpha=1e-6)
    assert not fit.rejected, (seed, n, fit.summary())


@pytest.mark.claim(
    "noisy-size-plan", "thesis-tree-budget", "diffpid3-budget", "dpdf-budget", "dpea-budget", "adaboost-sound",
    "tree-budget-plan",
)
@pytest.mark.parametrize("algorithm", ["thesis-tree", "diffpid3", "dpdf", "dpea", "dp-adaboost"])
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE])
def test_the_greedy_learners_shrink_on_tiny_data_and_total_epsilon(algorithm: str, relation: Relation) -> None:
    vote = load_builtin("vote")
    tiny = train(algorithm, vote.subset(range(12)), Fraction(1, 2), {}, rng=1, relation=relation)
    full = train(algorithm, vote, Fraction(10), {}, rng=1, relation=relation)
    for model in (tiny, full):
        assert model.receipt.sound and model.receipt.delta == 0 and len(_size_charges(model)) == 1
    assert tiny.receipt.epsilon == Fraction(1, 2) and full.receipt.epsilon == 10
    assert _size_charges(tiny) == [Fraction(1, 40)] and _size_charges(full) == [Fraction(1, 2)]
    # 12 rows at epsilon 1/2: no split is affordable, the model is one noisy histogram
    assert all(isinstance(t, Leaf) for t in tiny.trees)
    assert any(not isinstance(t, Leaf) for t in full.trees)
