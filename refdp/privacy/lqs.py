"""The Li-Qardaji-Su delta of sampling followed by k-anonymisation, certified.

N. Li, W. Qardaji, D. Su, "On sampling, anonymization, and differential
privacy", ASIACCS 2012, Theorem 5 (Theorem 1 in Waseda, Nojima & Wang 2024):
keeping each record with probability beta and then releasing the counts of a
data-independent partition with every count below k set to 0 is
(epsilon, delta)-DP under add-remove for every epsilon >= -ln(1 - beta), with

    delta = d(k, beta, epsilon) = max over n >= n_m of P[Binomial(n, beta) > gamma n],
    gamma = (e^epsilon - 1 + beta) / e^epsilon,     n_m = ceil(k / gamma - 1)

(claim ``lqs-sampling-suppression``).  :func:`lqs_delta` computes that
maximum as a certified upper bound (claim ``lqs-delta-certified``):

* **Exact floors.**  gamma is irrational (e^epsilon is, for rational
  epsilon > 0), so gamma n is never an integer.  gamma is kept as a rational
  enclosure [gamma_lo, gamma_hi] from :func:`exp_bounds` (integer arithmetic,
  each bound rounded outwards); floor(gamma n), ceil(m / gamma) and the
  precondition are read off the enclosure when both ends agree and the
  enclosure is refined (precision doubled) when they do not, which ends
  because gamma n is not an integer.  Every floor and ceiling is therefore
  exact, not just conservative.
* **Only the teeth.**  For a fixed threshold t = floor(gamma n) the tail
  P[Bin(n, beta) > t] grows with n, so on each run of n sharing one
  threshold (a tooth of the sawtooth) the maximum is at the run's last n,
  ceil((t + 1) / gamma) - 1.  The scan visits those n only.
* **Certified stop.**  For every n, P[Bin(n, beta) > gamma n] <=
  exp(-n KL(gamma || beta)) (Chernoff; gamma > beta), which decreases in n.
  The scan stops after the first tooth whose end n_t gives
  exp(-(n_t + 1) KL) <= the running maximum: no larger n can exceed it.
  KL is evaluated at gamma_lo and at beta rounded up (it grows with gamma and
  falls with beta there) and then lowered by a relative 1e-12 margin.
* **Tails rounded up.**  Each tail is :func:`refdp.stats.binomial_sf` at
  beta rounded up to a float (the tail grows with the success probability),
  whose relative error is below 1e-14 max(1, |ln P|) (see refdp.stats) --
  below 1e-11 for every tail above 1e-300.  The maximum is multiplied by
  1 + 1e-9 and rounded to the next float up.  A delta below 1e-300 is
  reported as 1e-300.

Precondition epsilon >= -ln(1 - beta) and inputs are checked exactly:
k an int >= 1, beta a finite number in (0, 1), 0 < epsilon <= 1000
(beyond that delta is beta^k to far more digits than a float holds, and the
enclosure would need thousands of bits).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from fractions import Fraction
from typing import Optional, Tuple

from refdp.errors import InvalidParameterError, PrivacyError
from refdp.privacy.relations import Number, as_epsilon, as_fraction
from refdp.stats import binomial_sf

__all__ = [
    "LqsResult",
    "lqs_delta",
    "lqs_min_epsilon",
    "smallest_k",
    "largest_beta",
    "exp_bounds",
    "float_up",
]

MAX_EPSILON = Fraction(1000)
"""The largest epsilon :func:`lqs_delta` accepts."""

DELTA_FLOOR = 1e-300
"""Deltas below this are reported as this (an upper bound)."""

_TAIL_MARGIN = 1.0 + 1e-9  # covers binomial_sf's relative error with a wide margin
_KL_MARGIN = 1e-12  # relative; covers the rounding of a few float logs and products
_START_BITS = 96
_MAX_BITS = 1 << 22
_MAX_TEETH = 10_000_000


def float_up(value: Fraction) -> float:
    """The smallest float >= ``value`` (for finite, non-huge values)."""
    f = float(value)
    return f if Fraction(f) >= value else math.nextafter(f, math.inf)


def _float_down(value: Fraction) -> float:
    f = float(value)
    return f if Fraction(f) <= value else math.nextafter(f, -math.inf)


def exp_bounds(x: Fraction, bits: int) -> Tuple[Fraction, Fraction]:
    """Rationals ``lo <= e^x <= hi`` for rational ``x >= 0``, relative width about 2**-bits.

    Integer fixed point with 2**W as one: y = x / 2**s <= 1/2, the Taylor
    series of e^y summed with every term rounded down (lower end, the
    omitted tail dropped) or up (upper end, plus a bound on the omitted
    tail: after a term T with index j >= 2 the rest is at most T, since each
    further ratio y / (i + 1) is at most 1/6), then squared s times with
    the same directed rounding.  Every step is monotone on positive numbers,
    so the ends stay on their sides.
    """
    if x < 0:
        raise InvalidParameterError(f"exp_bounds needs x >= 0, got {x}")
    s = 0
    while x > Fraction(1, 2) * (1 << s):
        s += 1
    width = bits + 2 * s + 16
    one = 1 << width
    y_lo = (x.numerator << width) // (x.denominator << s)
    y_hi = y_lo + 1
    lo = term = one
    j = 1
    while True:
        term = term * y_lo // (j * one)
        if term == 0:
            break
        lo += term
        j += 1
    hi = term = one
    j = 1
    while True:
        term = -(-term * y_hi // (j * one))
        hi += term
        if term <= 1 and j >= 2:
            hi += term
            break
        j += 1
    for _ in range(s):
        lo = lo * lo >> width
        hi = -((-hi * hi) >> width)
    return Fraction(lo, one), Fraction(hi, one)


class _Exp:
    """e^epsilon as a rational enclosure [lo, hi], refined on demand."""

    def __init__(self, epsilon: Fraction) -> None:
        self.epsilon = epsilon
        self.bits = _START_BITS
        self.lo, self.hi = exp_bounds(epsilon, self.bits)

    def refine(self) -> None:
        self.bits *= 2
        if self.bits > _MAX_BITS:
            raise PrivacyError(
                f"could not decide a floor or comparison involving e^{self.epsilon} with "
                f"{_MAX_BITS} bits; please report this input"
            )
        self.lo, self.hi = exp_bounds(self.epsilon, self.bits)


class _Gamma:
    """gamma = 1 - (1 - beta) e^-epsilon as a rational enclosure [lo, hi], refined on demand."""

    def __init__(self, beta: Fraction, epsilon: Fraction) -> None:
        self.beta = beta
        self.exp = _Exp(epsilon)
        self.lo = self.hi = Fraction(0)
        self._set()

    def _set(self) -> None:
        self.lo = 1 - (1 - self.beta) / self.exp.lo
        self.hi = 1 - (1 - self.beta) / self.exp.hi

    def refine(self) -> None:
        self.exp.refine()
        self._set()

    def floor_times(self, n: int) -> int:
        """floor(gamma n), exactly."""
        while True:
            a, b = math.floor(self.lo * n), math.floor(self.hi * n)
            if a == b:
                return a
            self.refine()

    def ceil_over(self, m: int) -> int:
        """ceil(m / gamma), exactly."""
        while True:
            a, b = math.ceil(m / self.hi), math.ceil(m / self.lo)
            if a == b:
                return a
            self.refine()

    def precondition_holds(self) -> bool:
        """Whether epsilon >= -ln(1 - beta), i.e. (1 - beta) e^epsilon >= 1 (never equal)."""
        while True:
            if (1 - self.beta) * self.exp.lo >= 1:
                return True
            if (1 - self.beta) * self.exp.hi < 1:
                return False
            self.refine()


@dataclass(frozen=True)
class LqsResult:
    """The certified Li-Qardaji-Su delta and how it was found.

    ``delta`` is an upper bound on d(k, beta, epsilon) (rounded up; see the
    module notes); ``n_at_max`` is the n where the largest tail was found;
    ``n_m`` = ceil(k/gamma - 1) the first n of the range; ``gamma`` a float
    within 1e-16 of gamma (for display; the floors used the exact value);
    ``stop_n`` the first n not evaluated, from which on the Chernoff bound
    ``tail_bound`` = exp(-stop_n KL(gamma || beta)) covers every tail;
    ``evaluations`` the number of binomial tails computed; ``min_epsilon``
    -ln(1 - beta), the smallest epsilon the theorem allows.
    """

    k: int
    beta: Fraction
    epsilon: Fraction
    delta: float
    n_at_max: int
    n_m: int
    gamma: float
    stop_n: int
    tail_bound: float
    evaluations: int
    min_epsilon: float

    def for_trees(self, n_trees: int) -> Tuple[Fraction, float]:
        """(N epsilon, N delta) for N independent releases (basic composition), delta rounded up."""
        n = _check_int(n_trees, "the number of trees", 1)
        return n * self.epsilon, float_up(n * Fraction(self.delta))


def _check_int(value: object, name: str, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"{name} must be an int, got {value!r}")
    if value < least:
        raise InvalidParameterError(f"{name} must be >= {least}, got {value}")
    return value


def _check_beta(beta: Number) -> Fraction:
    b = as_fraction(beta, "beta")
    if not 0 < b < 1:
        raise InvalidParameterError(
            f"beta (the sampling probability) must be strictly between 0 and 1, got {beta!r}"
        )
    return b


def _check_epsilon(epsilon: Number) -> Fraction:
    eps = as_epsilon(epsilon)
    if eps > MAX_EPSILON:
        raise InvalidParameterError(
            f"the Li-Qardaji-Su delta is computed for epsilon at most {MAX_EPSILON}, got {float(eps):.6g}; "
            "for larger epsilon delta equals beta^k to within float precision"
        )
    return eps


def lqs_min_epsilon(beta: Number) -> float:
    """-ln(1 - beta): the smallest epsilon the Li-Qardaji-Su theorem allows (rounded up)."""
    b = _check_beta(beta)
    return math.nextafter(-math.log1p(-float(b)), math.inf)


def _refuse_precondition(k: int, beta: Fraction, epsilon: Fraction) -> InvalidParameterError:
    b = float(beta)
    return InvalidParameterError(
        f"the Li-Qardaji-Su theorem needs epsilon >= -ln(1 - beta) = {-math.log1p(-b):.6g} for "
        f"beta={beta}; got epsilon={epsilon} (~{float(epsilon):.6g}). Raise epsilon or lower beta "
        f"below 1 - e^-epsilon = {-math.expm1(-float(epsilon)):.6g} (k={k})"
    )


def _kl_lower(gamma: float, beta: float) -> float:
    """A lower bound on KL(gamma || beta) for 0 < beta < gamma < 1, from floats."""
    first = gamma * math.log(gamma / beta)
    second = (1.0 - gamma) * math.log((1.0 - gamma) / (1.0 - beta))
    return first + second - _KL_MARGIN * (abs(first) + abs(second))


def lqs_delta(k: int, beta: Number, epsilon: Number) -> LqsResult:
    """The certified Li-Qardaji-Su delta d(k, beta, epsilon) (see the module notes).

    ``k`` is the suppression threshold (counts below k become 0), ``beta``
    the sampling probability, ``epsilon`` the epsilon of the guarantee.  A
    float beta or epsilon is read as the decimal it prints as (0.1 is 1/10).
    Raises InvalidParameterError for k < 1, beta outside (0, 1), epsilon not
    in (0, 1000], non-finite values, and epsilon < -ln(1 - beta).

    >>> lqs_delta(5, 0.1, 0.9).n_m
    7
    """
    k = _check_int(k, "k (the suppression threshold)", 1)
    return _certified(k, _check_beta(beta), _check_epsilon(epsilon))


@lru_cache(maxsize=256)
def _certified(k: int, b: Fraction, eps: Fraction) -> LqsResult:
    """:func:`lqs_delta` of checked, exact arguments; memoised (a plan and its verification ask the same)."""
    gamma = _Gamma(b, eps)
    if not gamma.precondition_holds():
        raise _refuse_precondition(k, b, eps)
    p_up = float_up(b)
    if p_up >= 1.0:
        raise InvalidParameterError(f"beta={float(b)!r} is too close to 1 to compute with floats")
    kl = _kl_lower(_float_down(gamma.lo), p_up)
    if not kl > 0.0:
        raise PrivacyError(
            f"KL(gamma || beta) is too small to certify a maximum (beta={b}, epsilon={eps}); "
            "please report this input"
        )
    n_m = gamma.ceil_over(k) - 1
    t = gamma.floor_times(n_m)
    best, n_best = -1.0, n_m
    evaluations = 0
    while True:
        n_end = gamma.ceil_over(t + 1) - 1  # the last n with floor(gamma n) == t
        value = binomial_sf(t, n_end, p_up)
        evaluations += 1
        if value > best:
            best, n_best = value, n_end
        log_bound = -(n_end + 1) * kl
        bound = math.exp(log_bound) * _TAIL_MARGIN if log_bound > -745.0 else 0.0
        if bound <= best or bound <= DELTA_FLOOR:
            break
        if evaluations >= _MAX_TEETH:
            raise PrivacyError(
                f"no certified maximum after {_MAX_TEETH} tails (k={k}, beta={b}, epsilon={eps}); "
                "the tails decay too slowly for this input"
            )
        t += 1
    delta = max(DELTA_FLOOR, math.nextafter(best * _TAIL_MARGIN, math.inf), bound)
    return LqsResult(
        k=k,
        beta=b,
        epsilon=eps,
        delta=delta,
        n_at_max=n_best,
        n_m=n_m,
        gamma=float(gamma.lo),
        stop_n=n_end + 1,
        tail_bound=bound,
        evaluations=evaluations,
        min_epsilon=-math.log1p(-float(b)),
    )


def _check_target(target_delta: Number) -> Fraction:
    target = as_fraction(target_delta, "target_delta")
    if not 0 < target < 1:
        raise InvalidParameterError(f"target_delta must be strictly between 0 and 1, got {target_delta!r}")
    return target


def smallest_k(beta: Number, epsilon: Number, target_delta: Number) -> int:
    """The smallest k >= 1 with lqs_delta(k, beta, epsilon).delta <= target_delta.

    d(k, beta, epsilon) does not increase with k (n_m grows with k, so the
    maximum runs over a smaller range), which makes doubling then bisection
    exact.  The answer is checked with the certified (rounded-up) delta, so
    it may exceed the true smallest k when the true delta is within a
    relative 1e-9 of the target.
    """
    b = _check_beta(beta)
    eps = _check_epsilon(epsilon)
    target = _check_target(target_delta)

    def ok(k: int) -> bool:
        return Fraction(lqs_delta(k, b, eps).delta) <= target

    hi = 1
    while not ok(hi):
        if hi > 1 << 40:
            raise InvalidParameterError(f"no k below 2**40 reaches delta <= {target_delta!r}")
        hi *= 2
    lo = hi // 2  # ok(lo) is false, or lo == 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def largest_beta(
    k: int, epsilon: Number, target_delta: Number, *, denominator: int = 10**6
) -> Fraction:
    """A largest beta = m/denominator with lqs_delta(k, beta, epsilon).delta <= target_delta.

    beta ranges over (0, 1 - e^-epsilon] (the theorem's precondition).
    d(k, beta, epsilon) mostly grows with beta but is *not* monotone: the
    floor in gamma n and the jumps of n_m make it drop by a few per cent at
    some beta.  So the search scans 64 evenly spaced grid points from the top
    down, takes the highest that meets the target, and bisects between it
    and the failing point above it.  The beta returned always meets the
    target (its certified delta is computed) and the next grid point up
    fails; a larger beta further up may still meet it, which this function
    does not promise to find.
    """
    k = _check_int(k, "k (the suppression threshold)", 1)
    eps = _check_epsilon(epsilon)
    target = _check_target(target_delta)
    den = _check_int(denominator, "denominator", 2)
    # The largest m with m/den <= 1 - e^-eps (never equal: e^-eps is irrational).
    exp = _Exp(eps)
    top: Optional[int] = None
    while top is None:
        lo_m = math.floor(den * (1 - 1 / exp.lo))
        hi_m = math.floor(den * (1 - 1 / exp.hi))
        if lo_m == hi_m:
            top = lo_m
        else:
            exp.refine()
    top = min(top, den - 1)

    def ok(m: int) -> bool:
        return Fraction(lqs_delta(k, Fraction(m, den), eps).delta) <= target

    if top < 1:
        raise InvalidParameterError(
            f"no beta >= 1/{den} satisfies epsilon >= -ln(1 - beta) at epsilon={eps}; "
            "use a larger denominator"
        )
    if ok(top):
        return Fraction(top, den)
    hi, lo = top, 0  # hi fails; lo == 0 means no passing point found yet
    for step in range(63, 0, -1):
        m = top * step // 64
        if 1 <= m < hi:
            if ok(m):
                lo = m
                break
            hi = m
    if lo == 0:
        if hi == 1 or not ok(1):
            raise InvalidParameterError(
                f"no beta >= 1/{den} reaches delta <= {target_delta!r} at k={k}, epsilon={eps}; "
                "raise k or epsilon, or use a larger denominator"
            )
        lo = 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return Fraction(lo, den)
