"""Noisy counts and sums, right and wrong, with their exact laws.

Queries (``f(D)``, an int):

* :class:`ClassCount`: rows of one class; sensitivity 1 under both relations;
* :class:`ClippedSum`: ``sum_i min(floor(x_i), c)`` of a non-negative
  continuous attribute; sensitivity ``c`` under add-remove.

Releases (each a picklable ``mechanism(data, rng)``):

* :class:`DiscreteLaplaceRelease`: ``f(D) + DLap(scale)``, exact sampler;
* :class:`LaplaceRelease`: ``f(D) + Laplace(scale)`` in floats;
* :class:`CoarseFloatLaplaceRelease`: ``f(D) +- scale * -ln(U)`` with ``U``
  uniform on ``{1, ..., 2**bits} / 2**bits``: the textbook inverse-CDF
  sampler, at a resolution low enough to enumerate every output;
* :class:`HistogramRelease`: a class histogram with discrete Laplace noise on
  every class of the schema, or only on the classes present.

Laws (each ``law(data) -> Distribution`` of the release after its public
reduction from :mod:`refdp.audit.reductions`): clamped discrete
Laplace, binned Laplace (idealised real arithmetic), the enumerated coarse
float sampler, and the clamped histogram.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, Hashable, List, Tuple

from refdp.audit.exact import Distribution, log_sum_exp, product, push_forward
from refdp.audit.planted.laws import binned_laplace, clamped_discrete_laplace
from refdp.audit.reductions import Clamp
from refdp.data import Dataset
from refdp.mechanisms import discrete_laplace, laplace_noise
from refdp.rng import RandomSource

__all__ = [
    "Query",
    "ClassCount",
    "ClippedSum",
    "DiscreteLaplaceRelease",
    "LaplaceRelease",
    "CoarseFloatLaplaceRelease",
    "HistogramRelease",
    "ClampedDiscreteLaplaceLaw",
    "BinnedLaplaceLaw",
    "CoarseFloatLaplaceLaw",
    "HistogramLaw",
]

Query = Callable[[Dataset], int]
"""An integer-valued query ``f(D)``."""


@dataclass(frozen=True)
class ClassCount:
    """``f(D)`` = the number of rows of class code ``label``."""

    label: int

    def __call__(self, data: Dataset) -> int:
        return sum(1 for code in data.labels if code == self.label)


@dataclass(frozen=True)
class ClippedSum:
    """``f(D) = sum_i min(floor(x_i), clip)`` over continuous attribute ``attribute`` (values >= 0)."""

    attribute: int
    clip: int

    def __call__(self, data: Dataset) -> int:
        return sum(min(math.floor(x), self.clip) for x in data.values(self.attribute))


@dataclass(frozen=True)
class DiscreteLaplaceRelease:
    """``f(D) + Z``, ``Z ~ DLap(scale)`` (exact sampler): epsilon-DP when ``scale = Delta f / epsilon``."""

    query: Query
    scale: Fraction

    def __call__(self, data: Dataset, rng: RandomSource) -> int:
        return self.query(data) + discrete_laplace(self.scale, rng)


@dataclass(frozen=True)
class LaplaceRelease:
    """``f(D) + Laplace(scale)`` in floats: epsilon-DP (idealised) when ``scale = Delta f / epsilon``."""

    query: Query
    scale: float

    def __call__(self, data: Dataset, rng: RandomSource) -> float:
        return self.query(data) + laplace_noise(self.scale, rng)


def _coarse_noise(scale: float, k: int, bits: int, positive: bool) -> float:
    magnitude = -scale * math.log(k / (1 << bits))
    return magnitude if positive else -magnitude


@dataclass(frozen=True)
class CoarseFloatLaplaceRelease:
    """``f(D) + S * (-scale * ln U)`` in floats, ``U`` uniform on ``{1..2**bits}/2**bits``, ``S = +-1``.

    The inverse-CDF sampler of the Laplace distribution as papers write it,
    with a uniform of ``bits`` bits instead of 53 so that all ``2**(bits+1)``
    outputs can be listed.  The set of floats ``f(D) + noise`` depends on
    ``f(D)``, so neighbours' outputs have different supports: no finite
    epsilon holds (Mironov, CCS 2012), at any resolution.
    """

    query: Query
    scale: float
    bits: int

    def __call__(self, data: Dataset, rng: RandomSource) -> float:
        k = rng.randrange(1, (1 << self.bits) + 1)
        positive = rng.getrandbits(1) == 1
        return float(self.query(data)) + _coarse_noise(self.scale, k, self.bits, positive)


@dataclass(frozen=True)
class HistogramRelease:
    """``((class, count + DLap(scale)), ...)`` for every class, or only those present in ``data``."""

    scale: Fraction
    every_class: bool

    def __call__(self, data: Dataset, rng: RandomSource) -> Tuple[Tuple[str, int], ...]:
        counts = data.class_counts()
        return tuple(
            (name, count + discrete_laplace(self.scale, rng))
            for name, count in zip(data.schema.classes, counts)
            if self.every_class or count > 0
        )


@dataclass(frozen=True)
class ClampedDiscreteLaplaceLaw:
    """The exact law of ``Clamp(lo, hi)`` of :class:`DiscreteLaplaceRelease`."""

    query: Query
    scale: Fraction
    lo: int
    hi: int

    def __call__(self, data: Dataset) -> Distribution:
        return clamped_discrete_laplace(self.query(data), self.scale, self.lo, self.hi)


@dataclass(frozen=True)
class BinnedLaplaceLaw:
    """The exact law of ``Bins(edges)`` of :class:`LaplaceRelease`, in idealised real arithmetic."""

    query: Query
    scale: float
    edges: Tuple[float, ...]

    def __call__(self, data: Dataset) -> Distribution:
        return binned_laplace(float(self.query(data)), self.scale, self.edges)


@dataclass(frozen=True)
class CoarseFloatLaplaceLaw:
    """The exact law of ``Clamp(lo, hi)`` of :class:`CoarseFloatLaplaceRelease`, by enumeration.

    Every ``(k, sign)`` has probability ``2**-(bits+1)``; the outputs are
    computed with the sampler's own float operations and equal floats merged.
    """

    query: Query
    scale: float
    bits: int
    lo: int
    hi: int

    def __call__(self, data: Dataset) -> Distribution:
        base = float(self.query(data))
        clamp = Clamp(self.lo, self.hi)
        log_each = -(self.bits + 1) * math.log(2.0)
        merged: Dict[Hashable, List[float]] = {}
        for k in range(1, (1 << self.bits) + 1):
            for positive in (True, False):
                value = clamp(base + _coarse_noise(self.scale, k, self.bits, positive))
                merged.setdefault(value, []).append(log_each)
        return Distribution((o, log_sum_exp(terms)) for o, terms in merged.items())


@dataclass(frozen=True)
class HistogramLaw:
    """The exact law of ``ClampHistogram(lo, hi)`` of :class:`HistogramRelease`.

    The classes' noises are independent: a product of clamped discrete
    Laplace laws, relabelled as the release's ``((class, count), ...)``.
    """

    scale: Fraction
    every_class: bool
    lo: int
    hi: int

    def __call__(self, data: Dataset) -> Distribution:
        released = [
            (name, count)
            for name, count in zip(data.schema.classes, data.class_counts())
            if self.every_class or count > 0
        ]
        names = tuple(name for name, _ in released)
        joint = product(*(clamped_discrete_laplace(c, self.scale, self.lo, self.hi) for _, c in released))
        return push_forward(joint, _Labelled(names))


@dataclass(frozen=True)
class _Labelled:
    """``(v1, v2, ...) -> ((name1, v1), (name2, v2), ...)``."""

    names: Tuple[str, ...]

    def __call__(self, values: Hashable) -> Hashable:
        assert isinstance(values, tuple)
        return tuple(zip(self.names, values))
