"""Log-space laws of released numbers: clamped discrete Laplace and binned Laplace.

The planted cases release noisy numbers and audit them after a public
post-processing that makes the outcome set finite: a discrete-Laplace count
is *clamped* to a public range ``[lo, hi]``, a continuous Laplace value is
*binned* at public edges.  Post-processing never raises a log-ratio, and both
keep the largest one when the range covers both neighbours' centres (the
log-ratio of ``DLap(a, s)`` and ``DLap(b, s)`` is constant beyond the
centres, see :func:`refdp.audit.discrete_laplace_distribution`), so these
finite laws decide the question exactly -- and, unlike a window, they keep
the whole mass, so probabilities of events computed from them are exact too.

Numerics: floats in log space, each value from closed forms with one
``log1p`` or ``log`` and exact rational exponents, as in
:mod:`refdp.audit.exact`; the tails are never formed as ``1 - cdf``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Hashable, List, Sequence, Tuple

from refdp.audit.reductions import bin_index
from refdp.audit.exact import Distribution, discrete_laplace_distribution
from refdp.errors import InvalidParameterError

__all__ = [
    "log_discrete_laplace_at_most",
    "clamp",
    "clamped_discrete_laplace",
    "log_laplace_interval",
    "bin_index",
    "binned_laplace",
]


def _log_one_plus_q(scale: Fraction) -> float:
    """``ln(1 + q)`` with ``q = exp(-1/s)``."""
    return math.log1p(math.exp(-float(1 / scale)))


def log_discrete_laplace_at_most(k: int, scale: Fraction) -> float:
    """``ln P[Z <= k]`` for ``Z ~ DLap(0, s)``: ``q^{-k}/(1+q)`` for ``k < 0``, else ``1 - q^{k+1}/(1+q)``."""
    if k < 0:
        return -float(Fraction(-k) / scale) - _log_one_plus_q(scale)
    return math.log1p(-math.exp(-float(Fraction(k + 1) / scale) - _log_one_plus_q(scale)))


def clamp(value: int, lo: int, hi: int) -> int:
    """``value`` moved into ``[lo, hi]``."""
    return lo if value < lo else hi if value > hi else value


def clamped_discrete_laplace(centre: int, scale: Fraction, lo: int, hi: int) -> Distribution:
    """The law of ``clamp(centre + Z, lo, hi)`` for ``Z ~ DLap(0, scale)``: outcomes ``lo..hi``.

    The interior is :func:`refdp.audit.discrete_laplace_distribution` on
    ``range(lo + 1, hi)``; the ends carry the tails ``P[centre + Z <= lo]``
    and ``P[centre + Z >= hi]``.
    """
    if lo > hi:
        raise InvalidParameterError(f"the clamp range [{lo}, {hi}] is empty; give lo <= hi")
    if lo == hi:
        return Distribution({lo: 0.0})
    items: List[Tuple[Hashable, float]] = [(lo, log_discrete_laplace_at_most(lo - centre, scale))]
    if hi - lo > 1:
        items.extend(discrete_laplace_distribution(centre, scale, range(lo + 1, hi)).items())
    # P[centre + Z >= hi] = P[Z <= centre - hi] by symmetry.
    items.append((hi, log_discrete_laplace_at_most(centre - hi, scale)))
    return Distribution(items)


def _log_tail(distance: float, b: float) -> float:
    """``ln(exp(-distance/b) / 2)``: the Laplace mass beyond ``distance >= 0`` on one side."""
    return -distance / b - math.log(2.0)


def log_laplace_interval(lo: float, hi: float, centre: float, b: float) -> float:
    """``ln P[lo < X <= hi]`` for ``X ~ Laplace(centre, b)``; ``lo`` may be ``-inf``, ``hi`` ``+inf``.

    An interval on one side of the centre is a difference of two tails,
    ``tail(near) (1 - exp(-(hi - lo)/b))``, taken with ``log1p``; one
    containing the centre is one minus both outer tails.
    """
    if not lo < hi:
        raise InvalidParameterError(f"the interval ({lo}, {hi}] is empty")
    if hi <= centre:
        near = _log_tail(centre - hi, b)
        return near if lo == -math.inf else near + math.log1p(-math.exp(-(hi - lo) / b))
    if lo >= centre:
        near = _log_tail(lo - centre, b)
        return near if hi == math.inf else near + math.log1p(-math.exp(-(hi - lo) / b))
    outer = 0.0
    if lo != -math.inf:
        outer += math.exp(_log_tail(centre - lo, b))
    if hi != math.inf:
        outer += math.exp(_log_tail(hi - centre, b))
    return math.log1p(-outer)


def binned_laplace(centre: float, b: float, edges: Sequence[float]) -> Distribution:
    """The law of :func:`bin_index` of ``centre + Laplace(b)`` (idealised real arithmetic)."""
    bounds = [-math.inf] + [float(e) for e in edges] + [math.inf]
    if any(not x < y for x, y in zip(bounds, bounds[1:])):
        raise InvalidParameterError(f"bin edges must be finite and increasing, got {list(edges)!r}")
    return Distribution(
        (i, log_laplace_interval(bounds[i], bounds[i + 1], centre, b)) for i in range(len(bounds) - 1)
    )
