"""What scikit-learn users pass to the estimators: lists of rows, NumPy arrays, DataFrames, any labels,
and the public schema as bounds=, categories=, categorical_features= and classes=.

Each input gives the model of the equivalent ``refdp.train`` call for the same seed, byte for byte.
The NumPy and pandas tests skip where those are not installed (refdp itself never imports them).
"""

from __future__ import annotations

import contextlib
import copy
import warnings
from dataclasses import replace
from typing import Any, Dict, Iterator, List, Tuple, Type

import pytest

from refdp.algorithms import get_algorithm, train
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load_builtin
from refdp.errors import DataConversionWarning, DataError, InvalidParameterError, PrivacyLeakWarning, SchemaError
from refdp.estimators import ESTIMATORS, DiffPID3Classifier, PrivateRDTClassifier, ThesisTreeClassifier, TreeClassifier
from refdp.tree import dumps_model

CREDIT = load_builtin("credit-g")  # categorical and continuous attributes, classes ('good', 'bad')
SCHEMA = CREDIT.schema
CODE = {"good": 0, "bad": 1}
ROWS = [list(CREDIT.row(i)) for i in range(len(CREDIT))]
LABELS = [CREDIT.label(i) for i in range(len(CREDIT))]
INTS = [CODE[label] for label in LABELS]
Estimator = Type[TreeClassifier]


def _positional(schema: Schema) -> Dict[str, Any]:
    """The schema as estimator parameters for a list or an array: features by position."""
    return {
        "bounds": {j: (a.lower, a.upper) for j, a in enumerate(schema.attributes) if isinstance(a, ContinuousAttribute)},
        "categories": {j: list(a.values) for j, a in enumerate(schema.attributes) if isinstance(a, CategoricalAttribute)},
    }


def _renamed(schema: Schema, classes: Tuple[str, ...], label: str = "y") -> Schema:
    """``schema`` with the features named x0, x1, ... (as for a list or an array) and the given classes."""
    attributes = tuple(replace(a, name=f"x{j}") for j, a in enumerate(schema.attributes))
    return Schema(attributes, label, classes)


@contextlib.contextmanager
def _no_leak_warning() -> Iterator[None]:
    """A PrivacyLeakWarning inside is an error: the parameters declared everything."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        yield


# Settings that keep every algorithm quick on credit-g.
QUICK: Dict[str, Dict[str, Any]] = {"dpea": {"max_depth": 1}, "dp-adaboost": {"n_estimators": 2}}


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_lists_with_integer_labels_give_the_model_of_refdp_train(name: str) -> None:
    snapshot = copy.deepcopy((ROWS, INTS))
    cls = ESTIMATORS[name]
    with _no_leak_warning():
        clf = cls(epsilon=1, seed=4, classes=[0, 1], **_positional(SCHEMA), **QUICK.get(name, {})).fit(ROWS, INTS)
    data = Dataset.from_rows(_renamed(SCHEMA, ("0", "1")), ROWS, [str(c) for c in INTS])
    model = train(name, data, 1, QUICK.get(name, {}), rng=4)
    assert dumps_model(clf.model_) == dumps_model(model)
    assert clf.predict(ROWS[:60]) == [int(c) for c in model.predict(data.subset(range(60)))]
    assert clf.predict_proba(ROWS[:5]) == model.predict_proba(data.subset(range(5)))
    assert clf.classes_ == [0, 1] and clf.n_features_in_ == 20
    assert clf.score(ROWS, INTS) == sum(p == a for p, a in zip(clf.predict(ROWS), INTS)) / len(INTS)
    assert (ROWS, INTS) == snapshot, "fit, predict and score do not modify their inputs"
    spec = get_algorithm(name)
    assert clf.model_.schema.leaks == () and clf.receipt_.level == spec.variant(str(clf.model_.variant)).level


def test_labels_of_any_hashable_type_come_back_as_given_in_the_order_of_classes() -> None:
    for labels, classes in (
        (INTS, [1, 0]),
        ([c == 1 for c in INTS], [False, True]),
        ([("good", "bad")[c] for c in INTS], ["bad", "good"]),
        ([float(c) for c in INTS], [0, 1]),  # 0.0 is the class 0: matched by value
    ):
        clf = ThesisTreeClassifier(epsilon=2, seed=1, classes=classes, **_positional(SCHEMA)).fit(ROWS, labels)
        assert clf.classes_ == classes and clf.model_.schema.classes == tuple(map(str, classes))
        predicted = clf.predict(ROWS)
        assert set(predicted) <= set(classes)
        probabilities = clf.predict_proba(ROWS[:20])
        assert [classes[max(range(2), key=lambda c: (p[c], -c))] for p in probabilities] == predicted[:20]


def test_a_given_schema_wins_and_its_texts_match_numbers() -> None:
    schema = _renamed(SCHEMA, ("0", "1"))
    clf = DiffPID3Classifier(seed=2, schema=schema, bounds=(0, 1), classes=["a", "b"]).fit(ROWS, INTS)
    assert clf.model_.schema == schema and clf.receipt_.leaks == ()
    expected = train("diffpid3", Dataset.from_rows(schema, ROWS, [str(c) for c in INTS]), 1, rng=2)
    assert dumps_model(clf.model_) == dumps_model(expected)
    assert set(clf.predict(ROWS)) <= {0, 1} and clf.classes_ == [0, 1], "numbers in, numbers out"
    assert ThesisTreeClassifier(seed=2, schema=schema).fit(ROWS, [str(c) for c in INTS]).classes_ == ["0", "1"]


@pytest.mark.claim("schema-inference-leaks")
def test_what_the_parameters_leave_open_is_read_off_the_data_with_a_warning() -> None:
    rows = [["red", 1.5, 10], ["blue", 7.0, 20], ["red", 3.0, 30], ["blue", 2.0, 40]]
    labels = ["yes", "no", "yes", "no"]
    cases: List[Tuple[Dict[str, Any], List[str]]] = [
        ({"bounds": {1: (0, 10), 2: (0, 100)}, "categories": {0: ["red", "blue"]}}, ["classes"]),
        ({"bounds": {1: (0, 10)}, "categories": {0: ["red", "blue"]}, "classes": ["no", "yes"]}, ["bounds of 'x2'"]),
        ({"bounds": ([None, 0, 0], [None, 10, 100]), "categorical_features": [0], "classes": ["no", "yes"]},
         ["categories of 'x0'"]),
        ({"bounds": {1: (0, 10), 2: (0, 100)}, "classes": ["no", "yes"]}, ["kind and categories of 'x0'"]),
        ({}, ["kind and categories of 'x0'", "kind and bounds of 'x1'", "kind and bounds of 'x2'", "classes"]),
    ]
    for params, parts in cases:
        with pytest.warns(PrivacyLeakWarning, match=r"schema-inference-leaks.*receipt is marked unsound") as caught:
            clf = PrivateRDTClassifier(seed=1, **params).fit(rows, labels)
        message = str(caught[0].message)
        assert all(part in message for part in parts), (message, parts)
        leaks = clf.model_.schema.leaks
        assert len(leaks) == len(parts) and all(any(part in leak for leak in leaks) for part in parts)
        assert clf.receipt_.level == "unsound" and clf.receipt_.leaks == leaks
    # The leak is real: one added record moves a bound read off the data, and the model shows it.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        a = PrivateRDTClassifier(seed=1, classes=["no", "yes"], bounds={1: (0, 10)}, categories={0: ["red", "blue"]})
        b = copy.deepcopy(a)
        bound = a.fit(rows, labels).model_.schema.attribute("x2")
        moved = b.fit(rows + [["red", 1.0, 95]], labels + ["yes"]).model_.schema.attribute("x2")
    assert (bound.lower, bound.upper, moved.upper) == (10.0, 40.0, 95.0)  # type: ignore[union-attr]
    # Everything declared: nothing read off, nothing to warn about.
    with _no_leak_warning():
        clf = PrivateRDTClassifier(
            seed=1, bounds={"x1": (0, 10), "x2": (0, 100)}, categories={"x0": ["red", "blue"]}, classes=["no", "yes"]
        ).fit(rows, labels)
    assert clf.receipt_.level == "proved" and clf.model_.schema.leaks == ()


@pytest.mark.parametrize(
    "params, error, message",
    [
        ({"bounds": (1,)}, InvalidParameterError, r"bounds= must be a pair \(lower, upper\)"),
        ({"bounds": (5, 1)}, InvalidParameterError, "finite with lower < upper"),
        ({"bounds": (0, float("inf"))}, InvalidParameterError, "finite with lower < upper"),
        ({"bounds": ([0, 0], [1])}, InvalidParameterError, "2 lower and 1 upper bounds"),
        ({"bounds": {"x0": (0, "1")}}, InvalidParameterError, r"bounds\['x0'\] must be two numbers"),
        ({"bounds": {1.5: (0, 1)}}, InvalidParameterError, "by its name .* or its position"),
        ({"categories": ["red"]}, InvalidParameterError, "categories= must map each categorical feature"),
        ({"categories": {0: []}}, InvalidParameterError, r"categories\[0\] is empty"),
        ({"categories": {0: ["a", ["b"]]}}, InvalidParameterError, "not hashable"),
        ({"categorical_features": "x0"}, InvalidParameterError, "categorical_features= must be a list"),
        ({"classes": [0, 0]}, InvalidParameterError, "list each once"),
        ({"classes": [0, "0"]}, InvalidParameterError, "equal or print alike"),
        ({"classes": [0, float("nan")]}, InvalidParameterError, "must not be NaN"),
        ({"classes": []}, InvalidParameterError, "classes= is empty"),
    ],
)
def test_bad_schema_parameters_are_refused_by_the_constructor_and_set_params(
    params: Dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error, match=message):
        ThesisTreeClassifier(**params)
    clf = ThesisTreeClassifier(seed=1)
    with pytest.raises(error, match=message):
        clf.set_params(**params)
    assert clf.get_params() == ThesisTreeClassifier(seed=1).get_params()


ROWS3 = [["red", 1.5], ["blue", 7.0], ["red", 3.0]]


@pytest.mark.parametrize(
    "params, X, y, error, message",
    [
        ({"bounds": {"x7": (0, 1)}}, ROWS3, [0, 1, 0], InvalidParameterError, "names 'x7', which is not a feature of X"),
        ({"bounds": {5: (0, 1)}}, ROWS3, [0, 1, 0], InvalidParameterError, "names feature 5, but X has 2 features"),
        ({"bounds": ([0, 0, 0], [1, 1, 1])}, ROWS3, [0, 1, 0], InvalidParameterError, "for 3 features but X has 2"),
        ({"bounds": {0: (0, 1)}, "categorical_features": [0]}, ROWS3, [0, 1, 0], InvalidParameterError,
         "feature 'x0' is categorical .* but bounds= gives it bounds"),
        ({"bounds": {1: (0, 5)}, "classes": [0, 1]}, ROWS3, [0, 1, 0], SchemaError,
         r"row 1, column 'x1': 7.0 lies outside the declared bounds \[0.0, 5.0\]"),
        ({"classes": [0, 1]}, ROWS3, [0, 2, 0], SchemaError, r"row 1: unknown class 2; the public classes are \[0, 1\]"),
        ({"categories": {0: ["red"]}}, ROWS3, [0, 1, 0], SchemaError, "row 1, column 'x0': unknown category 'blue'"),
        ({}, ROWS3, [0.5, 1.0, 0.0], DataError, "Unknown label type: continuous"),
        ({}, ROWS3, [0, None, 1], DataError, "missing or non-finite"),
        ({}, ROWS3, [0, 1], DataError, "X has 3 rows but y has 2 labels"),
        ({}, ROWS3, None, DataError, "requires y to be passed, but the target y is None"),
        ({}, [1.0, 2.0, 3.0], [0, 1, 0], DataError, "Reshape your data"),
        ({}, [["red", 1.5], ["blue"]], [0, 1], DataError, "row 1 has 1 values but row 0 has 2"),
        ({}, [[], [], []], [0, 1, 0], DataError, r"0 feature\(s\) \(shape=\(3, 0\)\)"),
        ({}, [], [], DataError, "X has no rows"),
        ({}, [["red", float("nan")], ["blue", 7.0]], [0, 1], DataError, r"column 'x1': nan is not a finite .*NaN"),
        ({"bounds": {1: (0, 10)}}, [["red", "x"], ["blue", 7.0]], [0, 1], DataError, "'x' is not a number"),
        ({"bounds": (0, 10)}, ROWS3, [0, 1, 0], DataError,
         "column 'x0': 'red' is not a number; .*bounds= declares it continuous.*categorical_features="),
        ({"bounds": {1: (0, 10)}}, [["red", True], ["blue", 7.0]], [0, 1], DataError, "True is a bool, not a number"),
        ({"bounds": {1: (0, 10)}}, [["red", 1j], ["blue", 7.0]], [0, 1], DataError, "Complex data not supported"),
        ({}, [["red", {"a": 1}], ["blue", {}]], [0, 1], DataError, "holds {'a': 1}, a dict"),
        ({}, "rows", [0], DataError, "X must be a sequence of rows"),
    ],
)
def test_bad_data_is_refused_at_fit_with_a_clear_error(
    params: Dict[str, Any], X: Any, y: Any, error: type, message: str
) -> None:
    clf = ThesisTreeClassifier(seed=1, **params)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with pytest.raises(error, match=message):
            clf.fit(X, y)


def test_predict_checks_the_features_as_scikit_learn_does() -> None:
    clf = ThesisTreeClassifier(seed=1, classes=[0, 1], **_positional(SCHEMA)).fit(ROWS, INTS)
    with pytest.raises(DataError, match="X has 3 features, but ThesisTreeClassifier is expecting 20 features as input"):
        clf.predict([row[:3] for row in ROWS])
    with pytest.raises(SchemaError, match="row 0, column 'x0': unknown category 'zzz'"):
        clf.predict([["zzz"] + ROWS[0][1:]])
    with pytest.raises(DataError, match="NaN or inf"):
        clf.predict([[ROWS[0][0], float("inf")] + ROWS[0][2:]])
    with pytest.raises(AttributeError, match="feature_names_in_ is defined only after fitting on a DataFrame"):
        clf.feature_names_in_
    assert not hasattr(ThesisTreeClassifier(), "classes_") and not hasattr(ThesisTreeClassifier(), "n_features_in_")
    on_data = ThesisTreeClassifier(seed=1).fit(CREDIT)  # a Dataset's features are its schema's, by position
    assert on_data.n_features_in_ == 20 and on_data.predict(ROWS[:5]) == on_data.predict(CREDIT.subset(range(5)))


def test_a_column_vector_y_is_read_flat_with_a_warning() -> None:
    flat = ThesisTreeClassifier(seed=1, classes=[0, 1], **_positional(SCHEMA)).fit(ROWS, INTS)
    with pytest.warns(DataConversionWarning, match="A column-vector y was passed when a 1d array was expected"):
        column = ThesisTreeClassifier(seed=1, classes=[0, 1], **_positional(SCHEMA)).fit(ROWS, [[c] for c in INTS])
    assert dumps_model(column.model_) == dumps_model(flat.model_)


# --- NumPy and pandas ---------------------------------------------------------------------------


def _numeric() -> Tuple[List[List[float]], List[ContinuousAttribute]]:
    """credit-g's continuous columns: the rows and their attributes."""
    positions = [j for j, a in enumerate(SCHEMA.attributes) if isinstance(a, ContinuousAttribute)]
    rows = [[float(row[j]) for j in positions] for row in ROWS]
    return rows, [a for a in SCHEMA.attributes if isinstance(a, ContinuousAttribute)]


def test_numpy_arrays_give_the_model_of_refdp_train() -> None:
    np = pytest.importorskip("numpy")
    rows, attributes = _numeric()
    X, y = np.array(rows), np.array(INTS)
    lows, highs = np.array([a.lower for a in attributes]), np.array([a.upper for a in attributes])
    numeric = Schema(tuple(attributes), "class", SCHEMA.classes)
    before = X.copy()
    with _no_leak_warning():
        clf = ThesisTreeClassifier(epsilon=1, seed=5, bounds=(lows, highs), classes=np.array([0, 1])).fit(X, y)
        mixed = DiffPID3Classifier(seed=6, classes=[0, 1], **_positional(SCHEMA)).fit(np.array(ROWS, dtype=object), y)
    data = Dataset.from_rows(_renamed(numeric, ("0", "1")), rows, [str(c) for c in INTS])
    model = train("thesis-tree", data, 1, rng=5)
    assert dumps_model(clf.model_) == dumps_model(model) and np.array_equal(X, before)
    predicted = clf.predict(X)
    assert isinstance(predicted, np.ndarray) and predicted.tolist() == [int(c) for c in model.predict(data)]
    assert isinstance(clf.classes_, np.ndarray) and clf.classes_.tolist() == [0, 1]
    assert clf.predict_proba(X[:7]).shape == (7, 2) and clf.score(X, y) == float(np.mean(predicted == y))
    assert clf.predict(rows).tolist() == predicted.tolist(), "fitted on arrays: arrays out, whatever the input"
    expected = train("diffpid3", Dataset.from_rows(_renamed(SCHEMA, ("0", "1")), ROWS, [str(c) for c in INTS]), 1, rng=6)
    assert dumps_model(mixed.model_) == dumps_model(expected), "an object array of strings and numbers"
    for dtype in ("int64", "int32", "float32"):  # NumPy scalars of any numeric dtype are numbers
        ThesisTreeClassifier(seed=1, bounds=(lows, highs), classes=[0, 1]).fit(X.astype(dtype), y.astype(dtype))
    for labels in (y == 1, np.array(["good", "bad"])[y], y.astype(np.uint8)):
        classes = np.unique(labels)
        fitted = ThesisTreeClassifier(seed=1, bounds=(lows, highs), classes=classes).fit(X, labels)
        assert fitted.classes_.tolist() == classes.tolist() and set(fitted.predict(X).tolist()) <= set(classes.tolist())
    with pytest.raises(DataError, match="Reshape your data"):
        clf.predict(X[0])
    with pytest.raises(DataError, match="Complex data not supported"):
        ThesisTreeClassifier().fit(X.astype(complex), y)


def _frame(pd: Any) -> Any:
    """credit-g as a DataFrame: continuous columns as floats, categorical ones as strings or pandas categoricals."""
    columns: Dict[str, Any] = {}
    for j, attribute in enumerate(SCHEMA.attributes):
        values = [row[j] for row in ROWS]
        if isinstance(attribute, CategoricalAttribute) and j % 2:
            values = pd.Categorical(values, categories=attribute.values)
        columns[attribute.name] = values
    return pd.DataFrame(columns)


def _by_name(schema: Schema) -> Dict[str, Any]:
    return {
        "bounds": {a.name: (a.lower, a.upper) for a in schema.attributes if isinstance(a, ContinuousAttribute)},
        "categories": {a.name: list(a.values) for a in schema.attributes if isinstance(a, CategoricalAttribute)},
        "classes": list(schema.classes),
    }


def test_pandas_frames_are_matched_by_column_name_and_give_the_model_of_refdp_train() -> None:
    pd = pytest.importorskip("pandas")
    np = pytest.importorskip("numpy")
    frame, y = _frame(pd), pd.Series(LABELS, name="class")
    before = frame.copy()
    with _no_leak_warning():
        clf = ThesisTreeClassifier(epsilon=1, seed=3, **_by_name(SCHEMA)).fit(frame, y)
        shuffled = frame[list(reversed(frame.columns))]  # with schema=, columns are found by name
        given = ThesisTreeClassifier(epsilon=1, seed=3, schema=SCHEMA).fit(shuffled, y)
    model = train("thesis-tree", CREDIT, 1, rng=3)
    assert clf.model_.schema == SCHEMA, "the Series's name names the class column"
    assert dumps_model(clf.model_) == dumps_model(model) == dumps_model(given.model_)
    assert frame.equals(before)
    assert clf.predict(frame).tolist() == model.predict(CREDIT) == given.predict(shuffled).tolist()
    names = clf.feature_names_in_
    assert isinstance(names, np.ndarray) and names.dtype == object and names.tolist() == list(SCHEMA.names)
    assert clf.n_features_in_ == 20 and clf.classes_.tolist() == ["good", "bad"]
    assert clf.score(frame, y) == float(np.mean(clf.predict(frame) == y.to_numpy()))
    with pytest.raises(DataError, match="Feature names must be in the same order as they were in fit"):
        clf.predict(shuffled)
    with pytest.raises(DataError, match="Feature names seen at fit time, yet now missing:\n- age\n"):
        clf.predict(frame.drop(columns=["age"]))
    with pytest.warns(UserWarning, match="X does not have valid feature names, but ThesisTreeClassifier was fitted"):
        clf.predict(frame.to_numpy())
    with pytest.raises(SchemaError, match="X's columns do not match the schema's attributes: missing \\['age'\\]"):
        ThesisTreeClassifier(schema=SCHEMA).fit(frame.drop(columns=["age"]), y)
    unnamed = ThesisTreeClassifier(seed=3, **_positional(SCHEMA), classes=["good", "bad"]).fit(frame.to_numpy(), y)
    with pytest.warns(UserWarning, match="X has feature names, but ThesisTreeClassifier was fitted without"):
        unnamed.predict(frame)


def test_a_dataframe_without_public_categories_reads_its_categorical_dtype_with_a_warning() -> None:
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"colour": pd.Categorical(["red", "blue", "red"], categories=["red", "blue", "green"]),
                          "size": [1.5, 7.0, 3.0]})
    with pytest.warns(PrivacyLeakWarning, match=r"\(categories of 'colour'\)"):
        clf = PrivateRDTClassifier(seed=1, bounds={"size": (0, 10)}, classes=[0, 1]).fit(frame, [0, 1, 0])
    assert clf.model_.schema.attribute("colour") == CategoricalAttribute("colour", ("red", "blue", "green"))
    assert clf.receipt_.level == "unsound"
