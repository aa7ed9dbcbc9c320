"""The certified epsilon lower bound of a Monte-Carlo audit, and how many runs it needs.

An audit runs a mechanism ``n1`` times on ``D`` and ``n2`` times on ``D'`` and
counts how often the output falls in an event ``E``: ``k1`` and ``k2``.  If
the mechanism is (epsilon, delta)-DP then ``p1 <= e^epsilon p2 + delta`` for
``p1 = P[M(D) in E]`` and ``p2 = P[M(D') in E]``, so

    epsilon >= ln((p1 - delta) / p2) >= ln((L1 - delta) / U2)

whenever the one-sided Clopper-Pearson limits ``L1 <= p1`` and ``U2 >= p2``
hold.  Each limit is taken at error ``alpha/2``, so both hold with
probability at least ``1 - alpha`` and the bound is wrong with probability at
most ``alpha`` (claim ``empirical-epsilon-lower-bound``).

:func:`required_trials` answers the converse question: how many runs per
side make the bound exceed the claimed epsilon, with probability at least
``power``, when the truth is ``p1 = e^{true_epsilon} p2``.  It is
conservative: it takes the ``(1 - power)/2`` lower quantile of ``k1`` and
upper quantile of ``k2`` from the exact binomial distributions, and a union
bound over the two sides.  :func:`default_trials` is the run count the
audits use when not told one.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Tuple

from refdp.errors import InvalidParameterError
from refdp.privacy import Number, as_delta, as_fraction
from refdp.audit.conditional import conditional_required_runs
from refdp.stats import (
    binomial_lower_quantile,
    binomial_upper_quantile,
    clopper_pearson_lower,
    clopper_pearson_upper,
)

__all__ = [
    "certified_lower_bound",
    "binomial_lower_quantile",
    "binomial_upper_quantile",
    "power_guaranteed",
    "required_trials",
    "detectable_epsilon",
    "DEFAULT_POWER",
    "design_event_probability",
    "default_trials",
]

DEFAULT_POWER = 0.999
"""The power the default run count is sized for."""

_MAX_TRIALS = 1 << 40


def _probability(value: float, name: str, *, open_low: bool = True) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InvalidParameterError(f"{name} must be a float, got {value!r}")
    number = float(value)
    low_ok = number > 0.0 if open_low else number >= 0.0
    if not (low_ok and number < 1.0):
        bracket = "(0, 1)" if open_low else "[0, 1)"
        raise InvalidParameterError(f"{name} must be in {bracket}, got {value!r}")
    return number


def certified_lower_bound(k1: int, n1: int, k2: int, n2: int, *, alpha: float, delta: Number = 0) -> float:
    """``ln((CP_lower(k1, n1) - delta) / CP_upper(k2, n2))``, each limit one-sided at ``alpha/2``.

    With probability at least ``1 - alpha`` this is at most the log-ratio
    ``ln((p1 - delta) / p2)``, hence at most epsilon for an (epsilon, delta)-DP
    mechanism.  ``-inf`` when ``CP_lower(k1) <= delta`` (no positive bound).
    """
    alpha = _probability(alpha, "alpha")
    d = float(as_delta(delta))
    lower = clopper_pearson_lower(k1, n1, alpha / 2) - d
    if lower <= 0.0:
        return -math.inf
    return math.log(lower) - math.log(clopper_pearson_upper(k2, n2, alpha / 2))


def _check(
    true_epsilon: float, claimed_epsilon: Number, p_event: float, power: float, alpha: float, delta: Number
) -> Tuple[float, float, float, float, float, float]:
    if isinstance(true_epsilon, bool) or not isinstance(true_epsilon, (int, float)) or not math.isfinite(true_epsilon):
        raise InvalidParameterError(f"true_epsilon must be a finite float, got {true_epsilon!r}")
    claimed = float(as_fraction(claimed_epsilon, "claimed_epsilon"))
    if claimed < 0:
        raise InvalidParameterError(f"claimed_epsilon must be >= 0, got {claimed_epsilon!r}")
    p2 = _probability(p_event, "p_event")
    p1 = math.exp(true_epsilon) * p2
    if p1 > 1.0 + 1e-12:
        raise InvalidParameterError(
            f"p1 = e^{true_epsilon} * {p2} = {p1} exceeds 1; no event has these probabilities, "
            "choose a smaller true_epsilon or p_event"
        )
    d = float(as_delta(delta))
    # e^{-ln p2} p2 may round just above 1; the event then has probability 1.
    return min(p1, 1.0), p2, claimed, _probability(power, "power"), _probability(alpha, "alpha"), d


def power_guaranteed(
    n: int,
    true_epsilon: float,
    claimed_epsilon: Number,
    p_event: float,
    *,
    power: float = 0.999,
    alpha: float = 1e-6,
    delta: Number = 0,
) -> bool:
    """Whether ``n`` runs per side give ``P[bound > claimed] >= power`` when ``p1 = e^{true} p2``.

    With ``beta = 1 - power``: ``K1 >= k1*`` (the ``beta/2`` lower quantile)
    and ``K2 <= k2*`` (the ``beta/2`` upper quantile) both hold with
    probability at least ``1 - beta`` (union bound), and the bound is
    increasing in ``K1`` and decreasing in ``K2``; so the bound at
    ``(k1*, k2*)`` exceeding the claim is sufficient.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameterError(f"n (runs per side) must be an int >= 1, got {n!r}")
    p1, p2, claimed, power, alpha, d = _check(true_epsilon, claimed_epsilon, p_event, power, alpha, delta)
    beta = (1.0 - power) / 2
    k1 = binomial_lower_quantile(n, p1, beta)
    k2 = binomial_upper_quantile(n, p2, beta)
    return certified_lower_bound(k1, n, k2, n, alpha=alpha, delta=d) > claimed


def _first_true(predicate: Callable[[int], bool], start: int) -> int:
    """A small ``n >= start`` with ``predicate(n)``: doubling, then bisection on the last gap."""
    hi = start
    while not predicate(hi):
        if hi >= _MAX_TRIALS:
            raise InvalidParameterError(
                f"more than {_MAX_TRIALS} runs per side would be needed; the gap between the "
                "true and the claimed epsilon is too small to detect"
            )
        hi *= 2
    lo = hi // 2  # predicate(lo) was false (or lo < start)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if mid >= start and predicate(mid):
            hi = mid
        else:
            lo = mid
    return hi


def required_trials(
    true_epsilon: float,
    claimed_epsilon: Number,
    p_event: float,
    *,
    power: float = 0.999,
    alpha: float = 1e-6,
    delta: Number = 0,
) -> int:
    """Runs per side after which the certified bound beats ``claimed_epsilon`` with prob. ``>= power``.

    The truth assumed: ``p2 = p_event`` and ``p1 = e^{true_epsilon} p2`` for a
    fixed event.  The returned ``n`` satisfies :func:`power_guaranteed`
    (checked); it is found by doubling then bisection, and since the
    condition is monotone in ``n`` only up to the discreteness of the
    binomial, a slightly smaller ``n`` may occasionally also work.

    Raises InvalidParameterError when no number of runs suffices, that is
    when ``ln((p1 - delta) / p2) <= claimed_epsilon``.
    """
    p1, p2, claimed, power, alpha, d = _check(true_epsilon, claimed_epsilon, p_event, power, alpha, delta)
    if p1 - d <= 0.0 or math.log(p1 - d) - math.log(p2) <= claimed:
        raise InvalidParameterError(
            f"with p1 = {p1!r}, p2 = {p2!r} and delta = {d!r} the log-ratio ln((p1 - delta)/p2) "
            f"does not exceed the claimed epsilon {claimed!r}; no number of runs can refute the claim"
        )
    return _first_true(
        lambda n: power_guaranteed(
            n, true_epsilon, claimed, p2, power=power, alpha=alpha, delta=d
        ),
        1,
    )


def detectable_epsilon(
    n: int,
    claimed_epsilon: Number,
    p_event: float,
    *,
    power: float = 0.999,
    alpha: float = 1e-6,
    delta: Number = 0,
    tolerance: float = 1e-3,
) -> float:
    """The smallest true epsilon that ``n`` runs per side detect with probability ``>= power``.

    Detect means: the certified bound exceeds ``claimed_epsilon`` for an event
    with ``p2 = p_event`` and ``p1 = e^{true} p2`` (:func:`power_guaranteed`).
    Bisection to within ``tolerance``, rounded up (power holds at the value
    returned); ``inf`` when even ``p1 = 1`` is not enough.
    """
    claimed = float(as_fraction(claimed_epsilon, "claimed_epsilon"))
    p2 = _probability(p_event, "p_event")
    top = -math.log(p2)  # p1 = e^{top} p2 = 1
    lo, hi = claimed, top
    if hi <= lo or not power_guaranteed(n, hi, claimed, p2, power=power, alpha=alpha, delta=delta):
        return math.inf
    while hi - lo > tolerance:
        mid = (lo + hi) / 2
        if power_guaranteed(n, mid, claimed, p2, power=power, alpha=alpha, delta=delta):
            hi = mid
        else:
            lo = mid
    return hi


def design_event_probability(epsilon: Fraction) -> float:
    """The event probability the default run count is designed for.

    0.1, or less where ``e^{2 epsilon} p`` would exceed 1/2: an event that
    twice the claimed epsilon cannot make more likely than 1/2.
    """
    return min(0.1, math.exp(-2 * float(epsilon)) / 2)


def default_trials(epsilon: Fraction, delta: Fraction, alpha: float) -> Tuple[int, str]:
    """The runs per side that catch twice the claimed epsilon, and that aim in words.

    The aim: a true epsilon of ``2 epsilon`` on an event of probability
    :func:`design_event_probability` is refuted with probability
    :data:`DEFAULT_POWER` at false-alarm probability ``alpha`` by the
    audit's default test, whose conditional half runs at ``alpha / 2``
    (:func:`refdp.audit.conditional.conditional_required_runs`, halved: runs
    per side).
    """

    true = 2 * float(epsilon)
    p_event = design_event_probability(epsilon)
    # the default test (combined) runs the conditional bound at alpha / 2
    n = (conditional_required_runs(true, epsilon, p_event, power=DEFAULT_POWER, alpha=alpha / 2, delta=delta) + 1) // 2
    return n, (
        f"detect a true epsilon of {true:g} at event probability {p_event:.4g}, power {DEFAULT_POWER} "
        "(conditional test)"
    )
