"""Private-RDT: receipts equal the budget under both relations, replay, and a Monte-Carlo audit.

Statistical tests: alpha = 1e-6 per audit (false alarm), fixed seeds, trials
chosen with ``required_trials`` (power 0.999 against the effect named in each
test); the assertion messages carry the audit's numbers.
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction
from typing import Dict, List, Sequence, Union

import pytest

from refdp.algorithms import get_algorithm, train
from refdp.audit import monte_carlo_audit, required_trials
from refdp.data import CategoricalAttribute, Dataset, Schema, load_builtin
from refdp.errors import InvalidParameterError
from refdp.evaluation import train_test_evaluate
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import Leaf, Node, ThresholdSplit, TreeModel, ValueSplit, children_of, dumps_model, leaves, route

SCHEMA = Schema((CategoricalAttribute("a", ("x", "y")),), "c", ("no", "yes"))


def _dataset(rows: Sequence[str], labels: Sequence[str]) -> Dataset:
    return Dataset.from_rows(SCHEMA, [(r,) for r in rows], labels)


D = _dataset(["x", "x", "x", "x", "x", "y", "y"], ["no", "no", "no", "yes", "yes", "no", "no"])
D_ADD = _dataset(["x", "x", "x", "x", "x", "y", "y", "x"], ["no", "no", "no", "yes", "yes", "no", "no", "yes"])
# Substitute: the last (y, no) becomes (x, yes): one count falls in leaf y, one rises in leaf x.
D_SUB = _dataset(["x", "x", "x", "x", "x", "y", "x"], ["no", "no", "no", "yes", "yes", "no", "yes"])

X_COLUMNS = [[0], [1]]  # attribute a: code 0 is x, code 1 is y


class PrivateRdt:
    """The registered fit with fixed settings, as a picklable mechanism."""

    def __init__(self, relation: Relation) -> None:
        self.relation = relation
        spec = get_algorithm("private-rdt")
        # the count mechanism alone: no noisy size (claim noisy-size-plan has its own audit)
        self.params = spec.resolve({"n_trees": 1, "max_depth": 1, "categorical": "multiway", "size_share": 0})

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        return get_algorithm("private-rdt").fit(data, Fraction(1), self.params, rng, self.relation)


def count_x_yes(model: TreeModel) -> int:
    """The released count of (leaf a=x, class yes) in tree 0."""
    return int(route(model.trees[0], [X_COLUMNS[0]], 0).counts[1])


def count_x_yes_minus_y_no(model: TreeModel) -> int:
    tree = model.trees[0]
    return int(route(tree, [X_COLUMNS[0]], 0).counts[1]) - int(route(tree, [X_COLUMNS[1]], 0).counts[0])


# P[DLap(1) >= 1] = e^-1 / (1 + e^-1) = 0.2689: the best threshold event's probability on D.
P_EVENT = 0.2689


@pytest.mark.claim("private-rdt-budget", "empirical-epsilon-lower-bound")
def test_audit_does_not_refute_private_rdt_under_add_remove() -> None:
    result = monte_carlo_audit(
        PrivateRdt(Relation.ADD_REMOVE), D, D_ADD, epsilon=1, trials=2000, selection_trials=500,
        seed=20240501, reduce=count_x_yes, threshold_events=True,
    )
    assert not result.refuted, result.summary()
    # These runs would have caught a true epsilon of 1.4 with probability 0.999.
    assert result.detectable_epsilon < 1.4, result.summary()


@pytest.mark.claim("private-rdt-budget", "empirical-epsilon-lower-bound")
def test_the_same_audit_refutes_half_the_budget() -> None:
    """Power: the count's true loss is exactly 1 (DLap tails), so a claim of 1/2 is caught."""
    trials = required_trials(1.0, 0.5, P_EVENT)
    result = monte_carlo_audit(
        PrivateRdt(Relation.ADD_REMOVE), D, D_ADD, epsilon=Fraction(1, 2), trials=trials,
        selection_trials=500, seed=20240502, reduce=count_x_yes, threshold_events=True,
    )
    assert result.refuted, result.summary()


@pytest.mark.claim("private-rdt-budget", "empirical-epsilon-lower-bound")
def test_audit_does_not_refute_private_rdt_under_substitute() -> None:
    """Each cell gets epsilon/2; the two changed cells together cost epsilon."""
    result = monte_carlo_audit(
        PrivateRdt(Relation.SUBSTITUTE), D, D_SUB, epsilon=1, trials=1500, selection_trials=500,
        seed=20240503, reduce=count_x_yes_minus_y_no, threshold_events=True,
    )
    assert not result.refuted, result.summary()


@pytest.mark.claim("private-rdt-budget", "parallel-composition", "sequential-composition")
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE])
@pytest.mark.parametrize("n_trees, depth", [(1, 1), (3, 2), (4, 0)])
def test_the_receipt_total_is_the_requested_epsilon(relation: Relation, n_trees: int, depth: int) -> None:
    data = load_builtin("vote")
    params: Dict[str, Union[int, str]] = {
        "n_trees": n_trees, "max_depth": depth, "categorical": "multiway", "size_share": 0, "voting": "sum-counts"
    }
    model = train("private-rdt", data, Fraction(7, 10), params, rng=1, relation=relation)
    assert model.receipt.epsilon == Fraction(7, 10) and model.receipt.delta == 0
    assert model.receipt.sound and model.voting == "sum-counts"
    n_leaves = 3**depth
    # One compact charge per tree covers every (leaf, class) cell: receipts grow with trees, not cells.
    cells = [c for c in model.receipt.charges if not c.data_independent]
    assert len(cells) == n_trees
    assert all(c.cells == (("leaf", n_leaves), ("class", 2)) for c in cells)
    per_cell = Fraction(7, 10) / n_trees / (1 if relation is Relation.ADD_REMOVE else 2)
    assert {c.epsilon for c in cells} == {per_cell}
    assert all(c.partition[0].startswith("tree") and len(c.partition) == 1 for c in cells)
    assert sum(1 for c in model.receipt.charges if c.data_independent) == n_trees
    # Every leaf is released, empty ones included (no collapsing).
    assert all(sum(1 for _ in leaves(t)) == n_leaves for t in model.trees)


def test_laplace_noise_and_binary_splits() -> None:
    params: Dict[str, Union[int, str]] = {"noise": "laplace", "categorical": "binary", "max_depth": 3, "size_share": 0}
    model = train("private-rdt", load_builtin("vote"), 1, params, rng=2)
    assert model.receipt.epsilon == 1
    assert all(isinstance(c, float) for t in model.trees for leaf in leaves(t) for c in leaf.counts)
    assert all(sum(1 for _ in leaves(t)) == 8 for t in model.trees)


def test_replay_gives_byte_identical_json() -> None:
    data = load_builtin("vote")
    params = {"n_trees": 3, "max_depth": 3}
    first = dumps_model(train("private-rdt", data, 1, params, rng=99))
    assert first == dumps_model(train("private-rdt", data, 1, params, rng=99))
    assert first != dumps_model(train("private-rdt", data, 1, params, rng=100))


def _shape(node: Node) -> object:
    """The structure of a tree without its counts."""
    if isinstance(node, Leaf):
        return "leaf"
    cut = node.threshold if isinstance(node, ThresholdSplit) else node.value if isinstance(node, ValueSplit) else None
    return (type(node).__name__, node.attribute, cut, tuple(_shape(c) for c in children_of(node)))


def test_the_structure_does_not_depend_on_the_data() -> None:
    vote = load_builtin("vote")
    # size_share=0: with a noisy size the depth depends on the data, through N~ only (claim noisy-size-plan)
    params = {"n_trees": 2, "max_depth": 3, "size_share": 0}
    for structure in ("per-node", "per-level"):
        a = train("private-rdt", vote.subset(range(0, 200)), 1, {**params, "structure": structure}, rng=5)
        b = train("private-rdt", vote.subset(range(200, 435)), 1, {**params, "structure": structure}, rng=5)
        assert [_shape(t) for t in a.trees] == [_shape(t) for t in b.trees]


@pytest.mark.parametrize(
    "params, fragment",
    [
        ({"max_depth": 9, "categorical": "multiway"}, "19683 leaves, more than max_leaves=16384"),
        ({"max_depth": 15, "categorical": "binary"}, "32768 leaves, more than max_leaves=16384"),
        ({"n_trees": 0}, "n_trees must be in [1, 1000]"),
        ({"max_depth": -2}, "max_depth must be in [-1, 64]"),
        ({"max_depth": 65}, "max_depth must be in [-1, 64]"),
        ({"max_leaves": 0}, "max_leaves must be in [1, 1048576]"),
        ({"categorical": "ternary"}, "categorical must be one of"),
        ({"noise": "gaussian"}, "noise must be one of"),
    ],
)
def test_bad_parameters_are_refused(params: Dict[str, Union[int, str]], fragment: str) -> None:
    data = load_builtin("vote")
    given = dict(params)
    with pytest.raises(InvalidParameterError) as info:
        train("private-rdt", data, 1, params, rng=1)
    assert fragment in str(info.value)
    assert params == given


def test_train_test_evaluate_on_a_fixed_split() -> None:
    vote = load_builtin("vote")
    train_part, test_part = vote.subset(range(0, 300)), vote.subset(range(300, 435))
    result = train_test_evaluate("private-rdt", train_part, test_part, 2, repeats=2, params={"max_depth": 2}, seed=4)
    assert result.folds == 1 and result.repeats == 2 and len(result.accuracies) == 2
    assert result.receipt_epsilon == 2 and result.sound and result.mean > 0.8
    assert result == train_test_evaluate("private-rdt", train_part, test_part, 2, repeats=2, params={"max_depth": 2}, seed=4)
    with pytest.raises(InvalidParameterError):
        train_test_evaluate("private-rdt", train_part, D, 1)
    with pytest.raises(InvalidParameterError):
        train_test_evaluate("private-rdt", train_part, test_part, 1, repeats=0)


def test_more_trees_of_the_same_seed_replay_with_rng_objects() -> None:
    data = load_builtin("vote")
    r1, r2 = random.Random(8), random.Random(8)
    assert dumps_model(train("private-rdt", data, 1, {"max_depth": 2}, rng=r1)) == dumps_model(
        train("private-rdt", data, 1, {"max_depth": 2}, rng=r2)
    )


class ForestOnVote:
    """Private-RDT with 3 trees of depth 2 on the voting records (a realistic forest)."""

    def __init__(self, relation: Relation) -> None:
        self.relation = relation
        self.params = get_algorithm("private-rdt").resolve(
            {"n_trees": 3, "max_depth": 2, "categorical": "multiway", "size_share": 0}
        )

    def __call__(self, data: Dataset, rng: RandomSource) -> TreeModel:
        return get_algorithm("private-rdt").fit(data, Fraction(1), self.params, rng, self.relation)


@functools.lru_cache(maxsize=1)
def _first_vote_record() -> List[List[Union[int, float]]]:
    vote = load_builtin("vote")
    return [[vote.column(j)[0]] for j in range(vote.schema.n_attributes)]


def first_row_score(model: TreeModel) -> float:
    """The summed released 'republican' count over the trees at the first voting record."""
    return float(sum(route(t, _first_vote_record(), 0).counts[1] for t in model.trees))


@pytest.mark.slow
@pytest.mark.claim("private-rdt-budget", "empirical-epsilon-lower-bound")
def test_audit_does_not_refute_a_forest_on_real_data() -> None:
    vote = load_builtin("vote")
    d = vote.subset(range(1, 435))  # without the first record
    result = monte_carlo_audit(
        ForestOnVote(Relation.ADD_REMOVE), d, vote, epsilon=1, trials=5000, selection_trials=1000,
        seed=20240504, reduce=first_row_score, threshold_events=True,
    )
    assert not result.refuted, result.summary()
