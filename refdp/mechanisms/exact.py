"""Exact samplers of Canonne, Kamath and Steinke (2020), in integer arithmetic.

C. Canonne, G. Kamath, T. Steinke, "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020: Algorithm 1 samples Bernoulli(exp(-gamma)) and
Algorithm 2 the discrete Laplace distribution Lap_Z(t/s).  No floating-point
number is created anywhere on the sampling path; every random draw is one
``rng.randrange(d)`` with ``d`` the denominator of a probability in lowest
terms (:func:`bernoulli`), its m-th power (:func:`bernoulli_positions`) or
the uniform ``U`` of Algorithm 2.  A faster implementation that wants
bit-identical output must make the same calls in the same order.

:func:`bernoulli_positions` draws a sequence of Bernoulli(a/b) trials as
the gaps between successes (claim ``exact-bernoulli-positions``): one
``rng.randrange(b**m)`` covers up to m trials, where one draw per trial
dominated the time of kanon-rdt's row sampling.

The rationals of the algorithms are kept as integer numerators and
denominators reduced with :func:`math.gcd` rather than as
:class:`~fractions.Fraction` objects, whose construction dominated the time
of a forest's thousands of noisy counts; every engine uses these samplers
(one implementation), and each draw is the one the rational definition
makes: ``randrange(q) < p`` for a probability p/q in lowest terms.

The reference distributions (:func:`discrete_laplace_pmf`,
:func:`discrete_laplace_cdf`) are floats: they are for tests and audits, not
for sampling.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from fractions import Fraction
from math import gcd
from typing import Callable, List, Optional, Union

from refdp.errors import InvalidParameterError
from refdp.mechanisms._params import Exact, exact_fraction
from refdp.rng import RandomSource

__all__ = [
    "Exact",
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_positions",
    "discrete_laplace",
    "discrete_laplace_pmf",
    "discrete_laplace_cdf",
    "joins_sample",
    "bootstrap_draws",
]

Randrange = Callable[[int], int]


def _probability(p: Exact) -> Fraction:
    p = exact_fraction(p, "p")
    if not 0 <= p <= 1:
        raise InvalidParameterError(f"a Bernoulli probability must be in [0, 1], got {p}")
    return p


def bernoulli(p: Exact, rng: RandomSource) -> bool:
    """True with probability exactly ``p`` (0 <= p <= 1).

    One draw: ``rng.randrange(p.denominator) < p.numerator`` with ``p`` in
    lowest terms.
    """
    p = _probability(p)
    return rng.randrange(p.denominator) < p.numerator


# A gap sampler's m trades the size of b**m against how often all m trials fail and another draw
# follows; the law is the same for every m.  m is the smallest with (1 - p)**m <= 2**-10, but at
# most max(1, 1024 // bitlength(b)) (b**m then has at most about 1024 bits): larger draws were not
# faster on adult's beta = 1/20.
_CHUNK_BITS = 1024
_CONTINUATION_BITS = 10


def _chunk(numerator: int, denominator: int) -> int:
    # Integer arithmetic only, so that every platform picks the same m and replays the same draws.
    limit = max(1, _CHUNK_BITS // denominator.bit_length())
    fail, m, fail_m, all_m = denominator - numerator, 1, denominator - numerator, denominator
    while m < limit and fail_m << _CONTINUATION_BITS > all_m:
        m, fail_m, all_m = m + 1, fail_m * fail, all_m * denominator
    return m


def bernoulli_positions(p: Exact, n: int, rng: RandomSource, *, chunk: Optional[int] = None) -> List[int]:
    """The ascending positions of the successes among ``n`` independent Bernoulli(``p``) trials, exactly.

    With p = a/b in lowest terms and c = b - a, the gap G before the next
    success (the number of failures) has P[G >= g] = (c/b)^g.  One draw
    V = ``rng.randrange(b**m)`` gives G = max{g <= m : V < c^g b^(m-g)}
    (a bisection over the m thresholds); G = m means m failures and, the
    trials being memoryless, a fresh gap follows.  No draw is made past
    trial ``n``, and none when p is 0 (no success) or 1 (all).
    Claim ``exact-bernoulli-positions``.

    ``chunk`` is m, the trials one draw covers (every m >= 1 gives the same
    law); None picks the smallest m with (c/b)^m <= 2^-10, but at most
    max(1, 1024 // bitlength(b)).
    """
    p = _probability(p)
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidParameterError(f"the number of trials must be an int >= 0, got {n!r}")
    if chunk is not None and (isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1):
        raise InvalidParameterError(f"chunk must be an int >= 1, got {chunk!r}")
    if p == 0:
        return []
    if p == 1:
        return list(range(n))
    numerator, denominator = p.numerator, p.denominator
    m = _chunk(numerator, denominator) if chunk is None else chunk
    span, fail = denominator**m, denominator - numerator
    # thresholds[i] = c^(m-i) b^i, ascending; V < c^g b^(m-g) for g = 0..G, so G = m - bisect_right(thresholds, V).
    thresholds: List[int] = []
    threshold = span
    for _ in range(m):
        threshold = threshold // denominator * fail
        thresholds.append(threshold)
    thresholds.reverse()
    randrange = rng.randrange
    positions: List[int] = []
    position = 0
    while position < n:
        gap = m - bisect_right(thresholds, randrange(span))
        position += gap
        if gap < m:
            if position < n:
                positions.append(position)
            position += 1
    return positions


def _bernoulli_exp_unit(numerator: int, denominator: int, randrange: Randrange) -> bool:
    # CKS Algorithm 1, gamma = numerator/denominator in [0, 1]: K is the first k with a failed
    # Bernoulli(gamma/k); P[K > k] = gamma^k / k!, so P[K odd] = sum_j (-gamma)^j / j! = exp(-gamma).
    # gamma/k in lowest terms is (numerator/g)/(denominator k/g), g their gcd: the draw bernoulli makes.
    k = 1
    while True:
        q = denominator * k
        g = gcd(numerator, q)
        if not randrange(q // g) < numerator // g:
            return k % 2 == 1
        k += 1


def _bernoulli_exp(numerator: int, denominator: int, randrange: Randrange) -> bool:
    # gamma = numerator/denominator >= 0 in lowest terms; see bernoulli_exp.
    if numerator <= denominator:
        return _bernoulli_exp_unit(numerator, denominator, randrange)
    whole = numerator // denominator
    for _ in range(whole):
        if not _bernoulli_exp_unit(1, 1, randrange):
            return False
    rest = numerator - whole * denominator
    g = gcd(rest, denominator)
    return _bernoulli_exp_unit(rest // g, denominator // g, randrange)


def bernoulli_exp(gamma: Exact, rng: RandomSource) -> bool:
    """True with probability exactly exp(-gamma), for rational gamma >= 0.

    CKS Algorithm 1: for gamma in [0, 1], the alternating-series sampler; for
    gamma > 1, floor(gamma) independent Bernoulli(exp(-1)) trials (stopping
    at the first failure) and one Bernoulli(exp(-(gamma - floor(gamma)))),
    because exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))).
    Claim ``cks-bernoulli-exp``.
    """
    gamma = exact_fraction(gamma, "gamma")
    if gamma < 0:
        raise InvalidParameterError(f"gamma must be >= 0 for Bernoulli(exp(-gamma)), got {gamma}")
    return _bernoulli_exp(gamma.numerator, gamma.denominator, rng.randrange)


def joins_sample(rng: RandomSource) -> bool:
    """True with probability exactly 1 - 1/e: ``not bernoulli_exp(1, rng)``, with the same draws.

    CKS Algorithm 1 at gamma = 1 (claim ``cks-bernoulli-exp``): K is the first
    k with a failed Bernoulli(1/k), drawn as ``rng.randrange(k) < 1``, and
    P[K odd] = e^{-1}.  Inlined because the general sampler builds a Fraction
    per trial, and a Poissonised bootstrap (DP-AdaBoost's) runs it once per
    record and round.

    >>> import random
    >>> a, b = random.Random(3), random.Random(3)
    >>> [joins_sample(a) for _ in range(8)] == [not bernoulli_exp(1, b) for _ in range(8)]
    True
    """
    k = 1
    while rng.randrange(k) == 0:
        k += 1
    return k % 2 == 0


def bootstrap_draws(count: int, rng: RandomSource) -> List[bool]:
    """``count`` calls of :func:`joins_sample`, in order: which records join a Poissonised bootstrap sample.

    >>> import random
    >>> bootstrap_draws(5, random.Random(1)) == [joins_sample(r) for r in [random.Random(1)] for _ in range(5)]
    True
    """
    return [joins_sample(rng) for _ in range(count)]


def discrete_laplace(scale: Exact, rng: RandomSource) -> int:
    """One sample of the discrete Laplace distribution with P[X = x] proportional to exp(-|x|/scale).

    CKS Algorithm 2 with scale = t/s in lowest terms: X = U + tV with U
    uniform on {0..t-1} accepted with probability exp(-U/t) and V geometric
    (a run of Bernoulli(exp(-1)) successes), so X is geometric with parameter
    1 - exp(-1/t); Y = floor(X/s) is geometric with parameter 1 - exp(-s/t);
    a fair sign is attached and the negative zero rejected so that 0 is not
    counted twice.  Claim ``cks-discrete-laplace``.
    """
    scale = exact_fraction(scale, "scale")
    if scale <= 0:
        raise InvalidParameterError(f"the discrete Laplace scale must be > 0, got {scale}")
    t, s = scale.numerator, scale.denominator
    randrange = rng.randrange
    while True:
        u = randrange(t)
        g = gcd(u, t)
        if not _bernoulli_exp_unit(u // g, t // g, randrange):  # Bernoulli(exp(-u/t)), u/t < 1
            continue
        v = 0
        while _bernoulli_exp_unit(1, 1, randrange):  # Bernoulli(exp(-1))
            v += 1
        y = (u + t * v) // s
        negative = randrange(2) < 1  # Bernoulli(1/2)
        if negative and y == 0:
            continue
        return -y if negative else y


def _float_scale(scale: Union[int, float, Fraction]) -> float:
    if isinstance(scale, bool) or not isinstance(scale, (int, float, Fraction)):
        raise InvalidParameterError(f"scale must be a number, got {scale!r}")
    b = float(scale)
    if not (math.isfinite(b) and b > 0):
        raise InvalidParameterError(f"scale must be finite and > 0, got {scale!r}")
    return b


def discrete_laplace_pmf(x: int, scale: Union[int, float, Fraction]) -> float:
    """P[X = x] = tanh(1/(2 scale)) exp(-|x|/scale) for the discrete Laplace distribution."""
    if isinstance(x, bool) or not isinstance(x, int):
        raise InvalidParameterError(f"x must be an int, got {x!r}")
    b = _float_scale(scale)
    # (1 - e^{-1/b}) / (1 + e^{-1/b}) = tanh(1/(2b)), without cancellation for large b.
    return math.tanh(0.5 / b) * math.exp(-abs(x) / b)


def discrete_laplace_cdf(x: float, scale: Union[int, float, Fraction]) -> float:
    """P[X <= x] for the discrete Laplace distribution (any real x, including +-inf).

    With q = exp(-1/scale) and k = floor(x): q^{-k} / (1 + q) for k < 0 and
    1 - q^{k+1} / (1 + q) for k >= 0.
    """
    b = _float_scale(scale)
    if math.isnan(x):
        raise InvalidParameterError("x must not be NaN")
    if math.isinf(x):
        return 1.0 if x > 0 else 0.0
    k = math.floor(x)
    one_plus_q = 1.0 + math.exp(-1.0 / b)
    if k < 0:
        return math.exp(k / b) / one_plus_q
    return 1.0 - math.exp(-(k + 1) / b) / one_plus_q
