"""Precision, recall, F1 and ROC AUC on hand-computed cases, ties and bad input."""

from __future__ import annotations

import itertools
import math
from typing import Callable, List

import pytest

from refdp.errors import InvalidParameterError
from refdp.metrics import (
    confusion,
    f1_score,
    macro_auc,
    macro_f1,
    mean_confidence_interval,
    precision,
    recall,
    regularized_incomplete_beta,
    roc_auc,
    student_t_cdf,
    student_t_quantile,
)


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


def test_macro_f1_and_auc_by_hand_and_independent_of_the_class_order() -> None:
    predicted = ["y", "y", "n", "n", "y", "n"]
    actual = ["y", "n", "y", "n", "y", "n"]
    # F1 of y: 2*2 / (4 + 1 + 1) = 2/3; of n: the same counts mirrored.
    assert macro_f1(predicted, actual, ["y", "n"]) == pytest.approx(2 / 3)
    assert macro_f1(predicted, actual, ["n", "y"]) == macro_f1(predicted, actual, ["y", "n"])
    # A class neither present nor predicted does not count; one predicted but absent counts as 0.
    assert macro_f1(predicted, actual, ["y", "n", "maybe"]) == pytest.approx(2 / 3)
    assert macro_f1(["maybe"] + predicted[1:], actual, ["y", "n", "maybe"]) == pytest.approx(
        (f1_score(["maybe"] + predicted[1:], actual, "y") + f1_score(["maybe"] + predicted[1:], actual, "n")) / 3
    )
    p_y = [0.9, 0.6, 0.4, 0.2, 0.8, 0.6]
    probabilities = [[p, 1 - p] for p in p_y]
    expected = roc_auc(p_y, actual, "y")
    assert macro_auc(probabilities, actual, ["y", "n"]) == pytest.approx(expected)
    flipped = [[1 - p, p] for p in p_y]
    assert macro_auc(flipped, actual, ["n", "y"]) == pytest.approx(expected)
    assert macro_auc(probabilities, ["y"] * 6, ["y", "n"]) is None


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


# Two-sided 95%, 99% and 99.9% points of Student's t from printed tables
# (e.g. NIST/SEMATECH e-Handbook 1.3.6.7.2), to the digits printed there.
T_TABLE = [
    (0.975, 1, 12.706),
    (0.975, 2, 4.303),
    (0.975, 4, 2.776),
    (0.975, 9, 2.262),
    (0.975, 24, 2.064),
    (0.975, 99, 1.984),
    (0.995, 1, 63.657),
    (0.995, 9, 3.250),
    (0.95, 5, 2.015),
    (0.999, 30, 3.385),
    (0.9995, 1, 636.619),
]


@pytest.mark.parametrize("p, df, expected", T_TABLE)
def test_student_t_quantile_matches_the_printed_table(p: float, df: int, expected: float) -> None:
    value = student_t_quantile(p, df)
    assert abs(value - expected) <= 0.0005 + 1e-9 * expected, (p, df, value, expected)
    assert student_t_quantile(1 - p, df) == -value
    assert student_t_cdf(value, df) == pytest.approx(p, abs=1e-12)


def test_student_t_closed_forms() -> None:
    # df = 1 is Cauchy: F(t) = 1/2 + atan(t)/pi; df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)).
    for t in [-30.0, -2.5, -0.1, 0.0, 0.3, 1.0, 7.0, 1e4]:
        assert student_t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-14)
        assert student_t_cdf(t, 2) == pytest.approx(0.5 + t / (2 * math.sqrt(2 + t * t)), abs=1e-14)
    # Large df tends to the normal quantile 1.959963984540054.
    assert student_t_quantile(0.975, 10**9) == pytest.approx(1.959963984540054, abs=1e-6)
    assert regularized_incomplete_beta(0.3, 1, 1) == pytest.approx(0.3)
    assert regularized_incomplete_beta(0.3, 2, 1) == pytest.approx(0.09)


def test_mean_confidence_interval() -> None:
    values = [1.0, 2.0, 3.0, 4.0]
    low, high = mean_confidence_interval(values)
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2  # t_{0.975,3} s / sqrt(n)
    assert low == pytest.approx(2.5 - half) and high == pytest.approx(2.5 + half)
    assert mean_confidence_interval([0.5, 0.5]) == (0.5, 0.5)
    wider = mean_confidence_interval(values, 0.99)
    assert wider[0] < low and wider[1] > high
    assert values == [1.0, 2.0, 3.0, 4.0]


@pytest.mark.parametrize(
    "call",
    [
        lambda: mean_confidence_interval([1.0]),
        lambda: mean_confidence_interval([1.0, float("nan")]),
        lambda: mean_confidence_interval([1.0, 2.0], 1.0),
        lambda: student_t_quantile(0.0, 3),
        lambda: student_t_quantile(0.5, 0),
        lambda: student_t_quantile(0.9, float("inf")),
        lambda: regularized_incomplete_beta(1.5, 1, 1),
        lambda: regularized_incomplete_beta(0.5, 0, 1),
    ],
)
def test_confidence_interval_refuses_bad_input(call: Callable[[], object]) -> None:
    with pytest.raises(InvalidParameterError):
        call()
