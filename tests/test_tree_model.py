"""Leaves and the model's JSON round trip."""

from __future__ import annotations

import json

import pytest

from refdp.algorithms import train
from refdp.data import load
from refdp.errors import ModelError
from refdp.privacy import Relation
from refdp.tree import Leaf, dumps_model, model_from_json


@pytest.mark.smoke
def test_leaf_prediction_ties_and_probabilities() -> None:
    leaf = Leaf((3, 3, -1))
    assert leaf.prediction == 0
    assert leaf.probabilities() == [0.5, 0.5, 0.0]
    assert Leaf((-2, -1)).probabilities() == [0.5, 0.5]
    assert Leaf((-2, -1)).prediction == 1
    assert Leaf((1.5, 4.5)).confidence == 0.75
    assert Leaf((-5, 2)).support == 2.0 and Leaf((-5, -1)).support == 0.0
    with pytest.raises(ModelError):
        Leaf(())


def test_model_json_round_trip_predicts_the_same() -> None:
    data = load("tic-tac-toe")
    for relation in Relation:
        model = train("noisy-majority", data, 1, rng=9, relation=relation)
        text = dumps_model(model)
        again = model_from_json(json.loads(text))
        assert again == model
        assert dumps_model(again) == text
        assert again.predict(data) == model.predict(data)
        assert again.predict_proba(data)[0] == model.predict_proba(data)[0]
        assert model.receipt.epsilon == 1


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (lambda o: o.update(format="other"), "not a refdp model"),
        (lambda o: o.update(version=99), "version"),
        (lambda o: o.pop("receipt"), "receipt"),
        (lambda o: o["trees"][0].update(type="pyramid"), "node type"),
        (lambda o: o["trees"][0].update(counts=["x"]), "numeric counts"),
    ],
)
def test_malformed_models_raise_model_error(mutate: object, fragment: str) -> None:
    obj = train("noisy-majority", load("monk2"), 1, rng=1).to_json()
    mutate(obj)  # type: ignore[operator]
    with pytest.raises(ModelError, match=fragment):
        model_from_json(obj)


def test_predict_checks_schema() -> None:
    model = train("noisy-majority", load("monk1"), 1, rng=1)
    with pytest.raises(ModelError, match="schema"):
        model.predict(load("vote"))
