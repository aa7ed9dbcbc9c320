"""Released thresholds are functions of public information and the mechanisms' draws only.

The event audited: "some released threshold t has t * 2**53 not an integer",
fixed in advance (it looks at the last bits of the float a learner
releases), on the neighbouring pair of claim ``float-threshold-leaks``:
D = 30 x (0.0, a) + 30 x (1.0, b) on the public range [0, 1] and
D' = D + (0.3, a).  With n runs per side the certified lower bound on
epsilon (Clopper-Pearson, alpha 1e-6, both directions) must stay at or
below the claimed epsilon for every sound learner, and exceed it for the
planted ``float-threshold`` variant, which interpolates between data
values in floating point.  A Hypothesis test then checks the property
behind it on random data, ranges and added records: every released
threshold lies in the public candidate set (grid points, bin edges), or,
for random trees, does not depend on the data at all.
"""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, Iterator, List, Mapping, Tuple, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import get_algorithm
from refdp.algorithms.binning import equal_width_thresholds
from refdp.audit import certified_lower_bound
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.data.grid import Threshold, ThresholdGrid
from refdp.privacy import Relation
from refdp.tree import IntervalSplit, Node, ThresholdSplit, TreeModel, children_of

ALPHA = 1e-6
RUNS = 2000
EPSILON = Fraction(1)

SCHEMA = Schema((ContinuousAttribute("x", 0.0, 1.0),), "class", ("a", "b"))

# Each learner with the parameters that make its thresholds matter at depth 1 (or its defaults).
LEARNERS: Dict[str, Mapping[str, Union[str, int]]] = {
    "thesis-tree": {"max_depth": 1},
    "diffpid3": {"quality": "max", "max_depth": 1},
    "dp-adaboost": {"n_estimators": 3},
    "dpdf": {"max_depth": 2, "min_size": 1},
    "private-rdt": {"n_trees": 3, "max_depth": 2, "size_share": 0},  # a fixed plan: the noisy size sets the depth
}


def _pair() -> Tuple[Dataset, Dataset]:
    rows = [(0.0, 0)] * 30 + [(1.0, 1)] * 30
    d = Dataset.from_codes(SCHEMA, [[x for x, _ in rows]], [c for _, c in rows])
    rows_prime = rows + [(0.3, 0)]
    d_prime = Dataset.from_codes(SCHEMA, [[x for x, _ in rows_prime]], [c for _, c in rows_prime])
    return d, d_prime


def _thresholds(node: Node) -> Iterator[Threshold]:
    if isinstance(node, ThresholdSplit):
        yield node.threshold
    elif isinstance(node, IntervalSplit):
        yield from node.thresholds
    for child in children_of(node):
        yield from _thresholds(child)


def _released(model: TreeModel) -> List[Threshold]:
    return [t for tree in model.trees for t in _thresholds(tree)]


def _off_grid(model: TreeModel) -> bool:
    """The event: some released threshold t has t * 2**53 not an integer."""
    return any((Fraction(t) * 2**53).denominator != 1 for t in _released(model))


def _hits(name: str, params: Mapping[str, Union[str, int]], data: Dataset, seed: int) -> int:
    spec = get_algorithm(name)
    resolved = spec.resolve(params)
    rng = random.Random(seed)
    return sum(_off_grid(spec.fit(data, EPSILON, resolved, rng, Relation.ADD_REMOVE)) for _ in range(RUNS))


def _bound(name: str, params: Mapping[str, Union[str, int]], seed: int) -> Tuple[float, int, int]:
    d, d_prime = _pair()
    k, k_prime = _hits(name, params, d, seed), _hits(name, params, d_prime, seed + 1)
    bound = max(
        certified_lower_bound(k, RUNS, k_prime, RUNS, alpha=ALPHA),
        certified_lower_bound(k_prime, RUNS, k, RUNS, alpha=ALPHA),
    )
    return bound, k, k_prime


@pytest.mark.claim("continuous-split-exponential-mechanism")
@pytest.mark.parametrize("name", sorted(LEARNERS))
def test_the_threshold_bits_event_cannot_refute_a_sound_learner(name: str) -> None:
    seed = 1000 + sorted(LEARNERS).index(name)
    bound, k, k_prime = _bound(name, LEARNERS[name], seed)
    assert bound <= EPSILON, f"seed {seed}: {name} refuted: bound {bound:.3f} (events {k} on D, {k_prime} on D')"


@pytest.mark.claim("float-threshold-leaks")
def test_the_same_event_refutes_the_planted_float_threshold() -> None:
    seed = 999
    bound, k, k_prime = _bound("thesis-tree", {"max_depth": 1, "variant": "float-threshold"}, seed)
    assert k == 0, f"seed {seed}: on D every float in (0, 1] drawn as U * 1 is a multiple of 2**-53"
    assert bound > EPSILON, f"seed {seed}: the planted fault was not refuted (events {k} on D, {k_prime} on D')"


# --- the property behind it, on random data -------------------------------------------------------


def _candidates(name: str, model: TreeModel, attribute: ContinuousAttribute) -> List[Threshold]:
    params = model.params
    if name == "dpdf":
        # DPDF's own public cut points (lower + width * i / bins); lower + i * (width / bins) rounds differently.
        return list(equal_width_thresholds(attribute, int(params["bins"])))
    return list(ThresholdGrid.of(attribute, int(params["grid"])).points)


@settings(max_examples=25, deadline=None)
@given(
    st.floats(-1e6, 1e6, allow_nan=False),
    st.floats(1e-3, 1e6, allow_nan=False),
    st.lists(st.tuples(st.floats(0, 1), st.integers(0, 1)), min_size=1, max_size=40),
    st.tuples(st.floats(0, 1), st.integers(0, 1)),
    st.sampled_from(sorted(LEARNERS)),
    st.integers(0, 2**32),
)
def test_released_thresholds_are_public(
    lower: float, width: float, spots: List[Tuple[float, int]], added: Tuple[float, int], name: str, seed: int
) -> None:
    upper = lower + width
    if not lower < upper:
        return
    attribute = ContinuousAttribute("x", lower, upper)
    schema = Schema((attribute, CategoricalAttribute("k", ("p", "q"))), "class", ("a", "b"))

    def value(s: float) -> float:
        return min(upper, max(lower, lower + s * (upper - lower)))

    rows = [(value(s), c) for s, c in spots]
    neighbour = rows + [(value(added[0]), added[1])]
    models = []
    for table in (rows, neighbour):
        data = Dataset.from_codes(schema, [[x for x, _ in table], [c for _, c in table]], [c for _, c in table])
        spec = get_algorithm(name)
        models.append(spec.fit(data, EPSILON, spec.resolve(LEARNERS[name]), random.Random(seed), Relation.ADD_REMOVE))
    if name == "private-rdt":
        # The structure never reads the data: the same draws give the same thresholds.
        assert _released(models[0]) == _released(models[1])
        return
    for model in models:
        public = set(_candidates(name, model, attribute))
        assert set(_released(model)) <= public, (name, _released(model))
