"""The array engine's kernels against the reference's, piece by piece (issue 9).

The whole-model tests are in ``test_fast_equivalence.py``; these pin down
each kernel on its own, so a mismatch points at its cause: node counts,
interval tables and their scores, the exponential sampler's draw and
charge, and the discrete Laplace sampler's draws.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Any, Callable, List, Optional, Tuple, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.engine import REFERENCE, ReferenceCounts, ThresholdCandidates
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import ThresholdGrid
from refdp.fast import ARRAY, ArrayCounts
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace, joins_sample
from refdp.privacy import Ledger, Relation
from refdp.tree import Leaf, Node, ThresholdSplit, ValueSplit
from strategies import datasets, schemas

SETTINGS = settings(max_examples=80, deadline=None)


@SETTINGS
@given(st.data())
def test_node_counts_and_partitions_agree(data: st.DataObject) -> None:
    schema = data.draw(schemas(max_attributes=3, max_values=4, max_classes=3))
    dataset: Dataset = data.draw(datasets(schema, 0, 30))
    reference, array = ReferenceCounts(dataset), ArrayCounts(dataset)
    # The engines number rows differently (base positions, or 0.. for a subset): compare by content.
    rows, arows = reference.root(), array.root()
    assert len(rows) == len(arows)
    assert reference.class_counts(rows) == array.class_counts(arows)
    for a, attribute in enumerate(schema.attributes):
        if isinstance(attribute, CategoricalAttribute):
            n = attribute.n_values
            assert reference.value_table(rows, a, n) == array.value_table(arows, a, n)
            sizes = [len(b) for b in reference.split_values(rows, a, n)]
            assert sizes == [len(b) for b in array.split_values(arows, a, n)]
            v = data.draw(st.integers(0, n - 1))
            assert [len(p) for p in reference.split_value(rows, a, v)] == [len(p) for p in array.split_value(arows, a, v)]
            continue
        lower, upper = attribute.lower, attribute.upper
        ref, arr = reference.thresholds(rows, a, lower, upper), array.thresholds(arows, a, lower, upper)
        assert len(ref) == len(arr)
        assert [ref.interval(i) for i in range(len(ref))] == [arr.interval(i) for i in range(len(arr))]
        assert ref.lengths() == arr.lengths() and ref.below_sizes() == arr.below_sizes()
        for quality in ("max", "gini", "info-gain"):
            assert [repr(x) for x in ref.scores(quality)] == [repr(x) for x in arr.scores(quality)], quality
        grid = ThresholdGrid.of(attribute, data.draw(st.integers(2, 300)))
        assert reference.grid_table(rows, a, grid) == array.grid_table(arows, a, grid)
        t = data.draw(st.floats(lower, upper, allow_nan=False))
        assert [len(p) for p in reference.split_threshold(rows, a, t)] == [
            len(p) for p in array.split_threshold(arows, a, t)
        ]


def _tables(
    counts: Union[ReferenceCounts, ArrayCounts], rows: List[int], schema: Schema, grids: List[ThresholdGrid]
) -> List[object]:
    out: List[object] = [counts.class_counts(rows)]
    for a, attribute in enumerate(schema.attributes):
        if isinstance(attribute, CategoricalAttribute):
            out.append(counts.value_table(rows, a, attribute.n_values))
        else:
            out.append(counts.grid_table(rows, a, grids[a]))
    return out


@SETTINGS
@given(st.data())
def test_tables_of_every_node_agree_down_a_tree(data: st.DataObject) -> None:
    # The array engine derives the root's tables from the data set's (kept with it across fits) and
    # the largest child's from its parent's less its siblings'; any node order, any split, two fits.
    schema = data.draw(schemas(max_attributes=3, max_values=4, max_classes=3))
    dataset: Dataset = data.draw(datasets(schema, 0, 40))
    grids = [ThresholdGrid.of(a, data.draw(st.integers(2, 9))) if isinstance(a, ContinuousAttribute) else
             ThresholdGrid.of(ContinuousAttribute("x", 0.0, 1.0), 2) for a in schema.attributes]

    def visit(reference: ReferenceCounts, array: ArrayCounts, rows: List[int], arows: List[int]) -> None:
        if data.draw(st.booleans()):
            assert _tables(reference, rows, schema, grids) == _tables(array, arows, schema, grids)

    _walk_down(data, schema, dataset, visit)


def _walk_down(
    data: st.DataObject, schema: Schema, dataset: Dataset,
    visit: Callable[[ReferenceCounts, ArrayCounts, List[int], List[int]], None],
) -> None:
    """Two fits, each visiting the nodes of a drawn tree of depth 3 in a drawn order, both engines side by side."""
    for _ in range(2):
        reference, array = ReferenceCounts(dataset), ArrayCounts(dataset)
        stack = [(reference.root(), array.root(), 3)]
        while stack:
            rows, arows, depth = stack.pop(data.draw(st.integers(0, len(stack) - 1)))
            visit(reference, array, rows, arows)
            if depth and schema.n_attributes:
                stack.extend((r, ar, depth - 1) for r, ar in _split(data, schema, reference, array, rows, arows))


def _split(
    data: st.DataObject, schema: Schema, reference: ReferenceCounts, array: ArrayCounts, rows: List[int],
    arows: List[int]
) -> List[Tuple[List[int], List[int]]]:
    """The children of a node by a drawn split, as (reference rows, array rows) pairs."""
    a = data.draw(st.integers(0, schema.n_attributes - 1))
    attribute = schema.attributes[a]
    if isinstance(attribute, CategoricalAttribute):
        if data.draw(st.booleans()):
            return list(zip(reference.split_values(rows, a, attribute.n_values),
                            array.split_values(arows, a, attribute.n_values)))
        v = data.draw(st.integers(0, attribute.n_values - 1))
        return list(zip(reference.split_value(rows, a, v), array.split_value(arows, a, v)))
    t = data.draw(st.floats(attribute.lower, attribute.upper, allow_nan=False))
    return list(zip(reference.split_threshold(rows, a, t), array.split_threshold(arows, a, t)))


def _intervals(counts: Union[ReferenceCounts, ArrayCounts], rows: List[int], schema: Schema) -> List[object]:
    out: List[object] = []
    for a, attribute in enumerate(schema.attributes):
        if isinstance(attribute, ContinuousAttribute):
            found = counts.thresholds(rows, a, attribute.lower, attribute.upper)
            out.append((
                [found.interval(i) for i in range(len(found))], found.lengths(), found.below_sizes(),
                [[repr(x) for x in found.scores(quality)] for quality in ("max", "gini", "info-gain")],
            ))
    return out


@SETTINGS
@given(st.data())
def test_interval_counts_of_every_node_agree_down_a_tree(data: st.DataObject) -> None:
    # Below the root, a node with few rows for its attribute's keys sorts them; a larger one counts
    # them into a table (the largest child maybe as its parent's less its siblings'); any class count.
    schema = data.draw(schemas(max_attributes=3, max_values=4, max_classes=4))
    dataset: Dataset = data.draw(datasets(schema, 0, 40))

    def visit(reference: ReferenceCounts, array: ArrayCounts, rows: List[int], arows: List[int]) -> None:
        assert _intervals(reference, rows, schema) == _intervals(array, arows, schema)

    _walk_down(data, schema, dataset, visit)


def _best_of(found: ThresholdCandidates, quality: str, floor: float) -> object:
    best = found.best(quality, floor)
    return None if best is None else (repr(best[0]), best[1])


def test_best_threshold_above_a_score_to_beat_agrees() -> None:
    # Many intervals (the array engine scores two-class gini by blocks): values with and without
    # repeats, classes in runs or at random or alternating, or the same read from either end (each
    # score twice, the first of the best maybe inside a block), scores to beat around the best; at
    # the root and at nodes below it.
    schema = Schema((ContinuousAttribute("x", 0.0, 1000.0),), "c", ("a", "b"))
    for seed in range(40):
        rng = random.Random(seed)
        n = rng.choice([70, 300, 2000])
        kind = seed % 5
        values = [float(rng.randrange(1000)) if kind == 0 else rng.uniform(0.0, 1000.0) for _ in range(n)]
        if kind == 4:
            half = [int(rng.random() < 0.3) for _ in range(n // 2)]
            labels = half + half[::-1]
            values = sorted(rng.uniform(0.0, 1000.0) for _ in labels)
        elif kind == 1:
            labels = [int(v // rng.choice([50, 200])) % 2 if rng.random() < 0.9 else rng.randrange(2) for v in values]
        elif kind == 2:
            labels = [i % 2 for i in range(n)]
            values = [float(i // 2) for i in range(n)]
        else:
            labels = [int(rng.random() < 0.3) for _ in range(n)]
        dataset = Dataset.from_codes(schema, [values], labels)
        reference, array = ReferenceCounts(dataset), ArrayCounts(dataset)
        rows, arows = reference.root(), array.root()
        # A node with few rows for its distinct values sorts them (from 256 rows on, lazily).
        nodes = [(rows, arows)] + [
            (reference.split_threshold(rows, 0, cut)[1], array.split_threshold(arows, 0, cut)[1])
            for cut in (rng.uniform(100.0, 900.0), 850.0)
        ]
        for node, anode in nodes:
            ref, arr = reference.thresholds(node, 0, 0.0, 1000.0), array.thresholds(anode, 0, 0.0, 1000.0)
            sizes = ref.below_sizes()
            first, last = sum(1 for size in sizes if size == 0), sum(1 for size in sizes if size < len(node))
            if first >= last:
                continue
            for quality in ("gini", "info-gain", "max"):
                scores = sorted(set(ref.scores(quality)[first:last]), reverse=True)
                top = scores[0]
                floors = [float("-inf"), top, math.nextafter(top, -math.inf), math.nextafter(top, math.inf)]
                floors += scores[1:4] + [math.nextafter(x, -math.inf) for x in scores[1:4]] + [scores[-1]]
                floors += [top + 1.0, top / 2, (top + scores[-1]) / 2, top - (top - scores[-1]) / 100]
                for floor in floors:
                    assert _best_of(ref, quality, floor) == _best_of(arr, quality, floor), (seed, quality, floor)


@st.composite
def utilities_and_weights(draw: st.DrawFn) -> Tuple[List[float], Optional[List[float]]]:
    n = draw(st.integers(1, 40))
    values = st.one_of(st.floats(-1e6, 1e6), st.sampled_from([0.0, -0.0, 1.0, 1e300, -1e300]))
    utilities = draw(st.lists(values, min_size=n, max_size=n))
    if draw(st.booleans()):
        return utilities, None
    weights = draw(st.lists(st.floats(1e-300, 1e6), min_size=n, max_size=n))
    return utilities, weights


@SETTINGS
@given(utilities_and_weights(), st.sampled_from([Fraction(1, 10), Fraction(1), Fraction(7, 3), 5]),
       st.sampled_from([1, Fraction(1, 2), 2.5]), st.integers(0, 2**32))
def test_exponential_sampler_draws_the_reference_index(
    case: Tuple[List[float], Optional[List[float]]], epsilon: Fraction, sensitivity: float, seed: int
) -> None:
    utilities, weights = case
    outcomes = []
    for engine in (REFERENCE, ARRAY):
        ledger, rng = Ledger(Relation.ADD_REMOVE), random.Random(seed)
        index = engine.exponential(utilities, epsilon=epsilon, sensitivity=sensitivity, rng=rng, ledger=ledger,
                                   label="x", partition=("p",), base_weights=weights)
        outcomes.append((index, ledger.charges, rng.random()))
    assert outcomes[0] == outcomes[1], f"seed={seed} utilities={utilities} weights={weights}"


def test_both_engines_use_the_exact_samplers_of_the_mechanisms(monkeypatch: pytest.MonkeyPatch) -> None:
    # The samplers exist once (refdp.mechanisms.exact, tested there); the array engine calls the same
    # discrete Laplace sampler, handing it the generator through fast.sampling.Words (cheaper randrange).
    import refdp.fast.sampling as sampling

    assert REFERENCE.discrete_laplace is discrete_laplace
    seen: List[object] = []

    def recording(scale: object, rng: object) -> int:
        seen.append(rng)
        return 7

    monkeypatch.setattr(sampling, "reference_discrete_laplace", recording)
    assert ARRAY.discrete_laplace(Fraction(2), random.Random(1)) == 7 and isinstance(seen[0], sampling.Words)
    other = _Recording(4)
    assert ARRAY.discrete_laplace(Fraction(2), other) == 7 and seen[1] is other  # not a random.Random itself: as given


def test_the_array_discrete_laplace_makes_the_reference_draws() -> None:
    for seed in range(60):
        for scale in (Fraction(1, 3), Fraction(1), Fraction(7, 2), Fraction(40), Fraction(1000, 3)):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert [ARRAY.discrete_laplace(scale, ours) for _ in range(15)] == [
                REFERENCE.discrete_laplace(scale, theirs) for _ in range(15)
            ], (seed, scale)
            assert ours.getstate() == theirs.getstate()
    with pytest.raises(InvalidParameterError):
        ARRAY.discrete_laplace(Fraction(0), random.Random(1))  # the reference's validation


class _Recording(random.Random):
    """A subclass: the array engine hands it to the sampler as it is."""


def _members(mask: int, n: int) -> List[int]:
    assert mask >> n == 0, "a mask has no bit beyond the rows"
    return [i for i in range(n) if mask >> i & 1]


def _positions(rows: List[int], part: List[int]) -> List[int]:
    # Where the reference's part (a subsequence of its rows, by base position) sits in them:
    # the array engine numbers rows 0 .. n-1.  A repeated base row goes to one side every time.
    found: List[int] = []
    walk = iter(enumerate(rows))
    for i in part:
        for p, j in walk:
            if j == i:
                found.append(p)
                break
    return found


def _check_masks(dataset: Dataset, thresholds: List[float]) -> None:
    reference, array = ReferenceCounts(dataset), ArrayCounts(dataset)
    rows, n = reference.root(), len(dataset)
    root = array.root_mask(array.root())
    assert _members(root, n) == list(range(n))
    assert array.mask_class_counts(root) == reference.class_counts(rows)
    for a, attribute in enumerate(dataset.schema.attributes):
        if isinstance(attribute, CategoricalAttribute):
            for v in range(attribute.n_values):
                equal, _ = reference.split_value(rows, a, v)
                assert _members(array.value_mask(a, v), n) == _positions(rows, equal)
            continue
        for t in thresholds + [attribute.lower, attribute.upper, float("nan")]:
            below, above = reference.split_threshold(rows, a, t)
            masks = array.threshold_masks(a, t)
            assert [_members(m, n) for m in masks] == [_positions(rows, below), _positions(rows, above)], t
            assert array.mask_class_counts(masks[0]) == reference.class_counts(below)


@SETTINGS
@given(st.data())
def test_row_masks_select_the_reference_partitions(data: st.DataObject) -> None:
    schema = data.draw(schemas(max_attributes=3, max_values=4, max_classes=3))
    dataset: Dataset = data.draw(datasets(schema, 0, 30))
    if data.draw(st.booleans()) and len(dataset) > 0:
        dataset = dataset.subset(data.draw(st.lists(st.integers(0, len(dataset) - 1), max_size=len(dataset))))
    _check_masks(dataset, data.draw(st.lists(st.floats(-1e6, 1e6), max_size=3)))


def test_row_masks_of_many_distinct_values() -> None:
    # 300 distinct values: ranks of two bytes; 70,000: beyond them, values compared directly.
    rng = random.Random(7)
    schema = Schema((ContinuousAttribute("x", 0.0, 1.0),), "c", ("a", "b"))
    for n in (300, 70_000):
        values = [rng.random() for _ in range(n)]
        dataset = Dataset.from_codes(schema, [values], [rng.randrange(2) for _ in range(n)])
        _check_masks(dataset, [0.0, sorted(values)[n // 3], sorted(values)[257], 0.5, 0.999])


@SETTINGS
@given(st.data())
def test_weighted_tables_labels_and_predictions_agree(data: st.DataObject) -> None:
    # Boosting's integer weights (few distinct values, zeros among them), on the root and on a child.
    schema = data.draw(schemas(max_attributes=3, max_values=4, max_classes=3))
    dataset: Dataset = data.draw(datasets(schema, 0, 30))
    reference, array = ReferenceCounts(dataset), ArrayCounts(dataset)
    rows, arows = reference.root(), array.root()
    values = data.draw(st.lists(st.sampled_from([0, 1, 7, 1024, 1536]), min_size=1, max_size=8))
    drawn = [data.draw(st.sampled_from(values)) for _ in rows]
    weights = [0] * (max(rows) + 1 if rows else 0)
    for i, w in zip(rows, drawn):
        weights[i] = w  # a repeated base row takes the last weight drawn for it, on both engines
    aweights = [weights[i] for i in rows]
    grids = {a: ThresholdGrid.of(att, data.draw(st.integers(2, 70))) for a, att in enumerate(schema.attributes)
             if isinstance(att, ContinuousAttribute)}
    tree = _random_tree(schema, data.draw(st.integers(0, 2**32)))
    nodes = [(rows, arows)]
    if schema.attributes and isinstance(schema.attributes[0], CategoricalAttribute):
        nodes.append((reference.split_value(rows, 0, 0)[1], array.split_value(arows, 0, 0)[1]))
    for ref_rows, arr_rows in nodes:
        assert reference.weighted_class_counts(ref_rows, weights) == array.weighted_class_counts(arr_rows, aweights)
        assert reference.labels(ref_rows) == array.labels(arr_rows)
        assert reference.predictions(tree, ref_rows) == array.predictions(tree, arr_rows)
        for a, attribute in enumerate(schema.attributes):
            if isinstance(attribute, CategoricalAttribute):
                n = attribute.n_values
                assert (reference.weighted_value_table(ref_rows, a, n, weights)
                        == array.weighted_value_table(arr_rows, a, n, aweights))
            else:
                assert (reference.weighted_grid_table(ref_rows, a, grids[a], weights)
                        == array.weighted_grid_table(arr_rows, a, grids[a], aweights))


def _random_tree(schema: Schema, seed: int) -> Node:
    rng = random.Random(seed)

    def grow(depth: int) -> Node:
        if depth == 0 or not schema.attributes or rng.random() < 0.2:
            return Leaf(tuple(rng.randint(-2, 5) for _ in range(schema.n_classes)))
        a = rng.randrange(schema.n_attributes)
        attribute = schema.attributes[a]
        if isinstance(attribute, CategoricalAttribute):
            return ValueSplit(a, rng.randrange(attribute.n_values), grow(depth - 1), grow(depth - 1))
        assert isinstance(attribute, ContinuousAttribute)
        return ThresholdSplit(a, rng.uniform(attribute.lower, attribute.upper), grow(depth - 1), grow(depth - 1))

    return grow(3)


def test_the_array_bootstrap_makes_the_reference_draws() -> None:
    for seed in range(40):
        for count in (0, 1, 2, 17, 500):
            ours, theirs = random.Random(seed), random.Random(seed)
            assert ARRAY.bootstrap(count, ours) == REFERENCE.bootstrap(count, theirs) == [
                joins_sample(r) for r in [random.Random(seed)] for _ in range(count)
            ], (seed, count)
            assert ours.getstate() == theirs.getstate(), (seed, count)


def test_the_array_bootstrap_of_another_source_is_the_reference_loop() -> None:
    class Counting(random.Random):
        """A subclass may override randrange: the array engine must call it as the reference does."""

        calls = 0

        def randrange(self, *args: Any, **kwargs: Any) -> int:
            Counting.calls += 1
            return super().randrange(*args, **kwargs)

    ours, theirs = Counting(3), random.Random(3)
    assert ARRAY.bootstrap(300, ours) == REFERENCE.bootstrap(300, theirs)
    assert Counting.calls > 300 and ours.random() == theirs.random()
