"""Compiled, column-wise prediction gives the reference's predictions and probabilities (issue 33).

:mod:`refdp.tree.compiled` routes every row at once through a tree compiled
once; :meth:`TreeModel.predict` and :meth:`TreeModel.predict_proba` use it
by default (``engine="array"``) and walk each row down each tree with
``engine="reference"``.  Hypothesis draws trees of every split kind
(categorical multiway, value-vs-rest, thresholds, interval splits), leaves
with negative, zero and fractional counts (uninformative leaves fall back
on an ancestor), every voting rule, tree weights and rows with ties on the
cuts; the leaf each row reaches, the predictions and the probabilities
must be equal, float for float.  Then the wide cases: more than 256 leaves
(two-byte leaf numbers), more than 256 categorical values, more than 255
interval thresholds, and attributes compared with many cuts (rank columns).
"""

from __future__ import annotations

import random
from typing import Any, Dict, List, Sequence, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import train
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load
from refdp.errors import InvalidParameterError
from refdp.privacy import Ledger, Relation, receipt_from_ledger
from refdp.tree import (
    VOTING,
    CategoricalSplit,
    IntervalSplit,
    Leaf,
    Node,
    ThresholdSplit,
    TreeModel,
    ValueSplit,
    released_counts,
)
from refdp.tree.compiled import Columns, compile_tree, cuts_by_attribute, leaf_numbers
from refdp.tree.nodes import route_informed

CUTS = (-1.5, -0.0, 0.0, 0.5, 1.0, 2.0, 3.25)
"""Values the rows and the thresholds share, so that rows fall on cuts."""


def _schema(n_values: int, n_classes: int) -> Schema:
    return Schema(
        (
            CategoricalAttribute("a", tuple(f"v{i}" for i in range(n_values))),
            ContinuousAttribute("x", -2, 4),
            CategoricalAttribute("b", ("p", "q", "r")),
            ContinuousAttribute("y", -2, 4),
        ),
        "class",
        tuple(f"c{i}" for i in range(n_classes)),
    )


@st.composite
def leaves_of(draw: st.DrawFn, n_classes: int) -> Leaf:
    count = st.one_of(st.integers(-3, 6), st.sampled_from([0.0, -0.5, 1.5, 2.25]))
    return Leaf(tuple(draw(count) for _ in range(n_classes)))


@st.composite
def trees(draw: st.DrawFn, schema: Schema, depth: int) -> Node:
    k = schema.n_classes
    if depth == 0 or draw(st.integers(0, 4)) == 0:
        leaf: Leaf = draw(leaves_of(k))
        return leaf
    counts = draw(st.one_of(st.none(), st.tuples(*[st.integers(-2, 5)] * k)))
    kind = draw(st.sampled_from(["categorical", "value", "threshold", "interval"]))
    below = trees(schema, depth - 1)
    if kind == "categorical":
        a = draw(st.sampled_from([0, 2]))
        size = _n_values(schema, a)
        return CategoricalSplit(a, tuple(draw(below) for _ in range(size)), counts=counts)
    if kind == "value":
        a = draw(st.sampled_from([0, 2]))
        value = draw(st.integers(0, _n_values(schema, a) - 1))
        return ValueSplit(a, value, draw(below), draw(below), counts=counts)
    a = draw(st.sampled_from([1, 3]))
    if kind == "threshold":
        return ThresholdSplit(a, draw(st.sampled_from(CUTS)) + 0.0, draw(below), draw(below), counts=counts)
    thresholds = sorted(set(draw(st.lists(st.sampled_from([c + 0.0 for c in CUTS]), min_size=1, max_size=4))))
    return IntervalSplit(a, tuple(thresholds), tuple(draw(below) for _ in range(len(thresholds) + 1)), counts=counts)


def _n_values(schema: Schema, a: int) -> int:
    attribute = schema.attributes[a]
    assert isinstance(attribute, CategoricalAttribute)
    return attribute.n_values


@st.composite
def rows_for(draw: st.DrawFn, schema: Schema) -> Dataset:
    n = draw(st.integers(0, 30))
    columns: List[List[Union[int, float]]] = []
    for attribute in schema.attributes:
        if isinstance(attribute, CategoricalAttribute):
            columns.append(draw(st.lists(st.integers(0, attribute.n_values - 1), min_size=n, max_size=n)))
        else:
            value = st.one_of(st.sampled_from(CUTS), st.floats(-2, 4, allow_nan=False))
            columns.append(draw(st.lists(value, min_size=n, max_size=n)))
    return Dataset.from_codes(schema, columns, [0] * n)


def _model(schema: Schema, forest: Sequence[Node], weights: Sequence[float], voting: str) -> TreeModel:
    return TreeModel(
        algorithm="test", variant="sound", params={}, schema=schema, trees=tuple(forest),
        receipt=receipt_from_ledger(Ledger(Relation.ADD_REMOVE)), weights=tuple(weights), voting=voting,
    )


def assert_same_predictions(model: TreeModel, data: Dataset) -> None:
    columns = [data.column(a) for a in range(data.schema.n_attributes)]
    table = Columns([tuple(c) for c in columns], len(data), cuts_by_attribute(model.trees))
    for tree in model.trees:
        compiled = compile_tree(tree, released_counts)
        numbers = leaf_numbers(compiled, table)
        routed = [route_informed(tree, columns, i, released_counts) for i in range(len(data))]
        assert [compiled.leaves[number] for number in numbers] == routed
    assert model.predict(data) == model.predict(data, engine="reference")
    assert model.predict_proba(data) == model.predict_proba(data, engine="reference")


@settings(max_examples=150, deadline=None)
@given(st.data(), st.integers(2, 5), st.integers(2, 4), st.integers(1, 4), st.sampled_from(VOTING))
def test_compiled_routing_matches_the_reference(
    data: st.DataObject, n_values: int, n_classes: int, n_trees: int, voting: str
) -> None:
    schema = _schema(n_values, n_classes)
    forest = [data.draw(trees(schema, 4)) for _ in range(n_trees)]
    weights = data.draw(st.lists(st.sampled_from([1.0, 0.5, 0.25, 2.0, 0.1]), min_size=n_trees, max_size=n_trees))
    rows = data.draw(rows_for(schema))
    if data.draw(st.booleans()) and len(rows):
        # a subset reads its columns through views of the base columns
        rows = rows.subset(data.draw(st.lists(st.integers(0, len(rows) - 1), max_size=len(rows))))
    assert_same_predictions(_model(schema, forest, weights, voting), rows)


def _random_tree(schema: Schema, rng: random.Random, depth: int) -> Node:
    if depth == 0:
        return Leaf(tuple(rng.randint(-1, 5) for _ in range(schema.n_classes)))
    a = rng.randrange(schema.n_attributes)
    attribute = schema.attributes[a]
    if isinstance(attribute, CategoricalAttribute):
        return ValueSplit(a, rng.randrange(attribute.n_values), _random_tree(schema, rng, depth - 1),
                          _random_tree(schema, rng, depth - 1))
    cut = rng.choice(CUTS) + 0.0 if rng.random() < 0.5 else round(rng.uniform(-2, 4), 2)
    return ThresholdSplit(a, cut, _random_tree(schema, rng, depth - 1), _random_tree(schema, rng, depth - 1))


def _random_rows(schema: Schema, rng: random.Random, n: int) -> Dataset:
    columns: List[List[Union[int, float]]] = []
    for attribute in schema.attributes:
        if isinstance(attribute, CategoricalAttribute):
            columns.append([rng.randrange(attribute.n_values) for _ in range(n)])
        else:
            columns.append([rng.choice(CUTS) if rng.random() < 0.3 else round(rng.uniform(-2, 4), 3) for _ in range(n)])
    return Dataset.from_codes(schema, columns, [rng.randrange(schema.n_classes) for _ in range(n)])


def test_more_than_256_leaves_take_two_byte_leaf_numbers() -> None:
    rng = random.Random(3)
    schema = _schema(4, 3)
    tree = _random_tree(schema, rng, 10)
    assert compile_tree(tree, released_counts).width == 2
    data = _random_rows(schema, rng, 500)
    for voting in VOTING:
        assert_same_predictions(_model(schema, [tree, _random_tree(schema, rng, 3)], [1.0, 0.5], voting), data)


def test_wide_domains_and_many_interval_thresholds() -> None:
    rng = random.Random(4)
    schema = _schema(300, 2)  # codes above 255: no byte column
    thresholds = tuple(-2 + 6 * i / 300 for i in range(1, 300))  # 299 thresholds: interval numbers above 255
    interval = IntervalSplit(1, thresholds, tuple(Leaf((i % 3, 1)) for i in range(300)))
    categorical = CategoricalSplit(0, tuple(Leaf((1, i % 2)) for i in range(300)))
    value = ValueSplit(0, 299, Leaf((0, 2)), ValueSplit(0, 7, Leaf((3, 0)), Leaf((0, 0))))
    data = _random_rows(schema, rng, 400)
    for voting in VOTING:
        assert_same_predictions(_model(schema, [interval, categorical, value], [1.0, 0.3, 2.0], voting), data)


def test_an_attribute_with_many_cuts_uses_its_ranks_and_agrees() -> None:
    rng = random.Random(5)
    schema = _schema(3, 2)
    forest = [_random_tree(schema, rng, 5) for _ in range(8)]
    assert max(cuts_by_attribute(forest).values()) >= 4
    data = _random_rows(schema, rng, 300)
    many = Dataset.from_codes(  # more than 256 distinct values: compared row by row instead
        schema, [list(data.column(0)), [rng.uniform(-2, 4) for _ in range(300)], list(data.column(2)),
                 list(data.column(3))], list(data.labels),
    )
    for rows in (data, many):
        assert_same_predictions(_model(schema, forest, [1.0] * 8, "log-odds"), rows)


@pytest.mark.parametrize("name,params", [
    ("private-rdt", {"n_trees": 4, "max_depth": 4, "categorical": "binary", "continuous": "threshold"}),
    ("kanon-rdt", {}),
    ("dpdf", {"n_trees": 3}),
    ("dp-adaboost", {}),
    ("diffpid3", {}),
    ("thesis-tree", {"max_depth": 3}),
])
def test_trained_models_predict_alike_on_both_engines(name: str, params: Dict[str, Any]) -> None:
    data = load("credit-g")
    model = train(name, data, 2, params, rng=7)
    assert_same_predictions(model, data)
    rows = [data.row(i) for i in range(0, 50)]
    assert model.predict(rows) == model.predict(rows, engine="reference")


def test_an_empty_input_and_an_unknown_engine() -> None:
    data = load("vote")
    model = train("private-rdt", data, 1, {"n_trees": 2}, rng=1)
    assert model.predict(data.subset([])) == [] == model.predict_proba(data.subset([]))
    with pytest.raises(InvalidParameterError, match="engine must be array or reference"):
        model.predict(data, engine="fast")

