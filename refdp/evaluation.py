"""Cross-validation and accuracy: how ``evaluate`` measures an algorithm.

Stratified k-fold: the rows of each class are shuffled and dealt to the folds
in turn, so each fold keeps the class distribution of the whole data set as
closely as integers allow.  Every fold's model is trained with the full
budget on the other k-1 folds (each trained model is a separate release).
:func:`stratified_split` is the one-split version (a 70/30 or 80/20 hold-out
that keeps the class proportions).  Results report the mean, the sample
standard deviation and a Student t confidence interval for the mean
(:func:`refdp.metrics.mean_confidence_interval`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.algorithms import Param, get_algorithm
from refdp.algorithms.registry import Fit
from refdp.data import Dataset, expect_dataset
from refdp.errors import InvalidParameterError
from refdp.metrics import macro_auc, macro_f1, mean_confidence_interval
from refdp.privacy import Number, Relation, as_budget
from refdp.privacy.levels import PROVED, worst_level
from refdp.rng import RandomSource, RngLike, as_rng

__all__ = [
    "shuffle",
    "stratified_folds",
    "stratified_split",
    "accuracy",
    "mean_std",
    "CVResult",
    "cross_validate",
    "train_test_evaluate",
    "Progress",
]

Progress = Callable[[int, int], None]
"""Called as ``progress(done, total)`` after each model of an evaluation."""


def shuffle(items: Sequence[int], rng: RandomSource) -> List[int]:
    """A uniformly random permutation (Fisher-Yates with ``randrange``), as a new list."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.randrange(i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def stratified_folds(labels: Sequence[int], k: int, rng: RandomSource) -> List[List[int]]:
    """Split row indices into ``k`` folds that keep the class proportions.

    >>> import random
    >>> folds = stratified_folds([0, 0, 0, 0, 1, 1], 2, random.Random(1))
    >>> sorted(len(fold) for fold in folds), sorted(sum(1 for i in fold if i >= 4) for fold in folds)
    ([3, 3], [1, 1])
    """
    _check_folds(k)
    if isinstance(labels, (str, bytes)) or not isinstance(labels, Sequence):
        raise InvalidParameterError(f"labels must be a sequence of class codes, got {type(labels).__name__}")
    if len(labels) < 2:
        raise InvalidParameterError(
            f"cannot cross-validate {len(labels)} row(s): it takes at least 2 rows, one per fold"
        )
    if k > len(labels):
        raise InvalidParameterError(
            f"cannot make {k} folds from {len(labels)} rows; use at most {len(labels)} folds"
        )
    by_class: Dict[int, List[int]] = {}
    for index, label in enumerate(labels):
        by_class.setdefault(label, []).append(index)
    folds: List[List[int]] = [[] for _ in range(k)]
    position = 0
    for label in sorted(by_class):
        for index in shuffle(by_class[label], rng):
            folds[position % k].append(index)
            position += 1
    return [sorted(fold) for fold in folds]


def stratified_split(
    labels: Sequence[int], test_fraction: float, rng: RandomSource
) -> Tuple[List[int], List[int]]:
    """Split row indices into (train, test) with ``round(test_fraction * n_c)`` test rows per class c.

    Each class's rows are shuffled and the first ones go to the test part, so
    both parts keep the class proportions as closely as integers allow.  Both
    parts must be non-empty.
    """
    if isinstance(test_fraction, bool) or not isinstance(test_fraction, (int, float)) or not 0 < test_fraction < 1:
        raise InvalidParameterError(f"test_fraction must be strictly between 0 and 1, got {test_fraction!r}")
    by_class: Dict[int, List[int]] = {}
    for index, label in enumerate(labels):
        by_class.setdefault(label, []).append(index)
    train: List[int] = []
    test: List[int] = []
    for label in sorted(by_class):
        rows = shuffle(by_class[label], rng)
        cut = int(round(test_fraction * len(rows)))
        test.extend(rows[:cut])
        train.extend(rows[cut:])
    if not train or not test:
        raise InvalidParameterError(
            f"a test fraction of {test_fraction} leaves {len(train)} training and {len(test)} test rows "
            f"of {len(labels)}; both must be non-empty"
        )
    return sorted(train), sorted(test)


def accuracy(predicted: Sequence[str], actual: Sequence[str]) -> float:
    if len(predicted) != len(actual) or not actual:
        raise InvalidParameterError("accuracy needs two non-empty sequences of the same length")
    return sum(p == a for p, a in zip(predicted, actual)) / len(actual)


def mean_std(values: Sequence[float]) -> Tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    if not values:
        raise InvalidParameterError("mean_std needs at least one value")
    mean = math.fsum(values) / len(values)
    if len(values) == 1:
        return mean, 0.0
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(var)


@dataclass(frozen=True)
class CVResult:
    """Accuracies over folds and repeats, with the receipt of each trained model.

    Equality ignores the timings, so two replays of one seed compare equal.
    """

    algorithm: str
    params: Mapping[str, Param]
    epsilon: Fraction
    folds: int
    repeats: int
    seed: Optional[int]
    accuracies: Tuple[float, ...]
    receipt_epsilon: Fraction
    receipt_delta: Fraction
    level: str
    """The worst soundness level of the models' receipts (see :mod:`refdp.privacy.levels`)."""
    train_seconds: Tuple[float, ...] = field(compare=False)
    f1s: Tuple[float, ...] = ()
    """Each run's :func:`~refdp.metrics.macro_f1`."""
    aucs: Tuple[Optional[float], ...] = ()
    """Each run's :func:`~refdp.metrics.macro_auc` (None where a test part has one class)."""

    @property
    def sound(self) -> bool:
        """True when every model's receipt is at level ``proved``."""
        return self.level == PROVED

    @property
    def mean(self) -> float:
        return mean_std(self.accuracies)[0]

    @property
    def std(self) -> float:
        return mean_std(self.accuracies)[1]

    @property
    def f1_mean(self) -> Optional[float]:
        """The mean macro F1 over the runs (None when not measured)."""
        return mean_std(self.f1s)[0] if self.f1s else None

    @property
    def auc_mean(self) -> Optional[float]:
        """The mean macro AUC over the runs where it is defined (None when it is nowhere)."""
        defined = [a for a in self.aucs if a is not None]
        return mean_std(defined)[0] if defined else None

    def confidence_interval(self, level: float = 0.95) -> Tuple[float, float]:
        """The Student t interval for the mean accuracy (needs at least two runs)."""
        return mean_confidence_interval(self.accuracies, level)


def cross_validate(
    algorithm: str,
    data: Dataset,
    epsilon: Number,
    *,
    folds: int = 10,
    repeats: int = 1,
    params: Optional[Mapping[str, Union[str, Param]]] = None,
    seed: Optional[int] = None,
    rng: RngLike = None,
    relation: Relation = Relation.ADD_REMOVE,
    engine: str = "reference",
    progress: Optional[Progress] = None,
) -> CVResult:
    """Repeated stratified k-fold cross-validation of ``algorithm`` on ``data``.

    ``seed`` (an int) makes the folds and the noise replayable; otherwise
    ``rng`` is used (a secure source when it is None too).  ``engine`` picks
    the implementation (same results on both).  ``progress(done, total)``,
    if given, is called after each model is scored.

    >>> from refdp.data import load
    >>> result = cross_validate("noisy-majority", load("vote"), 1, folds=5, seed=3)
    >>> result.folds, round(result.mean, 4), result.level
    (5, 0.6138, 'proved')

    Why 11 parameters: :func:`refdp.algorithms.train`'s arguments (algorithm, data,
    epsilon, params, seed or rng, relation, engine), the protocol's (folds, repeats) and a progress callback.
    """
    spec = get_algorithm(algorithm)
    expect_dataset(data, "the data to cross-validate on")
    fit = spec.fitter(engine)
    eps = as_budget(epsilon)
    resolved = spec.resolve({} if params is None else params)
    _check_folds(folds)
    _check_repeats(repeats)
    _check_progress(progress)
    source = as_rng(seed if seed is not None else rng)

    def splits() -> Iterator[Tuple[Dataset, Dataset]]:
        for _ in range(repeats):
            for test in stratified_folds(data.labels, folds, source):
                held = set(test)
                yield data.subset([i for i in range(len(data)) if i not in held]), data.subset(test)

    runs = _run(fit, splits(), eps, resolved, source, relation, (folds * repeats, progress))
    return _result(algorithm, resolved, eps, folds, repeats, seed, runs)


def train_test_evaluate(
    algorithm: str,
    train: Dataset,
    test: Dataset,
    epsilon: Number,
    *,
    repeats: int = 1,
    params: Optional[Mapping[str, Union[str, Param]]] = None,
    seed: Optional[int] = None,
    rng: RngLike = None,
    relation: Relation = Relation.ADD_REMOVE,
    engine: str = "reference",
    progress: Optional[Progress] = None,
) -> CVResult:
    """Train on ``train`` and measure accuracy (and macro F1 and AUC) on ``test``, ``repeats`` times.

    The protocol of papers that use a fixed split (Adult's ``adult.data`` and
    ``adult.test``): every repeat trains a new model with the full budget on
    all of ``train`` (each model is a separate release) and predicts every
    row of ``test``.  The result is a :class:`CVResult` with ``folds=1``.
    ``train`` and ``test`` must share the attributes and classes of one
    schema.  ``seed`` (an int) makes the noise replayable; otherwise ``rng``
    is used (a secure source when it is None too).  ``engine`` picks the
    implementation (same results on both).  ``progress(done, total)``, if
    given, is called after each model is scored.

    Why 11 parameters: :func:`refdp.algorithms.train`'s arguments (algorithm, data,
    epsilon, params, seed or rng, relation, engine), the test set, the repeats and a progress callback.
    """
    spec = get_algorithm(algorithm)
    expect_dataset(train, "the training data")
    expect_dataset(test, "the test data")
    fit = spec.fitter(engine)
    eps = as_budget(epsilon)
    resolved = spec.resolve({} if params is None else params)
    _check_repeats(repeats)
    _check_progress(progress)
    if (
        train.schema.attributes != test.schema.attributes
        or train.schema.classes != test.schema.classes
    ):
        raise InvalidParameterError(
            "the training and test data have different attributes or classes; read both with "
            "one schema (for example adult and adult-test)"
        )
    source = as_rng(seed if seed is not None else rng)
    runs = _run(fit, ((train, test) for _ in range(repeats)), eps, resolved, source, relation, (repeats, progress))
    return _result(algorithm, resolved, eps, 1, repeats, seed, runs)


def _check_folds(k: int) -> None:
    if isinstance(k, bool) or not isinstance(k, int) or k < 2:
        raise InvalidParameterError(f"the number of folds must be an integer >= 2, got {k!r:.60}")


def _check_progress(progress: Optional[Progress]) -> None:
    if progress is not None and not callable(progress):
        raise InvalidParameterError(f"progress must be a function (done, total) or None, got {type(progress).__name__}")


def _check_repeats(repeats: int) -> None:
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise InvalidParameterError(f"repeats must be an integer >= 1, got {repeats!r}")


@dataclass(frozen=True)
class _Run:
    accuracy: float
    f1: float
    auc: Optional[float]
    seconds: float
    epsilon: Fraction
    delta: Fraction
    level: str


def _run(
    fit: Fit,
    splits: Iterable[Tuple[Dataset, Dataset]],
    epsilon: Fraction,
    params: Mapping[str, Param],
    rng: RandomSource,
    relation: Relation,
    reporting: Tuple[int, Optional[Progress]],
) -> List[_Run]:
    """Train on each split's first part with the full budget, score on its second; report each model."""
    total, progress = reporting
    runs = []
    for train, test in splits:
        start = time.perf_counter()
        model = fit(train, epsilon, params, rng, relation)
        seconds = time.perf_counter() - start
        classes = test.schema.classes
        actual = [classes[c] for c in test.labels]
        predicted = model.predict(test)
        receipt = model.receipt
        runs.append(_Run(
            accuracy(predicted, actual), macro_f1(predicted, actual, classes),
            macro_auc(model.predict_proba(test), actual, classes),
            seconds, receipt.epsilon, receipt.delta, receipt.level,
        ))
        if progress is not None:
            progress(len(runs), total)
    return runs


def _result(
    algorithm: str,
    params: Mapping[str, Param],
    epsilon: Fraction,
    folds: int,
    repeats: int,
    seed: Optional[int],
    runs: Sequence[_Run],
) -> CVResult:
    return CVResult(
        algorithm=algorithm,
        params=params,
        epsilon=epsilon,
        folds=folds,
        repeats=repeats,
        seed=seed,
        accuracies=tuple(r.accuracy for r in runs),
        receipt_epsilon=max(r.epsilon for r in runs),
        receipt_delta=max(r.delta for r in runs),
        level=worst_level(r.level for r in runs),
        train_seconds=tuple(r.seconds for r in runs),
        f1s=tuple(r.f1 for r in runs),
        aucs=tuple(r.auc for r in runs),
    )
