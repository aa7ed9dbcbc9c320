"""The scikit-learn-like estimators: fit / predict / predict_proba, seeds and rngs, errors."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import List, Type, Union

import pytest

from refdp.algorithms import get_algorithm
from refdp.data import load_builtin
from refdp.errors import InvalidParameterError, ModelError
from refdp.estimators import BaselineTreeClassifier, DiffPID3Classifier, DPEAClassifier, ThesisTreeClassifier
from refdp.privacy import Relation
from refdp.tree import dumps_model

Estimator = Union[
    Type[DiffPID3Classifier], Type[ThesisTreeClassifier], Type[BaselineTreeClassifier], Type[DPEAClassifier]
]
CLASSES: List[Estimator] = [DiffPID3Classifier, ThesisTreeClassifier, BaselineTreeClassifier, DPEAClassifier]


@pytest.mark.smoke
@pytest.mark.parametrize("cls", CLASSES)
def test_fit_predict_and_fitted_attributes(cls: Estimator) -> None:
    data = load_builtin("vote")
    clf = cls(epsilon=2, max_depth=3, seed=5)
    assert clf.fit(data) is clf
    assert clf.classes_ == ["democrat", "republican"]
    predictions = clf.predict(data)
    assert len(predictions) == len(data) and set(predictions) <= set(clf.classes_)
    probabilities = clf.predict_proba(data)
    assert all(len(p) == 2 and abs(sum(p) - 1) < 1e-12 for p in probabilities)
    assert clf.model_.algorithm == cls.algorithm and clf.model_.params["max_depth"] == 3
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
        ThesisTreeClassifier(quality="info-gain")
    with pytest.raises(InvalidParameterError, match="relation"):
        BaselineTreeClassifier(relation="bounded-ish")
    with pytest.raises(InvalidParameterError, match="seed"):
        ThesisTreeClassifier(seed="7")  # type: ignore[arg-type]
    clf = DiffPID3Classifier(seed=1)
    with pytest.raises(ModelError, match="not fitted"):
        clf.predict(data)
    with pytest.raises(ModelError, match="not fitted"):
        clf.receipt_
    with pytest.raises(InvalidParameterError, match="Dataset"):
        clf.fit([[1, 2]])  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="max_depth"):
        ThesisTreeClassifier(max_depth=-1, seed=1).fit(data)
