"""Soundness levels: computed from the claims' statuses, declared per variant, and the declarations kept honest."""

from __future__ import annotations

import json
import random
from fractions import Fraction
from typing import List, Tuple

import pytest

from refdp.algorithms import algorithm_names, get_algorithm, train
from refdp.proofs_index import STATUS
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema, load_builtin
from refdp.errors import SchemaError
from refdp.privacy import (
    IDEALISED,
    LEVELS,
    PROVED,
    UNSOUND,
    Ledger,
    Receipt,
    level_of,
    receipt_from_ledger,
    worst_level,
)
from refdp.algorithms import model_from_json


def _first(status: str) -> str:
    return next(cid for cid, s in sorted(STATUS.items()) if s == status)


PROVED_CLAIM = _first("proved")
IDEALISED_CLAIM = _first("needs-idealised-numerics")
UNSOUND_CLAIM = _first("published-but-unsound")


def test_level_of_follows_the_worst_status() -> None:
    assert level_of([], unsound_step=False) == PROVED
    assert level_of([PROVED_CLAIM], unsound_step=False) == PROVED
    assert level_of([PROVED_CLAIM, IDEALISED_CLAIM], unsound_step=False) == IDEALISED
    assert level_of([IDEALISED_CLAIM, UNSOUND_CLAIM], unsound_step=False) == UNSOUND
    assert level_of([PROVED_CLAIM], unsound_step=True) == UNSOUND
    assert level_of(["no-such-claim"], unsound_step=False) == UNSOUND, "an unknown claim vouches for nothing"
    assert worst_level([]) == PROVED and worst_level(LEVELS) == UNSOUND
    assert worst_level([IDEALISED, PROVED]) == IDEALISED


def _receipt(*claims: Tuple[str, ...], sound: bool = True, leak: bool = False) -> Receipt:
    ledger = Ledger()
    for i, cited in enumerate(claims):
        ledger.charge(label=f"c{i}", mechanism="m", epsilon=1, sensitivity=1, claims=cited, sound=sound,
                      partition=(f"k={i}",))
    if leak:
        ledger.record_leak("schema inferred from the data")
    return receipt_from_ledger(ledger)


def test_receipt_level_and_sound_flag() -> None:
    proved = _receipt((PROVED_CLAIM,))
    assert (proved.level, proved.sound) == (PROVED, True)
    idealised = _receipt((PROVED_CLAIM,), (IDEALISED_CLAIM,))
    assert (idealised.level, idealised.sound) == (IDEALISED, False)
    assert idealised.claim_statuses == {PROVED_CLAIM: "proved", IDEALISED_CLAIM: "needs-idealised-numerics"}
    assert _receipt((UNSOUND_CLAIM,)).level == UNSOUND
    assert _receipt((PROVED_CLAIM,), sound=False).level == UNSOUND
    assert _receipt((PROVED_CLAIM,), leak=True).level == UNSOUND
    assert _receipt().level == PROVED
    for receipt in (proved, idealised, _receipt((PROVED_CLAIM,), leak=True)):
        obj = receipt.to_json()
        assert (obj["level"], obj["sound"]) == (receipt.level, receipt.level == PROVED)
        assert Receipt.from_json(json.loads(json.dumps(obj))) == receipt


def test_declared_variant_claims_exist() -> None:
    for name in algorithm_names():
        spec = get_algorithm(name)
        for variant in spec.variants:
            unknown = [c for c in variant.claims if c not in STATUS]
            assert not unknown, f"{name} {variant.name} declares unknown claims {unknown}"
            assert variant.level == level_of(variant.claims, unsound_step=not variant.sound)


def _mixed() -> Dataset:
    """A small data set with a continuous attribute (the built-in small ones are all categorical)."""
    schema = Schema(
        attributes=(CategoricalAttribute("colour", ("red", "green", "blue")), ContinuousAttribute("age", 0.0, 100.0)),
        label="class",
        classes=("yes", "no"),
    )
    rng = random.Random(0)
    rows: List[Tuple[str, float]] = []
    labels = []
    for _ in range(120):
        colour, age = rng.choice(("red", "green", "blue")), round(rng.uniform(0, 100), 1)
        rows.append((colour, age))
        labels.append("yes" if (age > 40) != (colour == "blue") else "no")
    return Dataset.from_rows(schema, rows, labels)


VARIANTS = [(name, v.name) for name in algorithm_names() for v in get_algorithm(name).variants]


@pytest.mark.parametrize("algorithm, variant", VARIANTS, ids=[f"{a}-{v}" for a, v in VARIANTS])
def test_trained_receipts_reach_the_declared_level(algorithm: str, variant: str) -> None:
    """With default parameters, receipts cite only declared claims and the worst reaches the declared level.

    Trained on a small categorical built-in data set and on a small one with a
    continuous attribute (which adds the continuous-split claims); epsilon 2
    because k-AnonToRdt's default beta needs epsilon >= 1.05.
    """
    declared = get_algorithm(algorithm).variant(variant)
    levels = []
    for data in (load_builtin("monk1"), _mixed()):
        try:
            model = train(algorithm, data, 2, params={"variant": variant}, rng=1)
        except SchemaError as exc:
            assert "continuous" in str(exc), exc  # DPEA splits categorical attributes only
            continue
        receipt = model.receipt
        extra = sorted(set(receipt.claims) - set(declared.claims))
        assert not extra, f"{algorithm} {variant} cites undeclared claims {extra}: add them to its Variant"
        assert model_from_json(model.to_json()) == model, "a trained model verifies when it is loaded"
        levels.append(receipt.level)
    assert levels and worst_level(levels) == declared.level, (levels, declared.level)


def test_evaluation_reports_the_worst_level() -> None:
    from refdp.evaluation import cross_validate

    result = cross_validate("noisy-majority", load_builtin("monk1"), Fraction(1), folds=2, seed=1)
    assert result.level == PROVED and result.sound
    result = cross_validate("dpdf", load_builtin("monk1"), Fraction(1), folds=2, seed=1)
    assert result.level == get_algorithm("dpdf").variant("sound").level and result.sound == (result.level == PROVED)
