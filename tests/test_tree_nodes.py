"""Decision nodes: routing, rules from released counts, rendering, JSON round trip."""

from __future__ import annotations

import json
from typing import List, Tuple

import pytest

from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.errors import ModelError
from refdp.privacy import Ledger, receipt_from_ledger
from refdp.tree import (
    CategoricalSplit,
    IntervalSplit,
    Leaf,
    ThresholdSplit,
    TreeModel,
    ValueSplit,
    children_of,
    depth,
    dumps_model,
    n_nodes,
    released_counts,
    route,
)
from refdp.tree import decode_model
from refdp.tree.integrity import model_digest

SCHEMA = Schema(
    attributes=(
        CategoricalAttribute("colour", ("red", "green", "blue")),
        ContinuousAttribute("age", 0.0, 100.0),
    ),
    label="class",
    classes=("yes", "no"),
)

DATA = Dataset.from_rows(
    SCHEMA,
    [("red", 10), ("green", 50), ("blue", 70), ("red", 90)],
    ["yes", "no", "no", "yes"],
)


def _tree() -> CategoricalSplit:
    return CategoricalSplit(
        0,
        (
            ThresholdSplit(1, 40.0, Leaf((5, 1)), Leaf((0.5, 2.5))),
            Leaf((1, 4)),
            ValueSplit(0, 2, Leaf((-1, 3)), Leaf((0, 0)), counts=(2, 2)),
        ),
    )


def _model(**kwargs: object) -> TreeModel:
    return TreeModel(
        algorithm="noisy-majority",
        variant="sound",
        params={},
        schema=SCHEMA,
        trees=(_tree(),),
        receipt=receipt_from_ledger(Ledger()),
        **kwargs,  # type: ignore[arg-type]
    )


@pytest.mark.smoke
def test_routing_and_prediction() -> None:
    model = _model()
    assert model.predict(DATA) == ["yes", "no", "no", "no"]
    assert model.predict_proba(DATA)[1] == [0.2, 0.8]
    assert depth(model.root) == 2 and n_nodes(model.root) == 8


def test_rules_use_released_counts_only() -> None:
    rules = _model().rules()
    assert len(rules) == 8
    root = rules[0]
    assert root.conditions == () and not root.is_leaf
    # the root has no counts of its own: the sum of its children's released counts,
    # where the blue child's own counts (2, 2) stand for the leaves below it
    assert released_counts(_tree()) == (8.5, 9.5)
    assert root.prediction == "no" and root.support == pytest.approx(18.0)
    blue = [r for r in rules if r.conditions == ("colour = blue",)][0]
    assert blue.support == 4 and blue.confidence == 0.5  # the node's own counts
    assert "age < 40.0" in str(rules[2])


def test_json_round_trip_is_exact() -> None:
    model = _model()
    text = dumps_model(model)
    again = decode_model(json.loads(text))
    assert again == model and dumps_model(again) == text
    assert again.predict(DATA) == model.predict(DATA)


def test_render_mentions_every_condition() -> None:
    text = _model().render()
    for fragment in ("colour = red:", "age >= 40.0:", "colour != blue:", "-> no"):
        assert fragment in text


def test_ensemble_voting_rules() -> None:
    a = Leaf((3, 1))
    b = Leaf((0, 10))
    base = dict(algorithm="x", variant="sound", params={}, schema=SCHEMA, receipt=receipt_from_ledger(Ledger()))
    vote = TreeModel(trees=(a, a, b), voting="vote", **base)  # type: ignore[arg-type]
    counts = TreeModel(trees=(a, a, b), voting="sum-counts", **base)  # type: ignore[arg-type]
    conf = TreeModel(trees=(a, b), weights=(1.0, 0.5), voting="confidence", **base)  # type: ignore[arg-type]
    conf2 = TreeModel(trees=(a, b), weights=(1.0, 0.9), voting="confidence", **base)  # type: ignore[arg-type]
    assert vote.predict(DATA)[0] == "yes"
    assert counts.predict(DATA)[0] == "no"
    assert conf.predict(DATA)[0] == "yes"  # 1.0 * 0.75 for yes against 0.5 * 1.0 for no
    assert conf2.predict(DATA)[0] == "no"  # 1.0 * 0.75 for yes against 0.9 * 1.0 for no
    with pytest.raises(ModelError):
        TreeModel(trees=(a,), voting="dice", **base)  # type: ignore[arg-type]
    with pytest.raises(ModelError):
        vote.root


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda t: t.update(attribute="size"), "not an attribute"),
        (lambda t: t.update(children=[]), "one child per value"),
        (lambda t: t["children"][0].update(threshold="x"), "finite number or an exact rational"),
        (lambda t: t["children"][2].update(value="purple"), "not in the domain"),
        (lambda t: t["children"][1].update(counts=[1, 2, 3]), "classes"),
    ],
)
def test_malformed_nodes(edit: object, fragment: str) -> None:
    obj = _model().to_json()
    edit(obj["trees"][0])  # type: ignore[operator]
    obj["digest"] = model_digest(obj)  # the codec's checks hold whether or not the digest was recomputed
    with pytest.raises(ModelError, match=fragment):
        decode_model(obj)


def _intervals() -> IntervalSplit:
    return IntervalSplit(1, (25.0, 50.0, 75.0), (Leaf((4, 0)), Leaf((3, 1)), Leaf((1, 3)), Leaf((0, 4))), counts=(8, 8))


def _interval_model() -> TreeModel:
    return TreeModel(
        algorithm="noisy-majority", variant="sound", params={}, schema=SCHEMA, trees=(_intervals(),),
        receipt=receipt_from_ledger(Ledger()),
    )


def test_interval_split_routes_half_open_intervals() -> None:
    node = _intervals()
    columns: List[List[float]] = [[0, 0, 0, 0, 0, 0, 0], [0.0, 24.999, 25.0, 49.0, 50.0, 75.0, 100.0]]
    reached = [route(node, columns, row) for row in range(7)]
    assert reached == [node.children[i] for i in (0, 0, 1, 1, 2, 3, 3)]
    assert children_of(node) == node.children and depth(node) == 1 and n_nodes(node) == 5
    assert _interval_model().predict(DATA) == ["yes", "no", "no", "no"]  # ages 10, 50, 70, 90


def test_interval_split_rules_and_json() -> None:
    model = _interval_model()
    conditions = [r.conditions for r in model.rules()]
    assert conditions == [(), ("age < 25.0",), ("25.0 <= age < 50.0",), ("50.0 <= age < 75.0",), ("age >= 75.0",)]
    text = dumps_model(model)
    obj = json.loads(text)
    assert obj["trees"][0]["type"] == "intervals" and obj["trees"][0]["thresholds"] == [25.0, 50.0, 75.0]
    again = decode_model(obj)
    assert again == model and dumps_model(again) == text


@pytest.mark.parametrize(
    "thresholds, n_children",
    [((), 1), ((2.0, 1.0), 3), ((1.0, 1.0), 3), ((float("nan"),), 2), ((1.0,), 3)],
)
def test_interval_split_rejects_bad_shapes(thresholds: Tuple[float, ...], n_children: int) -> None:
    with pytest.raises(ModelError, match="interval split"):
        IntervalSplit(1, thresholds, tuple(Leaf((1, 1)) for _ in range(n_children)))


@pytest.mark.parametrize(
    "edit, fragment",
    [
        (lambda t: t.update(attribute="colour"), "continuous attribute"),
        (lambda t: t.update(thresholds="25"), "numeric thresholds"),
        (lambda t: t.update(thresholds=[25.0, True]), "numeric thresholds"),
        (lambda t: t.update(thresholds=[50.0, 25.0, 75.0]), "strictly increasing"),
        (lambda t: t.update(thresholds=[25.0, 50.0]), "needs 3 children"),
        (lambda t: t.update(children={}), "list of children"),
        (lambda t: t["children"][0].update(counts=[1]), "classes"),
    ],
)
def test_malformed_interval_nodes(edit: object, fragment: str) -> None:
    obj = _interval_model().to_json()
    before = json.dumps(obj)
    edit(obj["trees"][0])  # type: ignore[operator]
    obj["digest"] = model_digest(obj)  # the codec's checks hold whether or not the digest was recomputed
    edited = json.dumps(obj)
    with pytest.raises(ModelError, match=fragment):
        decode_model(obj)
    assert json.dumps(obj) == edited != before
