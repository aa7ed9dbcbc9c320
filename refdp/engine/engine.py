"""An engine: how nodes are counted and how the mechanisms' numbers are drawn, never what is charged.

:class:`Engine` bundles a :class:`~refdp.engine.counts.NodeCounts` factory
with the arithmetic a faster implementation may replace: the discrete
Laplace sampler, the float exponential mechanism's probabilities and
index draw, and the exact draws of a Poissonised bootstrap.  Its methods call the mechanisms of :mod:`refdp.mechanisms`,
which validate their inputs and record every ledger charge themselves, with
the engine's arithmetic plugged in: privacy-relevant code (a charge, a
calibration) exists once, in :mod:`refdp.mechanisms`, and every engine must
give the same draws and the same floats as :data:`REFERENCE`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple, TypeVar, Union

from refdp.data import Dataset
from refdp.engine.counts import NodeCounts, ReferenceCounts
from refdp.errors import InvalidParameterError
from refdp.mechanisms import (
    SensitivityLike,
    bootstrap_draws,
    discrete_laplace,
    discrete_laplace_mechanism,
    exponential_mechanism,
    noisy_cells,
    noisy_histogram,
    sample_index,
)
from refdp.mechanisms.counts import DiscreteLaplaceSampler
from refdp.mechanisms.exponential import FloatProbabilities, IndexDraw, Real, float_probabilities
from refdp.privacy import Ledger, Number
from refdp.rng import RandomSource

__all__ = ["Engine", "REFERENCE"]

_T = TypeVar("_T")


@dataclass(frozen=True)
class Engine:
    """Counting (``counts(data)``) and the arithmetic of the mechanisms' draws.

    Every field but ``name`` and ``counts`` defaults to the reference
    implementation in :mod:`refdp.mechanisms`.
    """

    name: str
    counts: Callable[[Dataset], NodeCounts]
    discrete_laplace: DiscreteLaplaceSampler = discrete_laplace
    probabilities: FloatProbabilities = float_probabilities
    draw: IndexDraw = sample_index
    bootstrap: Callable[[int, RandomSource], List[bool]] = bootstrap_draws
    """``bootstrap(n, rng)``: n records' membership of a Poissonised bootstrap sample, each True with
    probability exactly 1 - 1/e, with the draws of :func:`refdp.mechanisms.bootstrap_draws`."""
    keeps_derived: bool = False
    """Whether data derived from a data set's rows (binned columns) is kept with the data set for the next fit."""

    def derived(self, data: Dataset, key: str, make: Callable[[Dataset], _T]) -> _T:
        """``make(data)``: computed on every call, or once per data set when :attr:`keeps_derived`
        (:meth:`refdp.data.Dataset.derived`, ``key`` naming what ``make`` computes)."""
        return data.derived(key, make) if self.keeps_derived else make(data)

    def exponential(
        self,
        utilities: Sequence[Real],
        *,
        epsilon: Number,
        sensitivity: SensitivityLike,
        rng: RandomSource,
        ledger: Ledger,
        label: str,
        partition: Sequence[str] = (),
        claims: Sequence[str] = ("exponential-mechanism",),
        base_weights: Optional[Sequence[Real]] = None,
        exact: bool = False,
        sound: bool = True,
        note: str = "",
    ) -> int:
        """:func:`refdp.mechanisms.exponential_mechanism` with this engine's float arithmetic.

        Why 12 parameters: the keywords of :func:`refdp.mechanisms.exponential_mechanism`
        that an engine passes through unchanged.
        """
        return exponential_mechanism(
            utilities, epsilon=epsilon, sensitivity=sensitivity, rng=rng, ledger=ledger, label=label,
            partition=partition, claims=claims, base_weights=base_weights, exact=exact, sound=sound, note=note,
            probabilities=self.probabilities, draw=self.draw,
        )

    def histogram(
        self,
        counts: Sequence[int],
        *,
        epsilon: Number,
        rng: RandomSource,
        ledger: Ledger,
        label: str,
        partition: Sequence[str] = (),
        noise: str = "discrete-laplace",
        names: Optional[Sequence[str]] = None,
    ) -> Union[List[int], List[float]]:
        """:func:`refdp.mechanisms.noisy_histogram` (cells keyed ``class``) with this engine's sampler."""
        if noise == "laplace":
            return noisy_histogram(
                counts, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition,
                noise="laplace", names=names,
            )
        if noise != "discrete-laplace":
            raise InvalidParameterError(f"noise must be discrete-laplace or laplace, got {noise!r}")
        return noisy_histogram(
            counts, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition, names=names,
            sampler=self.discrete_laplace,
        )

    def cells(
        self,
        counts: Sequence[int],
        *,
        shape: Sequence[Tuple[str, int]],
        epsilon: Number,
        rng: RandomSource,
        ledger: Ledger,
        label: str,
        partition: Sequence[str] = (),
        noise: str = "discrete-laplace",
    ) -> Union[List[int], List[float]]:
        """:func:`refdp.mechanisms.noisy_cells` (one charge for a whole table) with this engine's sampler."""
        if noise not in ("discrete-laplace", "laplace"):
            raise InvalidParameterError(f"noise must be discrete-laplace or laplace, got {noise!r}")
        return noisy_cells(
            counts, shape=shape, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition,
            noise="laplace" if noise == "laplace" else "discrete-laplace", sampler=self.discrete_laplace,
        )

    def count(
        self, value: int, *, epsilon: Number, rng: RandomSource, ledger: Ledger, label: str,
        partition: Sequence[str] = (),
    ) -> int:
        """:func:`refdp.mechanisms.discrete_laplace_mechanism` (sensitivity 1) with this engine's sampler."""
        return discrete_laplace_mechanism(
            value, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition,
            sampler=self.discrete_laplace,
        )


REFERENCE = Engine("reference", ReferenceCounts)
"""The plain engine: :class:`~refdp.engine.counts.ReferenceCounts` and the mechanisms' own samplers."""
