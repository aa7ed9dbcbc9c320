"""The conditional ratio test: a certified lower bound on epsilon from one binomial, not two.

Runs are assigned to the two neighbouring inputs by fair coins: each of n
test runs uses D with probability 1/2 and D' otherwise, independently.  If
p1 and p2 are the probabilities of an event E on D and on D', every run
falls in one of four categories (D and E, D and not E, D' and E, D' and
not E) with probabilities p1/2, (1 - p1)/2, p2/2, (1 - p2)/2, independently
of the others.  So given the number m of runs that hit E, the number k1 of
them that used D is exactly Binomial(m, theta) with theta = p1 / (p1 + p2),
whatever p1 and p2 are.  An (epsilon, 0)-DP mechanism has p1 <= e^eps p2,
that is theta <= e^eps / (1 + e^eps); the one-sided Clopper-Pearson lower
limit theta_L of theta then gives the bound

    ln(theta_L / (1 - theta_L)),

which exceeds the true epsilon with probability at most alpha (claim
``conditional-ratio-test``).  Compared with two Clopper-Pearson limits (one
for p1, one for p2, at alpha/2 each; :func:`refdp.audit.sample_size.certified_lower_bound`)
it spends the whole alpha on one interval of one proportion, and needs
fewer runs for the same power.

With delta > 0 (p1 <= e^eps p2 + delta): at most q hits on D are owed to
delta, where q is the upper alpha/2 quantile of Binomial(n, delta/2); the
test removes q hits and spends the other alpha/2 on theta.
"""

from __future__ import annotations

import math
import statistics
from typing import Dict, List, Optional

from refdp.errors import InvalidParameterError
from refdp.privacy import Number, as_delta, as_fraction
from refdp.rng import RandomSource
from refdp.stats import binomial_pmf, binomial_sf, binomial_upper_quantile, clopper_pearson_lower

__all__ = [
    "assign_sides",
    "conditional_lower_bound",
    "conditional_power",
    "conditional_required_runs",
    "conditional_detectable_epsilon",
    "delta_allowance",
]

_MAX_RUNS = 10**9
_WINDOW = 9.0  # standard deviations of the hit count summed over when computing power


def assign_sides(n: int, rng: RandomSource) -> List[bool]:
    """``n`` fair coins (True: the run uses D), from ``rng.getrandbits`` only (exactly fair)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidParameterError(f"the number of runs must be an int >= 0, got {n!r}")
    sides: List[bool] = []
    while len(sides) < n:
        word = rng.getrandbits(32)
        sides.extend(bool(word >> i & 1) for i in range(min(32, n - len(sides))))
    return sides


def _alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0.0 < alpha < 1.0:
        raise InvalidParameterError(f"alpha must be in (0, 1), got {alpha!r}")
    return float(alpha)


def delta_allowance(n: int, delta: Number, alpha: float) -> int:
    """q: the hits on D that delta may account for, exceeded with probability at most ``alpha / 2``.

    The upper ``alpha / 2`` quantile of Binomial(n, delta / 2) (0 when delta is 0).
    """
    d = float(as_delta(delta))
    if d == 0.0:
        return 0
    return binomial_upper_quantile(n, d / 2, _alpha(alpha) / 2)


def conditional_lower_bound(k1: int, k2: int, n: int, *, alpha: float, delta: Number = 0) -> float:
    """A bound that exceeds ln((p1 - delta) / p2)'s epsilon with probability at most ``alpha``.

    ``k1``: hits of the event among the runs on D; ``k2``: among the runs on
    D'; ``n``: all runs (both sides), assigned by fair coins.  With
    j = k1 - q (q from :func:`delta_allowance`) and theta_L the one-sided
    Clopper-Pearson lower limit of j successes in j + k2 trials at level
    alpha (alpha / 2 when delta > 0), the bound is logit(theta_L);
    ``-inf`` when j <= 0.
    """
    for value, name in ((k1, "k1"), (k2, "k2"), (n, "n")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise InvalidParameterError(f"{name} must be an int >= 0, got {value!r}")
    if k1 + k2 > n:
        raise InvalidParameterError(f"k1 + k2 = {k1 + k2} hits cannot exceed the {n} runs")
    alpha = _alpha(alpha)
    q = delta_allowance(n, delta, alpha)
    level = alpha if q == 0 and float(as_delta(delta)) == 0.0 else alpha / 2
    j = k1 - q
    if j <= 0:
        return -math.inf
    theta = clopper_pearson_lower(j, j + k2, level)
    if theta <= 0.0:
        return -math.inf
    return math.log(theta) - math.log1p(-theta) if theta < 1.0 else math.inf


def _rejects_from(m: int, q: int, level: float, theta0: float, start: int) -> int:
    """The smallest k1 >= start (at most m + 1) that rejects theta <= theta0 given m hits in all."""
    k1 = start
    while k1 <= m:
        j = k1 - q
        if j > 0 and binomial_sf(j - 1, m - q, theta0) <= level:
            return k1
        k1 += 1
    return m + 1


def conditional_power(
    n: int, p1: float, p2: float, claimed_epsilon: Number, *, alpha: float = 1e-6, delta: Number = 0
) -> float:
    """P[the bound from n runs exceeds ``claimed_epsilon``] when the event has probabilities p1, p2.

    Exact up to float summation over a window of nine standard deviations of
    the hit count m ~ Binomial(n, (p1 + p2) / 2); given m, k1 ~ Binomial(m,
    p1 / (p1 + p2)), and the test rejects from the smallest k1 whose tail
    under theta0 = e^claimed / (1 + e^claimed) is at most the level (that
    threshold only grows with m, so it is found incrementally).
    """
    for p, name in ((p1, "p1"), (p2, "p2")):
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise InvalidParameterError(f"{name} must be in [0, 1], got {p!r}")
    if p1 + p2 == 0.0:
        return 0.0
    claimed = float(as_fraction(claimed_epsilon, "claimed_epsilon"))
    alpha = _alpha(alpha)
    q = delta_allowance(n, delta, alpha)
    level = alpha if float(as_delta(delta)) == 0.0 else alpha / 2
    theta0 = 1.0 / (1.0 + math.exp(-claimed))
    theta = p1 / (p1 + p2)
    hit = (p1 + p2) / 2
    spread = _WINDOW * math.sqrt(n * hit * (1 - hit)) + 1
    low, high = max(0, int(n * hit - spread)), min(n, int(n * hit + spread) + 1)
    power, threshold = 0.0, 0
    for m in range(low, high + 1):
        threshold = _rejects_from(m, q, level, theta0, max(threshold - 1, 0))
        if threshold <= m:
            power += binomial_pmf(m, n, hit) * binomial_sf(threshold - 1, m, theta)
    return min(power, 1.0)


def conditional_required_runs(
    true_epsilon: float,
    claimed_epsilon: Number,
    p_event: float,
    *,
    power: float = 0.999,
    alpha: float = 1e-6,
    delta: Number = 0,
    at_most: Optional[int] = None,
) -> int:
    """All runs (both sides together) after which the bound beats the claim with probability ``>= power``.

    The truth assumed: p2 = ``p_event`` and p1 = e^true p2.  Doubling, then
    bisection on :func:`conditional_power`.  With ``at_most``, a caller that
    can afford no more runs: when ``at_most`` runs are not enough, the result
    is ``at_most + 1`` without searching further (each power costs time
    proportional to the square root of the runs: a search up to a million
    runs takes minutes).
    """
    p2 = float(p_event)
    if not 0.0 < p2 < 1.0:
        raise InvalidParameterError(f"p_event must be in (0, 1), got {p_event!r}")
    p1 = math.exp(true_epsilon) * p2
    if p1 > 1.0:
        raise InvalidParameterError(f"p1 = e^{true_epsilon} * {p2} = {p1} exceeds 1; no event has these probabilities")
    claimed = float(as_fraction(claimed_epsilon, "claimed_epsilon"))
    d = float(as_delta(delta))
    if p1 - d <= 0.0 or math.log(p1 - d) - math.log(p2) <= claimed:
        raise InvalidParameterError(
            f"with p1 = {p1!r}, p2 = {p2!r} and delta = {d!r} the log-ratio does not exceed the claimed "
            f"epsilon {claimed!r}; no number of runs can refute the claim"
        )
    cache: Dict[int, bool] = {}

    def enough(n: int) -> bool:
        if n not in cache:
            cache[n] = conditional_power(n, p1, p2, claimed, alpha=alpha, delta=d) >= power
        return cache[n]

    if at_most is not None and not enough(at_most):
        return at_most + 1
    hi = 2
    while not enough(hi):
        if hi >= _MAX_RUNS:
            raise InvalidParameterError(f"more than {_MAX_RUNS} runs would be needed")
        hi *= 2
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if enough(mid):
            hi = mid
        else:
            lo = mid
    return hi


def conditional_detectable_epsilon(
    n: int, claimed_epsilon: Number, p_event: float, *, power: float = 0.999, alpha: float = 1e-6,
    delta: Number = 0,
) -> float:
    """About the smallest true epsilon that ``n`` runs (both sides) detect with probability ``power``.

    For the event with p2 = ``p_event`` and p1 = e^true p2, by the normal
    approximation of the hit share k1 / m (m about n (p1 + p2) / 2): the
    true share theta must clear the rejection point of theta0 by
    z_power standard deviations.  A planning figure for reports (rounded up
    to 0.01); :func:`conditional_power` gives exact powers.  ``inf`` when
    even p1 = 1 is not enough.
    """
    claimed = float(as_fraction(claimed_epsilon, "claimed_epsilon"))
    alpha = _alpha(alpha)
    if not 0.0 < p_event < 1.0 or not 0.0 < power < 1.0:
        raise InvalidParameterError(f"p_event and power must be in (0, 1), got {p_event!r} and {power!r}")
    normal = statistics.NormalDist()
    level = alpha if float(as_delta(delta)) == 0.0 else alpha / 2
    z_alpha, z_power = normal.inv_cdf(1 - level), normal.inv_cdf(power)
    theta0 = 1.0 / (1.0 + math.exp(-claimed))
    q = delta_allowance(n, delta, alpha)

    def detected(true: float) -> bool:
        p1 = math.exp(true) * p_event
        hits = n * (p1 + p_event) / 2 - q
        if p1 > 1.0 or hits <= 0:
            return False
        theta = (n * p1 / 2 - q) / hits
        cut = theta0 + z_alpha * math.sqrt(theta0 * (1 - theta0) / hits)
        return theta - z_power * math.sqrt(theta * (1 - theta) / hits) > cut

    top = -math.log(p_event)
    if not detected(top):
        return math.inf
    lo, hi = claimed, top
    while hi - lo > 0.005:
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if detected(mid) else (mid, hi)
    return math.ceil(hi * 100) / 100
