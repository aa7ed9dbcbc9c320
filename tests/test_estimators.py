"""The scikit-learn-like estimators: fit / predict / predict_proba, seeds and rngs, errors,
scikit-learn's parameter protocol (get_params / set_params), and fit on rows."""

from __future__ import annotations

import copy
import importlib.util
import inspect
import random
import typing
import warnings
from pathlib import Path
from fractions import Fraction
from typing import Any, Dict, List, Type

import pytest

from refdp.algorithms import algorithm_names, get_algorithm, train
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, leaky_infer_schema, load_builtin
from refdp.errors import DataError, InvalidParameterError, ModelError, PrivacyLeakWarning, SchemaError
from refdp.estimators import (
    ESTIMATORS,
    BaselineTreeClassifier,
    DiffPID3Classifier,
    DPEAClassifier,
    PrivateRDTClassifier,
    ThesisTreeClassifier,
    TreeClassifier,
)
from refdp.privacy import Relation
from refdp.tree import dumps_model

Estimator = Type[TreeClassifier]
CLASSES: List[Estimator] = [ESTIMATORS[name] for name in sorted(ESTIMATORS)]
COMMON = ("epsilon", "relation", "seed", "rng", "engine", "schema", "bounds", "categories", "categorical_features",
          "classes")


def _depth(cls: Estimator, depth: int) -> Dict[str, Any]:
    """``max_depth=depth`` for the algorithms that have a depth (noisy-majority has none)."""
    names = {p.name for p in get_algorithm(cls.algorithm).parameters}
    return {"max_depth": depth} if "max_depth" in names else {}


def test_every_registered_algorithm_has_one_estimator_with_its_parameters() -> None:
    assert sorted(ESTIMATORS) == sorted(algorithm_names())
    assert len(set(ESTIMATORS.values())) == len(ESTIMATORS)
    for name, cls in ESTIMATORS.items():
        assert cls.algorithm == name
        spec = get_algorithm(name)
        params = cls().get_params()
        assert list(params) == [*COMMON, *(p.name for p in spec.parameters)]
        assert {p.name: params[p.name] for p in spec.parameters} == {p.name: p.default for p in spec.parameters}
        # A plain str default, as scikit-learn's checks want (an enum is not among the types they allow).
        assert params["epsilon"] == 1 and params["relation"] == "add-remove"
        assert all(f"{p.name}={p.default!r}" in (cls.__doc__ or "") for p in spec.parameters)
    with pytest.raises(InvalidParameterError, match="common base"):
        TreeClassifier()


@pytest.mark.smoke
@pytest.mark.parametrize("cls", CLASSES)
def test_fit_predict_and_fitted_attributes(cls: Estimator) -> None:
    data = load_builtin("vote")
    clf = cls(epsilon=2, seed=5, **_depth(cls, 3))
    assert clf.fit(data) is clf
    assert clf.classes_ == ["democrat", "republican"]
    predictions = clf.predict(data)
    assert len(predictions) == len(data) and set(predictions) <= set(clf.classes_)
    probabilities = clf.predict_proba(data)
    assert all(len(p) == 2 and abs(sum(p) - 1) < 1e-12 for p in probabilities)
    assert clf.model_.algorithm == cls.algorithm and clf.model_.params.get("max_depth", 3) == 3
    assert clf.receipt_ is clf.model_.receipt
    assert 0.0 <= clf.score(data) <= 1.0
    if cls is BaselineTreeClassifier:
        assert clf.receipt_.level == "unsound" and not clf.receipt_.sound
    else:
        assert clf.receipt_.epsilon == 2 and clf.receipt_.level != "unsound"


@pytest.mark.parametrize("cls", CLASSES)
def test_a_seed_replays_and_an_rng_is_drawn_from(cls: Estimator) -> None:
    data = load_builtin("tic-tac-toe")
    first = dumps_model(cls(epsilon=1, seed=3).fit(data).model_)
    clf = cls(epsilon=1, seed=3)
    assert dumps_model(clf.fit(data).model_) == first
    assert dumps_model(clf.fit(data).model_) == first, "refitting with a seed starts from the seed"
    rng = random.Random(3)
    injected = cls(epsilon=1, rng=rng)
    injected.fit(data)
    if cls is not BaselineTreeClassifier:
        assert rng.getstate() != random.Random(3).getstate(), "the injected rng was used"


def test_paper_parameters_reach_the_algorithm() -> None:
    data = load_builtin("vote")
    clf = ThesisTreeClassifier(
        Fraction(1, 2), max_depth=2, min_samples=7, quality="gini", variant="published", grid=16,
        relation="substitute", seed=1,
    ).fit(data)
    assert clf.model_.variant == "published" and clf.receipt_.level == "unsound"
    given = {"variant": "published", "quality": "gini", "max_depth": 2, "min_samples": 7, "grid": 16}
    # every other parameter at its registered default
    assert clf.model_.params == {**get_algorithm("thesis-tree").resolve({}), **given}
    assert clf.receipt_.relation is Relation.SUBSTITUTE
    d3 = DiffPID3Classifier(1, quality="max", max_size=1000, seed=1)
    assert d3.get_params()["max_size"] == 1000 and d3.get_params()["epsilon"] == 1


def test_errors_are_clear_and_change_nothing() -> None:
    data = load_builtin("vote")
    with pytest.raises(InvalidParameterError, match="not both"):
        ThesisTreeClassifier(seed=1, rng=random.Random(1))
    with pytest.raises(InvalidParameterError, match="epsilon"):
        DiffPID3Classifier(epsilon=0)
    with pytest.raises(InvalidParameterError, match="quality"):
        ThesisTreeClassifier(quality="info-gain")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="relation"):
        BaselineTreeClassifier(relation="bounded-ish")
    with pytest.raises(InvalidParameterError, match="seed"):
        ThesisTreeClassifier(seed="7")  # type: ignore[arg-type]
    clf = DiffPID3Classifier(seed=1)
    with pytest.raises(ModelError, match="not fitted"):
        clf.predict(data)
    with pytest.raises(ModelError, match="not fitted"):
        clf.receipt_
    with pytest.raises(DataError, match="X must be a sequence of rows, a 2-D array or a DataFrame"):
        clf.fit(7)
    with pytest.raises(InvalidParameterError, match="max_depth"):
        ThesisTreeClassifier(max_depth=-1, seed=1).fit(data)


def test_each_constructor_lists_its_parameters_with_the_registry_s_types_and_defaults() -> None:
    root = Path(__file__).resolve().parent.parent
    spec = importlib.util.spec_from_file_location("estimator_signatures", root / "scripts" / "estimator_signatures.py")
    assert spec is not None and spec.loader is not None
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    source = (root / "refdp" / "estimators.py").read_text(encoding="utf-8")
    assert generator.render(source) == source, "run python3 scripts/estimator_signatures.py --write"
    for name, cls in ESTIMATORS.items():
        parameters = get_algorithm(name).parameters
        signature = inspect.signature(cls)
        hints = typing.get_type_hints(cls.__init__)
        assert list(signature.parameters) == ["epsilon", *(p.name for p in parameters), *COMMON[1:]]
        for p in parameters:
            given = signature.parameters[p.name]
            assert given.kind is inspect.Parameter.KEYWORD_ONLY and given.default == p.default, (name, p.name)
            assert type(given.default) is p.kind
            assert hints[p.name] == (typing.Literal[p.choices] if p.choices else p.kind), (name, p.name)
        assert {k: v.default for k, v in signature.parameters.items()} == cls().get_params()


# Non-default settings of every algorithm, for the round trips.
SETTINGS: Dict[str, Dict[str, Any]] = {
    "diffpid3": {"quality": "gini", "max_depth": 2, "grid": 16},
    "dp-adaboost": {"n_estimators": 3, "theta": 2, "variant": "published"},
    "dpdf": {"n_trees": 2, "min_size": 20, "bins": 4},
    "dpea": {"max_depth": 1, "embed_depth": 1, "search": "exhaustive"},
    "kanon-rdt": {"k": 10, "beta": 0.1, "max_depth": 2, "categorical": "binary", "n_trees": 1, "size_share": 0.0},
    "noisy-majority": {"noise": "laplace"},
    "private-rdt": {"n_trees": 3, "max_depth": 2, "categorical": "binary"},
    "thesis-tree": {"quality": "gini", "min_samples": 7, "grid": 16},
    "tree-baseline": {"split": "binary", "max_depth": 2},
}


@pytest.mark.parametrize("cls", CLASSES, ids=[c.algorithm for c in CLASSES])
def test_get_params_round_trips_through_the_constructor(cls: Estimator) -> None:
    settings = SETTINGS[cls.algorithm]
    clf = cls(Fraction(3, 2), relation="substitute", seed=4, **settings)
    params = clf.get_params()
    assert params == clf.get_params(deep=False)
    # Stored as given, so scikit-learn's clone finds the very objects it passed.
    assert params["relation"] == "substitute" and all(params[k] is v for k, v in settings.items())
    twin = type(clf)(**params)
    assert twin.get_params() == params and twin is not clf
    data = load_builtin("vote")
    assert dumps_model(twin.fit(data).model_) == dumps_model(clf.fit(data).model_)
    assert clf.receipt_.relation is Relation.SUBSTITUTE
    assert clf.receipt_.epsilon == (0 if cls is BaselineTreeClassifier else Fraction(3, 2))
    assert repr(clf).startswith(f"{cls.__name__}(epsilon=Fraction(3, 2), relation='substitute', seed=4")


def test_set_params_changes_the_next_fit_and_returns_self() -> None:
    data = load_builtin("vote")
    clf = PrivateRDTClassifier(seed=1)
    assert clf.set_params(n_trees=2, max_depth=2, epsilon="1/2") is clf
    assert clf.get_params()["n_trees"] == 2 and clf.get_params()["epsilon"] == "1/2"
    expected = PrivateRDTClassifier(Fraction(1, 2), n_trees=2, max_depth=2, seed=1).fit(data)
    assert dumps_model(clf.fit(data).model_) == dumps_model(expected.model_)
    rng = random.Random(9)
    clf.set_params(seed=None, rng=rng)
    assert clf.get_params()["rng"] is rng
    clf.fit(data)
    assert rng.getstate() != random.Random(9).getstate()


@pytest.mark.parametrize(
    "change, error, message",
    [
        ({"n_tree": 2}, InvalidParameterError, "PrivateRDTClassifier has no parameter n_tree; its parameters are: epsilon, "),
        ({"n_trees": "many"}, InvalidParameterError, "parameter n_trees must be of type int"),
        ({"n_trees": 2.5}, InvalidParameterError, "parameter n_trees must be of type int"),
        ({"n_trees": 0}, InvalidParameterError, "n_trees must be in"),
        ({"categorical": "ternary"}, InvalidParameterError, "categorical must be one of auto, multiway, binary"),
        ({"epsilon": 0}, InvalidParameterError, "epsilon must be > 0"),
        ({"relation": "bounded-ish"}, InvalidParameterError, "unknown neighbouring relation"),
        ({"rng": random.Random(1)}, InvalidParameterError, "a seed or an rng, not both"),
        ({"seed": True}, InvalidParameterError, "seed must be an int"),
        ({"engine": "numpy"}, InvalidParameterError, "engine must be one of"),
        ({"schema": {"label": "x"}}, InvalidParameterError, "schema must be a refdp Schema"),
    ],
)
def test_set_params_refuses_what_the_constructor_refuses_and_changes_nothing(
    change: Dict[str, Any], error: type, message: str
) -> None:
    clf = PrivateRDTClassifier(2, n_trees=3, seed=1)
    before = clf.get_params()
    with pytest.raises(error, match=message):
        clf.set_params(**change)
    assert clf.get_params() == before
    if "has no parameter" in message:  # the constructor's keywords are explicit: Python refuses an unknown one
        error, message = TypeError, "unexpected keyword argument 'n_tree'"
    with pytest.raises(error, match=message):
        PrivateRDTClassifier(**{**before, **change})


def test_fit_on_rows_and_labels_with_a_schema() -> None:
    data = load_builtin("credit-g")  # categorical and continuous attributes
    rows = [data.row(i) for i in range(len(data))]
    labels = [data.label(i) for i in range(len(data))]
    snapshot = copy.deepcopy((rows, labels))
    on_rows = DiffPID3Classifier(seed=2, schema=data.schema).fit(rows, labels)
    on_data = DiffPID3Classifier(seed=2).fit(data)
    assert dumps_model(on_rows.model_) == dumps_model(on_data.model_)
    assert (rows, labels) == snapshot, "fit does not modify its inputs"
    assert on_rows.predict(rows[:50]) == on_data.predict(data.subset(range(50)))
    assert on_rows.predict_proba(rows[:5]) == on_data.predict_proba(data.subset(range(5)))
    assert on_rows.score(rows, labels) == on_data.score(data)
    # A schema given with a Dataset must be the one it was read with.
    assert DiffPID3Classifier(seed=2, schema=data.schema).fit(data).get_params()["schema"] is data.schema
    with pytest.raises(InvalidParameterError, match="another schema than the estimator's schema="):
        DiffPID3Classifier(schema=load_builtin("vote").schema).fit(data)
    with pytest.raises(InvalidParameterError, match="y must be None when X is a Dataset"):
        on_data.fit(data, labels)
    with pytest.raises(InvalidParameterError, match="y must be None when X is a Dataset"):
        on_data.score(data, labels)
    with pytest.raises(DataError, match="requires y to be passed, but the target y is None"):
        on_rows.fit(rows)
    with pytest.raises(InvalidParameterError, match="score on rows needs y"):
        on_rows.score(rows)
    with pytest.raises(SchemaError, match="unknown class 'maybe'"):
        on_rows.fit(rows[:2], ["good", "maybe"])
    with pytest.raises(DataError, match="X has 3 features, but DiffPID3Classifier is expecting 20 features as input"):
        on_rows.predict([rows[0][:3]])
    # A row to predict may lie beyond the public bounds: it is predicted as at the bound it passed.
    beyond, at_bound = [list(r) for r in rows[:40]], [list(r) for r in rows[:40]]
    for a, attribute in enumerate(data.schema.attributes):
        if isinstance(attribute, ContinuousAttribute):
            for i in range(0, 40, 2):
                beyond[i][a], at_bound[i][a] = attribute.upper + 1e6, attribute.upper
                beyond[i + 1][a], at_bound[i + 1][a] = attribute.lower - 1e6, attribute.lower
    assert on_rows.predict(beyond) == on_rows.predict(at_bound)
    with pytest.raises(SchemaError, match="outside the declared bounds"):
        on_rows.fit(beyond, labels[:40])  # training rows must respect them


@pytest.mark.claim("schema-inference-leaks")
def test_fit_on_rows_without_a_schema_reads_it_off_the_data_warns_and_marks_the_receipt() -> None:
    rows: List[List[Any]] = [["red", 1.5], ["blue", 7.0], ["red", 3.0], ["blue", 2.0]]
    labels = ["yes", "no", "yes", "no"]
    with pytest.warns(PrivacyLeakWarning, match=r"read 3 part\(s\) .*schema-inference-leaks.*unsound.*bounds=.*classes="):
        clf = ThesisTreeClassifier(seed=1).fit(rows, labels)
    schema = clf.model_.schema
    assert schema.attributes == (CategoricalAttribute("x0", ("blue", "red")), ContinuousAttribute("x1", 1.5, 7.0))
    assert schema.classes == ("no", "yes") and len(schema.leaks) == 3
    assert clf.receipt_.level == "unsound" and clf.receipt_.leaks == schema.leaks
    # The same model as training on that schema (the rule of leaky_infer_schema: sorted values, minimum and maximum).
    assert dumps_model(clf.model_) == dumps_model(train("thesis-tree", Dataset.from_rows(schema, rows, labels), 1, rng=1))
    leaky = leaky_infer_schema(rows, labels, attribute_names=["colour", "size"], continuous=["size"])
    clf = ThesisTreeClassifier(seed=1, schema=leaky).fit(rows, labels)
    assert clf.receipt_.level == "unsound" and clf.receipt_.leaks == leaky.leaks
    public = Schema(
        (CategoricalAttribute("colour", ("red", "blue")), ContinuousAttribute("size", 0.0, 10.0)), "class", ("yes", "no")
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = ThesisTreeClassifier(seed=1, schema=public).fit(rows, labels)
    assert clf.receipt_.level == "proved" and clf.receipt_.leaks == ()
    assert clf.predict([["blue", 9.5]]) in (["yes"], ["no"])


def test_scikit_learn_clone_rebuilds_an_unfitted_equal_estimator() -> None:
    base = pytest.importorskip(
        "sklearn.base", reason="scikit-learn is not installed (extra 'sklearn'); the round-trip test checks the same protocol"
    )
    data = load_builtin("vote")
    for cls in CLASSES:
        clf = cls(2, seed=3, schema=data.schema, **SETTINGS[cls.algorithm]).fit(data)
        twin = base.clone(clf)
        assert type(twin) is cls and twin.get_params() == clf.get_params()
        with pytest.raises(ModelError, match="not fitted"):
            twin.model_
        assert dumps_model(twin.fit(data).model_) == dumps_model(clf.model_)
    rows = [data.row(i) for i in range(len(data))]
    labels = [data.label(i) for i in range(len(data))]
    selection = pytest.importorskip("sklearn.model_selection")
    scores = selection.cross_val_score(DiffPID3Classifier(seed=1, schema=data.schema), rows, labels, cv=3)
    assert len(scores) == 3 and all(0 <= s <= 1 for s in scores)
    with_rng = DPEAClassifier(rng=random.Random(5))
    cloned = base.clone(with_rng).get_params()["rng"]
    assert cloned is not with_rng.get_params()["rng"] and cloned.getstate() == random.Random(5).getstate()
