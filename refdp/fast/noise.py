"""Noisy counts with the reference's exact samplers' draws, in plain integer arithmetic.

:func:`refdp.mechanisms.exact.discrete_laplace` (Canonne, Kamath and Steinke
2020, Algorithms 1-2) works on :class:`~fractions.Fraction` objects, whose
construction and comparisons dominate the time of a forest's thousands of
noisy leaf counts.  :func:`discrete_laplace` here runs the same algorithm on
integer numerators and denominators reduced with :func:`math.gcd`, so every
``rng.randrange(d)`` call has the same ``d`` (the denominator in lowest
terms) in the same order and the samples are the reference's, draw for
draw.  :func:`noisy_histogram` records the reference's charges, one per
cell, then draws the same noise.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Callable, List, Optional, Sequence, Union

from refdp.mechanisms import discrete_laplace_mechanism
from refdp.mechanisms import noisy_histogram as reference_histogram
from refdp.privacy import Ledger, Number, as_epsilon, cell, check_partition
from refdp.rng import RandomSource

__all__ = ["discrete_laplace", "noisy_count", "noisy_histogram"]


def _bernoulli_exp_unit(numerator: int, denominator: int, randrange: Callable[[int], int]) -> bool:
    """Bernoulli(exp(-gamma)) for gamma = numerator/denominator in [0, 1]: CKS Algorithm 1.

    K is the first k whose Bernoulli(gamma/k) fails; gamma/k in lowest terms
    is p/q below, and the reference's draw is ``randrange(q) < p``.
    """
    k = 1
    while True:
        q = denominator * k
        g = gcd(numerator, q)
        if not randrange(q // g) < numerator // g:
            return k % 2 == 1
        k += 1


def discrete_laplace(scale: Fraction, rng: RandomSource) -> int:
    """One sample of the discrete Laplace with ``scale`` = t/s > 0: the reference's, draw for draw."""
    t, s = scale.numerator, scale.denominator
    randrange = rng.randrange
    while True:
        u = randrange(t)
        g = gcd(u, t)
        if not _bernoulli_exp_unit(u // g, t // g, randrange):
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, randrange):
            v += 1
        y = (u + t * v) // s
        negative = randrange(2) < 1
        if negative and y == 0:
            continue
        return -y if negative else y


def noisy_count(
    value: int, *, epsilon: Number, rng: RandomSource, ledger: Ledger, label: str, partition: Sequence[str] = ()
) -> int:
    """:func:`refdp.mechanisms.discrete_laplace_mechanism` with sensitivity 1: same charge, same draws.

    Anything but a plain int count >= 0 goes to the reference function (which refuses it).
    """
    if type(value) is not int or value < 0:
        return discrete_laplace_mechanism(value, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition)
    eps = as_epsilon(epsilon)
    path = check_partition(partition)
    ledger.charge(
        label=label,
        mechanism="discrete-laplace",
        epsilon=eps,
        sensitivity=Fraction(1),
        claims=("discrete-laplace-mechanism",),
        partition=path,
    )
    return value + discrete_laplace(1 / eps, rng)


def noisy_histogram(
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
    """:func:`refdp.mechanisms.noisy_histogram` (key ``class``), discrete Laplace drawn here.

    Anything but plain int counts, distinct names and discrete Laplace noise
    goes to the reference function.
    """
    values = list(counts)
    cell_names = [str(j) for j in range(len(values))] if names is None else [str(n) for n in names]
    if (
        noise != "discrete-laplace"
        or not values
        or set(map(type, values)) != {int}
        or min(values) < 0
        or len(cell_names) != len(values)
        or len(set(cell_names)) != len(cell_names)
    ):
        return reference_histogram(  # type: ignore[call-overload, no-any-return]
            counts, epsilon=epsilon, rng=rng, ledger=ledger, label=label, partition=partition,
            noise=noise, names=names,
        )
    eps = as_epsilon(epsilon)
    path = check_partition(partition)
    for name in cell_names:
        ledger.charge(
            label=label,
            mechanism="discrete-laplace",
            epsilon=eps,
            sensitivity=Fraction(1),
            claims=("discrete-laplace-mechanism", "parallel-composition"),
            partition=path + (cell("class", name),),
        )
    scale = 1 / eps
    return [c + discrete_laplace(scale, rng) for c in values]
