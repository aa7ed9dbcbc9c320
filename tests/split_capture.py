"""The exponential mechanism a learner runs at its root, as called, and its exact law with the calibration written out.

A test wraps a learner module's ``exponential_mechanism`` (:class:`RootSplitSpy`),
fits the learner, and keeps the first call: the root's split, with the
utilities, epsilon, sensitivity and ``monotone`` flag the learner passed.
:meth:`MechanismCall.law` then computes the mechanism's exact law from
those values with the calibration spelled out here (weights
``exp(epsilon u / (2 c))``, ``c = Delta`` or ``Delta / 2`` when the factor 2
is dropped), not with refdp's own calibration helper, so that an exact
neighbour check sees what the learner decided: a factor 2 dropped where the
utilities are not monotone shows as a log-ratio above epsilon.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from types import ModuleType
from typing import Any, Callable, List, Optional, Sequence, Tuple

import pytest

from refdp.audit import Distribution, all_neighbours, exponential_mechanism_distribution, max_log_ratio
from refdp.data import Dataset
from refdp.privacy import Relation

SEEDS = 200  # fits tried until the root splits (the stopping rule may use noise)


@dataclass(frozen=True)
class MechanismCall:
    """The arguments of one ``exponential_mechanism`` call."""

    utilities: Tuple[Any, ...]
    epsilon: Fraction
    sensitivity: Fraction
    monotone: bool
    base_weights: Optional[Tuple[Any, ...]]

    def law(self, drop_factor: Optional[bool] = None) -> Distribution:
        """The exact law; ``drop_factor`` overrides the learner's ``monotone`` (to plant a wrong calibration)."""
        drop = self.monotone if drop_factor is None else drop_factor
        c = self.sensitivity / 2 if drop else self.sensitivity
        weights = None if self.base_weights is None else list(self.base_weights)
        return exponential_mechanism_distribution(list(self.utilities), self.epsilon, c, weights)


class RootSplitSpy:
    """Replaces ``module.exponential_mechanism`` with a wrapper that records each call and then runs it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, module: ModuleType) -> None:
        self.calls: List[MechanismCall] = []
        original = module.exponential_mechanism

        def spy(utilities: Sequence[Any], **kwargs: Any) -> int:
            weights = kwargs.get("base_weights")
            self.calls.append(MechanismCall(
                tuple(utilities), Fraction(kwargs["epsilon"]), Fraction(kwargs["sensitivity"]),
                bool(kwargs.get("monotone", False)), None if weights is None else tuple(weights),
            ))
            result: int = original(utilities, **kwargs)
            return result

        monkeypatch.setattr(module, "exponential_mechanism", spy)

    def root_call(self, fit: Callable[[random.Random], object]) -> MechanismCall:
        """The root's mechanism call of the first of seeds 0, 1, ... whose fit splits the root."""
        for seed in range(SEEDS):
            self.calls.clear()
            fit(random.Random(seed))
            if self.calls:
                return self.calls[0]
        raise AssertionError(f"the root did not split in {SEEDS} fits")


def worst_log_ratios(
    data: Dataset, relation: Relation, call_of: Callable[[Dataset], MechanismCall]
) -> Tuple[MechanismCall, float, float]:
    """(the call on ``data``, the largest log-ratio over every neighbour, the same with the factor 2 flipped)."""
    reference = call_of(data)
    worst = flipped = 0.0
    for _, neighbour in all_neighbours(data, relation):
        other = call_of(neighbour)
        worst = max(worst, max_log_ratio(reference.law(), other.law()))
        flip = not reference.monotone
        flipped = max(flipped, max_log_ratio(reference.law(flip), other.law(flip)))
    return reference, worst, flipped
