"""Random decision tree structures: drawn from the public schema only, as Fan et al. describe."""

from __future__ import annotations

import random
from typing import Dict, List, Tuple

import pytest

from refdp.algorithms.rdt import (
    MAX_DEPTH,
    RandomTreeBuilder,
    base_columns,
    default_max_depth,
    resolve_max_depth,
    worst_case_leaves,
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, builtin_schema, load_builtin
from refdp.errors import InvalidParameterError
from refdp.tree import CategoricalSplit, Leaf, Node, ThresholdSplit, ValueSplit, children_of, depth, leaves, route

SCHEMA = Schema(
    attributes=(
        CategoricalAttribute("colour", ("red", "green", "blue")),
        ContinuousAttribute("size", 0.0, 10.0),
        CategoricalAttribute("shape", ("round", "square")),
        ContinuousAttribute("weight", -5.0, 5.0),
    ),
    label="class",
    classes=("a", "b"),
)


def _count(leaf: int) -> Tuple[int, int]:
    return (leaf + 1, 0)


def _paths(node: Node, used: Tuple[int, ...], bounds: Dict[int, Tuple[float, float]], out: List[Tuple[Tuple[int, ...], Node]]) -> None:
    """Check the path rules at every node; collect (categorical attributes used, leaf)."""
    if isinstance(node, Leaf):
        out.append((used, node))
        return
    if isinstance(node, (CategoricalSplit, ValueSplit)):
        assert node.attribute not in used, "a categorical attribute appears twice on a path"
        for child in children_of(node):
            _paths(child, used + (node.attribute,), bounds, out)
        return
    assert isinstance(node, ThresholdSplit)
    lower, upper = bounds[node.attribute]
    assert lower <= node.threshold <= upper, (lower, node.threshold, upper)
    # random trees draw float thresholds from the public range
    assert isinstance(node.threshold, float)
    _paths(node.below, used, {**bounds, node.attribute: (lower, node.threshold)}, out)
    _paths(node.at_or_above, used, {**bounds, node.attribute: (node.threshold, upper)}, out)


@pytest.mark.parametrize("categorical", ["multiway", "binary"])
def test_expanded_structures_follow_the_rules(categorical: str) -> None:
    bounds = {1: (0.0, 10.0), 3: (-5.0, 5.0)}
    for seed in range(30):
        builder = RandomTreeBuilder(SCHEMA, 3, categorical, random.Random(seed))
        n = builder.expand()
        tree = builder.build(_count, collapse_zeros=False)
        found: List[Tuple[Tuple[int, ...], Node]] = []
        _paths(tree, (), bounds, found)
        assert len(found) == n <= worst_case_leaves(SCHEMA, 3, categorical)
        # Continuous attributes are always eligible, so every leaf is at full depth.
        assert depth(tree) == 3
        assert sorted(leaf.counts[0] for leaf in leaves(tree)) == list(range(1, n + 1))
        if categorical == "binary":
            assert n == 8


def test_worst_case_leaves() -> None:
    assert worst_case_leaves(SCHEMA, 3, "multiway") == 3 * 2 * 2
    assert worst_case_leaves(SCHEMA, 5, "multiway") == 3 * 2 * 2 * 2 * 2
    assert worst_case_leaves(SCHEMA, 4, "binary") == 16
    only_categorical = Schema((CategoricalAttribute("x", ("p", "q", "r")), CategoricalAttribute("y", ("s",))), "c", ("a", "b"))
    assert worst_case_leaves(only_categorical, 5, "multiway") == 3
    assert worst_case_leaves(only_categorical, 5, "binary") == 4
    adult = builtin_schema("adult")
    assert worst_case_leaves(adult, 3, "multiway") == 42 * 16 * 15
    for seed in range(5):
        builder = RandomTreeBuilder(only_categorical, 5, "multiway", random.Random(seed))
        assert builder.expand() <= 3


def test_a_categorical_only_schema_stops_when_attributes_run_out() -> None:
    schema = Schema((CategoricalAttribute("x", ("p", "q")),), "c", ("a", "b"))
    builder = RandomTreeBuilder(schema, 4, "multiway", random.Random(0))
    assert builder.expand() == 2
    tree = builder.build(_count, collapse_zeros=False)
    assert isinstance(tree, CategoricalSplit) and depth(tree) == 1


def test_depth_zero_is_one_leaf_and_defaults() -> None:
    builder = RandomTreeBuilder(SCHEMA, 0, "multiway", random.Random(0))
    assert builder.expand() == 1
    assert builder.build(_count, collapse_zeros=False) == Leaf((1, 0))
    assert default_max_depth(SCHEMA) == 2
    assert default_max_depth(builtin_schema("adult")) == 7
    assert default_max_depth(builtin_schema("vote")) == 8
    assert resolve_max_depth(SCHEMA, -1) == 2 and resolve_max_depth(SCHEMA, 5) == 5
    for bad in (-2, MAX_DEPTH + 1, 2.5, True):
        with pytest.raises(InvalidParameterError):
            resolve_max_depth(SCHEMA, bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        RandomTreeBuilder(SCHEMA, 2, "ternary", random.Random(0))


def _data(n: int, seed: int) -> Dataset:
    r = random.Random(seed)
    rows = [
        (r.choice(("red", "green", "blue")), r.uniform(0, 10), r.choice(("round", "square")), r.uniform(-5, 5))
        for _ in range(n)
    ]
    labels = [r.choice(("a", "b")) for _ in range(n)]
    return Dataset.from_rows(SCHEMA, rows, labels)


def test_lazy_routing_agrees_with_the_built_tree() -> None:
    data = _data(300, 1)
    columns, _, rows = base_columns(data)
    builder = RandomTreeBuilder(SCHEMA, 4, "multiway", random.Random(3))
    reached = [builder.leaf_index(columns, row) for row in rows]
    tree = builder.build(lambda leaf: (leaf + 1, 1), collapse_zeros=False)
    model_columns = [data.column(j) for j in range(4)]
    for i, leaf in enumerate(reached):
        assert route(tree, model_columns, i).counts == (leaf + 1, 1)


def test_collapse_keeps_exactly_the_subtrees_with_a_nonzero_count() -> None:
    data = _data(40, 2)
    columns, _, rows = base_columns(data)
    builder = RandomTreeBuilder(SCHEMA, 4, "multiway", random.Random(5))
    reached = sorted({builder.leaf_index(columns, row) for row in rows})
    keep = set(reached[::3])
    tree = builder.build(lambda leaf: (1, 0) if leaf in keep else (0, 0), collapse_zeros=True)
    assert sum(1 for leaf in leaves(tree) if leaf.counts != (0, 0)) == len(keep)

    def no_zero_subtree(node: Node) -> bool:
        if isinstance(node, Leaf):
            return True
        kids = children_of(node)
        assert any(any(l.counts != (0, 0) for l in leaves(k)) for k in kids), "an all-zero subtree was kept"
        return all(no_zero_subtree(k) for k in kids)

    assert no_zero_subtree(tree)
    everything_zero = builder.build(lambda leaf: (0, 0), collapse_zeros=True)
    assert everything_zero == Leaf((0, 0))


def test_the_same_seed_gives_the_same_structure_whatever_the_data() -> None:
    """Expanded before reading rows, the structure depends on the rng only."""
    first = RandomTreeBuilder(SCHEMA, 3, "binary", random.Random(11))
    first.expand()
    second = RandomTreeBuilder(SCHEMA, 3, "binary", random.Random(11))
    second.expand()
    for data in (_data(50, 1), _data(70, 2)):
        columns, _, rows = base_columns(data)
        for row in rows:
            assert first.leaf_index(columns, row) == second.leaf_index(columns, row)
    assert first.build(_count, collapse_zeros=False) == second.build(_count, collapse_zeros=False)


def test_base_columns_of_a_subset_point_at_the_base() -> None:
    data = load_builtin("vote")
    sub = data.subset([5, 3, 3, 400])
    columns, labels, rows = base_columns(sub)
    assert list(rows) == [5, 3, 3, 400]
    for j in range(data.schema.n_attributes):
        assert [columns[j][r] for r in rows] == list(sub.column(j))
    assert [labels[r] for r in rows] == list(sub.labels)
