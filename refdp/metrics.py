"""Classification metrics beyond accuracy, and a confidence interval for a mean.

Precision, recall, F1 and ROC AUC evaluate a released model on labelled data
(post-processing: no privacy cost).  Labels are class names; ``positive``
names the class the binary metrics are about.  Conventions for empty
denominators follow the usual "zero division gives 0" rule and are stated in
each function.

:func:`mean_confidence_interval` is the Student t interval
``mean +- t_{(1+level)/2, n-1} s / sqrt(n)`` for the mean of fold accuracies;
:func:`student_t_quantile` computes the t quantile from the standard library
alone (bisection on the CDF, written with the regularised incomplete beta
function ``I_x(a, b)``).  Fold accuracies of one cross-validation are not
independent (the training sets overlap), so the interval describes the spread
of the runs rather than a guarantee about future data.
"""

from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

from refdp.errors import InvalidParameterError

__all__ = [
    "confusion",
    "precision",
    "recall",
    "f1_score",
    "roc_auc",
    "macro_f1",
    "macro_auc",
    "regularized_incomplete_beta",
    "student_t_cdf",
    "student_t_quantile",
    "mean_confidence_interval",
]


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


def macro_f1(predicted: Sequence[str], actual: Sequence[str], classes: Sequence[str]) -> float:
    """The mean of :func:`f1_score` over the classes that occur in ``actual`` or ``predicted``.

    Every class is the positive one in turn, so the value does not depend on
    the order in which the classes are listed (nor on which one is called
    positive, which :func:`f1_score` must be told).
    """
    _check_pair(predicted, actual, "macro_f1")
    seen = set(actual) | set(predicted)
    scores = [f1_score(predicted, actual, c) for c in classes if c in seen]
    return math.fsum(scores) / len(scores)


def macro_auc(
    probabilities: Sequence[Sequence[float]], actual: Sequence[str], classes: Sequence[str]
) -> Optional[float]:
    """The mean one-vs-rest :func:`roc_auc` over the classes with rows in and out of the class.

    ``probabilities[i][c]`` is the model's probability of ``classes[c]`` on
    row i (``predict_proba``).  With two classes both one-vs-rest AUCs are
    the AUC.  None when no class has both (a test set of one class).
    """
    _check_pair(probabilities, actual, "macro_auc")
    present = set(actual)
    scores = [
        roc_auc([row[c] for row in probabilities], actual, name)
        for c, name in enumerate(classes)
        if name in present and len(present) > 1
    ]
    return math.fsum(scores) / len(scores) if scores else None


def _beta_continued_fraction(a: float, b: float, x: float) -> float:
    # Lentz's method for the continued fraction of I_x(a, b) (Numerical Recipes, betacf).
    tiny = 1e-300
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 10_000):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + aa / c
        c = c if abs(c) > tiny else tiny
        delta = d * c
        h *= delta
        if abs(delta - 1.0) < 1e-16:
            return h
    raise InvalidParameterError(f"the incomplete beta fraction did not converge for a={a}, b={b}, x={x}")


def regularized_incomplete_beta(x: float, a: float, b: float) -> float:
    """``I_x(a, b) = B(x; a, b) / B(a, b)`` for ``0 <= x <= 1`` and ``a, b > 0``.

    The continued fraction converges fast for ``x < (a + 1)/(a + b + 2)``;
    above that the symmetry ``I_x(a, b) = 1 - I_{1-x}(b, a)`` is used.
    Accurate to about 1e-14 absolute for moderate ``a, b``.
    """
    if not (a > 0 and b > 0 and math.isfinite(a) and math.isfinite(b)):
        raise InvalidParameterError(f"the incomplete beta function needs finite a, b > 0, got a={a}, b={b}")
    if not 0.0 <= x <= 1.0:
        raise InvalidParameterError(f"the incomplete beta function needs 0 <= x <= 1, got x={x}")
    if x == 0.0 or x == 1.0:
        return x
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_continued_fraction(a, b, x) / a
    return 1.0 - math.exp(log_front) * _beta_continued_fraction(b, a, 1.0 - x) / b


def _check_df(df: float) -> float:
    if isinstance(df, bool) or not isinstance(df, (int, float)) or not (df > 0 and math.isfinite(df)):
        raise InvalidParameterError(f"degrees of freedom must be a finite number > 0, got {df!r}")
    return float(df)


def student_t_cdf(t: float, df: float) -> float:
    """P[T <= t] for Student's t with ``df`` degrees of freedom.

    ``P[|T| > |t|] = I_{df/(df+t^2)}(df/2, 1/2)``.
    """
    nu = _check_df(df)
    if math.isnan(t):
        raise InvalidParameterError("student_t_cdf needs a number, got nan")
    if math.isinf(t):
        return 1.0 if t > 0 else 0.0
    tail = 0.5 * regularized_incomplete_beta(nu / (nu + t * t), nu / 2.0, 0.5)
    return 1.0 - tail if t > 0 else tail


def student_t_quantile(p: float, df: float) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``0 < p < 1``).

    Found by bisection on :func:`student_t_cdf` (monotone), to within a few
    ulps: for example ``student_t_quantile(0.975, 9)`` is 2.2621571628...
    """
    nu = _check_df(df)
    if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 < p < 1.0:
        raise InvalidParameterError(f"a quantile needs 0 < p < 1, got {p!r}")
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -student_t_quantile(1.0 - p, nu)
    low, high = 0.0, 1.0
    while student_t_cdf(high, nu) < p:
        low, high = high, high * 2.0
        if high > 1e300:
            raise InvalidParameterError(f"the t quantile for p={p}, df={df} is too large for a float")
    for _ in range(200):
        middle = 0.5 * (low + high)
        if middle in (low, high):
            break
        if student_t_cdf(middle, nu) < p:
            low = middle
        else:
            high = middle
    return 0.5 * (low + high)


def mean_confidence_interval(values: Sequence[float], level: float = 0.95) -> Tuple[float, float]:
    """The two-sided Student t interval ``mean +- t_{(1+level)/2, n-1} s / sqrt(n)``.

    ``s`` is the sample standard deviation of ``values``.  Needs at least two
    values (one value gives no estimate of the spread) and ``0 < level < 1``.
    """
    if isinstance(level, bool) or not isinstance(level, (int, float)) or not 0.0 < level < 1.0:
        raise InvalidParameterError(f"the confidence level must be strictly between 0 and 1, got {level!r}")
    points = [float(v) for v in values]
    if len(points) < 2 or not all(math.isfinite(v) for v in points):
        raise InvalidParameterError(
            f"a confidence interval for the mean needs at least two finite values, got {len(points)}"
        )
    n = len(points)
    mean = math.fsum(points) / n
    std = math.sqrt(math.fsum((v - mean) ** 2 for v in points) / (n - 1))
    half = student_t_quantile((1.0 + level) / 2.0, n - 1) * std / math.sqrt(n)
    return mean - half, mean + half
