"""The array engine gives the reference engine's model, byte for byte (issue 9).

For every algorithm with an array engine: Hypothesis over schemas
(categorical and continuous attributes), data sets (with ties, -0.0 and
bound values in continuous columns, which stress the interval kernels),
parameters, relations and seeds, then the built-in data sets with a few
seeds.  Equal means equal model JSON (:func:`refdp.tree.dumps_model`), which
covers the trees, every released count, every threshold and the receipt;
a setting the reference refuses must be refused by the array engine with
the same error.
"""

from __future__ import annotations

import dataclasses
import random
from typing import Any, Dict, List, Mapping, Tuple, Union

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import algorithm_names, get_algorithm, train
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load
from refdp.errors import InvalidParameterError, SchemaError
from refdp.privacy import Relation
from refdp.tree import dumps_model
from strategies import schemas

FAST = (
    "diffpid3", "thesis-tree", "tree-baseline", "private-rdt", "kanon-rdt", "noisy-majority", "dpdf", "dpea",
    "dp-adaboost",
)

Outcome = Tuple[str, str]


def _outcome(name: str, data: Dataset, epsilon: Any, params: Mapping[str, Any], seed: int,
             relation: Relation, engine: str) -> Outcome:
    try:
        model = train(name, data, epsilon, dict(params), rng=seed, relation=relation, engine=engine)
    except (InvalidParameterError, SchemaError) as exc:
        return "error", f"{type(exc).__name__}: {exc}"
    return "model", dumps_model(model)


def assert_same(name: str, data: Dataset, epsilon: Any, params: Mapping[str, Any], seed: int,
                relation: Relation = Relation.ADD_REMOVE) -> None:
    columns = [list(data.column(a)) for a in range(data.schema.n_attributes)]
    labels = list(data.labels)
    reference = _outcome(name, data, epsilon, params, seed, relation, "reference")
    array = _outcome(name, data, epsilon, params, seed, relation, "array")
    assert reference == array, (
        f"{name} {dict(params)} seed={seed} {relation.value}: the engines differ\n"
        f"reference: {reference[1][:400]}\narray: {array[1][:400]}"
    )
    assert [list(data.column(a)) for a in range(data.schema.n_attributes)] == columns
    assert list(data.labels) == labels


@st.composite
def tied_datasets(draw: st.DrawFn, schema: Schema, max_size: int = 40) -> Dataset:
    """Data sets whose continuous values repeat, sit on the bounds, or are -0.0."""
    n = draw(st.integers(0, max_size))
    columns: List[List[Union[int, float]]] = []
    for attribute in schema.attributes:
        if isinstance(attribute, CategoricalAttribute):
            columns.append(draw(st.lists(st.integers(0, attribute.n_values - 1), min_size=n, max_size=n)))
            continue
        lo, hi = attribute.lower, attribute.upper
        pool = sorted({lo, hi, (lo + hi) / 2, float(round(lo)), float(round(hi))} | ({-0.0, 0.0} if lo <= 0 <= hi else set()))
        value = st.one_of(st.sampled_from(pool), st.floats(lo, hi, allow_nan=False))
        columns.append(draw(st.lists(value, min_size=n, max_size=n)))
    labels = draw(st.lists(st.integers(0, schema.n_classes - 1), min_size=n, max_size=n))
    return Dataset.from_codes(schema, columns, labels)


@st.composite
def cases(draw: st.DrawFn) -> Tuple[Schema, Dataset, int, Relation]:
    schema = draw(schemas(max_attributes=4, max_values=4, max_classes=3))
    data = draw(tied_datasets(schema))
    if draw(st.booleans()) and len(data) > 0:
        # a subset shares the base columns: the engines must read the right rows
        data = data.subset(draw(st.lists(st.integers(0, len(data) - 1), max_size=len(data))))
    seed = draw(st.integers(0, 2**32))
    relation = draw(st.sampled_from([Relation.ADD_REMOVE, Relation.SUBSTITUTE]))
    return schema, data, seed, relation


EPSILONS = st.sampled_from([0.1, 1, 3, "1/7"])
SETTINGS = settings(max_examples=40, deadline=None)


def test_every_fast_algorithm_is_registered_with_an_array_engine() -> None:
    for name in FAST:
        assert get_algorithm(name).has_array_engine, name
    assert set(FAST) <= set(algorithm_names())


def test_an_algorithm_without_the_array_engine_says_so() -> None:
    # every built-in learner has it (issue 33): an algorithm registered without it
    lacking = [dataclasses.replace(get_algorithm(n), engines=("reference",)) for n in algorithm_names()]
    for spec in lacking:
        with pytest.raises(InvalidParameterError, match="no array engine"):
            spec.fitter("array")
    with pytest.raises(InvalidParameterError, match="engine must be one of"):
        get_algorithm("diffpid3").fitter("numpy")


@SETTINGS
@given(cases(), EPSILONS, st.integers(0, 3), st.sampled_from(["info-gain", "gini", "max"]), st.integers(0, 60))
def test_diffpid3(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, depth: int,
                  quality: str, max_size: int) -> None:
    _, data, seed, relation = case
    assert_same("diffpid3", data, epsilon, {"max_depth": depth, "quality": quality, "max_size": max_size},
                seed, relation)


@SETTINGS
@given(cases(), EPSILONS, st.integers(0, 3), st.sampled_from(["max", "gini"]),
       st.sampled_from(["sound", "published"]), st.integers(0, 6))
def test_thesis_tree(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, depth: int,
                     quality: str, variant: str, min_samples: int) -> None:
    _, data, seed, relation = case
    params = {"max_depth": depth, "quality": quality, "variant": variant, "min_samples": min_samples}
    assert_same("thesis-tree", data, epsilon, params, seed, relation)


@SETTINGS
@given(cases(), st.integers(0, 4), st.sampled_from(["gini", "info-gain"]),
       st.sampled_from(["multiway", "binary"]), st.integers(0, 6))
def test_tree_baseline(case: Tuple[Schema, Dataset, int, Relation], depth: int, quality: str,
                       split: str, min_samples: int) -> None:
    _, data, seed, relation = case
    params = {"max_depth": depth, "quality": quality, "split": split, "min_samples": min_samples}
    assert_same("tree-baseline", data, 1, params, seed, relation)


@SETTINGS
@given(cases(), EPSILONS, st.integers(1, 3), st.integers(-1, 3), st.sampled_from(["multiway", "binary"]),
       st.sampled_from(["discrete-laplace", "laplace"]))
def test_private_rdt(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, n_trees: int, depth: int,
                     categorical: str, noise: str) -> None:
    _, data, seed, relation = case
    params = {"n_trees": n_trees, "max_depth": depth, "categorical": categorical, "noise": noise}
    assert_same("private-rdt", data, epsilon, params, seed, relation)


@SETTINGS
@given(cases(), st.integers(1, 3), st.integers(-1, 3), st.integers(0, 4), st.sampled_from(["0.1", "0.3", "0.5"]),
       st.sampled_from(["sound", "leaf-total"]), st.sampled_from(["multiway", "binary"]))
def test_kanon_rdt(case: Tuple[Schema, Dataset, int, Relation], n_trees: int, depth: int, k: int, beta: str,
                   variant: str, categorical: str) -> None:
    _, data, seed, relation = case
    # max_delta=1: the engines are compared on large deltas too (a delta of 1 or more is refused by both)
    params: Dict[str, Any] = {"n_trees": n_trees, "max_depth": depth, "k": k, "beta": float(beta),
                              "variant": variant, "categorical": categorical, "max_delta": 1.0}
    assert_same("kanon-rdt", data, 2 * n_trees, params, seed, relation)


@SETTINGS
@given(cases(), EPSILONS, st.sampled_from(["discrete-laplace", "laplace"]))
def test_noisy_majority(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, noise: str) -> None:
    _, data, seed, relation = case
    assert_same("noisy-majority", data, epsilon, {"noise": noise}, seed, relation)


@SETTINGS
@given(cases(), EPSILONS, st.integers(1, 3), st.integers(1, 4), st.integers(1, 30), st.integers(2, 5),
       st.sampled_from(["sound", "published"]))
def test_dpdf(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, n_trees: int, depth: int,
              min_size: int, bins: int, variant: str) -> None:
    _, data, seed, relation = case
    params = {"n_trees": n_trees, "max_depth": depth, "min_size": min_size, "bins": bins, "variant": variant}
    assert_same("dpdf", data, epsilon, params, seed, relation)


@SETTINGS
@given(cases(), EPSILONS, st.integers(0, 3), st.sampled_from(["1", "2", "whole"]),
       st.sampled_from(["exact", "exhaustive", "mcmc", "paper"]), st.sampled_from(["sound", "published"]),
       st.integers(2, 4), st.integers(0, 10))
def test_dpea(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, depth: int, embed: str, search: str,
              variant: str, bins: int, min_size: int) -> None:
    _, data, seed, relation = case
    params = {"max_depth": depth, "embed_depth": embed, "search": search, "variant": variant, "bins": bins,
              "min_size": min_size, "steps": 20, "buffer": 5}
    assert_same("dpea", data, epsilon, params, seed, relation)


@SETTINGS
@given(cases(), EPSILONS, st.integers(1, 6), st.integers(1, 3), st.integers(0, 4), st.sampled_from([1.0, 1.5, 3.0]),
       st.sampled_from([2, 4, 64]), st.sampled_from([0.0, 0.05]), st.sampled_from(["sound", "published"]))
def test_dp_adaboost(case: Tuple[Schema, Dataset, int, Relation], epsilon: Any, rounds: int, depth: int,
                     features: int, theta: float, grid: int, share: float, variant: str) -> None:
    _, data, seed, relation = case
    params = {"n_estimators": rounds, "max_depth": depth, "n_features": features, "theta": theta, "grid": grid,
              "size_share": share, "variant": variant}
    # a large budget: rounds beat guessing, so that weights change and split into groups
    assert_same("dp-adaboost", data, 20 if epsilon == 3 else epsilon, params, seed, relation)


def _adult_sample() -> Dataset:
    data = load("adult")
    return data.subset(range(0, len(data), 16))


BUILTIN_CASES: List[Tuple[str, str, Dict[str, Any]]] = [
    ("vote", "diffpid3", {"max_depth": 4}),
    ("vote", "thesis-tree", {"max_depth": 4}),
    ("vote", "tree-baseline", {"max_depth": 4, "split": "binary"}),
    ("vote", "private-rdt", {"max_depth": 4}),
    ("credit-g", "diffpid3", {"max_depth": 3, "quality": "gini"}),
    ("credit-g", "thesis-tree", {"max_depth": 3, "quality": "gini"}),
    ("credit-g", "tree-baseline", {"max_depth": 4}),
    ("credit-g", "private-rdt", {"max_depth": 5, "categorical": "binary"}),
    ("credit-g", "kanon-rdt", {"max_depth": 4, "beta": 0.09, "n_trees": 10, "k": 5, "max_delta": 1.0}),
    ("credit-g", "kanon-rdt", {}),
    ("adult/16", "diffpid3", {"max_depth": 3}),
    ("adult/16", "thesis-tree", {"max_depth": 3}),
    ("adult/16", "tree-baseline", {"max_depth": 3}),
    ("adult/16", "private-rdt", {"max_depth": 5, "categorical": "binary", "n_trees": 3}),
    ("adult/16", "kanon-rdt", {"max_depth": 4, "beta": 0.09, "n_trees": 3, "k": 5, "max_delta": 1e-2}),
    ("adult/16", "noisy-majority", {}),
    ("credit-g", "dpdf", {"n_trees": 3, "min_size": 20}),
    ("adult/16", "dpdf", {"n_trees": 2, "min_size": 50}),
    ("vote", "dp-adaboost", {}),
    ("credit-g", "dp-adaboost", {"n_estimators": 8, "max_depth": 2}),
    ("adult/16", "dp-adaboost", {"n_estimators": 6, "size_share": 0}),
    ("vote", "dpea", {}),
    ("credit-g", "dpea", {"max_depth": 3}),
    ("adult/16", "dpea", {}),
    ("adult/16", "dpea", {"max_depth": 3, "embed_depth": "whole", "size_share": 0}),
    ("vote", "dpea", {"search": "exhaustive"}),
    ("vote", "dpea", {"variant": "published", "search": "paper", "max_depth": 3, "steps": 50}),
]


@pytest.mark.parametrize("dataset,name,params", BUILTIN_CASES, ids=[f"{d}-{n}" for d, n, _ in BUILTIN_CASES])
def test_builtin_data_sets(dataset: str, name: str, params: Dict[str, Any]) -> None:
    data = _adult_sample() if dataset == "adult/16" else load(dataset)
    for seed in (0, 1, 2):
        assert_same(name, data, 2, params, seed)


def test_estimators_take_the_engine() -> None:
    from refdp.estimators import (
        BaselineTreeClassifier,
        DiffPID3Classifier,
        DPDFClassifier,
        ThesisTreeClassifier,
    )

    data = load("vote")
    for make in (DiffPID3Classifier, ThesisTreeClassifier, BaselineTreeClassifier):
        reference = make(epsilon=1, max_depth=3, seed=5).fit(data)
        array = make(epsilon=1, max_depth=3, seed=5, engine="array").fit(data)
        assert dumps_model(reference.model_) == dumps_model(array.model_), make.__name__
        assert array.get_params()["engine"] == "array"
    with pytest.raises(InvalidParameterError, match="engine must be one of"):
        DiffPID3Classifier(engine="numpy")  # type: ignore[arg-type]
    reference_forest = DPDFClassifier(epsilon=1, n_trees=2, min_size=20, seed=5).fit(data)
    array_forest = DPDFClassifier(epsilon=1, n_trees=2, min_size=20, seed=5, engine="array").fit(data)
    assert dumps_model(reference_forest.model_) == dumps_model(array_forest.model_)


def test_wide_domains_and_many_classes_take_the_array_fallbacks() -> None:
    # More than 256 values, classes or distinct values: columns are arrays, not bytes.
    rng = random.Random(0)
    schema = Schema(
        (
            CategoricalAttribute("a", tuple(f"v{i}" for i in range(300))),
            ContinuousAttribute("x", 0, 1),
            CategoricalAttribute("b", ("p", "q")),
        ),
        "y",
        tuple(f"c{i}" for i in range(300)),
    )
    n = 600
    data = Dataset.from_codes(
        schema,
        [[rng.randrange(300) for _ in range(n)], [rng.random() for _ in range(n)], [rng.randrange(2) for _ in range(n)]],
        [rng.randrange(300) for _ in range(n)],
    )
    cases: List[Tuple[str, Dict[str, Any]]] = [
        ("diffpid3", {"max_depth": 2, "quality": "gini"}),
        ("thesis-tree", {"max_depth": 2}),
        ("tree-baseline", {"max_depth": 2, "split": "binary"}),
        ("tree-baseline", {"max_depth": 2}),
        ("private-rdt", {"max_depth": 2, "categorical": "binary"}),
        ("noisy-majority", {}),
    ]
    for name, params in cases:
        assert_same(name, data, 3, params, 1)


def test_the_array_engine_keeps_binned_columns_with_the_data_set_and_gives_the_same_models() -> None:
    from refdp.engine import REFERENCE
    from refdp.fast import ARRAY

    calls: List[int] = []

    def make(data: Dataset) -> int:
        calls.append(len(data))
        return len(calls)

    data = load("vote")
    assert ARRAY.derived(data, "test.key", make) == ARRAY.derived(data, "test.key", make) == 1
    assert REFERENCE.derived(data, "test.key", make) == 2 and REFERENCE.derived(data, "test.key", make) == 3
    credit = load("credit-g")
    for name, params in (("private-rdt", {}), ("dpdf", {"n_trees": 3}), ("kanon-rdt", {})):
        reference = _outcome(name, credit, 2, params, 4, Relation.ADD_REMOVE, "reference")
        first = _outcome(name, credit, 2, params, 4, Relation.ADD_REMOVE, "array")  # bins the columns
        again = _outcome(name, credit, 2, params, 4, Relation.ADD_REMOVE, "array")  # reuses them
        assert reference == first == again, name
