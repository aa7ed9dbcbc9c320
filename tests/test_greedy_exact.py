"""Exact privacy audits of the greedy DP trees, and the thesis code's leaks.

The oracles below recompute, from the papers' descriptions and
:mod:`refdp.scoring` alone, the exact distribution of a tree's *structure*
(which split or leaf each node is) on a tiny data set: the exponential
mechanism's probabilities in log space, and the stopping probabilities from
the discrete Laplace distribution of the noisy counts (its probability mass
and distribution functions, summed over the finitely many cases).
Every neighbour of the data set is compared with it
(``exact-max-log-ratio``); the structure is part of the released model, so
its largest log-ratio must stay within the budget.  A Monte-Carlo check
(DKW, false alarm 1e-6) ties each oracle to the implementation.

The published thesis code is refuted on explicit neighbours: its outputs on
the two data sets have different supports.
"""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Callable, Dict, Hashable, List, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import Param, get_algorithm
from refdp.algorithms.diffpid3 import per_query_epsilon as diffpid3_epsilon
from refdp.algorithms.greedy import grid_threshold_tables
from refdp.engine import ReferenceCounts, TrainingView, threshold_intervals
from refdp.algorithms.thesis_tree import per_query_epsilon as thesis_epsilon
from refdp.published.thesis_tree import published_best_value, published_per_query_epsilon, published_score
from refdp.audit import (
    LOG_SLACK,
    Distribution,
    SupportMismatch,
    all_neighbours,
    exponential_mechanism_distribution,
    max_log_ratio,
    max_log_ratio_report,
    mixture,
    product,
    push_forward,
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import ThresholdGrid
from refdp.mechanisms import discrete_laplace_cdf, discrete_laplace_pmf
from refdp.privacy import Relation
from refdp.scoring import MONOTONE_QUALITIES, get_quality
from refdp.scoring.kernels import (
    exact_ratio_function,
    exact_score_function,
    exact_threshold_ratios,
    exact_threshold_scores,
)
from refdp.stats import dkw_bound, dkw_power_sample_size, ks_statistic
from refdp.tree import CategoricalSplit, Leaf, Node, ThresholdSplit, TreeModel, ValueSplit

FALSE_ALARM = 1e-6
MISS = 1e-6
DISTANCE = 0.12  # the Kolmogorov distance the Monte-Carlo checks detect with probability 1 - MISS
Structure = Hashable

SCHEMA = Schema(
    (CategoricalAttribute("a0", ("x", "y", "z")), CategoricalAttribute("a1", ("u", "w"))),
    "class",
    ("c0", "c1"),
)
ROWS: List[Tuple[int, int, int]] = [(0, 0, 0), (0, 1, 0), (1, 0, 1), (2, 1, 1), (1, 1, 0), (2, 0, 1)]


def _dataset(schema: Schema, rows: Sequence[Tuple[int, ...]]) -> Dataset:
    n = schema.n_attributes
    return Dataset.from_codes(schema, [[r[j] for r in rows] for j in range(n)], [r[n] for r in rows])


def _table(data: Dataset, rows: Sequence[int], a: int, n_values: int) -> List[List[int]]:
    table = [[0] * data.schema.n_classes for _ in range(n_values)]
    column = data.codes(a)
    for i in rows:
        table[column[i]][data.labels[i]] += 1
    return table


def _counts(data: Dataset, rows: Sequence[int]) -> List[int]:
    counts = [0] * data.schema.n_classes
    for i in rows:
        counts[data.labels[i]] += 1
    return counts


def _log(p: float) -> float:
    return math.log(p) if p > 0 else -math.inf


def _sf(x: int, scale: float) -> float:
    """P(Z >= x) for the discrete Laplace: P(Z <= -x) by symmetry, accurate in the tail."""
    return discrete_laplace_cdf(-x, scale)


def _thesis_continue_probability(counts: Sequence[int], eps: Fraction, min_samples: int) -> float:
    """P(N_0 >= 1, N_1 >= 1 and N_0 + N_1 > m_s): the sound thesis tree splits (2 classes).

    For N_0 = a < m_s the other count needs N_1 >= m_s + 1 - a; from a = max(1, m_s)
    on it needs N_1 >= 1 only, which sums to P(N_0 >= max(1, m_s)) P(N_1 >= 1).
    """
    scale = float(1 / eps)
    c0, c1 = counts
    head = [
        discrete_laplace_pmf(a - c0, scale) * _sf(min_samples + 1 - a - c1, scale)
        for a in range(1, min_samples)
    ]
    return math.fsum(head + [_sf(max(1, min_samples) - c0, scale) * _sf(1 - c1, scale)])


def _thesis_calibration(quality: str, relation: Relation) -> Fraction:
    """The sensitivity the thesis tree's mechanism is calibrated with: halved for monotone qualities under add-remove.

    exp(eps u / Delta) is the exp(eps u / (2 c)) of the standard mechanism at c = Delta / 2 (claims
    exponential-mechanism-monotone and split-quality-monotone).
    """
    delta = Fraction(get_quality(quality).sensitivity(relation))
    return delta / 2 if relation is Relation.ADD_REMOVE and quality in MONOTONE_QUALITIES else delta


def _thesis_oracle(
    data: Dataset, rows: Sequence[int], attributes: Tuple[int, ...], depth: int,
    eps: Fraction, quality: str, relation: Relation, min_samples: int,
) -> Distribution:
    """The exact structure distribution of the sound thesis tree (categorical attributes, 2 classes)."""
    if not attributes or depth == 0:
        return Distribution({"leaf": 0.0})
    go = _thesis_continue_probability(_counts(data, rows), eps, min_samples)
    q = get_quality(quality)
    candidates = [(a, v) for a in attributes for v in range(data.schema.attributes[a].n_values)]  # type: ignore[union-attr]
    utilities: List[float] = []
    for a, v in candidates:
        table = _table(data, rows, a, data.schema.attributes[a].n_values)  # type: ignore[union-attr]
        total = _counts(data, rows)
        utilities.append(float(q([table[v], [t - x for t, x in zip(total, table[v])]])))
    choice = exponential_mechanism_distribution(utilities, eps, _thesis_calibration(quality, relation))
    components: List[Tuple[float, Distribution]] = [(_log(1 - go), Distribution({"leaf": 0.0}))]
    for index, log_p in choice.items():
        a, v = candidates[int(index)]  # type: ignore[call-overload]
        column = data.codes(a)
        left = [i for i in rows if column[i] == v]
        right = [i for i in rows if column[i] != v]
        rest = tuple(b for b in attributes if b != a)
        joint = product(
            _thesis_oracle(data, left, rest, depth - 1, eps, quality, relation, min_samples),
            _thesis_oracle(data, right, attributes, depth - 1, eps, quality, relation, min_samples),
        )
        split = push_forward(joint, lambda o, a=a, v=v: (("value", a, v),) + tuple(o))  # type: ignore[misc]
        components.append((_log(go) + log_p, split))
    return mixture(components)


def _structure(node: Node) -> Structure:
    if isinstance(node, Leaf):
        return "leaf"
    if isinstance(node, ValueSplit):
        return (("value", node.attribute, node.value), _structure(node.equal), _structure(node.rest))
    if isinstance(node, CategoricalSplit):
        return (("multiway", node.attribute),) + tuple(_structure(c) for c in node.children)
    assert isinstance(node, ThresholdSplit)
    return (("threshold", node.attribute), _structure(node.below), _structure(node.at_or_above))


def _diffpid3_stop_probability(size: int, largest: int, n_classes: int, eps: Fraction) -> float:
    """P(N_T / (t |C|) < sqrt(2)/eps) = P(N_T <= M), M the largest integer below sqrt(2) t |C| / eps."""
    bound = Fraction(2 * (largest * n_classes) ** 2) / (eps * eps)
    top = math.isqrt(bound.numerator * bound.denominator) // bound.denominator  # floor(sqrt(bound)), irrational
    return discrete_laplace_cdf(top - size, float(1 / eps))


def _diffpid3_oracle(
    data: Dataset, rows: Sequence[int], attributes: Tuple[int, ...], depth: int,
    eps: Fraction, quality: str, relation: Relation, max_size: int,
) -> Distribution:
    """The exact structure distribution of DiffP-ID3 (categorical attributes)."""
    if not attributes or depth == 0:
        return Distribution({"leaf": 0.0})
    sizes = {a: data.schema.attributes[a].n_values for a in attributes}  # type: ignore[union-attr]
    stop = _diffpid3_stop_probability(len(rows), max(sizes.values()), data.schema.n_classes, eps)
    q = get_quality(quality)
    utilities = [float(q(_table(data, rows, a, sizes[a]))) for a in attributes]
    calibration = (
        _thesis_calibration(quality, relation) if quality in MONOTONE_QUALITIES
        else Fraction(q.sensitivity(relation, max_size=max_size))
    )
    choice = exponential_mechanism_distribution(utilities, eps, calibration)
    components: List[Tuple[float, Distribution]] = [(_log(stop), Distribution({"leaf": 0.0}))]
    for index, log_p in choice.items():
        a = attributes[int(index)]  # type: ignore[call-overload]
        column = data.codes(a)
        rest = tuple(b for b in attributes if b != a)
        children = [
            _diffpid3_oracle(data, [i for i in rows if column[i] == v], rest, depth - 1, eps, quality, relation, max_size)
            for v in range(sizes[a])
        ]
        split = push_forward(product(*children), lambda o, a=a: (("multiway", a),) + tuple(o))  # type: ignore[misc]
        components.append((_log(1 - stop) + log_p, split))
    return mixture(components)


def _worst_over_neighbours(
    data: Dataset, relation: Relation, oracle: Callable[[Dataset], Distribution]
) -> Tuple[float, str]:
    reference = oracle(data)
    worst, where = 0.0, ""
    for description, neighbour in all_neighbours(data, relation):
        ratio = max_log_ratio(reference, oracle(neighbour))
        if ratio > worst:
            worst, where = ratio, description
    return worst, where


@pytest.mark.claim(
    "thesis-tree-budget", "exact-max-log-ratio", "max-operator-sensitivity", "gini-unnormalised-sensitivity",
    "exponential-mechanism-monotone", "split-quality-monotone",
)
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize("quality", ["max", "gini"])
def test_sound_thesis_tree_structures_are_within_budget_on_every_neighbour(relation: Relation, quality: str) -> None:
    budget, depth, min_samples = Fraction(3), 2, 1
    eps = thesis_epsilon(budget, depth, relation)
    data = _dataset(SCHEMA, ROWS)
    attributes = tuple(range(SCHEMA.n_attributes))

    def oracle(d: Dataset) -> Distribution:
        return _thesis_oracle(d, range(len(d)), attributes, depth, eps, quality, relation, min_samples)

    root = oracle(data)
    assert abs(root.log_mass()) < 1e-12
    go = _thesis_continue_probability(_counts(data, range(len(data))), eps, min_samples)
    assert 1e-3 < go < 1 - 1e-3, go  # both branches of the stopping rule matter
    worst, where = _worst_over_neighbours(data, relation, oracle)
    assert worst <= float(budget) + LOG_SLACK, (quality, relation, worst, where)
    assert worst > 0.1 * float(budget), f"vacuous: largest log-ratio {worst} ({where})"


def _root_choice(data: Dataset, eps: Fraction, quality: str, relation: Relation) -> Distribution:
    """The sound thesis tree's exponential mechanism at the root, from refdp.scoring alone."""
    q = get_quality(quality)
    rows = range(len(data))
    total = _counts(data, rows)
    utilities: List[float] = []
    for a, attribute in enumerate(data.schema.attributes):
        table = _table(data, rows, a, attribute.n_values)  # type: ignore[union-attr]
        utilities.extend(float(q([row, [t - x for t, x in zip(total, row)]])) for row in table)
    return exponential_mechanism_distribution(utilities, eps, _thesis_calibration(quality, relation))


@pytest.mark.claim(
    "thesis-tree-budget", "exact-max-log-ratio", "parallel-composition", "exponential-mechanism-monotone",
    "split-quality-monotone",
)
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize("quality", ["max", "gini"])
def test_each_root_query_of_the_thesis_tree_stays_within_its_share(relation: Relation, quality: str) -> None:
    """The stopping decision (from a histogram: eps, or 2 eps for a record changing class) and the split (eps)."""
    budget, depth, min_samples = Fraction(3), 2, 1
    eps = thesis_epsilon(budget, depth, relation)
    data = _dataset(SCHEMA, ROWS)

    def stop(d: Dataset) -> Distribution:
        go = _thesis_continue_probability(_counts(d, range(len(d))), eps, min_samples)
        return Distribution({"stop": math.log(1 - go), "split": math.log(go)})

    histogram_cost = eps if relation is Relation.ADD_REMOVE else 2 * eps
    worst_stop = max(max_log_ratio(stop(data), stop(n)) for _, n in all_neighbours(data, relation))
    reference = _root_choice(data, eps, quality, relation)
    worst_split = max(
        max_log_ratio(reference, _root_choice(n, eps, quality, relation)) for _, n in all_neighbours(data, relation)
    )
    assert worst_stop <= float(histogram_cost) + LOG_SLACK, (worst_stop, eps)
    assert worst_split <= float(eps) + LOG_SLACK, (worst_split, eps)
    assert worst_stop > 0.15 * float(eps) and worst_split > 0.15 * float(eps), (worst_stop, worst_split, eps)


@pytest.mark.claim("diffpid3-budget", "exact-max-log-ratio", "information-gain-sensitivity", "max-operator-sensitivity")
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize("quality", ["max", "gini", "info-gain"])
def test_diffpid3_structures_are_within_budget_on_every_neighbour(relation: Relation, quality: str) -> None:
    # Budgets where the root's stopping rule goes either way (the substitute eps is smaller).
    budget = Fraction(8) if relation is Relation.ADD_REMOVE else Fraction(12)
    depth, max_size = 2, 10
    eps = diffpid3_epsilon(budget, depth, relation)
    data = _dataset(SCHEMA, ROWS)
    attributes = tuple(range(SCHEMA.n_attributes))

    def oracle(d: Dataset) -> Distribution:
        return _diffpid3_oracle(d, range(len(d)), attributes, depth, eps, quality, relation, max_size)

    stop = _diffpid3_stop_probability(len(data), 3, 2, eps)
    assert 1e-3 < stop < 1 - 1e-3, stop
    worst, where = _worst_over_neighbours(data, relation, oracle)
    assert worst <= float(budget) + LOG_SLACK, (quality, relation, worst, where)
    assert worst > 0.05 * float(budget), f"vacuous: largest log-ratio {worst} ({where})"


def _fits_oracle(
    name: str, params: Dict[str, object], data: Dataset, budget: Fraction, oracle: Distribution, seed: int
) -> None:
    """DKW check that the implementation's structures follow ``oracle`` (false alarm FALSE_ALARM)."""
    spec = get_algorithm(name)
    resolved = spec.resolve(params)  # type: ignore[arg-type]
    n = dkw_power_sample_size(DISTANCE, FALSE_ALARM, MISS)
    rng = random.Random(seed)
    order = {o: k for k, o in enumerate(sorted(oracle, key=repr))}
    samples = []
    for _ in range(n):
        structure = _structure(spec.fit(data, budget, resolved, rng, Relation.ADD_REMOVE).root)
        assert structure in order, f"seed {seed}: the implementation built {structure!r}, impossible for the oracle"
        samples.append(float(order[structure]))
    cumulative: List[float] = []
    total = 0.0
    for o in sorted(oracle, key=repr):
        total += oracle.probability(o)
        cumulative.append(total)

    def cdf(x: float) -> float:
        k = math.floor(x)
        return 0.0 if k < 0 else min(1.0, cumulative[min(k, len(cumulative) - 1)])

    distance = ks_statistic(samples, cdf)
    bound = dkw_bound(n, FALSE_ALARM)
    assert distance <= bound, f"seed {seed}, n {n}: KS distance {distance} > DKW bound {bound}"


@pytest.mark.claim("thesis-tree-budget", "dkw-goodness-of-fit")
def test_thesis_tree_implementation_follows_the_oracle() -> None:
    budget, depth, min_samples = Fraction(3), 2, 1
    data = _dataset(SCHEMA, ROWS)
    eps = thesis_epsilon(budget, depth, Relation.ADD_REMOVE)
    oracle = _thesis_oracle(data, range(len(data)), (0, 1), depth, eps, "max", Relation.ADD_REMOVE, min_samples)
    params = {"max_depth": depth, "min_samples": min_samples, "size_share": 0, "node_counts": "every-node", "quality": "max"}
    _fits_oracle("thesis-tree", params, data, budget, oracle, seed=11)


@pytest.mark.claim("diffpid3-budget", "dkw-goodness-of-fit")
def test_diffpid3_implementation_follows_the_oracle() -> None:
    budget, depth = Fraction(8), 2
    data = _dataset(SCHEMA, ROWS)
    eps = diffpid3_epsilon(budget, depth, Relation.ADD_REMOVE)
    oracle = _diffpid3_oracle(data, range(len(data)), (0, 1), depth, eps, "gini", Relation.ADD_REMOVE, 10)
    _fits_oracle("diffpid3", {"max_depth": depth, "quality": "gini", "size_share": 0}, data, budget, oracle, seed=12)


# --- continuous attributes ----------------------------------------------------------------

MIXED = Schema(
    (ContinuousAttribute("x", 0.0, 10.0), CategoricalAttribute("k", ("p", "q"))), "class", ("c0", "c1")
)
MIXED_ROWS: List[Tuple[float, int, int]] = [(1.0, 0, 0), (2.5, 1, 0), (2.5, 0, 1), (7.0, 1, 1), (9.0, 1, 1)]


def _mixed(rows: Sequence[Tuple[float, int, int]]) -> Dataset:
    return Dataset.from_codes(MIXED, [[r[0] for r in rows], [r[1] for r in rows]], [r[2] for r in rows])


def _threshold_table(data: Dataset, t: float) -> List[List[int]]:
    table = [[0, 0], [0, 0]]
    for x, label in zip(data.values(0), data.labels):
        table[0 if x < t else 1][label] += 1
    return table


GRID_CELLS = 8  # grid points 1.25, 2.5, ..., 8.75 of the range [0, 10]


def _grid_log_probabilities(
    data: Dataset, eps: Fraction, quality: str, relation: Relation, mixed: bool
) -> Dict[Hashable, float]:
    """log P of every outcome of the exponential mechanism over the grid thresholds (and pairs).

    The thesis tree's single mechanism (``mixed``) weighs each categorical
    (attribute, value) pair as much as the whole range (cells - 1 grid
    points of weight 1); DiffP-C4.5's threshold mechanism (not mixed) has
    uniform weights over the grid points.
    """
    q = get_quality(quality)
    # both mechanisms drop the factor 2 where the qualities are monotone (add-remove)
    calibration = _thesis_calibration(quality, relation)
    c = float(eps) / (2 * float(calibration))
    grid = ThresholdGrid.of(MIXED.attributes[0], GRID_CELLS)  # type: ignore[arg-type]
    terms: Dict[Hashable, float] = {}
    for k in range(1, GRID_CELLS):
        terms[("t", k)] = c * float(q(_threshold_table(data, float(grid.point(k)))))
    if mixed:
        total = _counts(data, range(len(data)))
        table = _table(data, range(len(data)), 1, 2)
        for v in range(2):
            u = float(q([table[v], [t - x for t, x in zip(total, table[v])]]))
            terms[("pair", v)] = c * u + math.log(GRID_CELLS - 1)
    top = max(terms.values())
    log_z = top + math.log(math.fsum(math.exp(x - top) for x in terms.values()))
    return {key: value - log_z for key, value in terms.items()}


@pytest.mark.claim("continuous-split-exponential-mechanism", "exact-max-log-ratio")
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize("quality", ["max", "gini"])
@pytest.mark.parametrize("mixed", [True, False])
def test_grid_threshold_log_ratio_is_within_epsilon(relation: Relation, quality: str, mixed: bool) -> None:
    eps = Fraction(1)
    # Pure cells of a few records each: a record of the other class moves their Gini by nearly 2.
    data = _mixed(MIXED_ROWS + [(0.5, 0, 0)] * 4 + [(9.5, 1, 1)] * 4)
    worst = 0.0
    for _, neighbour in all_neighbours(data, relation, candidates={"x": [0.0, 1.0, 2.5, 4.0, 6.0, 10.0]}):
        p = _grid_log_probabilities(data, eps, quality, relation, mixed)
        q = _grid_log_probabilities(neighbour, eps, quality, relation, mixed)
        assert p.keys() == q.keys()  # the outcomes are the public grid and pairs, whatever the data
        worst = max(worst, max(abs(p[k] - q[k]) for k in p))
    assert worst <= float(eps) + LOG_SLACK, (quality, relation, mixed, worst)
    assert worst > 0.2 * float(eps), worst  # not vacuous (the Gini bound 2 is a supremum)


@pytest.mark.claim("continuous-split-exponential-mechanism")
def test_grid_tables_match_brute_force_counts() -> None:
    data = _mixed(MIXED_ROWS + [(10.0, 0, 1), (0.0, 1, 0), (1.25, 0, 0)])
    grid = ThresholdGrid.of(MIXED.attributes[0], GRID_CELLS)  # type: ignore[arg-type]
    counts = ReferenceCounts(data)
    for rows in ([0, 1, 2, 3, 4, 5, 6, 7], [1, 2], [], [7, 3, 2]):
        tables = grid_threshold_tables(counts.grid_table(rows, 0, grid))
        assert len(tables) == GRID_CELLS - 1
        subset = data.subset(rows)
        for k, table in enumerate(tables, 1):
            assert table == _threshold_table(subset, float(grid.point(k))), (rows, k)


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=1, max_value=4).flatmap(
        lambda n_classes: st.lists(
            st.lists(st.integers(min_value=0, max_value=60), min_size=n_classes, max_size=n_classes),
            min_size=1,
            max_size=12,
        )
    ),
    st.sampled_from(["max", "gini"]),
)
def test_threshold_scores_in_one_pass_equal_the_quality_of_each_threshold_table(
    table: List[List[int]], quality: str
) -> None:
    # thesis-tree scores a grid's thresholds from cumulative counts; the utilities it feeds the
    # exponential mechanism must be exactly the quality of each threshold's two-row table.
    score = exact_score_function(quality)
    expected = [score(t) for t in grid_threshold_tables(table)]
    got = list(exact_threshold_scores(quality)(table))
    assert got == expected
    assert [type(v) for v in got] == [type(v) for v in expected]


def _gini_by_definition(table: List[List[int]]) -> Fraction:
    return -sum((Fraction(sum(row)) - Fraction(sum(c * c for c in row), sum(row)) for row in table if sum(row)), Fraction(0))


@settings(max_examples=300, deadline=None)
@given(
    st.integers(min_value=1, max_value=4).flatmap(
        lambda n_classes: st.lists(
            st.one_of(
                st.just([0] * n_classes),
                st.lists(st.integers(min_value=0, max_value=60), min_size=n_classes, max_size=n_classes),
            ),
            min_size=1,
            max_size=16,
        )
    ),
    st.sampled_from(["max", "gini"]),
)
def test_threshold_ratios_are_the_quality_of_each_threshold_table(table: List[List[int]], quality: str) -> None:
    # thesis-tree hands the sampler unreduced (numerator, denominator) pairs computed from running
    # sums, an empty cell reusing the pair before it; their values must be the quality of each
    # threshold's two-row table, here the Gini by its definition (tables with many empty cells).
    tables = grid_threshold_tables(table)
    got = exact_threshold_ratios(quality)(table)
    assert len(got) == len(tables)
    assert all(type(n) is int and type(d) is int and d > 0 for n, d in got)
    by_definition = _gini_by_definition if quality == "gini" else exact_score_function("max")
    assert [Fraction(n, d) for n, d in got] == [by_definition(t) for t in tables]
    pair_of = exact_ratio_function(quality)
    assert [Fraction(*pair_of(t)) for t in tables] == [by_definition(t) for t in tables]
    assert [Fraction(*pair_of(table))] == [by_definition(table)]


def test_threshold_intervals_match_brute_force_counts() -> None:
    # The interval candidates of the non-private baseline and of the planted float-threshold fault.
    data = _mixed(MIXED_ROWS)
    view = TrainingView.of(data)
    for rows in ([0, 1, 2, 3, 4], [1, 2], [], [4, 3, 2]):
        intervals = threshold_intervals(view, rows, 0, 0.0, 10.0)
        assert intervals[0].start == 0.0 and intervals[-1].end == 10.0
        assert all(a.end == b.start for a, b in zip(intervals, intervals[1:]))
        subset = data.subset(rows)
        for interval in intervals:
            assert interval.length > 0
            for t in (interval.end, (interval.start + interval.end) / 2):
                expected = _threshold_table(subset, t)
                assert [list(r) for r in interval.table] == expected, (rows, interval, t)


@pytest.mark.claim("continuous-split-exponential-mechanism", "exponential-mechanism-exact-sampler", "dkw-goodness-of-fit")
def test_root_threshold_of_the_thesis_tree_follows_the_exact_law() -> None:
    """Given a split at the root, P(each grid threshold or pair) is the exact mechanism's."""
    budget, depth = Fraction(6), 1
    data = _mixed(MIXED_ROWS)
    eps = thesis_epsilon(budget, depth, Relation.ADD_REMOVE)
    log_p = _grid_log_probabilities(data, eps, "max", Relation.ADD_REMOVE, True)
    keys = sorted(log_p, key=repr)
    grid = ThresholdGrid.of(MIXED.attributes[0], GRID_CELLS)  # type: ignore[arg-type]
    spec = get_algorithm("thesis-tree")
    params = spec.resolve(
        {"max_depth": depth, "min_samples": -10**9, "grid": GRID_CELLS, "size_share": 0, "node_counts": "every-node",
         "quality": "max"}
    )
    n = dkw_power_sample_size(DISTANCE, FALSE_ALARM, MISS)
    rng = random.Random(5)
    samples: List[float] = []
    while len(samples) < n:
        root = spec.fit(data, budget, params, rng, Relation.ADD_REMOVE).root
        if isinstance(root, Leaf):
            continue
        if isinstance(root, ValueSplit):
            key: Tuple[str, int] = ("pair", root.value)
        else:
            assert isinstance(root, ThresholdSplit)
            assert root.threshold in grid.points, root.threshold
            key = ("t", grid.points.index(root.threshold) + 1)
        samples.append(float(keys.index(key)))
    cumulative = [math.fsum(math.exp(log_p[k]) for k in keys[: j + 1]) for j in range(len(keys))]
    distance = ks_statistic(samples, lambda x: 0.0 if x < 0 else cumulative[min(math.floor(x), len(keys) - 1)])
    assert distance <= dkw_bound(n, FALSE_ALARM), (n, distance)


# --- the thesis code (published variant) -----------------------------------------------------

ONE = Schema((CategoricalAttribute("a", ("x", "y", "z")),), "class", ("+", "-"))
E1_D = [(0, 0), (1, 1)]
E1_D_PRIME = E1_D + [(2, 0)]


def _published_root_distribution(data: Dataset, budget: Fraction, quality: str) -> Distribution:
    """The published variant's root (min_samples far below 0 and two classes: it always splits)."""
    eps = published_per_query_epsilon(budget, 1)
    total = _counts(data, range(len(data)))
    evals: List[float] = []
    values: List[int] = []
    for a, attribute in enumerate(data.schema.attributes):
        assert isinstance(attribute, CategoricalAttribute)
        table = _table(data, range(len(data)), a, attribute.n_values)
        present = sorted((v for v in range(attribute.n_values) if sum(table[v])), key=lambda v: attribute.values[v])
        position, score = published_best_value(quality, [(v, table[v]) for v in present], total)
        values.append(present[position])
        evals.append(score)
    choice = exponential_mechanism_distribution(evals, eps, 1 if quality == "max" else 2)
    # Listing 1: att = evals.index(max_choise), the first attribute with the drawn score.
    return push_forward(choice, lambda i: (evals.index(evals[int(i)]), values[evals.index(evals[int(i)])]))  # type: ignore[call-overload]


@pytest.mark.claim("thesis-code-errata", "exact-max-log-ratio")
def test_published_split_value_chosen_without_noise_is_a_support_mismatch() -> None:
    """E1: the root splits on a = x on D and on a = y on D' (a neighbour), with probability 1 each."""
    d, d2 = _dataset(ONE, E1_D), _dataset(ONE, E1_D_PRIME)
    p = _published_root_distribution(d, Fraction(1), "max")
    q = _published_root_distribution(d2, Fraction(1), "max")
    assert set(p) == {(0, 0)} and set(q) == {(0, 1)}, (dict(p), dict(q))
    with pytest.raises(SupportMismatch):
        max_log_ratio(p, q)
    # The implementation agrees: every run splits the root at the noiseless argmax.
    spec = get_algorithm("thesis-tree")
    params = spec.resolve({"variant": "published", "max_depth": 1, "min_samples": -10**9})
    rng = random.Random(3)
    for data, value in ((d, 0), (d2, 1)):
        for _ in range(50):
            root = spec.fit(data, Fraction(1), params, rng, Relation.ADD_REMOVE).root
            assert isinstance(root, ValueSplit) and root.value == value
    # The sound variant on the same pair: every split value is possible, within epsilon.
    sound_p = _thesis_oracle(d, range(2), (0,), 1, thesis_epsilon(Fraction(1), 1, Relation.ADD_REMOVE), "max", Relation.ADD_REMOVE, -10**9)
    sound_q = _thesis_oracle(d2, range(3), (0,), 1, thesis_epsilon(Fraction(1), 1, Relation.ADD_REMOVE), "max", Relation.ADD_REMOVE, -10**9)
    assert max_log_ratio(sound_p, sound_q) <= 1 + LOG_SLACK


@pytest.mark.claim("thesis-code-errata", "exact-max-log-ratio")
def test_published_ties_collapse_to_the_first_attribute() -> None:
    """E5: two attributes with equal scores: the second is never chosen on D, but is on a neighbour."""
    schema = Schema(
        (CategoricalAttribute("a0", ("x", "y")), CategoricalAttribute("a1", ("x", "y"))), "class", ("+", "-")
    )
    d = _dataset(schema, [(0, 0, 0), (1, 1, 1), (0, 0, 1)])
    d2 = _dataset(schema, [(0, 0, 0), (1, 1, 1), (0, 0, 1), (1, 0, 0)])
    p = _published_root_distribution(d, Fraction(1), "max")
    q = _published_root_distribution(d2, Fraction(1), "max")
    assert {o[0] for o in p} == {0} and {o[0] for o in q} == {0, 1}, (dict(p), dict(q))  # type: ignore[index]
    with pytest.raises(SupportMismatch):
        max_log_ratio_report(p, q)


@pytest.mark.claim("thesis-code-errata")
def test_published_absent_class_is_released_as_an_exact_zero() -> None:
    """E2: a class absent from the node gets no noise: count exactly 0.0 on D, never on D'."""
    d = _dataset(ONE, [(0, 0), (1, 0), (2, 0)])
    d2 = _dataset(ONE, [(0, 0), (1, 0), (2, 0), (2, 1)])
    published = get_algorithm("thesis-tree")
    params = published.resolve({"variant": "published", "max_depth": 0})
    sound = published.resolve({"max_depth": 0})
    rng = random.Random(4)
    def count_of_c1(data: Dataset, chosen: Dict[str, Param]) -> float:
        return float(published.fit(data, Fraction(1), chosen, rng, Relation.ADD_REMOVE).root.counts[1])  # type: ignore[index]

    zeros_d = sum(count_of_c1(d, params) == 0.0 for _ in range(200))
    zeros_d2 = sum(count_of_c1(d2, params) == 0.0 for _ in range(200))
    assert (zeros_d, zeros_d2) == (200, 0)
    # The sound variant noises every class: the absent class's count varies.
    counts = {count_of_c1(d, sound) for _ in range(200)}
    assert len(counts) > 3, counts


@pytest.mark.claim("thesis-code-errata")
def test_published_attribute_type_and_thresholds_come_from_the_data() -> None:
    """E3/E4: 20 distinct values give an equality split at a training value; 21 a threshold at one."""
    schema = Schema((ContinuousAttribute("x", 0.0, 100.0),), "class", ("+", "-"))
    rows = [(float(v), v % 2) for v in range(20)]
    d = Dataset.from_codes(schema, [[r[0] for r in rows]], [r[1] for r in rows])
    d2 = Dataset.from_codes(schema, [[r[0] for r in rows] + [50.0]], [r[1] for r in rows] + [1])
    spec = get_algorithm("thesis-tree")
    params = spec.resolve({"variant": "published", "max_depth": 1, "min_samples": -10**9})
    rng = random.Random(6)
    for _ in range(20):
        root = spec.fit(d, Fraction(1), params, rng, Relation.ADD_REMOVE).root
        assert isinstance(root, ThresholdSplit) and isinstance(root.at_or_above, ThresholdSplit)  # x == v
        assert root.threshold in set(d.values(0)) and root.at_or_above.threshold == math.nextafter(root.threshold, math.inf)
        root2 = spec.fit(d2, Fraction(1), params, rng, Relation.ADD_REMOVE).root
        assert isinstance(root2, ThresholdSplit) and isinstance(root2.at_or_above, Leaf)  # x >= v
        assert root2.threshold in set(d2.values(0))
    model = spec.fit(d2, Fraction(1), params, rng, Relation.ADD_REMOVE)
    assert model.receipt.level == "unsound" and any("attribute types" in leak for leak in model.receipt.leaks)


@pytest.mark.claim("thesis-code-errata", "max-operator-sensitivity")
def test_published_empty_side_scores_zero_so_scores_jump_by_n() -> None:
    """E6: an attribute with one value in the node scores 0; one more record makes it n + 1."""
    for n in (1, 5, 50):
        d_rows = [(0, 0)] * n
        total = [n, 0]
        _, before = published_best_value("max", [(0, [n, 0])], total)
        _, after = published_best_value("max", [(0, [n, 0]), (1, [1, 0])], [n + 1, 0])
        assert (before, after) == (0.0, float(n + 1)), (n, d_rows)
        # The max operator of refdp.scoring on the same tables moves by at most 1.
        q = get_quality("max")
        assert abs(float(q([[n, 0], [0, 0]])) - float(q([[n, 0], [1, 0]]))) <= 1


@pytest.mark.claim("thesis-gini-exp2-sensitivity", "gini-unnormalised-sensitivity")
def test_exp2_gini_changes_by_more_than_n() -> None:
    gini = get_quality("gini")
    for n in range(1, 2001):
        change = published_score("gini", [n, 1], [1, 0]) - published_score("gini", [n, 0], [1, 0])
        assert change > n, (n, change)
        if n <= 50:
            squared = float(gini([[n, 1], [1, 0]])) - float(gini([[n, 0], [1, 0]]))
            assert abs(squared) < 2, (n, squared)
    assert abs(change - (2000 + 2 - math.log(2))) < 1e-2
    # It rewards mixed cells: (1, 1) scores above (2, 0).
    assert published_score("gini", [1, 1], [1, 0]) > published_score("gini", [2, 0], [1, 0])


@pytest.mark.claim("thesis-code-errata", "thesis-tree-budget")
@pytest.mark.parametrize("depth", [0, 1, 3, 5])
def test_published_receipt_states_the_second_leaf_draw(depth: int) -> None:
    """E8: a leaf draws its counts twice, so a full path costs (2d + 2)/(2d + 1) epsilon."""
    data = _dataset(SCHEMA, ROWS * 3)
    model: TreeModel = get_algorithm("thesis-tree").fit(
        data, Fraction(1), get_algorithm("thesis-tree").resolve({"variant": "published", "max_depth": depth}),
        random.Random(1), Relation.ADD_REMOVE,
    )
    assert model.receipt.epsilon == Fraction(2 * depth + 2, 2 * depth + 1)
    assert model.receipt.level == "unsound"
    assert all(not c.sound for c in model.receipt.charges if c.mechanism != "reserved")
