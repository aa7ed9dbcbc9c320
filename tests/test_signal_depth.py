"""thesis-tree's split_scale: a depth cap that is a function of the released noisy size and public values."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import get_algorithm, train
from refdp.algorithms.derivation import tree_depth
from refdp.algorithms.thesis_tree import signal_depth
from refdp.data import load
from refdp.privacy import Relation


@pytest.mark.claim("noisy-size-plan")
@settings(max_examples=200, deadline=None)
@given(
    noisy=st.integers(-50, 10**6), budget=st.fractions(Fraction(1, 1000), Fraction(100)),
    scale=st.integers(0, 500), depth=st.integers(0, 8), classes=st.integers(2, 12),
)
def test_the_cap_stays_between_a_leaf_per_class_and_the_planned_depth(
    noisy: int, budget: Fraction, scale: int, depth: int, classes: int
) -> None:
    args = (Relation.ADD_REMOVE, "leaves", Fraction(1))
    capped = signal_depth(noisy, budget, Fraction(scale), depth, classes, *args)
    assert min(depth, max(1, (classes - 1).bit_length())) <= capped <= depth
    assert signal_depth(noisy, budget, Fraction(0), depth, classes, *args) == depth
    # a larger K never allows a deeper tree, a larger N~ never a shallower one
    assert signal_depth(noisy, budget, Fraction(scale + 10), depth, classes, *args) <= capped
    assert signal_depth(noisy + 1000, budget, Fraction(scale), depth, classes, *args) >= capped


@pytest.mark.claim("noisy-size-plan")
@pytest.mark.parametrize("epsilon", ["0.1", "1"])
def test_a_trained_tree_is_no_deeper_than_the_cap_of_its_released_noisy_size(epsilon: str) -> None:
    data = load("vote")
    model = train("thesis-tree", data, epsilon, rng=3, engine="array")
    params = get_algorithm("thesis-tree").resolve({})
    noisy = model.plan_inputs["noisy_size"]
    assert noisy is not None
    budget = (1 - Fraction(str(params["size_share"]))) * Fraction(epsilon)
    cap = signal_depth(
        noisy, budget, Fraction(str(params["split_scale"])), int(params["max_depth"]), data.schema.n_classes,
        Relation.ADD_REMOVE, str(params["node_counts"]), Fraction(str(params["level_ratio"])),
    )
    assert tree_depth(model.trees[0]) <= cap
