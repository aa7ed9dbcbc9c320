"""k-AnonToRdt: receipts with epsilon and delta, per-cell suppression, replay, Monte-Carlo audits.

Statistical tests: alpha = 1e-6 per audit (false alarm), fixed seeds, trials
from ``required_trials`` at power 0.999 where a refutation is expected; the
assertion messages carry the audit's numbers.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Dict, List, Sequence, Union

import pytest

from refdp.algorithms import get_algorithm, train
from refdp.algorithms.kanon_rdt import tree_guarantee
from refdp.audit import monte_carlo_audit, required_trials
from refdp.data import CategoricalAttribute, Dataset, Schema, load_builtin
from refdp.errors import InvalidParameterError
from refdp.evaluation import train_test_evaluate
from refdp.privacy import Relation, lqs_delta
from refdp.privacy.lqs import exp_bounds, float_up
from refdp.rng import RandomSource
from refdp.tree import Leaf, TreeModel, children_of, dumps_model, leaves, route

SCHEMA = Schema((CategoricalAttribute("a", ("x", "y")),), "c", ("no", "yes"))
X = [[0]]  # a row with a = x


def _dataset(rows: Sequence[str], labels: Sequence[str]) -> Dataset:
    return Dataset.from_rows(SCHEMA, [(r,) for r in rows], labels)


class KanonRdt:
    """The registered fit with fixed settings (one tree of depth 1: the split on a), picklable."""

    def __init__(self, variant: str, k: int, beta: float) -> None:
        self.params = get_algorithm("kanon-rdt").resolve(
            {"variant": variant, "n_trees": 1, "max_depth": 1, "k": k, "beta": beta}
        )

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        return get_algorithm("kanon-rdt").fit(data, Fraction(1), self.params, rng, Relation.ADD_REMOVE)


def count_x_yes(model: TreeModel) -> int:
    """The released count of (leaf a=x, label yes) in tree 0 (0 when suppressed)."""
    return int(route(model.trees[0], X, 0).counts[1])


# --- audits ------------------------------------------------------------------

# k = 3, beta = 1/2, epsilon = 1: lqs_delta = 1/8 (= beta^k, attained here).  Two
# (x, yes) records plus the target: (x, yes) shows 3 exactly when all three
# are kept, probability 1/8, and never without the target.
TIGHT_D = _dataset(["x", "x", "y", "y"], ["yes", "yes", "no", "no"])
TIGHT_D_ADD = _dataset(["x", "x", "y", "y", "x"], ["yes", "yes", "no", "no", "yes"])


@pytest.mark.claim("kanon-rdt-privacy", "lqs-sampling-suppression", "empirical-epsilon-lower-bound")
def test_audit_does_not_refute_the_sound_variant_at_its_receipt() -> None:
    mechanism = KanonRdt("sound", 3, 0.5)
    receipt = mechanism(TIGHT_D, random.Random(0)).receipt
    assert receipt.epsilon == 1 and float(receipt.delta) == lqs_delta(3, 0.5, 1).delta
    result = monte_carlo_audit(
        mechanism, TIGHT_D, TIGHT_D_ADD, epsilon=receipt.epsilon, delta=receipt.delta,
        trials=3000, selection_trials=500, seed=7001, reduce=count_x_yes,
    )
    assert not result.refuted, result.summary()


@pytest.mark.claim("kanon-rdt-privacy", "empirical-epsilon-lower-bound")
def test_the_same_audit_refutes_a_smaller_delta() -> None:
    """Power: on this pair the true delta is 1/8, so a claim of delta = 0.05 is caught."""
    p2 = 1e-5  # P[(x, yes) shows 3 | D] is 0; required_trials needs a positive stand-in
    trials = required_trials(math.log(0.125 / p2), 1, p2, delta=0.05)
    result = monte_carlo_audit(
        KanonRdt("sound", 3, 0.5), TIGHT_D, TIGHT_D_ADD, epsilon=1, delta=Fraction(1, 20),
        trials=trials, selection_trials=500, seed=7002, reduce=count_x_yes,
    )
    assert result.refuted, result.summary()


# A large leaf of "no" records; the target is the only "yes" in it.
MINORITY_D = _dataset(["x"] * 30 + ["y"] * 5, ["no"] * 35)
MINORITY_D_ADD = _dataset(["x"] * 30 + ["y"] * 5 + ["x"], ["no"] * 35 + ["yes"])


@pytest.mark.claim("leaf-total-suppression-not-private", "empirical-epsilon-lower-bound")
def test_audit_refutes_leaf_total_suppression() -> None:
    mechanism = KanonRdt("leaf-total", 5, 0.5)
    receipt = mechanism(MINORITY_D, random.Random(0)).receipt
    assert receipt.level == "unsound" and float(receipt.delta) == lqs_delta(5, 0.5, 1).delta  # 0.109
    p1 = 0.5 * (1 - 2.0**-30 * sum(math.comb(30, j) for j in range(4)))  # beta P[Bin(30, 1/2) >= 4]
    p2 = 1e-5
    trials = required_trials(math.log(p1 / p2), 1, p2, delta=receipt.delta)
    result = monte_carlo_audit(
        mechanism, MINORITY_D, MINORITY_D_ADD, epsilon=receipt.epsilon, delta=receipt.delta,
        trials=trials, selection_trials=200, seed=7003, reduce=count_x_yes,
    )
    assert result.refuted, result.summary()
    assert result.k2 == 0, result.summary()


@pytest.mark.claim("kanon-rdt-privacy", "leaf-total-suppression-not-private")
def test_the_sound_variant_never_shows_the_lone_minority_record() -> None:
    mechanism = KanonRdt("sound", 5, 0.5)
    result = monte_carlo_audit(
        mechanism, MINORITY_D, MINORITY_D_ADD, epsilon=1, delta=lqs_delta(5, 0.5, 1).delta,
        trials=300, selection_trials=100, seed=7004, reduce=count_x_yes,
    )
    assert not result.refuted and result.k1 == result.k2, result.summary()
    rng = random.Random(7005)
    assert all(count_x_yes(mechanism(MINORITY_D_ADD, rng)) == 0 for _ in range(200))


# --- receipts ----------------------------------------------------------------


@pytest.mark.claim("kanon-rdt-privacy", "sequential-composition")
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE])
def test_receipt_reports_epsilon_and_delta(relation: Relation) -> None:
    data = load_builtin("vote")
    params = {"n_trees": 4, "k": 5, "beta": 0.2, "max_depth": 3}
    model = train("kanon-rdt", data, 3, params, rng=1, relation=relation)
    receipt = model.receipt
    share = Fraction(3, 4) if relation is Relation.ADD_REMOVE else Fraction(3, 8)
    lqs = lqs_delta(5, Fraction(1, 5), share)
    per_tree = (
        Fraction(lqs.delta)
        if relation is Relation.ADD_REMOVE
        else Fraction(float_up((1 + exp_bounds(share, 64)[1]) * Fraction(lqs.delta)))
    )
    assert receipt.epsilon == 3 and receipt.delta == 4 * per_tree
    assert receipt.sound and model.voting == "sum-counts"
    charges = [c for c in receipt.charges if not c.data_independent]
    assert [c.partition for c in charges] == [("tree0",), ("tree1",), ("tree2",), ("tree3",)]
    assert all(c.delta == per_tree for c in charges)
    assert sum(1 for c in receipt.charges if c.data_independent) == 4
    assert tree_guarantee(Fraction(3), 4, 5, Fraction(1, 5), relation).delta == per_tree


def test_too_small_an_epsilon_is_refused_with_the_smallest_that_works() -> None:
    data = load_builtin("vote")
    params = {"n_trees": 10, "beta": 0.4}
    with pytest.raises(InvalidParameterError) as info:
        train("kanon-rdt", data, 5, params, rng=1)
    assert "at least 5.10826" in str(info.value), str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        train("kanon-rdt", data, 10, params, rng=1, relation=Relation.SUBSTITUTE)
    assert "at least 10.2165" in str(info.value), str(info.value)
    assert params == {"n_trees": 10, "beta": 0.4}
    assert train("kanon-rdt", data, Fraction(511, 100), params, rng=1).receipt.epsilon == Fraction(511, 100)


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"k": -1}, "k must be an int >= 0"),
        ({"beta": 1.0}, "beta (the sampling probability) must be in (0, 1)"),
        ({"beta": 0.0}, "must be in (0, 1)"),
        ({"n_trees": 0}, "n_trees must be an int >= 1"),
        ({"variant": "other"}, "variant must be one of"),
        ({"max_depth": 65}, "max_depth must be in 0..64"),
    ],
)
def test_bad_parameters_are_refused(params: Dict[str, Union[int, float, str]], fragment: str) -> None:
    with pytest.raises(InvalidParameterError) as info:
        train("kanon-rdt", load_builtin("vote"), 5, params, rng=1)
    assert fragment in str(info.value), str(info.value)


def test_k_zero_is_the_unpruned_baseline_with_the_k_one_guarantee() -> None:
    data = load_builtin("vote")
    model = train("kanon-rdt", data, 2, {"k": 0, "beta": 0.1, "n_trees": 2}, rng=1)
    per_tree = lqs_delta(1, 0.1, 1).delta
    assert per_tree >= 0.1 and float(model.receipt.delta) == float(Fraction(per_tree) * 2)
    assert any(0 < c < 5 for t in model.trees for leaf in leaves(t) for c in leaf.counts)


# --- what is released --------------------------------------------------------


def _all_counts(model: TreeModel) -> List[int]:
    return [int(c) for t in model.trees for leaf in leaves(t) for c in leaf.counts]


@pytest.mark.claim("kanon-rdt-privacy")
def test_every_released_count_is_zero_or_at_least_k() -> None:
    model = train("kanon-rdt", load_builtin("vote"), 10, {"k": 5, "beta": 0.5, "max_depth": 2}, rng=3)
    counts = _all_counts(model)
    assert all(c == 0 or c >= 5 for c in counts) and any(c >= 5 for c in counts)
    faulty = train("kanon-rdt", load_builtin("vote"), 10, {"k": 5, "beta": 0.5, "max_depth": 2, "variant": "leaf-total"}, rng=3)
    assert any(0 < c < 5 for c in _all_counts(faulty))
    assert faulty.receipt.level == "unsound"


def _no_all_zero_subtree(node: object) -> bool:
    if isinstance(node, Leaf):
        return True
    kids = children_of(node)  # type: ignore[arg-type]
    for kid in kids:
        if not isinstance(kid, Leaf) and not any(any(l.counts) for l in leaves(kid)):
            return False
    return all(_no_all_zero_subtree(k) for k in kids)


@pytest.mark.claim("kanon-rdt-privacy")
def test_all_zero_subtrees_are_shown_as_one_zero_leaf() -> None:
    model = train("kanon-rdt", load_builtin("vote"), 10, {"k": 10, "beta": 0.3, "max_depth": 6}, rng=4)
    assert all(_no_all_zero_subtree(t) for t in model.trees)


def test_replay_gives_byte_identical_json() -> None:
    data = load_builtin("vote")
    params = {"n_trees": 3, "max_depth": 4, "beta": 0.3}
    first = dumps_model(train("kanon-rdt", data, 5, params, rng=42))
    assert first == dumps_model(train("kanon-rdt", data, 5, params, rng=42))
    assert first != dumps_model(train("kanon-rdt", data, 5, params, rng=43))


def test_cross_validation_and_a_fixed_split_run() -> None:
    vote = load_builtin("vote")
    result = train_test_evaluate(
        "kanon-rdt", vote.subset(range(0, 300)), vote.subset(range(300, 435)), 10,
        params={"beta": 0.5, "k": 3, "max_depth": 3}, seed=1,
    )
    assert result.mean > 0.7 and result.receipt_epsilon == 10 and result.receipt_delta > 0


@pytest.mark.slow
def test_adult_train_test_accuracy_is_in_the_papers_range() -> None:
    """Table 6(b): 0.78-0.82 at depth 7-9 with 8-11 trees; the majority class is 0.764."""
    result = train_test_evaluate(
        "kanon-rdt", load_builtin("adult"), load_builtin("adult-test"), 10,
        params={"beta": 0.4, "k": 5, "max_depth": 9}, seed=1,
    )
    assert 0.79 < result.mean < 0.84, result


class KanonSubstitute:
    def __init__(self) -> None:
        self.params = get_algorithm("kanon-rdt").resolve({"n_trees": 2, "max_depth": 1, "k": 3, "beta": 0.5})

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        return get_algorithm("kanon-rdt").fit(data, Fraction(4), self.params, rng, Relation.SUBSTITUTE)


def counts_x(model: TreeModel) -> object:
    return tuple(int(route(t, X, 0).counts[1]) for t in model.trees)


@pytest.mark.slow
@pytest.mark.claim("kanon-rdt-privacy", "empirical-epsilon-lower-bound")
def test_audit_does_not_refute_kanon_rdt_under_substitute() -> None:
    d = _dataset(["x", "x", "y", "y", "y"], ["yes", "yes", "no", "no", "yes"])
    d_sub = _dataset(["x", "x", "y", "y", "x"], ["yes", "yes", "no", "no", "yes"])
    mechanism = KanonSubstitute()
    receipt = mechanism(d, random.Random(0)).receipt
    assert receipt.epsilon == 4
    result = monte_carlo_audit(
        mechanism, d, d_sub, epsilon=receipt.epsilon, delta=receipt.delta,
        trials=20000, selection_trials=5000, seed=7006, reduce=counts_x,
    )
    assert not result.refuted, result.summary()
