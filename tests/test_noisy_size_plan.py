"""A plan chosen by a noisy size (claim noisy-size-plan): receipts, the depth rule, and an audit.

Statistical test: alpha = 1e-6 (false alarm), fixed seed; the assertion
message carries the audit's numbers.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import List, Tuple

import pytest

from refdp.algorithms import get_algorithm, train
from refdp.algorithms.kanon_rdt import Settings, receipt_delta
from refdp.algorithms.noisy_depth import laplace_variance, mean_branching, passes, plan_depth
from refdp.audit import monte_carlo_audit
from refdp.data import CategoricalAttribute, Dataset, Schema, load_builtin
from refdp.engine import REFERENCE
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
    leaves = mean_branching(load_builtin("vote").schema, 2)
    assert leaves == 3
    for budget in (Fraction(1, 10), Fraction(1), Fraction(10)):
        previous = 0
        for noisy in range(-50, 5000, 37):
            chosen = max(
                (d for d in range(0, 6) if d == 0 or passes(noisy, leaves**d, 2, laplace_variance(budget) / 10, Fraction(5, 2))),
                default=0,
            )
            assert chosen >= previous, (budget, noisy)
            previous = chosen
    # no positive size, no split
    assert not passes(0, Fraction(1), 2, Fraction(0), Fraction(0))


@pytest.mark.claim("noisy-size-plan", "discrete-laplace-mechanism")
def test_plan_depth_charges_the_share_and_leaves_the_rest() -> None:
    ledger = Ledger(Relation.ADD_REMOVE)
    plan = plan_depth(
        1000, Fraction(1), Fraction(1, 10), Fraction(1), 4, 2,
        leaves=lambda d: Fraction(2) ** d, variance=lambda d, budget: laplace_variance(budget / (2 * d + 1)),
        engine=REFERENCE, rng=random.Random(3), ledger=ledger,
    )
    assert plan.epsilon == Fraction(9, 10) and plan.noisy_size is not None and 0 <= plan.depth <= 4
    assert ledger.total() == (Fraction(1, 10), Fraction(0))
    assert plan_depth(
        10, Fraction(1), Fraction(0), Fraction(1), 4, 2, leaves=lambda d: Fraction(1), variance=lambda d, b: b,
        engine=REFERENCE, rng=random.Random(3), ledger=ledger,
    ).depth == 4


def _small_plan_ran(model: TreeModel) -> bool:
    return len(model.trees) == 1


@pytest.mark.claim("noisy-size-plan", "kanon-rdt-privacy", "lqs-delta-certified")
def test_kanon_rdt_states_the_larger_delta_of_its_two_plans() -> None:
    defaults = get_algorithm("kanon-rdt").resolve({})
    share = Fraction(repr(defaults["size_share"]))
    forest = Settings(Fraction(1), 12, 23, Fraction(3, 100), Relation.ADD_REMOVE, share)
    single = Settings(Fraction(1), 1, 19, Fraction(3, 10), Relation.ADD_REMOVE, share)
    stated = max(receipt_delta(forest), receipt_delta(single))
    vote = load_builtin("vote")
    small = train("kanon-rdt", vote, 1, {}, rng=1)
    large = train("kanon-rdt", _repeated(vote, 80), 1, {}, rng=1)  # 34,800 rows
    assert _small_plan_ran(small) and not _small_plan_ran(large)
    for model in (small, large):
        assert model.receipt.epsilon == 1 and model.receipt.delta == stated and model.receipt.sound
        assert _size_charges(model) == [share]
    reserved = [c for c in small.receipt.charges if c.mechanism == "reserved"]
    if receipt_delta(single) < stated:
        assert [c.delta for c in reserved] == [stated - receipt_delta(single)] and reserved[0].epsilon == 0
    with_forest = [c for c in large.receipt.charges if c.mechanism == "reserved"]
    assert sum(c.delta for c in with_forest) == stated - receipt_delta(forest)


@pytest.mark.claim("noisy-size-plan")
def test_kanon_rdt_without_a_noisy_size_runs_the_forest_alone() -> None:
    model = train("kanon-rdt", load_builtin("vote"), 2, {"size_share": 0, "n_trees": 2, "beta": 0.2, "k": 22}, rng=1)
    assert _size_charges(model) == [] and len(model.trees) == 2
    assert not [c for c in model.receipt.charges if c.mechanism == "reserved"]


class SizedForest:
    """private-rdt of one tree, at most one level, half the budget on the noisy size: picklable."""

    def __init__(self) -> None:
        self.params = get_algorithm("private-rdt").resolve(
            {"n_trees": 1, "max_depth": 1, "size_share": 0.5, "leaf_sigmas": 1.0, "voting": "sum-counts"}
        )

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        return get_algorithm("private-rdt").fit(data, Fraction(1), self.params, rng, Relation.ADD_REMOVE)


def depth_and_count(model: TreeModel) -> Tuple[int, int]:
    """Whether the tree split, and the released 'yes' count that a row with a = x reaches (clipped)."""
    tree = model.trees[0]
    leaf = tree if isinstance(tree, Leaf) else route(tree, [[0]], 0)
    return depth(tree), max(-2, min(10, int(leaf.counts[1])))


@pytest.mark.claim("noisy-size-plan", "private-rdt-budget", "empirical-epsilon-lower-bound")
def test_audit_does_not_refute_the_sized_forest() -> None:
    # N~ ~ 11 + DLap(2); one level passes when N~ >= sqrt(8) x 2 x 2 = 11.3: the neighbours straddle the rule
    d = _dataset([("x", "yes")] * 4 + [("x", "no")] * 2 + [("y", "no")] * 5)
    d_add = _dataset([("x", "yes")] * 5 + [("x", "no")] * 2 + [("y", "no")] * 5)
    result = monte_carlo_audit(
        SizedForest(), d, d_add, epsilon=1, trials=3000, selection_trials=600, seed=20260519,
        reduce=depth_and_count,
    )
    assert not result.refuted, result.summary()


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
