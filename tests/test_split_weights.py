"""thesis-tree's split_weights: the split mechanism's base measure is public, and ``auto`` reads only N~ and epsilon."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import get_algorithm
from refdp.algorithms.noisy_depth import DepthPlan
from refdp.algorithms.thesis_tree_plan import AUTO_GINI_SCALE, Candidates, base_weights, tree_plan
from refdp.audit.replay import replay_pair
from refdp.data import CategoricalAttribute, Schema, load
from refdp.engine import REFERENCE
from refdp.privacy import Relation
from strategies import schemas


@pytest.mark.claim("continuous-split-exponential-mechanism")
@settings(max_examples=200, deadline=None)
@given(schema=schemas(max_attributes=9, max_values=45), cells=st.integers(2, 300))
def test_every_attribute_weighs_alike_under_attribute_and_every_pair_a_grid_under_pair(
    schema: Schema, cells: int
) -> None:
    sizes = {a: x.n_values for a, x in enumerate(schema.attributes) if isinstance(x, CategoricalAttribute)}
    continuous = len(sizes) < schema.n_attributes
    pair, point = base_weights(schema, cells, "attribute")
    totals = {pair[a] * m for a, m in sizes.items()} | ({point * (cells - 1)} if continuous else set())
    assert len(totals) <= 1 and all(w > 0 for w in pair.values()) and point > 0
    assert base_weights(schema, cells, "pair") == ({a: cells - 1 for a in sizes}, 1)


@pytest.mark.claim("continuous-split-exponential-mechanism")
@pytest.mark.parametrize("weights", ["pair", "attribute"])
def test_the_candidates_weights_are_the_same_on_any_rows(weights: str) -> None:
    credit = load("credit-g")
    params = get_algorithm("thesis-tree").resolve({"split_weights": weights})
    plan = tree_plan(DepthPlan(3, Fraction(1), 1000), Fraction(1), params, Relation.ADD_REMOVE)
    assert plan.split_weights == weights
    seen = []
    for rows in ([0, 1, 2], list(range(500, 1000)), [7]):
        data = credit.subset(rows)
        counts = REFERENCE.counts(data)
        root = counts.root()
        candidates = Candidates(counts, data.schema, plan, int(params["grid"]), Relation.ADD_REMOVE)
        pairs, _, base = candidates(root, tuple(range(data.schema.n_attributes)), counts.class_counts(root))
        seen.append((pairs, base))
    assert seen[0] == seen[1] == seen[2]


@pytest.mark.claim("noisy-size-plan")
@settings(max_examples=100, deadline=None)
@given(noisy=st.integers(-100, 10**6), epsilon=st.fractions(Fraction(1, 1000), Fraction(100)))
def test_auto_reads_only_the_noisy_size_and_epsilon(noisy: int, epsilon: Fraction) -> None:
    params = get_algorithm("thesis-tree").resolve({})
    plan = tree_plan(DepthPlan(2, epsilon, noisy), epsilon, params, Relation.ADD_REMOVE)
    assert plan.split_weights == ("attribute" if noisy * epsilon >= AUTO_GINI_SCALE else "pair")
    without = tree_plan(DepthPlan(2, epsilon, None), epsilon, params, Relation.ADD_REMOVE)
    assert without.split_weights == "pair"


@pytest.mark.claim("replay-audit", "continuous-split-exponential-mechanism")
def test_attribute_weights_pass_the_replay_on_credit_g_pairs() -> None:
    credit = load("credit-g")
    spec = get_algorithm("thesis-tree")
    params = spec.resolve({"size_share": "0", "split_weights": "attribute"})
    rng = random.Random(5)
    for seed in range(6):
        d = credit.subset(sorted(rng.sample(range(len(credit)), 60)))
        d_prime = credit.subset(sorted(rng.sample(range(len(credit)), 1)) + list(d.indices))
        report = replay_pair(
            lambda data, r: spec.fit(data, Fraction(1), params, r, Relation.ADD_REMOVE), d, d_prime, seed=seed,
            to_json=lambda m: m.to_json(),
        )
        assert report.ok, (seed, report.violations)
