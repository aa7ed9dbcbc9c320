"""The greedy learners' shared machinery: node counts, intervals, fast scores, the budget plan."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import get_algorithm
from refdp.algorithms.greedy import (
    NodeCost,
    child_path,
    close_budget,
    plan_levels,
    plan_units,
)
from refdp.planted.thesis_tree import sample_threshold
from refdp.engine import Interval, TrainingView, class_counts, threshold_intervals, value_table
from refdp.scoring.kernels import exact_score_function, score_function
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load_builtin
from refdp.errors import InvalidParameterError, PrivacyError
from refdp.privacy import Ledger, Partition, Relation, cell
from refdp.scoring import get_quality
from strategies import count_tables

SCHEMA = Schema(
    (ContinuousAttribute("x", -5.0, 5.0), CategoricalAttribute("k", ("a", "b", "c"))), "class", ("c0", "c1", "c2")
)


def _data(values: Sequence[float], codes: Sequence[int], labels: Sequence[int]) -> Dataset:
    return Dataset.from_codes(SCHEMA, [list(values), list(codes)], list(labels))


rows_strategy = st.lists(
    st.tuples(
        st.sampled_from([-5.0, -2.5, 0.0, 0.1, 1.0, 5.0]) | st.floats(-5.0, 5.0, allow_nan=False),
        st.integers(0, 2),
        st.integers(0, 2),
    ),
    max_size=12,
)


@settings(max_examples=150)
@given(rows=rows_strategy, picks=st.lists(st.integers(0, 11), max_size=8))
def test_view_counts_tables_and_intervals_match_brute_force(
    rows: List[Tuple[float, int, int]], picks: List[int]
) -> None:
    data = _data([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    subset = data.subset([p for p in picks if p < len(data)])
    for d in (data, subset):
        view = TrainingView.of(d)
        # Zero copy: the view holds the base data set's own column tuples.
        assert view.columns[0] is TrainingView.of(data).columns[0]
        assert [view.columns[0][i] for i in view.rows] == list(d.values(0))
        assert class_counts(view, view.rows) == d.class_counts()
        table = value_table(view, view.rows, 1, 3)
        for v in range(3):
            assert table[v] == [
                sum(1 for k, c in zip(d.codes(1), d.labels) if k == v and c == cls) for cls in range(3)
            ]
        intervals = threshold_intervals(view, view.rows, 0, -5.0, 5.0)
        assert intervals[0].start == -5.0 and intervals[-1].end == 5.0
        assert all(a.end == b.start for a, b in zip(intervals, intervals[1:]))
        assert all(i.length > 0 for i in intervals)
        for interval in intervals:
            below = [sum(1 for x, c in zip(d.values(0), d.labels) if x < interval.end and c == k) for k in range(3)]
            above = [sum(1 for x, c in zip(d.values(0), d.labels) if x >= interval.end and c == k) for k in range(3)]
            assert interval.table == (tuple(below), tuple(above))


def test_sample_threshold_stays_in_the_half_open_interval() -> None:
    class Fixed:
        def __init__(self, draws: Sequence[float]) -> None:
            self.draws = list(draws)

        def random(self) -> float:
            return self.draws.pop(0)

        def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
            raise AssertionError("not used")

        def getrandbits(self, k: int) -> int:
            raise AssertionError("not used")

    interval = Interval(1.0, 3.0, ((0,), (0,)))
    # U = 0 would give the start itself, which splits differently: it is redrawn.
    assert sample_threshold(interval, Fixed([0.0, 0.25])) == 1.5
    tiny = Interval(1.0, math.nextafter(1.0, 2.0), ((0,), (0,)))
    assert sample_threshold(tiny, Fixed([0.0, 0.9])) == tiny.end
    rng = random.Random(0)
    for start, end in [(-5.0, -4.999999), (0.0, 1e-300), (1e15, 1e15 + 2), (-1.0, 1.0)]:
        interval = Interval(start, end, ((0,), (0,)))
        for _ in range(200):
            t = sample_threshold(interval, rng)
            assert start < t <= end, (start, end, t)


@settings(max_examples=300)
@given(table=count_tables(max_cells=4, max_classes=3, max_count=30), quality=st.sampled_from(["max", "gini", "info-gain"]))
def test_fast_scores_agree_with_refdp_scoring(table: Sequence[Sequence[int]], quality: str) -> None:
    exact = float(get_quality(quality)(table))
    fast = score_function(quality)(table)
    assert math.isclose(fast, exact, rel_tol=1e-12, abs_tol=1e-9), (table, quality, fast, exact)
    if quality != "info-gain":
        assert exact_score_function(quality)(table) == get_quality(quality)(table)


def test_unknown_score_and_bad_depth_are_refused() -> None:
    with pytest.raises(InvalidParameterError, match="gini-weighted"):
        score_function("gini-weighted")
    for bad in (-1, 2.5, True, "three"):
        with pytest.raises(InvalidParameterError, match="max_depth"):
            get_algorithm("thesis-tree").resolve({"max_depth": bad})
    with pytest.raises(InvalidParameterError):
        plan_units(NodeCost(Fraction(1), Fraction(1)), NodeCost(Fraction(1), Fraction(1)), -1, Relation.ADD_REMOVE)


# --- the budget plan --------------------------------------------------------------------------

# (own charges, class-cell charges) of a node, in per-query units: the shapes the learners use.
Shape = Tuple[Tuple[Fraction, ...], Tuple[Fraction, ...]]
SHAPES = {
    "thesis": (((Fraction(1),), (Fraction(1),)), ((), (Fraction(1),))),  # split: EM + histogram; leaf: histogram
    "diffpid3": (((Fraction(1), Fraction(1, 3), Fraction(1, 3), Fraction(1, 3)), ()), ((Fraction(1),), (Fraction(1),))),
    "published": (((Fraction(1),), (Fraction(1),)), ((), (Fraction(1), Fraction(1)))),
}


def _node_cost(shape: Shape) -> NodeCost:
    own = sum(shape[0], Fraction(0))
    cells = sum(shape[1], Fraction(0))  # each entry is a histogram charged on every class cell
    return NodeCost(own + cells, own + 2 * cells)


def _charge_node(ledger: Ledger, path: Partition, shape: Shape, eps: Fraction) -> None:
    for units in shape[0]:
        ledger.charge(label="own", mechanism="m", epsilon=eps * units, sensitivity=1, claims=(), partition=path)
    for units in shape[1]:
        for c in ("c0", "c1", "c2"):
            ledger.charge(
                label="cells", mechanism="m", epsilon=eps * units, sensitivity=1, claims=(),
                partition=path + (cell("class", c),),
            )


def _full_tree(ledger: Ledger, path: Partition, depth: int, children: int, split: Shape, leaf: Shape, eps: Fraction) -> None:
    if depth == 0:
        _charge_node(ledger, path, leaf, eps)
        return
    _charge_node(ledger, path, split, eps)
    for j in range(children):
        _full_tree(ledger, child_path(path, f"v{j}"), depth - 1, children, split, leaf, eps)


@pytest.mark.claim("tree-budget-plan", "parallel-composition", "sequential-composition")
@pytest.mark.parametrize("name", sorted(SHAPES))
@pytest.mark.parametrize("relation", list(Relation))
def test_plan_equals_the_ledger_total_of_a_full_tree(name: str, relation: Relation) -> None:
    split, leaf = SHAPES[name]
    eps = Fraction(2, 7)
    for depth in range(5):
        for children in (2, 3):
            ledger = Ledger(relation)
            _full_tree(ledger, (), depth, children, split, leaf, eps)
            expected = eps * plan_units(_node_cost(split), _node_cost(leaf), depth, relation)
            assert ledger.total()[0] == expected, (name, relation, depth, children)


@pytest.mark.claim("tree-budget-plan", "thesis-tree-budget")
@pytest.mark.parametrize("relation", list(Relation))
def test_plan_levels_with_equal_levels_is_plan_units_and_the_thesis_tree_spends_it(relation: Relation) -> None:
    internal, leaf = NodeCost(Fraction(2), Fraction(3)), NodeCost(Fraction(1), Fraction(2))
    for depth in range(6):
        assert plan_levels([internal] * depth, leaf, relation) == plan_units(internal, leaf, depth, relation)
    # unequal levels: a thesis tree with level_ratio 2 on real data still totals its budget exactly
    data = load_builtin("vote")
    for counts in ("every-node", "leaves"):
        model = get_algorithm("thesis-tree").fit(
            data, Fraction(3, 2),
            get_algorithm("thesis-tree").resolve({"max_depth": 3, "level_ratio": 2.0, "node_counts": counts}),
            random.Random(4), relation,
        )
        assert model.receipt.epsilon == Fraction(3, 2)
        spent = {c.epsilon for c in model.receipt.charges if c.mechanism == "exponential"}
        assert len(spent) > 1, "the levels got the same epsilon"


@st.composite
def _random_tree(draw: st.DrawFn, depth: int) -> object:
    if depth == 0 or draw(st.booleans()):
        return None  # a leaf
    return [draw(_random_tree(depth - 1)) for _ in range(draw(st.integers(1, 3)))]


def _charge_tree(ledger: Ledger, path: Partition, tree: object, split: Shape, leaf: Shape, eps: Fraction) -> None:
    if tree is None:
        _charge_node(ledger, path, leaf, eps)
        return
    assert isinstance(tree, list)
    _charge_node(ledger, path, split, eps)
    for j, child in enumerate(tree):
        _charge_tree(ledger, child_path(path, f"v{j}"), child, split, leaf, eps)


@pytest.mark.claim("tree-budget-plan")
@settings(max_examples=200)
@given(
    depth=st.integers(0, 4),
    name=st.sampled_from(sorted(SHAPES)),
    relation=st.sampled_from(list(Relation)),
    data=st.data(),
)
def test_every_shallower_tree_costs_at_most_the_plan_and_closing_reaches_it(
    depth: int, name: str, relation: Relation, data: st.DataObject
) -> None:
    split, leaf = SHAPES[name]
    tree = data.draw(_random_tree(depth))
    eps = Fraction(1, 3)
    ledger = Ledger(relation)
    _charge_tree(ledger, (), tree, split, leaf, eps)
    planned = eps * plan_units(_node_cost(split), _node_cost(leaf), depth, relation)
    spent = ledger.total()[0]
    assert spent <= planned, (tree, spent, planned)
    close_budget(ledger, planned, ("tree-budget-plan",))
    assert ledger.total()[0] == planned
    reserved = [c for c in ledger.charges if c.mechanism == "reserved"]
    assert [c.epsilon for c in reserved] == ([planned - spent] if spent < planned else [])
    assert all(c.partition == () and c.claims == ("tree-budget-plan",) for c in reserved)


@pytest.mark.claim("tree-budget-plan")
def test_closing_an_overspent_ledger_is_an_error_and_records_nothing() -> None:
    ledger = Ledger(Relation.ADD_REMOVE)
    ledger.charge(label="x", mechanism="m", epsilon=Fraction(2), sensitivity=1, claims=())
    with pytest.raises(PrivacyError, match="above the planned budget"):
        close_budget(ledger, Fraction(1), ())
    assert len(ledger.charges) == 1
