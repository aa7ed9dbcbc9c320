"""Budgets, receipts, replay and input checks of the greedy trees (DiffP-ID3, thesis tree, baseline)."""

from __future__ import annotations

import json
import math
import random
from decimal import Decimal, getcontext
from fractions import Fraction
from typing import Dict, List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import train
from refdp.algorithms.diffpid3 import DEFAULT_MAX_SIZE, stops
from refdp.algorithms.diffpid3 import per_query_epsilon as diffpid3_epsilon
from refdp.algorithms.thesis_tree import per_query_epsilon as thesis_epsilon
from refdp.published.thesis_tree import published_per_query_epsilon
from refdp.data import Dataset, load_builtin
from refdp.errors import InvalidParameterError
from refdp.privacy import Charge, Partition, Relation
from refdp.tree import CategoricalSplit, TreeModel, ValueSplit, depth, dumps_model
from refdp.algorithms import model_from_json
from strategies import datasets, schemas

SOUND = [("diffpid3", "sound"), ("thesis-tree", "sound")]


@pytest.mark.claim("thesis-tree-budget", "diffpid3-budget")
def test_per_query_epsilons_follow_the_papers_and_the_substitute_plans() -> None:
    budget = Fraction(3, 2)
    for d in range(9):
        assert thesis_epsilon(budget, d, Relation.ADD_REMOVE) == budget / (2 * (d + 1) - 1)
        assert thesis_epsilon(budget, d, Relation.SUBSTITUTE) == budget / (4 * d + 1 if d else 2)
        assert published_per_query_epsilon(budget, d) == budget / (2 * d + 1)
        assert diffpid3_epsilon(budget, d, Relation.ADD_REMOVE) == budget / (2 * (d + 1))
        assert diffpid3_epsilon(budget, d, Relation.SUBSTITUTE) == budget / (4 * d + 2 if d else 3)


def _published_plan(budget: Fraction, depth: int, relation: Relation) -> Fraction:
    eps = budget / (2 * depth + 1)
    if relation is Relation.ADD_REMOVE:
        return eps * (2 * depth + 2)
    return eps * (4 * depth + 3 if depth else 4)


def _record_costs(charges: Tuple[Charge, ...]) -> Dict[Tuple[Partition, str], Fraction]:
    """Add-remove cost of a record in each leaf and class, summed from the charges on its path.

    Independent of the ledger's composition code: a record in leaf L with
    class c meets every charge on a prefix of L's partition and every class
    cell ``class=c`` under such a prefix.
    """
    nodes = {c.partition[:-1] if c.partition and c.partition[-1].startswith("class=") else c.partition for c in charges}
    leaves = [p for p in nodes if not any(q != p and q[: len(p)] == p for q in nodes)]
    classes = {c.partition[-1] for c in charges if c.partition and c.partition[-1].startswith("class=")}
    costs: Dict[Tuple[Partition, str], Fraction] = {}
    for leaf in leaves:
        for klass in classes or {"class=?"}:
            total = Fraction(0)
            for c in charges:
                path = c.partition
                if path == leaf[: len(path)]:
                    total += c.epsilon
                elif path[-1:] == (klass,) and path[:-1] == leaf[: len(path) - 1]:
                    total += c.epsilon
            costs[(leaf, klass)] = total
    return costs


def _params(draw: st.DrawFn, name: str, variant: str) -> Dict[str, object]:
    params: Dict[str, object] = {"max_depth": draw(st.integers(0, 4))}
    if name == "diffpid3":
        params["quality"] = draw(st.sampled_from(["info-gain", "gini", "max"]))
        params["max_size"] = draw(st.sampled_from([0, 50, 1000]))
    elif name == "thesis-tree":
        params["quality"] = draw(st.sampled_from(["max", "gini"]))
        params["min_samples"] = draw(st.sampled_from([-1000, 0, 2, 5]))
        params["variant"] = variant
        if variant == "sound":
            params["node_counts"] = draw(st.sampled_from(["every-node", "leaves"]))
            params["level_ratio"] = draw(st.sampled_from([1.0, 0.5, 1.5, 3.0]))
            params["size_share"] = draw(st.sampled_from([0.0, 0.05, 0.5]))
    else:
        params["quality"] = draw(st.sampled_from(["gini", "info-gain"]))
        params["min_samples"] = draw(st.integers(0, 3))
        params["split"] = draw(st.sampled_from(["multiway", "binary"]))
    return params


@pytest.mark.claim(
    "tree-budget-plan", "thesis-tree-budget", "diffpid3-budget", "parallel-composition", "sequential-composition",
    "noisy-size-plan",
)
@settings(max_examples=250)
@given(
    data=st.data(),
    which=st.sampled_from(SOUND + [("thesis-tree", "published"), ("tree-baseline", "non-private")]),
    relation=st.sampled_from(list(Relation)),
    budget=st.sampled_from([Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(7, 3), Fraction(5)]),
    seed=st.integers(0, 2**32 - 1),
)
def test_receipt_total_equals_the_plan_for_every_combination(
    data: st.DataObject, which: Tuple[str, str], relation: Relation, budget: Fraction, seed: int
) -> None:
    name, variant = which
    schema = data.draw(schemas(max_attributes=3, max_values=3, min_classes=1, max_classes=3))
    d = data.draw(datasets(schema, 0, 12))
    params = data.draw(st.composite(lambda draw: _params(draw, name, variant))())
    model = train(name, d, budget, params, rng=seed, relation=relation)
    receipt = model.receipt
    depth = int(params["max_depth"])
    if name == "tree-baseline":
        assert receipt.epsilon == 0 and not receipt.charges and receipt.level == "unsound"
        assert receipt.leaks == ("non-private baseline: reads the data directly",)
        return
    if variant == "published":
        assert receipt.epsilon == _published_plan(budget, depth, relation), (params, receipt.epsilon)
        assert receipt.level == "unsound"
        return
    assert receipt.epsilon == budget, (name, params, relation, receipt.epsilon)
    assert receipt.level != "unsound" and receipt.delta == 0
    reserved = [c for c in receipt.charges if c.mechanism == "reserved"]
    spent = [c for c in receipt.charges if c.mechanism != "reserved"]
    assert len(reserved) <= 1
    if relation is Relation.ADD_REMOVE:
        # Composition by depth (sum along a path) and across siblings (max), recomputed by hand.
        costs = _record_costs(tuple(spent))
        assert max(costs.values()) + sum(c.epsilon for c in reserved) == budget, costs


@pytest.mark.claim("diffpid3-budget", "sequential-composition")
def test_diffpid3_shares_the_split_budget_among_threshold_and_attribute_mechanisms() -> None:
    data = load_builtin("credit-g")
    model = train("diffpid3", data, 2, {"max_depth": 3, "quality": "gini", "size_share": 0}, rng=1)
    eps = diffpid3_epsilon(Fraction(2), 3, Relation.ADD_REMOVE)
    n_continuous = sum(1 for a in data.schema.attributes if a.kind == "continuous")
    by_node: Dict[Partition, List[Charge]] = {}
    for c in model.receipt.charges:
        if c.mechanism == "exponential":
            by_node.setdefault(c.partition, []).append(c)
    assert by_node, "no split was made"
    for node, charges in by_node.items():
        assert len(charges) == n_continuous + 1, node
        assert all(c.epsilon == eps / (n_continuous + 1) for c in charges)
        assert sum(c.epsilon for c in charges) == eps


@pytest.mark.claim("diffpid3-budget")
def test_stopping_rule_is_decided_exactly() -> None:
    getcontext().prec = 60
    root2 = Decimal(2).sqrt()
    rng = random.Random(2)
    for _ in range(3000):
        noisy = rng.randrange(-20, 400)
        t, k = rng.randrange(1, 6), rng.randrange(1, 5)
        eps = Fraction(rng.randrange(1, 200), rng.randrange(1, 100))
        expected = Decimal(noisy) / (t * k) < root2 / (Decimal(eps.numerator) / Decimal(eps.denominator))
        assert stops(noisy, t, k, eps) == expected, (noisy, t, k, eps)


# --- information gain's public size bound -------------------------------------------------------


def _info_gain_sensitivities(model: TreeModel) -> List[object]:
    return [c.sensitivity for c in model.receipt.charges if c.mechanism == "exponential"]


@pytest.mark.claim("diffpid3-info-gain-size-bound", "information-gain-sensitivity")
@pytest.mark.parametrize(
    "max_size, relation, expected",
    [
        (500, Relation.ADD_REMOVE, 500),
        (0, Relation.ADD_REMOVE, DEFAULT_MAX_SIZE),
        (0, Relation.SUBSTITUTE, 435),
        (10**7, Relation.SUBSTITUTE, 10**7),
    ],
)
def test_info_gain_is_calibrated_with_the_public_bound(max_size: int, relation: Relation, expected: int) -> None:
    data = load_builtin("vote")
    model = train(
        "diffpid3", data, 5, {"quality": "info-gain", "max_depth": 2, "max_size": max_size}, rng=3, relation=relation
    )
    sensitivities = _info_gain_sensitivities(model)
    assert sensitivities, "the tree made no split"
    assert set(sensitivities) == {math.log2(expected + 1) + 1 / math.log(2)}
    assert all(f"N={expected}" in c.note for c in model.receipt.charges if c.mechanism == "exponential")


@pytest.mark.claim("diffpid3-info-gain-size-bound")
def test_data_larger_than_the_declared_bound_is_refused_before_any_draw() -> None:
    data = load_builtin("vote")
    params = {"max_size": "400", "quality": "info-gain"}
    rng = random.Random(9)
    state = rng.getstate()
    with pytest.raises(InvalidParameterError, match="max_size=400"):
        train("diffpid3", data, 1, params, rng=rng)
    assert rng.getstate() == state and params == {"max_size": "400", "quality": "info-gain"} and len(data) == 435
    with pytest.raises(InvalidParameterError, match="max_size"):
        train("diffpid3", data, 1, {"max_size": -1, "quality": "info-gain"})
    # Other quality functions do not need the bound.
    train("diffpid3", data, 1, {"max_size": 400, "quality": "max", "max_depth": 1}, rng=1)


@pytest.mark.claim("diffpid3-info-gain-size-bound", "information-gain-sensitivity")
def test_a_noisy_size_below_the_true_size_would_under_calibrate() -> None:
    """The counterexample of the claim: 40 rows, a noisy size of 10."""

    def phi(m: int) -> float:
        return (m + 1) * math.log2(m + 1) - (m * math.log2(m) if m else 0.0)

    assert phi(39) > math.log2(11) + 1 / math.log(2) + 1.8


# --- replay, JSON, bad input -------------------------------------------------------------------

CASES = [
    ("diffpid3", {}),
    ("diffpid3", {"quality": "max", "max_depth": 3}),
    ("thesis-tree", {}),
    ("thesis-tree", {"quality": "gini"}),
    ("thesis-tree", {"variant": "published"}),
    ("thesis-tree", {"variant": "published", "quality": "gini"}),
    ("tree-baseline", {"quality": "info-gain"}),
    ("tree-baseline", {"split": "binary"}),
]


@pytest.mark.smoke
@pytest.mark.parametrize("name, params", CASES)
def test_same_seed_same_model_and_json_round_trip_predicts_the_same(name: str, params: Dict[str, object]) -> None:
    data = load_builtin("credit-g")
    first = train(name, data, 1, params, rng=21)  # type: ignore[arg-type]
    second = train(name, data, 1, params, rng=21)  # type: ignore[arg-type]
    text = dumps_model(first)
    assert text == dumps_model(second)
    again = model_from_json(json.loads(text))
    assert again.predict(data) == first.predict(data)
    assert again.predict_proba(data) == first.predict_proba(data)
    assert again.receipt == first.receipt
    assert dumps_model(again) == text


@pytest.mark.parametrize(
    "name, params, epsilon, fragment",
    [
        ("thesis-tree", {"max_depth": -1}, 1, "max_depth"),
        ("diffpid3", {"max_depth": "deep"}, 1, "max_depth"),
        ("thesis-tree", {"quality": "info-gain"}, 1, "quality"),
        ("thesis-tree", {"variant": "textbook"}, 1, "variant"),
        ("diffpid3", {"min_samples": 3}, 1, "min_samples"),
        ("tree-baseline", {"max_depth": -2}, 1, "max_depth"),
        ("diffpid3", {}, 0, "epsilon"),
        ("thesis-tree", {}, "nan", "epsilon"),
    ],
)
def test_bad_input_is_refused_and_changes_nothing(
    name: str, params: Dict[str, object], epsilon: object, fragment: str
) -> None:
    data = load_builtin("tic-tac-toe")
    before = dict(params)
    rng = random.Random(1)
    state = rng.getstate()
    with pytest.raises(InvalidParameterError, match=fragment):
        train(name, data, epsilon, params, rng=rng)  # type: ignore[arg-type]
    assert params == before and rng.getstate() == state


def test_empty_and_single_class_data_are_handled() -> None:
    data = load_builtin("tic-tac-toe")
    empty: Dataset = data.subset([])
    for name, params in CASES:
        model = train(name, empty, 1, params, rng=1)  # type: ignore[arg-type]
        assert set(model.predict(data)) <= set(data.schema.classes)
    positives = data.subset([i for i in range(len(data)) if data.labels[i] == 0])
    model = train("tree-baseline", positives, 1, {}, rng=1)
    assert set(model.predict(data)) == {data.schema.classes[0]}


@pytest.mark.parametrize("name", ["diffpid3", "thesis-tree", "tree-baseline"])
def test_max_depth_bounds_the_tree(name: str) -> None:
    data = load_builtin("vote")
    for d in (0, 1, 3):
        model = train(name, data, 50, {"max_depth": d}, rng=d)
        assert depth(model.root) <= d


@pytest.mark.parametrize("split, node", [("multiway", CategoricalSplit), ("binary", ValueSplit)])
def test_baseline_learns_tic_tac_toe(split: str, node: type) -> None:
    """The non-private yardstick really fits: a deep tree classifies its training data almost perfectly."""
    data = load_builtin("tic-tac-toe")
    model = train("tree-baseline", data, 1, {"split": split, "max_depth": 9, "min_samples": 0}, rng=1)
    assert isinstance(model.root, node)
    correct = sum(p == data.label(i) for i, p in enumerate(model.predict(data)))
    assert correct / len(data) > 0.97, correct
