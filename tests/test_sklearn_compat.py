"""scikit-learn's estimator checks on every estimator; cross-validation, pipelines and grid search on NumPy and pandas.

Needs scikit-learn and pandas (``pip install 'refdp[sklearn]'``); ``./scripts/check`` installs both from
``requirements-test.txt`` on Python 3.11 and later (the releases it locks need 3.11).  Elsewhere the
module is skipped with that reason; refdp itself imports neither.

The data sets scikit-learn bundles are used here for API behaviour only, never to choose a default.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

from refdp.algorithms import train
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load_builtin
from refdp.errors import DataError, PrivacyLeakWarning
from refdp.estimators import ESTIMATORS, DiffPID3Classifier, PrivateRDTClassifier, ThesisTreeClassifier, TreeClassifier
from refdp.tree import dumps_model

_MISSING = (
    "scikit-learn and pandas are not installed: pip install 'refdp[sklearn]' (./scripts/check installs them on "
    "Python >= 3.11)"
)
sklearn = pytest.importorskip("sklearn", reason=_MISSING)
pd = pytest.importorskip("pandas", reason=_MISSING)
np = pytest.importorskip("numpy", reason=_MISSING)
checks = pytest.importorskip("sklearn.utils.estimator_checks", reason=_MISSING)
datasets = pytest.importorskip("sklearn.datasets", reason=_MISSING)
selection = pytest.importorskip("sklearn.model_selection", reason=_MISSING)
pipeline = pytest.importorskip("sklearn.pipeline", reason=_MISSING)
preprocessing = pytest.importorskip("sklearn.preprocessing", reason=_MISSING)

EXPECTED_FAILURES: Dict[str, str] = {
    "check_do_not_raise_errors_in_init_or_set_params": (
        "refdp refuses a bad setting in the constructor and set_params (tests/test_estimators.py); scikit-learn "
        "defers every check to fit"
    ),
    "check_estimators_unfitted": (
        "refdp raises its own NotFittedError (a ValueError and an AttributeError, as scikit-learn's); the check "
        "wants scikit-learn's class, which refdp cannot raise without importing scikit-learn"
    ),
}
"""The checks that do not hold, each with the reason; every other check passes on every estimator."""


def _expected_failures(estimator: TreeClassifier) -> Dict[str, str]:
    return dict(EXPECTED_FAILURES)


# The instances the checks run on: each algorithm's defaults, a budget and a seed (without a seed two fits
# differ, and scikit-learn's non_deterministic tag says so).  The checks' data sets have no public schema:
# every fit reads one off the data, with a PrivacyLeakWarning (ignored below) and an unsound receipt.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message=".*does not inherit from `sklearn.base.BaseEstimator`")
    _CHECKS: Callable[[Callable[[TreeClassifier, Any], None]], Callable[[TreeClassifier, Any], None]]
    _CHECKS = checks.parametrize_with_checks(
        [ESTIMATORS[name](epsilon=1, seed=0) for name in sorted(ESTIMATORS)],
        expected_failed_checks=_expected_failures,
        xfail_strict=True,
    )


@pytest.mark.filterwarnings("ignore::refdp.errors.PrivacyLeakWarning")
@pytest.mark.filterwarnings("ignore:.*does not inherit from `sklearn.base.BaseEstimator`")
@pytest.mark.filterwarnings("ignore:.*It is recommended to delay parameter validation until fit")
@_CHECKS
def test_scikit_learn_estimator_checks(estimator: TreeClassifier, check: Any) -> None:
    check(estimator)


def test_the_estimators_are_classifiers_to_scikit_learn() -> None:
    base = pytest.importorskip("sklearn.base")
    utils = pytest.importorskip("sklearn.utils")
    for cls in ESTIMATORS.values():
        assert base.is_classifier(cls(seed=0))
        tags = utils.get_tags(cls(seed=0))
        assert tags.input_tags.string and not tags.non_deterministic
        assert tags.classifier_tags.poor_score is (cls.algorithm != "tree-baseline")
        assert utils.get_tags(cls()).non_deterministic, "without a seed, two fits differ"


# --- the scikit-learn user's data ------------------------------------------------------------------


def _cancer() -> Any:
    return datasets.load_breast_cancer(return_X_y=True)  # 30 continuous features, labels 0/1


CANCER_BOUNDS = (0, 5000)
"""Bounds for every feature of the breast-cancer data, for these API tests (a DP user would take them from
what the features measure, never from the rows)."""


def test_the_issue_s_scikit_learn_user_fits_numpy_with_bounds_and_classes() -> None:
    X, y = _cancer()
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        clf = ThesisTreeClassifier(epsilon=1, seed=1, bounds=CANCER_BOUNDS, classes=[0, 1]).fit(X, y)
    schema = Schema(tuple(ContinuousAttribute(f"x{j}", *CANCER_BOUNDS) for j in range(30)), "y", ("0", "1"))
    data = Dataset.from_rows(schema, X.tolist(), [str(v) for v in y.tolist()])
    assert dumps_model(clf.model_) == dumps_model(train("thesis-tree", data, 1, rng=1))
    assert clf.receipt_.level == "proved" and clf.classes_.tolist() == [0, 1]
    assert clf.predict(X).dtype.kind == "i" and 0.5 < clf.score(X, y) <= 1
    lists = ThesisTreeClassifier(epsilon=1, seed=1, bounds=CANCER_BOUNDS, classes=[0, 1]).fit(X.tolist(), y.tolist())
    assert dumps_model(lists.model_) == dumps_model(clf.model_)


def test_the_issue_s_first_attempts_now_work() -> None:
    """A refdp schema for the breast-cancer data (texts '0' and '1' for the classes) meets a NumPy X, integer
    labels and lists; cross_val_score works on NumPy input; check_estimator needs no schema."""
    X, y = _cancer()
    schema = Schema(tuple(ContinuousAttribute(f"f{j}", *CANCER_BOUNDS) for j in range(30)), "y", ("0", "1"))
    expected = train("thesis-tree", Dataset.from_rows(schema, X.tolist(), [str(v) for v in y.tolist()]), 1, rng=1)
    for features, labels in ((X, y), (X.tolist(), y.tolist())):
        clf = ThesisTreeClassifier(epsilon=1, seed=1, schema=schema).fit(features, labels)
        assert dumps_model(clf.model_) == dumps_model(expected) and np.asarray(clf.classes_).tolist() == [0, 1]
        assert set(np.asarray(clf.predict(features)).tolist()) <= {0, 1}
    scores = selection.cross_val_score(ThesisTreeClassifier(epsilon=1, seed=1, schema=schema), X, y, cv=5)
    assert len(scores) == 5 and all(0.5 < s <= 1 for s in scores), scores
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        warnings.filterwarnings("ignore", message=".*(BaseEstimator|delay parameter validation|expected to fail|SCIPY_ARRAY_API)")
        checks.check_estimator(ThesisTreeClassifier(epsilon=1, seed=1), expected_failed_checks=EXPECTED_FAILURES)


def _credit_frame() -> Any:
    """credit-g as a DataFrame with string, categorical and float columns, and its public schema as parameters."""
    data = load_builtin("credit-g")
    schema = data.schema
    columns: Dict[str, Any] = {}
    for j, attribute in enumerate(schema.attributes):
        values = [data.row(i)[j] for i in range(len(data))]
        if isinstance(attribute, CategoricalAttribute) and j % 2:
            values = pd.Categorical(values, categories=attribute.values)
        columns[attribute.name] = values
    y = pd.Series([data.label(i) for i in range(len(data))], name=schema.label)
    params = {
        "bounds": {a.name: (a.lower, a.upper) for a in schema.attributes if isinstance(a, ContinuousAttribute)},
        "categories": {a.name: list(a.values) for a in schema.attributes if isinstance(a, CategoricalAttribute)},
        "classes": list(schema.classes),
    }
    return pd.DataFrame(columns), y, params


@pytest.mark.filterwarnings("error::refdp.errors.PrivacyLeakWarning")
def test_cross_val_score_on_numpy_and_pandas() -> None:
    X, y = _cancer()
    scores = selection.cross_val_score(
        ThesisTreeClassifier(epsilon=1, seed=1, bounds=CANCER_BOUNDS, classes=[0, 1]), X, y, cv=5
    )
    assert len(scores) == 5 and all(0.5 < s <= 1 for s in scores), scores
    frame, labels, params = _credit_frame()
    scores = selection.cross_val_score(PrivateRDTClassifier(epsilon=1, seed=1, **params), frame, labels, cv=3)
    assert len(scores) == 3 and all(0.5 < s <= 1 for s in scores), scores
    f1 = selection.cross_val_score(
        DiffPID3Classifier(epsilon=1, seed=1, bounds=CANCER_BOUNDS, classes=[0, 1]), X, y, cv=3, scoring="f1"
    )
    assert all(0 <= s <= 1 for s in f1), "predictions are labels of y's kind, so scikit-learn's scorers work"


@pytest.mark.filterwarnings("error::refdp.errors.PrivacyLeakWarning")
def test_pipeline_and_grid_search_on_numpy_and_pandas() -> None:
    X, y = _cancer()
    # Clipping to the public bounds is a per-record step: it needs no look at other rows.
    clip = preprocessing.FunctionTransformer(np.clip, kw_args={"a_min": CANCER_BOUNDS[0], "a_max": CANCER_BOUNDS[1]})
    steps = pipeline.Pipeline(
        [("clip", clip), ("tree", ThesisTreeClassifier(epsilon=1, seed=2, bounds=CANCER_BOUNDS, classes=[0, 1]))]
    )
    # The search is API behaviour only: each fit spends the budget again, so tuning on private data this
    # way is not covered by one receipt.
    search = selection.GridSearchCV(steps, {"tree__max_depth": [2, 4], "tree__quality": ["max", "gini"]}, cv=3)
    search.fit(X * 1.5, y)  # some values beyond the bounds: the pipeline clips them
    assert search.best_params_["tree__max_depth"] in (2, 4) and 0.5 < search.best_score_ <= 1
    assert search.predict(X[:10]).shape == (10,)
    frame, labels, params = _credit_frame()
    grid = selection.GridSearchCV(DiffPID3Classifier(epsilon=1, seed=3, **params), {"max_depth": [1, 3]}, cv=3)
    grid.fit(frame, labels)
    assert grid.best_estimator_.feature_names_in_.tolist() == list(frame.columns)
    assert set(grid.predict(frame).tolist()) <= {"good", "bad"}
    assert grid.predict_proba(frame.head(4)).shape == (4, 2)


def test_sparse_input_is_refused_with_a_clear_error() -> None:
    sparse = pytest.importorskip("scipy.sparse")
    X, y = _cancer()
    with pytest.raises(DataError, match=r"sparse matrix \(csr_matrix\).*pass X.toarray\(\)"):
        ThesisTreeClassifier(seed=1, bounds=CANCER_BOUNDS, classes=[0, 1]).fit(sparse.csr_matrix(X), y)


def test_predictions_of_a_search_refit_match_a_plain_fit() -> None:
    frame, labels, params = _credit_frame()
    grid = selection.GridSearchCV(ThesisTreeClassifier(epsilon=1, seed=4, **params), {"max_depth": [2]}, cv=2)
    grid.fit(frame, labels)
    alone = ThesisTreeClassifier(epsilon=1, seed=4, max_depth=2, **params).fit(frame, labels)
    assert dumps_model(grid.best_estimator_.model_) == dumps_model(alone.model_)
    expected: List[str] = train("thesis-tree", load_builtin("credit-g"), 1, {"max_depth": 2}, rng=4).predict(
        load_builtin("credit-g")
    )
    assert grid.predict(frame).tolist() == expected


def test_the_readme_s_five_lines_run(capsys: pytest.CaptureFixture[str]) -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    after = readme[readme.index("A scikit-learn user's five lines"):]
    block = after[after.index("```python\n") + len("```python\n"):after.index("```\n", after.index("```python"))]
    assert len(block.strip().splitlines()) == 5 and "bounds=" in block and "classes=" in block
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        exec(compile(block, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip().endswith("] proved")
