"""Exact statistics for checking samplers and audits: binomial tails,
Clopper-Pearson intervals and the Dvoretzky-Kiefer-Wolfowitz bound.

Everything here is standard library only and deterministic.

Binomial tails are summed in floating point from one *anchor* term, the
largest term of the tail, whose logarithm is computed by Loader's
saddle-point formula (C. Loader, "Fast and accurate computation of binomial
probabilities", 2000; the method of R's ``dbinom``).  Loader's formula keeps
full relative precision for n up to 1e7 and beyond, where the naive
``lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1)`` loses about seven digits to
cancellation (lgamma(1e7) is about 1.5e8).  The other terms follow from the
exact ratio of consecutive terms, and the sum stops once the rest of the tail
is provably below 2**-60 of it (the ratios shrink away from the mode, so the
rest is bounded by a geometric series).  A tail costs O(sqrt(n p (1-p)))
operations; against exact rational sums (n up to 1e6) the relative error is
below 1e-13 * max(1, |ln P|), the factor because the log of a tiny
probability is itself rounded.  A tail that is the complement of one holding the mode is computed
as one minus that tail, which loses nothing because the result is then at
least about 1/2.

Clopper-Pearson limits invert these exact tails by bisection on the floats
themselves (non-negative IEEE-754 doubles are ordered like their bit
patterns), so the bracket ends as two adjacent floats (at most 64 steps);
the end kept is the conservative one.
"""

from __future__ import annotations

import math
import struct
from typing import Callable, Sequence, Tuple

from refdp.errors import InvalidParameterError

__all__ = [
    "binomial_pmf",
    "binomial_cdf",
    "binomial_sf",
    "binomial_lower_quantile",
    "binomial_upper_quantile",
    "clopper_pearson",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
    "dkw_bound",
    "dkw_sample_size",
    "dkw_power_sample_size",
    "ks_statistic",
]

_LN_2PI = math.log(2.0 * math.pi)
# Stop summing a tail when the bound on its remainder is below this fraction
# of the partial sum: far below double precision, so the sum is as good as
# the float terms it adds.
_TAIL_CUTOFF = 2.0 ** -60


# --- validation -----------------------------------------------------------


def _check_int(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"{name} must be an int, got {value!r}")
    return value


def _check_n(n: int) -> int:
    if _check_int(n, "n") < 0:
        raise InvalidParameterError(f"n (the number of trials) must be >= 0, got {n}")
    return n


def _check_p(p: float) -> float:
    if isinstance(p, bool) or not isinstance(p, (int, float)):
        raise InvalidParameterError(f"p must be a probability (a float in [0, 1]), got {p!r}")
    value = float(p)
    if not 0.0 <= value <= 1.0:
        raise InvalidParameterError(f"p must be in [0, 1], got {p!r}")
    return value


def _check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)):
        raise InvalidParameterError(f"alpha must be a float in (0, 1), got {alpha!r}")
    value = float(alpha)
    if not 0.0 < value < 1.0:
        raise InvalidParameterError(
            f"alpha (the error probability) must be in (0, 1), for example 1e-6; got {alpha!r}"
        )
    return value


def _check_k_of_n(k: int, n: int) -> Tuple[int, int]:
    _check_n(n)
    if not 0 <= _check_int(k, "k") <= n:
        raise InvalidParameterError(f"k (the number of successes) must be in [0, n={n}], got {k}")
    return k, n


# --- binomial terms (Loader 2000) -----------------------------------------


def _stirlerr(n: int) -> float:
    """log(n!) - log(sqrt(2 pi n) (n/e)^n), the error of Stirling's formula."""
    if n <= 15:
        # Small n: direct evaluation loses nothing that matters (all terms < 30).
        return math.lgamma(n + 1.0) - (n + 0.5) * math.log(n) + n - 0.5 * _LN_2PI
    s0, s1, s2, s3, s4 = 1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188
    nn = float(n) * n
    if n > 500:
        return (s0 - s1 / nn) / n
    if n > 80:
        return (s0 - (s1 - s2 / nn) / nn) / n
    if n > 35:
        return (s0 - (s1 - (s2 - s3 / nn) / nn) / nn) / n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _bd0(x: float, mean: float) -> float:
    """x log(x/mean) + mean - x, without cancellation when x is near mean."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        total = (x - mean) * v
        term = 2.0 * x * v
        v *= v
        j = 1
        while True:
            term *= v
            updated = total + term / (2 * j + 1)
            if updated == total:
                return updated
            total = updated
            j += 1
    return x * math.log(x / mean) + mean - x


def _log_pmf(k: int, n: int, p: float) -> float:
    """log P[Binomial(n, p) = k] for 0 < p < 1 and 0 <= k <= n."""
    if k == 0:
        return n * math.log1p(-p)
    if k == n:
        return n * math.log(p)
    q = 1.0 - p
    lc = _stirlerr(n) - _stirlerr(k) - _stirlerr(n - k) - _bd0(k, n * p) - _bd0(n - k, n * q)
    lf = _LN_2PI + math.log(k) + math.log1p(-k / n)
    return lc - 0.5 * lf


def _mode(n: int, p: float) -> int:
    return min(n, int(math.floor((n + 1) * p)))


def _lower_tail(k: int, n: int, p: float) -> float:
    """P[X <= k] for 0 <= k < mode, summed from k downwards (terms shrink)."""
    q = 1.0 - p
    total = 1.0
    term = 1.0
    i = k
    while i > 0:
        ratio = i * q / ((n - i + 1) * p)  # term(i-1) / term(i), shrinking as i falls
        term *= ratio
        total += term
        if ratio < 1.0 and term * ratio / (1.0 - ratio) < total * _TAIL_CUTOFF:
            break
        i -= 1
    return math.exp(_log_pmf(k, n, p) + math.log(total))


def _upper_tail(j: int, n: int, p: float) -> float:
    """P[X >= j] for mode < j <= n, summed from j upwards (terms shrink)."""
    q = 1.0 - p
    total = 1.0
    term = 1.0
    i = j
    while i < n:
        ratio = (n - i) * p / ((i + 1) * q)  # term(i+1) / term(i), shrinking as i grows
        term *= ratio
        total += term
        if ratio < 1.0 and term * ratio / (1.0 - ratio) < total * _TAIL_CUTOFF:
            break
        i += 1
    return math.exp(_log_pmf(j, n, p) + math.log(total))


def binomial_pmf(k: int, n: int, p: float) -> float:
    """P[X = k] for X ~ Binomial(n, p) (Loader's formula; 0 outside [0, n])."""
    _check_n(n)
    _check_int(k, "k")
    p = _check_p(p)
    if not 0 <= k <= n:
        return 0.0
    if p == 0.0:
        return 1.0 if k == 0 else 0.0
    if p == 1.0:
        return 1.0 if k == n else 0.0
    return math.exp(_log_pmf(k, n, p))


def binomial_cdf(k: int, n: int, p: float) -> float:
    """P[X <= k] for X ~ Binomial(n, p), accurate in relative terms in the lower tail.

    ``k`` may be any int (the result is 0 below 0 and 1 from n on).

    >>> binomial_cdf(0, 10, 0.5) == 0.5 ** 10
    True
    """
    _check_n(n)
    _check_int(k, "k")
    p = _check_p(p)
    if k < 0:
        return 0.0
    if k >= n:
        return 1.0
    if p == 0.0:
        return 1.0
    if p == 1.0:
        return 0.0
    if k < _mode(n, p):
        return _lower_tail(k, n, p)
    return 1.0 - _upper_tail(k + 1, n, p)


def binomial_sf(k: int, n: int, p: float) -> float:
    """P[X > k] for X ~ Binomial(n, p) (the survival function), accurate in the upper tail.

    ``k`` may be any int (the result is 1 below 0 and 0 from n on).

    >>> binomial_sf(9, 10, 0.5) == 0.5 ** 10
    True
    """
    _check_n(n)
    _check_int(k, "k")
    p = _check_p(p)
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    if p == 0.0:
        return 0.0
    if p == 1.0:
        return 1.0
    if k >= _mode(n, p):
        return _upper_tail(k + 1, n, p)
    return 1.0 - _lower_tail(k, n, p)


# --- Clopper-Pearson -------------------------------------------------------


# Binomial tails carry a relative error of about 1e-12; asking the quantiles
# for a slightly smaller tail keeps them on the safe side.
_TAIL_MARGIN = 1.0 - 1e-9


def binomial_lower_quantile(n: int, p: float, beta: float) -> int:
    """The largest ``k`` with ``P[K >= k] >= 1 - beta`` for ``K ~ Binomial(n, p)``."""
    lo, hi = 0, n  # P[K >= 0] = 1; find the last k whose lower tail P[K <= k-1] <= beta
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if binomial_cdf(mid - 1, n, p) <= beta * _TAIL_MARGIN:
            lo = mid
        else:
            hi = mid - 1
    return lo


def binomial_upper_quantile(n: int, p: float, beta: float) -> int:
    """The smallest ``k`` with ``P[K <= k] >= 1 - beta`` for ``K ~ Binomial(n, p)``."""
    lo, hi = 0, n  # P[K > n] = 0; find the first k whose upper tail P[K > k] <= beta
    while lo < hi:
        mid = (lo + hi) // 2
        if binomial_sf(mid, n, p) <= beta * _TAIL_MARGIN:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _bits(x: float) -> int:
    return int(struct.unpack("<q", struct.pack("<d", x))[0])


def _from_bits(b: int) -> float:
    return float(struct.unpack("<d", struct.pack("<q", b))[0])


_ONE_BITS = _bits(1.0)


def _last_true(predicate: Callable[[float], bool]) -> Tuple[float, float]:
    """Adjacent floats (a, b) in [0, 1] with predicate(a) true and predicate(b) false.

    ``predicate`` must be true at 0, false at 1 and monotone in between.
    """
    lo, hi = 0, _ONE_BITS
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if predicate(_from_bits(mid)):
            lo = mid
        else:
            hi = mid
    return _from_bits(lo), _from_bits(hi)


def clopper_pearson_lower(k: int, n: int, alpha: float) -> float:
    """The one-sided exact lower confidence limit p_L for a binomial proportion.

    p_L solves P[Binomial(n, p_L) >= k] = alpha (p_L = 0 when k = 0), so that
    P_p[p_L(X) <= p] >= 1 - alpha for every p.  The limit is found by
    bisection on the exact tail and rounded down (conservatively).
    """
    k, n = _check_k_of_n(k, n)
    alpha = _check_alpha(alpha)
    if k == 0:
        return 0.0
    # P[X >= k] = P[X > k-1] grows with p; p <= p_L exactly when it is <= alpha.
    below, _ = _last_true(lambda p: binomial_sf(k - 1, n, p) <= alpha)
    return below


def clopper_pearson_upper(k: int, n: int, alpha: float) -> float:
    """The one-sided exact upper confidence limit p_U for a binomial proportion.

    p_U solves P[Binomial(n, p_U) <= k] = alpha (p_U = 1 when k = n), so that
    P_p[p <= p_U(X)] >= 1 - alpha for every p.  The limit is found by
    bisection on the exact tail and rounded up (conservatively).
    """
    k, n = _check_k_of_n(k, n)
    alpha = _check_alpha(alpha)
    if k == n:
        return 1.0
    # P[X <= k] falls as p grows; p < p_U exactly when it is > alpha.
    _, above = _last_true(lambda p: binomial_cdf(k, n, p) > alpha)
    return above


def clopper_pearson(k: int, n: int, alpha: float) -> Tuple[float, float]:
    """The two-sided exact (Clopper-Pearson, 1934) interval for a binomial proportion.

    Each side has error alpha/2: the interval is
    ``(clopper_pearson_lower(k, n, alpha/2), clopper_pearson_upper(k, n, alpha/2))``
    and covers the true p with probability at least 1 - alpha, for every p
    (claim ``clopper-pearson-interval``).

    >>> lo, hi = clopper_pearson(5, 10, 0.05)
    >>> round(lo, 6), round(hi, 6)
    (0.187086, 0.812914)
    """
    k, n = _check_k_of_n(k, n)
    alpha = _check_alpha(alpha)
    return clopper_pearson_lower(k, n, alpha / 2), clopper_pearson_upper(k, n, alpha / 2)


# --- Dvoretzky-Kiefer-Wolfowitz ---------------------------------------------


def dkw_bound(n: int, alpha: float) -> float:
    """The distance t with P[sup_x |F_n(x) - F(x)| > t] <= alpha for n samples.

    t = sqrt(ln(2/alpha) / (2n)): the Dvoretzky-Kiefer-Wolfowitz inequality
    with Massart's (1990) constant, valid for every distribution and
    conservative for discrete ones (claim ``dkw-goodness-of-fit``).
    """
    if _check_int(n, "n") < 1:
        raise InvalidParameterError(f"n (the number of samples) must be >= 1, got {n}")
    alpha = _check_alpha(alpha)
    return math.sqrt(math.log(2.0 / alpha) / (2.0 * n))


def dkw_sample_size(distance: float, alpha: float) -> int:
    """The smallest n with ``dkw_bound(n, alpha) <= distance``: ceil(ln(2/alpha) / (2 distance^2))."""
    if isinstance(distance, bool) or not isinstance(distance, (int, float)):
        raise InvalidParameterError(f"distance must be a float in (0, 1], got {distance!r}")
    if not 0.0 < distance <= 1.0:
        raise InvalidParameterError(f"distance must be in (0, 1], got {distance!r}")
    alpha = _check_alpha(alpha)
    n = max(1, math.ceil(math.log(2.0 / alpha) / (2.0 * float(distance) ** 2)))
    while dkw_bound(n, alpha) > distance:  # guards the rounding of the division
        n += 1
    return n


def dkw_power_sample_size(distance: float, alpha: float, beta: float) -> int:
    """The smallest n with ``dkw_bound(n, alpha) + dkw_bound(n, beta) < distance``.

    With n samples from a distribution G at Kolmogorov distance ``distance``
    from F, the test "reject F when ks_statistic > dkw_bound(n, alpha)" has
    false-alarm probability <= alpha and rejects with probability >= 1 - beta
    (triangle inequality; claim ``dkw-goodness-of-fit``).
    """
    if isinstance(distance, bool) or not isinstance(distance, (int, float)):
        raise InvalidParameterError(f"distance must be a float in (0, 1], got {distance!r}")
    if not 0.0 < distance <= 1.0:
        raise InvalidParameterError(f"distance must be in (0, 1], got {distance!r}")
    alpha = _check_alpha(alpha)
    beta = _check_alpha(beta)
    root = math.sqrt(math.log(2.0 / alpha) / 2.0) + math.sqrt(math.log(2.0 / beta) / 2.0)
    n = max(1, math.floor((root / distance) ** 2))
    while dkw_bound(n, alpha) + dkw_bound(n, beta) >= distance:
        n += 1
    return n


def ks_statistic(samples: Sequence[float], cdf: Callable[[float], float]) -> float:
    """The Kolmogorov-Smirnov distance sup_x |F_n(x) - F(x)|, computed exactly.

    ``cdf`` is the right-continuous distribution function F, with values in
    [0, 1]; it may have jumps (a discrete distribution) or not.  Between two
    consecutive distinct sample points F_n is constant and F is monotone, so
    the supremum is attained at a sample point x (F_n(x) against F(x)) or just
    before it (F_n(x-) against F(x-)).  The left limit F(x-) is evaluated at
    the float just below x, which is exact for any distribution whose atoms
    are floats (integers, for example) and off by at most F's increase over
    one ulp otherwise.
    """
    xs = sorted(float(x) for x in samples)
    n = len(xs)
    if n == 0:
        raise InvalidParameterError("ks_statistic needs at least one sample")
    if any(math.isnan(x) for x in xs):
        raise InvalidParameterError("samples must not contain NaN")
    distance = 0.0
    i = 0
    while i < n:
        x = xs[i]
        j = i
        while j < n and xs[j] == x:
            j += 1
        before = cdf(math.nextafter(x, -math.inf))
        at = cdf(x)
        distance = max(distance, abs(i / n - before), abs(j / n - at))
        i = j
    return distance
