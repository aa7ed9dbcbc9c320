"""Public threshold grids: exact points, exact codes, exact rational thresholds in models."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from typing import List

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.data import ContinuousAttribute, Schema, CategoricalAttribute
from refdp.data.grid import MAX_CELLS, ThresholdGrid, canonical_threshold, ceil_float, format_threshold
from refdp.errors import InvalidParameterError, ModelError
from refdp.privacy import Ledger, receipt_from_ledger
from refdp.tree import Leaf, ThresholdSplit, TreeModel, dumps_model, route
from refdp.tree import decode_model
from refdp.tree.integrity import model_digest

finite = st.floats(min_value=-1e12, max_value=1e12, allow_nan=False, allow_infinity=False)


@settings(max_examples=300, deadline=None)
@given(finite, finite, st.integers(2, 300), st.lists(st.floats(0, 1), min_size=1, max_size=20))
def test_codes_count_the_grid_points_at_or_below_each_value(a: float, b: float, cells: int, spots: List[float]) -> None:
    lower, upper = sorted((a, b))
    if not lower < upper:
        return
    grid = ThresholdGrid.of(ContinuousAttribute("x", lower, upper), cells)
    exact = [Fraction(lower) + k * (Fraction(upper) - Fraction(lower)) / cells for k in range(1, cells)]
    assert [Fraction(p) for p in grid.points] == exact
    values = [min(upper, max(lower, lower + s * (upper - lower))) for s in spots]
    values += [float(p) for p in grid.points[:3]] + [lower, upper]
    for x in values:
        assert grid.code(x) == sum(1 for p in exact if p <= x)
        for k in range(1, cells):
            # the split x < g_k is code < k, and the float cut decides it exactly
            assert (x < exact[k - 1]) == (grid.code(x) < k) == (x < grid.cuts[k - 1])


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(finite, st.floats(min_value=-1e300, max_value=1e300, allow_nan=False, allow_infinity=False)),
    st.one_of(finite, st.floats(min_value=-1e-300, max_value=1e-300, allow_nan=False, allow_infinity=False)),
    st.integers(2, 300),
)
def test_grid_points_and_cuts_are_the_canonical_threshold_and_ceil_float_of_each_point(
    a: float, b: float, cells: int
) -> None:
    # The grid forms its points in integers; they must be exactly what the two functions give of the
    # exact rational points, type and sign of zero included (a released threshold is one of them).
    lower, upper = sorted((a, b))
    if not lower < upper:
        return
    grid = ThresholdGrid.of(ContinuousAttribute("x", lower, upper), cells)
    exact = [Fraction(lower) + k * (Fraction(upper) - Fraction(lower)) / cells for k in range(1, cells)]
    assert [(type(p), repr(p)) for p in grid.points] == [
        (type(canonical_threshold(t)), repr(canonical_threshold(t))) for t in exact
    ]
    assert [repr(c) for c in grid.cuts] == [repr(ceil_float(canonical_threshold(t))) for t in exact]


def test_ceil_float_and_canonical_form() -> None:
    third = Fraction(1, 3)
    up = ceil_float(third)
    assert Fraction(up) >= third and Fraction(math.nextafter(up, -math.inf)) < third
    assert ceil_float(0.25) == 0.25 and ceil_float(Fraction(1, 4)) == 0.25
    assert canonical_threshold(Fraction(1, 4)) == 0.25 and isinstance(canonical_threshold(Fraction(1, 4)), float)
    assert canonical_threshold(third) is third
    assert math.copysign(1.0, canonical_threshold(-0.0)) == 1.0
    assert format_threshold(third) == "1/3" and format_threshold(0.25) == "0.25"
    with pytest.raises(InvalidParameterError):
        canonical_threshold(math.inf)


@pytest.mark.parametrize("cells", [1, 0, -3, MAX_CELLS + 1, True, 2.0])
def test_bad_grids_are_refused(cells: object) -> None:
    with pytest.raises(InvalidParameterError, match="cells"):
        ThresholdGrid(Fraction(0), Fraction(1), cells)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        ThresholdGrid(Fraction(0), Fraction(1), 8).point(8)


SCHEMA = Schema((ContinuousAttribute("x", 0.0, 1.0), CategoricalAttribute("c", ("a", "b"))), "class", ("yes", "no"))


def _model(threshold: Fraction) -> TreeModel:
    tree = ThresholdSplit(0, threshold, Leaf((3, 0)), Leaf((0, 3)))
    return TreeModel(
        algorithm="noisy-majority", variant="sound", params={}, schema=SCHEMA, trees=(tree,),
        receipt=receipt_from_ledger(Ledger()),
    )


def test_rational_thresholds_round_trip_exactly_and_route_exactly() -> None:
    third = Fraction(1, 3)
    model = _model(third)
    text = dumps_model(model)
    assert '"threshold": "1/3"' in text
    again = decode_model(json.loads(text))
    node = again.root
    assert isinstance(node, ThresholdSplit) and node.threshold == third and dumps_model(again) == text
    below, above = math.nextafter(node.cut, -math.inf), node.cut
    assert route(node, [[below]], 0).counts == (3, 0) and route(node, [[above]], 0).counts == (0, 3)
    assert "x < 1/3" in model.render()
    # a dyadic rational is written as the JSON number it equals
    assert '"threshold": 0.375' in dumps_model(_model(Fraction(3, 8)))


@pytest.mark.parametrize("bad", ["1/0", "x", "1.5/2", "nan", [1], None, True, "inf"])
def test_malformed_thresholds_are_refused(bad: object) -> None:
    obj = _model(Fraction(1, 3)).to_json()
    obj["trees"][0]["threshold"] = bad
    try:
        obj["digest"] = model_digest(obj)  # the codec's checks hold whether or not the digest was recomputed
    except ModelError:  # NaN and infinity have no JSON text, hence no digest
        pass
    with pytest.raises(ModelError, match="threshold|JSON"):
        decode_model(obj)
