"""Noisy counts with the reference's exact samplers' draws, in plain integer arithmetic.

:func:`refdp.mechanisms.exact.discrete_laplace` (Canonne, Kamath and Steinke
2020, Algorithms 1-2) works on :class:`~fractions.Fraction` objects, whose
construction and comparisons dominate the time of a forest's thousands of
noisy leaf counts.  :func:`discrete_laplace` here runs the same algorithm on
integer numerators and denominators reduced with :func:`math.gcd`, so every
``rng.randrange(d)`` call has the same ``d`` (the denominator in lowest
terms) in the same order and the samples are the reference's, draw for
draw.  The array engine hands it to the mechanisms of
:mod:`refdp.mechanisms.counts`, which validate and charge as always.

:func:`bernoulli` is :func:`refdp.mechanisms.bernoulli`'s draw,
``rng.randrange(denominator) < numerator`` of p in lowest terms, with p
checked once rather than once per draw.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import Callable

from refdp.errors import InvalidParameterError
from refdp.rng import RandomSource

__all__ = ["bernoulli", "discrete_laplace"]


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


def bernoulli(p: Fraction, rng: RandomSource) -> Callable[[], bool]:
    """Bernoulli(p) draws, each the draw :func:`refdp.mechanisms.bernoulli` makes."""
    if not 0 <= p <= 1:
        raise InvalidParameterError(f"a Bernoulli probability must be in [0, 1], got {p}")
    numerator, denominator, randrange = p.numerator, p.denominator, rng.randrange
    return lambda: randrange(denominator) < numerator
