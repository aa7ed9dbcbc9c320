"""Split choices by the exponential mechanism, right and wrong, with their exact laws.

Every choice scores its candidates with the max operator
``q = sum_j max_c tau_{j,c}`` (sensitivity 1 under both relations, claim
``max-operator-sensitivity``) and samples as refdp's mechanism does
(:func:`refdp.mechanisms.exponential_log_probabilities`, one draw through
:func:`refdp.mechanisms.sample_index`), so the exact laws below are the
samplers' own probabilities.

* :class:`AttributeChoice`: ``P(a) ~ exp(epsilon q_a / (divisor Delta))``;
  ``divisor = 2`` is McSherry and Talwar's mechanism, ``divisor = 1`` the
  planted fault, which is only ``2 epsilon``-DP once a neighbour can raise
  one candidate's score and lower another's;
* :class:`ThresholdChoice`: a threshold on a continuous attribute chosen
  among public grid points, or -- the fault -- among the data's own values;
* :class:`ScoredChoice`: an attribute and its score, released with discrete
  Laplace noise on a separate share of the budget, or -- the fault -- exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Optional, Sequence, Tuple

from refdp.audit.exact import Distribution, chain
from refdp.audit.planted.laws import clamp, clamped_discrete_laplace
from refdp.data import CategoricalAttribute, Dataset
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace, exponential_log_probabilities, sample_index
from refdp.rng import RandomSource

__all__ = [
    "attribute_table",
    "max_score",
    "AttributeChoice",
    "ThresholdChoice",
    "ScoredChoice",
    "ScoredChoiceLaw",
]

_SENSITIVITY = 1  # of the max operator, under both relations


def attribute_table(data: Dataset, attribute: int, rows: Optional[Sequence[int]] = None) -> List[List[int]]:
    """``tau[v][c]``: rows (all, or ``rows``) with value code ``v`` of ``attribute`` and class ``c``."""
    codes, labels = data.codes(attribute), data.labels
    described = data.schema.attributes[attribute]
    assert isinstance(described, CategoricalAttribute)  # data.codes() raised otherwise
    table = [[0] * data.schema.n_classes for _ in range(described.n_values)]
    for i in range(len(data)) if rows is None else rows:
        table[codes[i]][labels[i]] += 1
    return table


def max_score(table: Sequence[Sequence[int]]) -> int:
    """``q = sum_j max_c tau_{j,c}``: :func:`refdp.scoring.max_operator` of a table built here.

    The same value (the tests compare them), without the input validation
    that dominated a Monte-Carlo audit's run time.
    """
    return sum(max(row) for row in table)


def _log_probabilities(scores: Sequence[float], epsilon: Fraction) -> List[float]:
    return exponential_log_probabilities(scores, epsilon=epsilon, sensitivity=_SENSITIVITY)


def _sample(log_probabilities: Sequence[float], rng: RandomSource) -> int:
    return sample_index([math.exp(lp) for lp in log_probabilities], rng)


@dataclass(frozen=True)
class AttributeChoice:
    """A split attribute among ``attributes``, ``P(a) ~ exp(epsilon q_a / (divisor Delta))``."""

    attributes: Tuple[int, ...]
    epsilon: Fraction
    divisor: int

    def scores(self, data: Dataset) -> List[float]:
        """``q_a`` for each candidate, in order."""
        return [float(max_score(attribute_table(data, a))) for a in self.attributes]

    def log_probabilities(self, data: Dataset) -> List[float]:
        """``ln P(a)`` for each candidate."""
        # The library's coefficient is epsilon' / (2 Delta); epsilon' = 2 epsilon / divisor
        # turns it into epsilon / (divisor Delta).
        return _log_probabilities(self.scores(data), 2 * self.epsilon / self.divisor)

    def __call__(self, data: Dataset, rng: RandomSource) -> int:
        return self.attributes[_sample(self.log_probabilities(data), rng)]

    def law(self, data: Dataset) -> Distribution:
        """The exact law of the chosen attribute."""
        return Distribution(zip(self.attributes, self.log_probabilities(data)))


@dataclass(frozen=True)
class ThresholdChoice:
    """A threshold ``t`` for the split ``x < t`` | ``x >= t`` of continuous ``attribute``.

    ``grid`` holds the public candidates, increasing; ``None`` means the distinct values
    of the data -- the planted fault, since then the released threshold is a
    data value and a record with a new value makes a new output possible.
    """

    attribute: int
    epsilon: Fraction
    grid: Optional[Tuple[float, ...]]

    def __post_init__(self) -> None:
        if self.grid is not None and (not self.grid or any(a >= b for a, b in zip(self.grid, self.grid[1:]))):
            raise InvalidParameterError(f"grid must be non-empty and increasing, got {self.grid!r}")

    def candidates(self, data: Dataset) -> Tuple[float, ...]:
        """The thresholds the mechanism chooses among on ``data``."""
        if self.grid is not None:
            return self.grid
        return tuple(sorted(set(data.values(self.attribute))))

    def _log_probabilities(self, data: Dataset, candidates: Sequence[float]) -> List[float]:
        # One sweep over the rows sorted by value: the counts below t grow as t does.
        rows = sorted(zip(data.values(self.attribute), data.labels))
        below = [0] * data.schema.n_classes
        total = data.class_counts()
        scores, i = [], 0
        for t in candidates:
            while i < len(rows) and rows[i][0] < t:
                below[rows[i][1]] += 1
                i += 1
            above = [n - b for n, b in zip(total, below)]
            scores.append(float(max_score([below, above])))
        return _log_probabilities(scores, self.epsilon)

    def __call__(self, data: Dataset, rng: RandomSource) -> float:
        candidates = self.candidates(data)
        return candidates[_sample(self._log_probabilities(data, candidates), rng)]

    def law(self, data: Dataset) -> Distribution:
        """The exact law of the released threshold."""
        candidates = self.candidates(data)
        return Distribution(zip(candidates, self._log_probabilities(data, candidates)))


@dataclass(frozen=True)
class ScoredChoice:
    """A split attribute and its max-operator score, ``(a, released score)``.

    ``noisy_score``: the exponential mechanism at ``epsilon/2`` and the score
    plus ``DLap(2/epsilon)`` (sequential composition: ``epsilon``).  Without
    it -- the planted fault -- the mechanism runs at ``epsilon`` and the exact
    score is released, which differs between neighbours whenever the
    chosen attribute's score does.
    """

    attributes: Tuple[int, ...]
    epsilon: Fraction
    noisy_score: bool

    @property
    def choice(self) -> AttributeChoice:
        """The exponential mechanism part."""
        share = self.epsilon / 2 if self.noisy_score else self.epsilon
        return AttributeChoice(self.attributes, share, 2)

    @property
    def score_scale(self) -> Fraction:
        """The discrete Laplace scale of the released score (``Delta / (epsilon/2)``)."""
        return _SENSITIVITY / (self.epsilon / 2)

    def __call__(self, data: Dataset, rng: RandomSource) -> Tuple[int, int]:
        choice = self.choice
        a = choice(data, rng)
        score = max_score(attribute_table(data, a))
        if self.noisy_score:
            score += discrete_laplace(self.score_scale, rng)
        return (a, score)


@dataclass(frozen=True)
class ScoredChoiceLaw:
    """The exact law of ``ClampScore(lo, hi)`` of a :class:`ScoredChoice`."""

    mechanism: ScoredChoice
    lo: int
    hi: int

    def __call__(self, data: Dataset) -> Distribution:
        def score_law(a: object) -> Distribution:
            score = max_score(attribute_table(data, int(a)))  # type: ignore[call-overload]
            if not self.mechanism.noisy_score:
                return Distribution({clamp(score, self.lo, self.hi): 0.0})
            return clamped_discrete_laplace(score, self.mechanism.score_scale, self.lo, self.hi)

        return chain(self.mechanism.choice.law(data), score_law)
