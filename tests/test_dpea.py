"""DPEA end to end: budget and receipts, replay, bad parameters, the audit, the command line."""

from __future__ import annotations

import random
import re
from fractions import Fraction
from typing import Dict, Hashable, List, Tuple

import pytest

from refdp.algorithms import Param, get_algorithm, train
from refdp.algorithms.dpea import embedding_depth, per_query_epsilon, selections
from refdp.audit import monte_carlo_audit
from refdp.proofs_reader import proofs_dir, read_claims
from refdp.cli import main
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load_builtin
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import IntervalSplit, Leaf, Node, TreeModel, depth, dumps_model, leaves
from test_dpea_exact import ROWS, SCHEMA, dataset, structure

# --- budget ---------------------------------------------------------------------------------


@pytest.mark.claim("dpea-budget", "tree-budget-plan")
def test_per_query_epsilon_follows_the_paper_and_the_substitute_plan() -> None:
    eps = Fraction(1)
    for max_depth in range(0, 9):
        for d in range(1, 9):
            s = selections(max_depth, d)
            assert s == -(-max_depth // d)
            assert per_query_epsilon(eps, max_depth, d, Relation.ADD_REMOVE) == eps / (s + 1)
            expected = eps / 2 if s == 0 else eps / (2 * s + 1)
            assert per_query_epsilon(eps, max_depth, d, Relation.SUBSTITUTE) == expected
    assert embedding_depth("whole", 8) == 8 and embedding_depth("whole", 0) == 1
    assert per_query_epsilon(eps, 8, embedding_depth("whole", 8), Relation.ADD_REMOVE) == Fraction(1, 2)


@pytest.mark.claim("dpea-budget", "tree-budget-plan", "parallel-composition", "sequential-composition")
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize(
    "max_depth,embed,search", [(0, "1", "exact"), (1, "1", "exact"), (2, "1", "exhaustive"), (3, "2", "exact"),
                               (5, "2", "exact"), (4, "whole", "exact"), (2, "3", "exhaustive")],
)
def test_sound_receipts_total_exactly_epsilon(relation: Relation, max_depth: int, embed: str, search: str) -> None:
    data = dataset(SCHEMA, ROWS)
    model = train(
        # size_share=0: the depth is max_depth (a noisy size would cap it on these 8 rows)
        "dpea", data, Fraction(3, 2), {"max_depth": max_depth, "embed_depth": embed, "search": search, "size_share": 0},
        rng=7, relation=relation,
    )
    assert model.receipt.epsilon == Fraction(3, 2) and model.receipt.level != "unsound", model.receipt
    tree = model.trees[0]
    # Public stopping: every path has min(D, |A|) splits.
    assert all(len(path) == min(max_depth, 3) for path in _paths(tree)), tree
    reserved = [c for c in model.receipt.charges if c.mechanism == "reserved"]
    d = embedding_depth(embed, max_depth)
    # Only a tree cut short by the attributes, with fewer selections than planned, reserves.
    assert bool(reserved) == (selections(min(max_depth, 3), d) < selections(max_depth, d)), reserved


def _paths(node: Node, prefix: Tuple[int, ...] = ()) -> List[Tuple[int, ...]]:
    if isinstance(node, Leaf):
        return [prefix]
    return [p for child in node.children for p in _paths(child, prefix + (node.attribute,))]  # type: ignore[union-attr]


@pytest.mark.claim("dpea-structure-leak", "dpea-mcmc")
def test_unsound_runs_say_so_in_the_receipt() -> None:
    data = dataset(SCHEMA, ROWS)
    published = train("dpea", data, 1, {"variant": "published", "max_depth": 3, "min_size": 3}, rng=1)
    assert published.receipt.level == "unsound" and published.receipt.epsilon == 1
    assert any("true counts" in leak for leak in published.receipt.leaks)
    mcmc = train("dpea", data, 1, {"search": "mcmc", "steps": 20, "max_depth": 2, "size_share": 0}, rng=1)
    assert mcmc.receipt.level == "unsound" and not mcmc.receipt.leaks
    assert any(not c.sound and "TV" in c.note for c in mcmc.receipt.charges)
    paper = train("dpea", data, 1, {"variant": "published", "search": "paper", "max_depth": 3, "embed_depth": "3"}, rng=1)
    assert any(c.mechanism == "exponential (MCMC)" for c in paper.receipt.charges)


# --- replay, errors, inputs ------------------------------------------------------------------


@pytest.mark.parametrize("search", ["exact", "exhaustive", "mcmc", "paper"])
@pytest.mark.parametrize("variant", ["sound", "published"])
def test_same_seed_same_model_bytes(search: str, variant: str) -> None:
    data = load_builtin("tic-tac-toe").subset(range(0, 958, 4))
    params: Dict[str, Param] = {
        "search": search, "variant": variant, "max_depth": 3, "embed_depth": "2", "steps": 30, "min_size": 5,
    }
    first = dumps_model(train("dpea", data, 1, params, rng=11))
    assert first == dumps_model(train("dpea", data, 1, params, rng=11))
    assert first != dumps_model(train("dpea", data, 1, params, rng=12))


def _snapshot(data: Dataset) -> Tuple[Hashable, ...]:
    return tuple(tuple(data.column(a)) for a in range(data.schema.n_attributes)) + (tuple(data.labels),)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"embed_depth": "0"}, "embed_depth must be an integer in [1, 64]"),
        ({"embed_depth": "two"}, "embed_depth must be an integer in [1, 64]"),
        ({"embed_depth": "-1"}, "embed_depth must be an integer in [1, 64]"),
        ({"embed_depth": "1.5"}, "embed_depth must be an integer in [1, 64]"),
        ({"max_depth": -1}, "max_depth must be in [0, 64]"),
        ({"search": "greedy"}, "search must be one of exact, exhaustive, mcmc, paper"),
        ({"variant": "fast"}, "variant must be one of sound, published"),
        ({"steps": -1}, "steps must be in [0, 1000000]"),
        ({"buffer": 0}, "buffer must be in [1, 1000000]"),
        ({"threshold": -1.0}, "threshold must be in [0.0, 1000000000000000.0]"),
        ({"max_subtrees": 0}, "max_subtrees must be in [1, 10000000]"),
        ({"min_size": -3}, "min_size must be in [0, 1000000000]"),
        (
            {"search": "exhaustive", "embed_depth": "3", "max_depth": 3, "max_subtrees": 10, "size_share": 0},
            "exhaustive search would list",
        ),
        ({"nope": 1}, "dpea has no parameter nope"),
    ],
)
def test_bad_parameters_are_refused_and_change_nothing(params: dict, message: str) -> None:  # type: ignore[type-arg]
    data = dataset(SCHEMA, ROWS)
    before = _snapshot(data)
    with pytest.raises(InvalidParameterError, match=re.escape(message)):
        train("dpea", data, 1, params, rng=1)
    assert _snapshot(data) == before


def test_continuous_attributes_are_split_on_public_equal_width_bins() -> None:
    schema = Schema((ContinuousAttribute("x", 0.0, 1.0), CategoricalAttribute("k", ("a", "b"))), "class", ("c0", "c1"))
    data = Dataset.from_codes(schema, [[0.1, 0.3, 0.7, 0.9] * 10, [0, 1] * 20], [0, 0, 1, 1] * 10)
    model = train("dpea", data, 20, {"max_depth": 1, "embed_depth": "1", "bins": 4, "size_share": 0}, rng=1)
    splits = [n for n in [model.trees[0]] if isinstance(n, IntervalSplit)]
    assert splits and splits[0].thresholds == (0.25, 0.5, 0.75) and model.receipt.level == "proved"
    assert model.predict(data) == [data.label(i) for i in range(len(data))]
    with pytest.raises(InvalidParameterError, match="bins"):
        train("dpea", data, 1, {"bins": 1}, rng=1)


def test_training_does_not_mutate_its_input() -> None:
    data = load_builtin("tic-tac-toe").subset(range(0, 958, 5))
    before = _snapshot(data)
    model = train("dpea", data, 1, {"max_depth": 3, "embed_depth": "whole", "size_share": 0}, rng=2)
    assert _snapshot(data) == before
    assert depth(model.trees[0]) == 3 and sum(1 for _ in leaves(model.trees[0])) == 27


# --- the audit: the published stopping rule leaks the counts ---------------------------------

LEAK_SCHEMA = Schema(
    (CategoricalAttribute("a0", ("x", "y")), CategoricalAttribute("a1", ("u", "w"))), "class", ("c0", "c1")
)
LEAK_D = dataset(LEAK_SCHEMA, [(0, 0, 0), (0, 0, 1)])
LEAK_D_PRIME = dataset(LEAK_SCHEMA, [(0, 0, 0)])  # D minus one row


class _Fit:
    """A picklable mechanism: DPEA with fixed parameters, reduced to the tree's structure."""

    def __init__(self, variant: str) -> None:
        self.params: Dict[str, Param] = {"variant": variant, "max_depth": 2, "embed_depth": "1", "min_size": 2}

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        spec = get_algorithm("dpea")
        return spec.fit(data, Fraction(1), spec.resolve(self.params), rng, Relation.ADD_REMOVE)


def _structure(model: TreeModel) -> Hashable:
    return structure(model.trees[0])


@pytest.mark.claim("dpea-structure-leak", "empirical-epsilon-lower-bound")
def test_audit_refutes_published_and_not_sound() -> None:
    """D has a node of min_size = 2 rows of two classes; D' (one row removed) has none."""
    seed, trials = 20261122, 100
    published = monte_carlo_audit(
        _Fit("published"), LEAK_D, LEAK_D_PRIME, epsilon=1, trials=trials, seed=seed, reduce=_structure,
    )
    print(published.summary())
    assert published.refuted and published.k2 == 0, published.summary()
    sound = monte_carlo_audit(
        _Fit("sound"), LEAK_D, LEAK_D_PRIME, epsilon=1, trials=trials, seed=seed, reduce=_structure,
    )
    print(sound.summary())
    assert not sound.refuted, sound.summary()


@pytest.mark.claim("dpea-structure-leak", "exact-max-log-ratio")
def test_published_structures_have_disjoint_supports_on_the_pair() -> None:
    rng = random.Random(9)
    on_d = {structure(_Fit("published")(LEAK_D, rng).trees[0]) for _ in range(40)}
    on_d_prime = {structure(_Fit("published")(LEAK_D_PRIME, rng).trees[0]) for _ in range(40)}
    assert on_d == {(0, (1, "leaf", "leaf"), "leaf"), (1, (0, "leaf", "leaf"), "leaf")}, on_d
    assert on_d_prime == {(0, "leaf", "leaf"), (1, "leaf", "leaf")}, on_d_prime


@pytest.mark.claim("dpea-structure-leak")
@pytest.mark.parametrize("name", ["vote", "credit-g"])
def test_published_equals_sound_when_one_embedding_covers_the_tree(name: str) -> None:
    # Under substitute neither variant drops the factor 2; the sound one spends nothing on a noisy size.
    spec, data = get_algorithm("dpea"), load_builtin(name)
    published, sound = spec.resolve({"variant": "published"}), spec.resolve({"variant": "sound", "size_share": "0"})
    assert published["max_depth"] == 2 and published["embed_depth"] == "2", "the defaults changed: revisit the claim"
    for seed in range(20):
        a = spec.fit(data, Fraction(1), published, random.Random(seed), Relation.SUBSTITUTE)
        b = spec.fit(data, Fraction(1), sound, random.Random(seed), Relation.SUBSTITUTE)
        assert a.trees == b.trees, f"seed {seed}"


# --- the command line and the paper's grid ---------------------------------------------------


def test_evaluate_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["evaluate", "--algorithm", "dpea", "--data", "vote", "--epsilon", "1",
            "--param", "embed_depth=2", "--param", "max_depth=5", "--seed", "1", "--folds", "3"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "dpea on vote, epsilon=1: accuracy" in out and "over 3 folds" in out and re.search(r"level (proved|idealised):", out), out


@pytest.mark.parametrize("data", ["vote", "tic-tac-toe"])
@pytest.mark.parametrize("embed", ["1", "2", "3", "whole"])
def test_each_embedding_depth_trains_on_the_papers_data(data: str, embed: str) -> None:
    # size_share=0: the paper's depth, whatever the data's size
    params: Dict[str, Param] = {"max_depth": 3, "embed_depth": embed, "size_share": 0}
    model = train("dpea", load_builtin(data), Fraction(1, 10), params, rng=3)
    assert depth(model.trees[0]) == 3 and model.receipt.epsilon == Fraction(1, 10)


@pytest.mark.slow
@pytest.mark.parametrize("data", ["vote", "tic-tac-toe"])
@pytest.mark.parametrize("embed", ["1", "2", "3", "whole"])
@pytest.mark.parametrize("epsilon", ["0.01", "0.1", "1", "10"])
def test_the_papers_grid_runs_at_depth_8(data: str, embed: str, epsilon: str) -> None:
    model = train("dpea", load_builtin(data), epsilon, {"max_depth": 8, "embed_depth": embed, "size_share": 0}, rng=1)
    assert depth(model.trees[0]) == 8 and model.receipt.sound


def test_a_huge_subtree_count_is_written_as_a_power_of_ten() -> None:
    vote = load_builtin("vote")
    with pytest.raises(InvalidParameterError, match=r"would list about 1\.1e15 subtrees of 3 levels over 16"):
        train("dpea", vote, 1, {"search": "exhaustive", "embed_depth": "3", "max_depth": 3, "size_share": 0}, rng=1)


@pytest.mark.claim("dpea-factorised-sampler", "exact-inversion-sampler", "dpea-budget")
@pytest.mark.parametrize("relation", list(Relation))
@pytest.mark.parametrize("params", [{}, {"embed_depth": "whole"}, {"max_depth": 5, "embed_depth": "3"}])
def test_default_receipt_cites_no_idealised_numerics_claim(relation: Relation, params: Dict[str, Param]) -> None:
    statuses = read_claims(proofs_dir())
    model = train("dpea", load_builtin("vote"), 1, params, rng=5, relation=relation)
    assert model.receipt.sound
    idealised = [c for c in model.receipt.claims if statuses[c].status == "needs-idealised-numerics"]
    assert not idealised, idealised
    assert "dpea-factorised-sampler" in model.receipt.claims
    # The exhaustive list still uses the float sampler, and its receipt says so.
    listed = train("dpea", load_builtin("vote"), 1, {"search": "exhaustive", "max_depth": 2}, rng=5)
    assert "exponential-mechanism-float-sampler" in listed.receipt.claims
