"""Every public function refuses an argument of the wrong type with a RefdpError, as the README promises.

Each call gets values of every wrong type (None, lists, text, numbers, a
dict, bytes, a bare object, a bool, NaN) where it expects a data set, a
name, a mapping, a path...; none may raise AttributeError, TypeError or any
other exception that is not a :class:`refdp.errors.RefdpError`, and the
messages say what was expected.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any, Callable, Dict, List

import pytest

import refdp
from refdp.data import Dataset, read_schema
from refdp.errors import DataError, InvalidParameterError, ModelError, RefdpError
from refdp.estimators import NoisyMajorityClassifier
from refdp.evaluation import stratified_folds, train_test_evaluate
from refdp.tree import dumps_model

VOTE = refdp.load("vote")
ROWS = [VOTE.row(i) for i in range(20)]
LABELS = [VOTE.label(i) for i in range(20)]
MODEL = refdp.train("noisy-majority", VOTE, 1, rng=1)
FITTED = NoisyMajorityClassifier(epsilon=1, seed=1).fit(VOTE)

WRONG: List[Any] = [None, [], [1, 2], "x", 3, 2.5, {"a": 1}, b"x", object(), True, float("nan"), -1, [[1, 2]],
                    [[5.1, 3.5, 1.4, 0.2]], (("y",) * 16,)]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("api")
    (d / "p.arff").write_text("@relation t\n@attribute x numeric\n@attribute c {a,b}\n@data\n1,a\n2,b\n",
                              encoding="utf-8")
    (d / "p.csv").write_text(",".join(VOTE.schema.names + (VOTE.schema.label,)) + "\n", encoding="utf-8")
    return d


def _calls(d: Path) -> Dict[str, Callable[[Any], object]]:
    return {
        "train(name, X)": lambda v: refdp.train("thesis-tree", v, 1),
        "train(X, data)": lambda v: refdp.train(v, VOTE, 1),
        "train(epsilon=X)": lambda v: refdp.train("noisy-majority", VOTE, v),
        "train(params=X)": lambda v: refdp.train("noisy-majority", VOTE, 1, params=v) if v is not None else None,
        "train(rng=X)": lambda v: refdp.train("noisy-majority", VOTE, 1, rng=v) if v not in (3, -1) else None,
        "train(relation=X)": lambda v: refdp.train("noisy-majority", VOTE, 1, relation=v),
        "train(engine=X)": lambda v: refdp.train("noisy-majority", VOTE, 1, engine=v),
        "load(X)": lambda v: refdp.load(v),
        "load_builtin(X)": lambda v: refdp.load_builtin(v),
        "read_arff(X)": lambda v: refdp.read_arff(v),
        "read_arff(bounds=X)": lambda v: refdp.read_arff(d / "p.arff", bounds=v),
        "read_arff(label=X)": lambda v: refdp.read_arff(d / "p.arff", label=v, bounds={"x": (0, 10)}),
        "read_arff(schema=X)": lambda v: refdp.read_arff(d / "p.arff", schema=v),
        "read_arff(categorical_missing=X)": lambda v: refdp.read_arff(d / "p.arff", bounds={"x": (0, 10)},
                                                                      categorical_missing=v),
        "read_csv(X)": lambda v: refdp.read_csv(v, schema=VOTE.schema),
        "read_csv(schema=X)": lambda v: refdp.read_csv(d / "p.csv", schema=v),
        "read_csv(label=X)": lambda v: refdp.read_csv(d / "p.csv", schema=VOTE.schema, label=v),
        "read_schema(X)": lambda v: read_schema(v),
        "Schema.from_json(X)": lambda v: refdp.Schema.from_json(v),
        "model_from_json(X)": lambda v: refdp.model_from_json(v),
        "read_model(X)": lambda v: refdp.read_model(v),
        "dumps_model(X)": lambda v: dumps_model(v),
        "get_algorithm(X)": lambda v: refdp.get_algorithm(v),
        "model.predict(X)": lambda v: MODEL.predict(v),
        "model.predict_proba(X)": lambda v: MODEL.predict_proba(v),
        "model.rules(X)": lambda v: MODEL.rules(v) if v != -1 else None,
        "cross_validate(X, data)": lambda v: refdp.cross_validate(v, VOTE, 1),
        "cross_validate(name, X)": lambda v: refdp.cross_validate("noisy-majority", v, 1),
        "cross_validate(epsilon=X)": lambda v: refdp.cross_validate("noisy-majority", VOTE, v, folds=2),
        "cross_validate(folds=X)": lambda v: refdp.cross_validate("noisy-majority", VOTE, 1, folds=v),
        "cross_validate(repeats=X)": lambda v: refdp.cross_validate("noisy-majority", VOTE, 1, folds=2, repeats=v),
        "cross_validate(progress=X)": lambda v: refdp.cross_validate("noisy-majority", VOTE, 1, folds=2, progress=v)
        if v is not None else None,
        "train_test_evaluate(train=X)": lambda v: train_test_evaluate("noisy-majority", v, VOTE, 1),
        "train_test_evaluate(test=X)": lambda v: train_test_evaluate("noisy-majority", VOTE, v, 1),
        "stratified_folds(X)": lambda v: stratified_folds(v, 2, random.Random(1)),
        "stratified_folds(k=X)": lambda v: stratified_folds(VOTE.labels, v, random.Random(1)),
        "as_rng(X)": lambda v: refdp.as_rng(v) if v not in (3, -1, None) else None,
        "Dataset.from_rows(schema=X)": lambda v: Dataset.from_rows(v, ROWS, LABELS),
        "Dataset.from_rows(rows=X)": lambda v: Dataset.from_rows(VOTE.schema, v, LABELS),
        "Dataset.from_rows(labels=X)": lambda v: Dataset.from_rows(VOTE.schema, ROWS, v),
        "estimator(epsilon=X).fit": lambda v: NoisyMajorityClassifier(epsilon=v, seed=1).fit(VOTE),
        "estimator(schema=X).fit": lambda v: NoisyMajorityClassifier(epsilon=1, seed=1, schema=v).fit(ROWS, LABELS),
        "estimator.fit(X, y)": lambda v: NoisyMajorityClassifier(epsilon=1, schema=VOTE.schema).fit(v, LABELS),
        "estimator.fit(rows, X)": lambda v: NoisyMajorityClassifier(epsilon=1, schema=VOTE.schema).fit(ROWS, v),
        "estimator.predict(X)": lambda v: FITTED.predict(v),
        "estimator.score(X, y)": lambda v: FITTED.score(v, LABELS),
        "CategoricalAttribute(X, values)": lambda v: refdp.CategoricalAttribute(v, ("a", "b")),
        "CategoricalAttribute(name, X)": lambda v: refdp.CategoricalAttribute("x", v),
        "ContinuousAttribute(name, X, 1)": lambda v: refdp.ContinuousAttribute("x", v, 1),
        "Schema(X, label, classes)": lambda v: refdp.Schema(v, "c", ("a", "b")),
        "Schema(attributes, label, X)": lambda v: refdp.Schema(VOTE.schema.attributes, "c", v),
        "Receipt.from_json(X)": lambda v: refdp.Receipt.from_json(v),
        "data.subset(X)": lambda v: VOTE.subset(v) if v not in ([], [1, 2]) else None,
        "Ledger(X)": lambda v: refdp.Ledger(v),
    }


CALL_NAMES = sorted(_calls(Path(".")))


@pytest.mark.parametrize("call", CALL_NAMES)
def test_a_wrong_type_raises_a_refdp_error(call: str, files: Path) -> None:
    function = _calls(files)[call]
    for value in WRONG:
        try:
            function(value)
        except RefdpError:
            continue
        except Exception as exc:  # the point of the test: nothing else may escape
            pytest.fail(f"{call} with {value!r:.40} raised {type(exc).__name__}: {exc}")


def test_the_issue_s_examples_say_what_to_pass(files: Path) -> None:
    with pytest.raises(DataError, match="must be a refdp Dataset .*got NoneType"):
        refdp.train("thesis-tree", None, 1)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="got list; for rows and labels as lists, use the estimators"):
        refdp.train("thesis-tree", [[1, 2]], 1)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="got str"):
        refdp.train("thesis-tree", "vote", 1)  # type: ignore[arg-type]
    # model.predict takes rows (issue 27): these have too few values for the model's attributes
    with pytest.raises(DataError, match="the rows have 4 values but the schema has 16 attributes"):
        MODEL.predict([[5.1, 3.5, 1.4, 0.2]])
    with pytest.raises(InvalidParameterError, match="load takes a built-in name .* got NoneType"):
        refdp.load(None)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match=r"bounds must map numeric attribute names to \(lower, upper\)"):
        refdp.read_arff(files / "p.arff", bounds=[1, 2])  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="params must map parameter names to values"):
        refdp.train("thesis-tree", VOTE, 1, params=[("max_depth", 3)])  # type: ignore[arg-type]
    with pytest.raises(ModelError, match="cannot read model file .*No such file"):
        refdp.read_model(files / "none.json")
    with pytest.raises(ModelError, match="tree must be an index in 0..0"):
        MODEL.rules(5)
