"""Stratified folds, accuracy and cross-validation."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import List

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refdp.data import load
from refdp.errors import InvalidParameterError
from refdp.evaluation import (
    accuracy,
    cross_validate,
    mean_std,
    shuffle,
    stratified_folds,
    stratified_split,
    train_test_evaluate,
)


@given(st.lists(st.integers(0, 3), min_size=2, max_size=200), st.integers(2, 10), st.integers(0, 2**32))
def test_folds_partition_rows_and_keep_proportions(labels: List[int], k: int, seed: int) -> None:
    if k > len(labels):
        with pytest.raises(InvalidParameterError):
            stratified_folds(labels, k, random.Random(seed))
        return
    folds = stratified_folds(labels, k, random.Random(seed))
    assert sorted(i for f in folds for i in f) == list(range(len(labels)))
    for c in set(labels):
        per_fold = [sum(labels[i] == c for i in f) for f in folds]
        assert max(per_fold) - min(per_fold) <= 1
    assert max(map(len, folds)) - min(map(len, folds)) <= 1


def test_folds_replay_with_seed() -> None:
    labels = [0, 1] * 20
    assert stratified_folds(labels, 4, random.Random(5)) == stratified_folds(labels, 4, random.Random(5))


def test_shuffle_does_not_mutate() -> None:
    items = [1, 2, 3, 4]
    out = shuffle(items, random.Random(0))
    assert items == [1, 2, 3, 4] and sorted(out) == items


def test_accuracy_and_mean_std() -> None:
    assert accuracy(["a", "b"], ["a", "a"]) == 0.5
    mean, std = mean_std([1.0, 3.0])
    assert mean == 2.0 and std == pytest.approx(2**0.5)
    assert mean_std([4.0]) == (4.0, 0.0)
    with pytest.raises(InvalidParameterError):
        accuracy([], [])


@pytest.mark.claim("parallel-composition")
def test_cross_validate_receipt_and_replay() -> None:
    data = load("monk1")
    first = cross_validate("noisy-majority", data, "1/2", folds=3, repeats=2, seed=4)
    again = cross_validate("noisy-majority", data, "1/2", folds=3, repeats=2, seed=4)
    assert first == again
    assert len(first.accuracies) == 6
    assert first.receipt_epsilon == Fraction(1, 2) and first.sound
    with pytest.raises(InvalidParameterError):
        cross_validate("noisy-majority", data, 1, folds=3, repeats=0)


@pytest.mark.parametrize("value", [2.5, True, "2.5", "x"])
def test_int_parameters_refuse_what_they_would_truncate(value: object) -> None:
    from refdp.algorithms import get_algorithm

    spec = get_algorithm("thesis-tree")
    with pytest.raises(InvalidParameterError, match="max_depth"):
        spec.resolve({"max_depth": value})  # type: ignore[dict-item]
    assert spec.resolve({"max_depth": "3"})["max_depth"] == 3


@given(st.lists(st.integers(0, 2), min_size=4, max_size=200), st.integers(0, 2**32))
def test_stratified_split_partitions_and_keeps_proportions(labels: List[int], seed: int) -> None:
    counts = {c: labels.count(c) for c in set(labels)}
    try:
        train, test = stratified_split(labels, 0.3, random.Random(seed))
    except InvalidParameterError:
        assert all(round(0.3 * n) == 0 for n in counts.values()) or all(
            round(0.3 * n) == n for n in counts.values()
        )
        return
    assert sorted(train + test) == list(range(len(labels)))
    for c, n in counts.items():
        assert sum(labels[i] == c for i in test) == round(0.3 * n)


def test_stratified_split_refuses_bad_fractions() -> None:
    for fraction in [0, 1, 1.5, True]:
        with pytest.raises(InvalidParameterError):
            stratified_split([0, 1, 0, 1], fraction, random.Random(0))


def test_cv_result_confidence_interval() -> None:
    result = cross_validate("noisy-majority", load("monk1"), 1, folds=4, repeats=1, seed=2)
    low, high = result.confidence_interval()
    assert low <= result.mean <= high
    single = train_test_evaluate("noisy-majority", load("monk1"), load("monk1"), 1, seed=2)
    with pytest.raises(InvalidParameterError):
        single.confidence_interval()
