"""Classification metrics beyond accuracy: precision, recall, F1 and ROC AUC.

These evaluate a released model on labelled data (post-processing: no
privacy cost).  Labels are class names; ``positive`` names the class the
binary metrics are about.  Conventions for empty denominators follow the
usual "zero division gives 0" rule and are stated in each function.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from refdp.errors import InvalidParameterError

__all__ = ["confusion", "precision", "recall", "f1_score", "roc_auc"]


def _check_pair(predicted: Sequence[object], actual: Sequence[object], what: str) -> None:
    if len(predicted) != len(actual) or not actual:
        raise InvalidParameterError(
            f"{what} needs two non-empty sequences of the same length, got {len(predicted)} and {len(actual)}"
        )


def confusion(predicted: Sequence[str], actual: Sequence[str], positive: str) -> Tuple[int, int, int, int]:
    """(true positives, false positives, false negatives, true negatives) for class ``positive``."""
    _check_pair(predicted, actual, "confusion")
    tp = fp = fn = tn = 0
    for p, a in zip(predicted, actual):
        if p == positive:
            if a == positive:
                tp += 1
            else:
                fp += 1
        elif a == positive:
            fn += 1
        else:
            tn += 1
    return tp, fp, fn, tn


def precision(predicted: Sequence[str], actual: Sequence[str], positive: str) -> float:
    """TP / (TP + FP); 0 when nothing is predicted positive."""
    tp, fp, _, _ = confusion(predicted, actual, positive)
    return tp / (tp + fp) if tp + fp else 0.0


def recall(predicted: Sequence[str], actual: Sequence[str], positive: str) -> float:
    """TP / (TP + FN); 0 when no row is actually positive."""
    tp, _, fn, _ = confusion(predicted, actual, positive)
    return tp / (tp + fn) if tp + fn else 0.0


def f1_score(predicted: Sequence[str], actual: Sequence[str], positive: str) -> float:
    """2 TP / (2 TP + FP + FN), the harmonic mean of precision and recall; 0 when TP = 0."""
    tp, fp, fn, _ = confusion(predicted, actual, positive)
    return 2 * tp / (2 * tp + fp + fn) if tp else 0.0


def roc_auc(scores: Sequence[float], actual: Sequence[str], positive: str) -> float:
    """The area under the ROC curve: P[score(pos) > score(neg)] + P[tie] / 2.

    ``scores[i]`` is the model's score for ``positive`` on row i (for
    example ``predict_proba``'s column).  Computed by the rank-sum
    (Mann-Whitney) formula with average ranks for ties, in O(n log n).
    Needs at least one positive and one negative row: InvalidParameterError
    otherwise (the AUC is undefined).
    """
    _check_pair(scores, actual, "roc_auc")
    n_pos = sum(1 for a in actual if a == positive)
    n_neg = len(actual) - n_pos
    if n_pos == 0 or n_neg == 0:
        raise InvalidParameterError(
            f"roc_auc needs rows of both the positive class {positive!r} and another class; "
            f"got {n_pos} positive and {n_neg} negative"
        )
    order = sorted(range(len(scores)), key=lambda i: float(scores[i]))
    ranks: List[float] = [0.0] * len(scores)
    start = 0
    while start < len(order):
        end = start
        while end + 1 < len(order) and float(scores[order[end + 1]]) == float(scores[order[start]]):
            end += 1
        average = (start + end) / 2 + 1  # ranks are 1-based; tied scores share their mean rank
        for position in range(start, end + 1):
            ranks[order[position]] = average
        start = end + 1
    rank_sum = sum(r for r, a in zip(ranks, actual) if a == positive)
    return (rank_sum - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg)
