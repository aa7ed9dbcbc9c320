"""Precision, recall, F1 and ROC AUC on hand-computed cases, ties and bad input."""

from __future__ import annotations

import itertools
from typing import List

import pytest

from refdp.errors import InvalidParameterError
from refdp.metrics import confusion, f1_score, precision, recall, roc_auc


def test_binary_metrics_on_a_hand_computed_case() -> None:
    predicted = ["y", "y", "n", "n", "y", "n"]
    actual = ["y", "n", "y", "n", "y", "n"]
    assert confusion(predicted, actual, "y") == (2, 1, 1, 2)
    assert precision(predicted, actual, "y") == pytest.approx(2 / 3)
    assert recall(predicted, actual, "y") == pytest.approx(2 / 3)
    assert f1_score(predicted, actual, "y") == pytest.approx(2 / 3)
    assert precision(["n"] * 6, actual, "y") == 0.0
    assert recall(predicted, ["n"] * 6, "y") == 0.0
    assert f1_score(["n"] * 6, actual, "y") == 0.0


def test_f1_is_the_harmonic_mean_of_precision_and_recall() -> None:
    predicted = ["a", "a", "a", "b", "b", "a", "b"]
    actual = ["a", "b", "b", "a", "b", "a", "a"]
    p, r = precision(predicted, actual, "a"), recall(predicted, actual, "a")
    assert f1_score(predicted, actual, "a") == pytest.approx(2 * p * r / (p + r))


def _pairwise_auc(scores: List[float], actual: List[str], positive: str) -> float:
    pos = [s for s, a in zip(scores, actual) if a == positive]
    neg = [s for s, a in zip(scores, actual) if a != positive]
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p, n in itertools.product(pos, neg))
    return wins / (len(pos) * len(neg))


def test_auc_on_hand_computed_cases() -> None:
    assert roc_auc([0.1, 0.4, 0.35, 0.8], ["n", "n", "p", "p"], "p") == pytest.approx(0.75)
    assert roc_auc([0.9, 0.8, 0.1], ["p", "p", "n"], "p") == 1.0
    assert roc_auc([0.1, 0.2, 0.9], ["p", "p", "n"], "p") == 0.0


def test_auc_counts_ties_as_one_half() -> None:
    assert roc_auc([0.5, 0.5, 0.5, 0.5], ["p", "n", "p", "n"], "p") == 0.5
    # pos {0.5, 0.7}, neg {0.5, 0.2}: pairs 0.5/0.5 tie, 0.5>0.2, 0.7>0.5, 0.7>0.2 -> 3.5 / 4
    assert roc_auc([0.5, 0.7, 0.5, 0.2], ["p", "p", "n", "n"], "p") == pytest.approx(0.875)


def test_auc_agrees_with_the_pairwise_definition() -> None:
    scores = [0.3, 0.3, 0.1, 0.9, 0.5, 0.5, 0.5, 0.0, 0.9]
    actual = ["p", "n", "n", "p", "p", "n", "n", "p", "n"]
    assert roc_auc(scores, actual, "p") == pytest.approx(_pairwise_auc(scores, actual, "p"))


def test_bad_input_is_rejected_and_left_unchanged() -> None:
    scores, actual = [0.1, 0.2], ["p", "p"]
    with pytest.raises(InvalidParameterError, match="both the positive class"):
        roc_auc(scores, actual, "p")
    with pytest.raises(InvalidParameterError, match="same length"):
        precision(["p"], actual, "p")
    with pytest.raises(InvalidParameterError, match="non-empty"):
        recall([], [], "p")
    assert scores == [0.1, 0.2] and actual == ["p", "p"]
