"""The audit's search: shaped pairs, views of a model, and a choice made on a pilot only."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Dict, Tuple

import pytest

from refdp.algorithms import get_algorithm
from refdp.audit import are_neighbours
from refdp.audit.learner import LearnerAudit, audit_learner
from refdp.audit.pair import draw_rows
from refdp.audit.search import candidate_pairs, search
from refdp.audit.views import NUMERIC_VIEWS, VIEWS, view
from refdp.cli.audit import RegistryMechanism
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import Leaf, ThresholdSplit, TreeModel


@pytest.mark.parametrize("relation", list(Relation))
def test_candidate_pairs_have_the_shapes_and_are_neighbours(relation: Relation) -> None:
    data = load("credit-g")
    rows = draw_rows(len(data), 40, 3)
    pairs = candidate_pairs(data, rows, relation, [19], 3)
    shapes = {p.shape for p in pairs}
    assert {"sample", "pure", "size 19", "bound (lower)", "bound (upper)", "one value"} <= shapes, shapes
    for pair in pairs:
        assert are_neighbours(pair.d, pair.neighbour.d_prime, relation), pair.describe()
    pure = next(p for p in pairs if p.shape == "pure")
    assert len(set(pure.d.labels)) == 1 and pure.probe.label != pure.d.labels[0] and len(pure.d) == 200
    low = next(p for p in pairs if p.shape == "bound (lower)")
    continuous = [a for a, x in enumerate(data.schema.attributes) if isinstance(x, ContinuousAttribute)]
    assert all(low.probe.values[a] == data.schema.attributes[a].lower for a in continuous)  # type: ignore[union-attr]
    assert all(len(p.d) == 19 for p in pairs if p.shape == "size 19")


SCHEMA = Schema((ContinuousAttribute("x", 0.0, 1.0), CategoricalAttribute("k", ("a", "b"))), "class", ("p", "q"))


def _model(tree: TreeModel) -> TreeModel:
    return tree


def test_views_read_what_a_model_releases() -> None:
    from refdp.privacy import Ledger, receipt_from_ledger

    tree = ThresholdSplit(0, 1 / 3, Leaf((0, 2.5)), Leaf((3, 0)), counts=(3, 2.5))
    model = TreeModel(algorithm="noisy-majority", variant="sound", params={}, schema=SCHEMA, trees=(tree,),
                      receipt=receipt_from_ledger(Ledger()), weights=(0.5,))
    probe = __import__("refdp.audit.neighbours", fromlist=["Record"]).Record((0.1, 0), 1)
    seen: Dict[str, object] = {name: view(name, probe)(model) for name in VIEWS}
    assert seen["depth"] == 1 and seen["leaves"] == 2 and seen["exact-zeros"] == 2
    assert seen["totals"] == (6,) and seen["float-bits"] is True and seen["probe-count"] == 1.25
    assert seen["weights"] == ((0.5).hex(),)
    assert NUMERIC_VIEWS <= set(VIEWS)


def _pair_learner(data: Dataset, rng: RandomSource) -> TreeModel:
    spec = get_algorithm("thesis-tree")
    return spec.fit(data, Fraction(1), spec.resolve({"variant": "float-threshold", "max_depth": 1}), rng,
                    Relation.ADD_REMOVE)


@pytest.mark.claim("float-threshold-leaks", "conditional-ratio-test")
def test_the_search_finds_the_float_threshold_leak_by_itself() -> None:
    # No hand-made pair, no hand-picked view: the shapes and views of the search are enough.
    rng = random.Random(5)
    rows = [(rng.choice((0.0, 1.0)), rng.randrange(2)) for _ in range(60)]
    data = Dataset.from_codes(SCHEMA, [[x for x, _ in rows], [k for _, k in rows]], [int(x) for x, _ in rows])
    spec = get_algorithm("thesis-tree")
    params = spec.resolve({"variant": "float-threshold", "max_depth": 1})
    request = LearnerAudit(
        learner=RegistryMechanism("thesis-tree", Fraction(1), tuple(sorted(params.items())), Relation.ADD_REMOVE),
        name="thesis-tree", description="", params=params, data=data, data_name="x", rows=tuple(range(40)),
        epsilon=Fraction(1), delta=None, relation=Relation.ADD_REMOVE, seed=11,
    )
    report = audit_learner(request)
    assert report["verdict"] == "refuted", report
    assert report["pilot_runs"] > 0 and report["runs"] > report["pilot_runs"]


def test_the_search_draws_its_pilot_from_its_own_stream() -> None:
    # Same seed: the pilot's seeds come from "refdp-audit-search-<seed>", the test's from random.Random(seed);
    # the two streams share no state, so the test batch is fresh and its bound valid.
    data = load("vote")
    rows = draw_rows(len(data), 30, 2)
    pairs = candidate_pairs(data, rows, Relation.ADD_REMOVE, [], 2)[:2]
    calls: Dict[Tuple[int, int], int] = {}

    def learner(d: Dataset, rng: RandomSource) -> TreeModel:
        key = (len(d), rng.getrandbits(64))
        calls[key] = calls.get(key, 0) + 1
        spec = get_algorithm("noisy-majority")
        return spec.fit(d, Fraction(1), spec.resolve({}), rng, Relation.ADD_REMOVE)

    choice = search(learner, pairs, test_runs=100, alpha=1e-6, delta=0.0, seed=2, pilot_runs=10, rounds=2)
    assert choice.pilot_runs == sum(calls.values()) and choice.considered == 2 * len(VIEWS)
    test_seeds = {random.Random(s).getrandbits(64) for s in [random.Random(2).getrandbits(64) for _ in range(200)]}
    assert not test_seeds & {seed for _, seed in calls}
