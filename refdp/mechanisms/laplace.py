"""The continuous Laplace distribution, sampled by its inverse CDF.

The papers refdp implements add Laplace(b) noise, b = Delta/epsilon, computed
in floating point.  :func:`laplace_noise` does the same with one
``rng.random()`` draw per sample, by the formula of NumPy's legacy
``laplace`` (so that runs can be compared with the papers' code): for
U = rng.random(), the noise is ``b * log(2U)`` when U < 1/2 and
``-b * log(2 - 2U)`` otherwise.  U = 0 (probability 2**-53) would give
log(0); it is redrawn, as NumPy does.

Floating-point Laplace noise is private only in idealised real arithmetic
(claim ``laplace-mechanism``): the set of floats value + noise can produce
depends on the value (Mironov, CCS 2012).  refdp therefore adds the exact
discrete Laplace (``refdp.mechanisms.exact``) to counts by default.
"""

from __future__ import annotations

import math

from refdp.errors import InvalidParameterError
from refdp.rng import RandomSource

__all__ = ["laplace_noise", "laplace_cdf", "laplace_pdf"]


def _check_scale(scale: float) -> float:
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        raise InvalidParameterError(f"the Laplace scale must be a float, got {scale!r}")
    b = float(scale)
    if not (math.isfinite(b) and b > 0):
        raise InvalidParameterError(f"the Laplace scale must be finite and > 0, got {scale!r}")
    return b


def laplace_noise(scale: float, rng: RandomSource) -> float:
    """One sample of Laplace(0, b) with density exp(-|x|/b) / (2b), b = ``scale``."""
    b = _check_scale(scale)
    while True:
        u = rng.random()
        if u >= 0.5:
            return -b * math.log(2.0 - u - u)
        if u > 0.0:
            return b * math.log(u + u)


def laplace_cdf(x: float, scale: float) -> float:
    """P[X <= x] for X ~ Laplace(0, b): exp(x/b)/2 for x < 0, 1 - exp(-x/b)/2 otherwise."""
    b = _check_scale(scale)
    if math.isnan(x):
        raise InvalidParameterError("x must not be NaN")
    if x < 0:
        return 0.5 * math.exp(x / b)
    return 1.0 - 0.5 * math.exp(-x / b)


def laplace_pdf(x: float, scale: float) -> float:
    """The density exp(-|x|/b) / (2b) of Laplace(0, b)."""
    b = _check_scale(scale)
    if math.isnan(x):
        raise InvalidParameterError("x must not be NaN")
    return math.exp(-abs(x) / b) / (2.0 * b)
