"""Rows to predict beyond the public bounds are clipped (refdp.data.clipping): no sound tree routes them otherwise."""

from __future__ import annotations

from typing import Dict, List, Union

import pytest

from refdp.algorithms import algorithm_names, train
from refdp.data import ContinuousAttribute, clipped, load, widened
from refdp.tree import route

_SHAPES: Dict[str, Dict[str, object]] = {
    # The random forests also with thresholds drawn on continuous attributes (their default is public bins).
    "private-rdt": {"continuous": "threshold", "categorical": "binary", "max_depth": 4},
    "kanon-rdt": {"continuous": "threshold", "categorical": "binary", "max_delta": 1},
}


_CASES = [(name, {"max_delta": 1} if name == "kanon-rdt" else {}) for name in algorithm_names()] + list(_SHAPES.items())


@pytest.mark.parametrize("name, params", _CASES)
def test_a_value_beyond_a_bound_reaches_the_leaf_of_the_bound(name: str, params: Dict[str, object]) -> None:
    data = load("credit-g").subset(range(300))
    model = train(name, data, 10, params, rng=7)  # type: ignore[arg-type]
    beyond: List[List[Union[int, float]]] = [list(data.column(a)) for a in range(data.schema.n_attributes)]
    for a, attribute in enumerate(data.schema.attributes):
        if isinstance(attribute, ContinuousAttribute):
            for i in range(len(data)):
                beyond[a][i] = attribute.upper + 1e9 if i % 2 else attribute.lower - 1e9
    wide = type(data).from_codes(widened(data.schema), beyond, data.labels)
    inside, count = clipped(wide, data.schema)
    assert count == len(data) * sum(isinstance(a, ContinuousAttribute) for a in data.schema.attributes)
    columns = [inside.column(a) for a in range(data.schema.n_attributes)]
    for tree in model.trees:
        for i in range(len(data)):
            assert route(tree, beyond, i) == route(tree, columns, i), (name, params, i)
