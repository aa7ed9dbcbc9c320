"""Exact output distributions of mechanisms, in log space, and their largest log-ratio.

A mechanism ``M`` with finitely many outputs is epsilon-DP on a pair of
neighbours ``(D, D')`` exactly when ``P = M(D)`` and ``Q = M(D')`` have the
same support and ``max_o |ln P(o) - ln Q(o)| <= epsilon`` (claim
``exact-max-log-ratio``).  This module builds such distributions from the
mechanisms' formulas -- no sampling -- and computes that maximum.

Numerics: a :class:`Distribution` stores *natural-log probabilities as
floats*.  Log space keeps tiny probabilities (the far tail of a discrete
Laplace, an exponential-mechanism candidate with a poor score) representable
and makes products sums.  Each log-probability the constructors below compute
is within ``eta = (11 B + 3 ln n + 7) * 2**-53`` of the exact value, where
``B`` bounds the magnitude of the log-terms involved and ``n`` the number of
outcomes; compositions add the errors of their parts.  :data:`LOG_SLACK`
(1e-9) covers one step with ``B`` up to 10**5, and thousands of composed
steps with ``B <= 100`` (``proofs/exact-max-log-ratio.md`` derives the
bound); :func:`satisfies_epsilon` uses it.  An exact rational variant is
not provided: the exponential mechanism's probabilities are irrational.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import (
    Any,
    Callable,
    Dict,
    FrozenSet,
    Hashable,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Union,
)

from refdp.errors import InvalidParameterError, PrivacyError
from refdp.mechanisms import SensitivityLike, exponential_log_probabilities
from refdp.privacy import Number, as_fraction

__all__ = [
    "LOG_SLACK",
    "Real",
    "Distribution",
    "SupportMismatch",
    "LogRatioReport",
    "log_sum_exp",
    "max_log_ratio",
    "max_log_ratio_report",
    "satisfies_epsilon",
    "exponential_mechanism_distribution",
    "discrete_laplace_distribution",
    "covering_window",
    "product",
    "mixture",
    "push_forward",
    "chain",
]

Real = Union[int, float, Fraction]
"""A utility or a base weight: exact (int, Fraction) or a float."""

LOG_SLACK = 1e-9
"""Absolute slack for comparing computed log-probabilities and log-ratios.

It bounds twice the floating-point error of a log-probability computed here
for one step with log-terms of magnitude up to about 10**5, or for thousands
of composed steps with log-terms up to 100 (``proofs/exact-max-log-ratio.md``,
Numerics); the privacy violations the tests look for are many orders of
magnitude larger.
"""


def log_sum_exp(values: Iterable[float]) -> float:
    """``ln sum_i exp(v_i)`` without overflow or underflow (``-inf`` for no values).

    Shifting by the maximum makes every exponent <= 0 and the largest term 1,
    and :func:`math.fsum` adds the terms with a single rounding.
    """
    items = [v for v in values if v != -math.inf]
    if not items:
        return -math.inf
    top = max(items)
    return top + math.log(math.fsum(math.exp(v - top) for v in items))


class Distribution(Mapping[Hashable, float]):
    """A finite (sub-)probability distribution: outcome -> natural-log probability (a float).

    Outcomes with log-probability ``-inf`` (probability 0) are left out, so
    the keys are the support.  The total mass may be below 1 (a distribution
    restricted to a window, see :func:`discrete_laplace_distribution`) but
    not above it by more than :data:`LOG_SLACK` in log space.  Immutable.
    """

    __slots__ = ("_log_p",)

    _log_p: Dict[Hashable, float]

    def __init__(
        self, log_probabilities: Union[Mapping[Any, float], Iterable[Tuple[Hashable, float]]]
    ) -> None:
        items = log_probabilities.items() if isinstance(log_probabilities, Mapping) else log_probabilities
        log_p: Dict[Hashable, float] = {}
        for outcome, value in items:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
                raise InvalidParameterError(
                    f"the log-probability of outcome {outcome!r} must be a float, got {value!r}"
                )
            if value == -math.inf:
                continue
            if value > LOG_SLACK:
                raise InvalidParameterError(
                    f"outcome {outcome!r} has log-probability {value!r} > 0, i.e. a probability "
                    "above 1; pass natural logs of probabilities"
                )
            if outcome in log_p:
                raise InvalidParameterError(
                    f"outcome {outcome!r} is listed twice; merge it first (see push_forward)"
                )
            log_p[outcome] = float(value)
        if not log_p:
            raise InvalidParameterError("a distribution needs at least one outcome of positive probability")
        total = log_sum_exp(log_p.values())
        if total > LOG_SLACK:
            raise InvalidParameterError(
                f"the probabilities sum to exp({total!r}) > 1; a distribution's mass is at most 1"
            )
        object.__setattr__(self, "_log_p", log_p)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Distribution is immutable")

    def __getitem__(self, outcome: Hashable) -> float:
        return self._log_p[outcome]

    def __iter__(self) -> Iterator[Hashable]:
        return iter(self._log_p)

    def __len__(self) -> int:
        return len(self._log_p)

    def __repr__(self) -> str:
        shown = ", ".join(f"{o!r}: {p:.6g}" for o, p in list(self._log_p.items())[:6])
        more = ", ..." if len(self._log_p) > 6 else ""
        return f"Distribution({{{shown}{more}}})"

    def __reduce__(self) -> Tuple[type, Tuple[Dict[Hashable, float]]]:
        return (Distribution, (dict(self._log_p),))

    @property
    def support(self) -> FrozenSet[Hashable]:
        """The outcomes of positive probability."""
        return frozenset(self._log_p)

    def log_probability(self, outcome: Hashable) -> float:
        """``ln P(outcome)``: ``-inf`` outside the support."""
        return self._log_p.get(outcome, -math.inf)

    def probability(self, outcome: Hashable) -> float:
        """``P(outcome)`` as a float (may underflow to 0 where the log does not)."""
        return math.exp(self.log_probability(outcome))

    def log_mass(self) -> float:
        """``ln`` of the total mass (0 up to rounding for a full distribution)."""
        return log_sum_exp(self._log_p.values())


class SupportMismatch(PrivacyError):
    """Two output distributions differ in support: no finite epsilon covers the pair."""

    def __init__(self, outcome: Hashable, in_first: bool) -> None:
        self.outcome = outcome
        self.in_first = in_first
        where, missing = ("first", "second") if in_first else ("second", "first")
        super().__init__(
            f"outcome {outcome!r} has positive probability under the {where} distribution but "
            f"probability 0 under the {missing}; the mechanism is not epsilon-DP for any finite "
            "epsilon on this pair (fix the mechanism so that every output is possible on both)"
        )


@dataclass(frozen=True)
class LogRatioReport:
    """The largest ``|ln P(o) - ln Q(o)|`` and the outcome ``o`` where it is reached."""

    max_log_ratio: float
    outcome: Hashable
    log_p: float
    log_q: float

    @property
    def direction(self) -> str:
        """``"P/Q"`` when ``P(o) >= Q(o)`` at the worst outcome, else ``"Q/P"``."""
        return "P/Q" if self.log_p >= self.log_q else "Q/P"


def _check_distribution(value: object, name: str) -> Distribution:
    if not isinstance(value, Distribution):
        raise InvalidParameterError(f"{name} must be a Distribution, got {type(value).__name__}")
    return value


def max_log_ratio_report(p: Distribution, q: Distribution) -> LogRatioReport:
    """The worst outcome of :func:`max_log_ratio` with both log-probabilities.

    Ties keep the first outcome in ``p``'s order.  Raises :class:`SupportMismatch`
    naming an outcome in one support and not the other.
    """
    p = _check_distribution(p, "P")
    q = _check_distribution(q, "Q")
    for outcome in p:
        if outcome not in q:
            raise SupportMismatch(outcome, in_first=True)
    for outcome in q:
        if outcome not in p:
            raise SupportMismatch(outcome, in_first=False)
    best: Optional[LogRatioReport] = None
    for outcome, log_p in p.items():
        log_q = q[outcome]
        gap = abs(log_p - log_q)
        if best is None or gap > best.max_log_ratio:
            best = LogRatioReport(gap, outcome, log_p, log_q)
    assert best is not None  # a Distribution is never empty
    return best


def max_log_ratio(p: Distribution, q: Distribution) -> float:
    """``max_o |ln P(o) - ln Q(o)|`` over the common support of ``P`` and ``Q``.

    Floats in log space (see the module docstring for the error bound).
    Raises :class:`SupportMismatch` when the supports differ.
    """
    return max_log_ratio_report(p, q).max_log_ratio


def satisfies_epsilon(p: Distribution, q: Distribution, epsilon: Number, *, slack: float = LOG_SLACK) -> bool:
    """Whether ``max_log_ratio(P, Q) <= epsilon + slack`` (raises on a support mismatch).

    With exact arithmetic this is epsilon-DP on the pair (claim
    ``exact-max-log-ratio``); ``slack`` absorbs the floating-point error.
    """
    eps = as_fraction(epsilon, "epsilon")
    return max_log_ratio(p, q) <= float(eps) + slack


def exponential_mechanism_distribution(
    utilities: Union[Sequence[Real], Mapping[Any, Real]],
    epsilon: Number,
    sensitivity: SensitivityLike,
    base_weights: Optional[Union[Sequence[Real], Mapping[Any, Real]]] = None,
) -> Distribution:
    """The exponential mechanism's output distribution, exactly as refdp samples it.

    ``P(r) = w_r exp(epsilon u(r) / (2 Delta u)) / sum_r' w_r' exp(epsilon u(r') / (2 Delta u))``
    (McSherry & Talwar 2007), computed by
    :func:`refdp.mechanisms.exponential_log_probabilities`, the function the
    sampler uses, so that a wrong calibration there shows up here.
    ``utilities`` is a sequence (outcomes are the indices) or a mapping
    (outcomes are its keys); ``base_weights`` (the interval lengths of a
    continuous split, for example) follows the same shape.
    """
    if isinstance(utilities, Mapping):
        keys: List[Hashable] = list(utilities)
        values = [utilities[k] for k in keys]
        weights: Optional[List[Real]] = None
        if base_weights is not None:
            if not isinstance(base_weights, Mapping) or set(base_weights) != set(keys):
                raise InvalidParameterError(
                    "base_weights must be a mapping with the same keys as utilities"
                )
            weights = [base_weights[k] for k in keys]
    else:
        values = list(utilities)
        keys = list(range(len(values)))
        weights = None
        if base_weights is not None:
            if isinstance(base_weights, Mapping):
                raise InvalidParameterError("base_weights must be a sequence when utilities is one")
            weights = list(base_weights)
    # The mechanism reads utilities and weights as floats; converting here is the same rounding.
    log_p = exponential_log_probabilities(
        [float(v) for v in values],
        epsilon=epsilon,
        sensitivity=sensitivity,
        base_weights=None if weights is None else [float(w) for w in weights],
    )
    return Distribution(zip(keys, log_p))


def _log_discrete_laplace(distance: int, scale: Fraction) -> float:
    # P(x) = tanh(1/(2s)) exp(-|x - mu| / s) for DLap(mu, s); the division
    # |x - mu| / s is exact as a Fraction and rounded once.
    return math.log(math.tanh(1.0 / (2.0 * float(scale)))) - float(Fraction(distance) / scale)


def discrete_laplace_distribution(value: int, scale: Number, window: range) -> Distribution:
    """The discrete Laplace ``DLap(value, scale)`` restricted to ``window`` (not renormalised).

    ``P(x) = tanh(1/(2s)) exp(-|x - value| / s)`` for integers ``x`` in
    ``window`` (a ``range`` with step 1).  The restriction keeps the exact
    probabilities, so ratios between two such distributions are exact too.

    Why a window suffices: for centres ``a < b`` the log-ratio
    ``(|x - b| - |x - a|) / s`` is constant for ``x <= a`` and for ``x >= b``,
    so outside any window holding both centres it equals its value at the
    nearest edge, and the maximum over the window is the maximum over all
    integers.  :func:`covering_window` gives such a window.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidParameterError(f"the centre of a discrete Laplace must be an int, got {value!r}")
    s = as_fraction(scale, "scale")
    if s <= 0:
        raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
    if not isinstance(window, range) or window.step != 1 or len(window) == 0:
        raise InvalidParameterError(
            f"window must be a non-empty range with step 1 (for example range(-20, 21)), got {window!r}"
        )
    return Distribution((x, _log_discrete_laplace(abs(x - value), s)) for x in window)


def covering_window(*centres: int, margin: int = 1) -> range:
    """The integers from ``min(centres) - margin`` to ``max(centres) + margin``.

    For discrete Laplace distributions centred at ``centres`` the largest
    log-ratio over this window is the largest over all integers (see
    :func:`discrete_laplace_distribution`); ``margin`` only adds outcomes.
    """
    if not centres or any(isinstance(c, bool) or not isinstance(c, int) for c in centres):
        raise InvalidParameterError(f"centres must be one or more ints, got {centres!r}")
    if isinstance(margin, bool) or not isinstance(margin, int) or margin < 0:
        raise InvalidParameterError(f"margin must be an int >= 0, got {margin!r}")
    return range(min(centres) - margin, max(centres) + margin + 1)


def product(*distributions: Distribution) -> Distribution:
    """The joint distribution of independent draws: outcome ``(o1, o2, ...)``, log-probabilities add."""
    if not distributions:
        raise InvalidParameterError("product needs at least one distribution")
    joint: List[Tuple[Tuple[Hashable, ...], float]] = [((), 0.0)]
    for position, dist in enumerate(distributions):
        dist = _check_distribution(dist, f"distribution {position}")
        joint = [(o + (x,), lp + lx) for o, lp in joint for x, lx in dist.items()]
    return Distribution(joint)


def mixture(components: Iterable[Tuple[float, Distribution]]) -> Distribution:
    """``sum_i w_i P_i`` given ``(ln w_i, P_i)`` pairs; the weights must sum to at most 1.

    An outcome's log-probability is the log-sum-exp of ``ln w_i + ln P_i(o)``.
    """
    merged: Dict[Hashable, List[float]] = {}
    log_weights: List[float] = []
    for position, (log_weight, dist) in enumerate(components):
        dist = _check_distribution(dist, f"component {position}")
        if isinstance(log_weight, bool) or not isinstance(log_weight, (int, float)) or math.isnan(log_weight):
            raise InvalidParameterError(f"component {position} has log-weight {log_weight!r}; give ln(w) as a float")
        log_weights.append(float(log_weight))
        for outcome, lp in dist.items():
            merged.setdefault(outcome, []).append(log_weight + lp)
    if not log_weights:
        raise InvalidParameterError("mixture needs at least one (log_weight, distribution) pair")
    if log_sum_exp(log_weights) > LOG_SLACK:
        raise InvalidParameterError(
            f"mixture weights sum to exp({log_sum_exp(log_weights)!r}) > 1; pass ln of weights summing to 1"
        )
    return Distribution((o, log_sum_exp(terms)) for o, terms in merged.items())


def push_forward(dist: Distribution, f: Callable[[Hashable], Hashable]) -> Distribution:
    """The distribution of ``f(o)`` for ``o ~ dist``; outcomes ``f`` merges are added (log-sum-exp).

    Post-processing: ``max_log_ratio`` of the images is at most that of the
    originals, which tests may use as a check.
    """
    dist = _check_distribution(dist, "dist")
    merged: Dict[Hashable, List[float]] = {}
    for outcome, lp in dist.items():
        merged.setdefault(f(outcome), []).append(lp)
    return Distribution((o, log_sum_exp(terms)) for o, terms in merged.items())


def chain(dist: Distribution, kernel: Callable[[Hashable], Distribution]) -> Distribution:
    """Sequential randomness: draw ``o ~ dist``, then ``o2 ~ kernel(o)``; outcome ``(o, o2)``.

    ``ln P(o, o2) = ln P(o) + ln K(o2 | o)``.  This is how a tree built from
    successive exponential-mechanism choices (and data-independent draws)
    gets its exact distribution: each choice is a kernel of the earlier ones.
    Nested chains give nested pairs; :func:`push_forward` can flatten them.
    """
    dist = _check_distribution(dist, "dist")
    joint: List[Tuple[Hashable, float]] = []
    for outcome, lp in dist.items():
        following = _check_distribution(kernel(outcome), f"kernel({outcome!r})")
        joint.extend(((outcome, o2), lp + lq) for o2, lq in following.items())
    return Distribution(joint)
