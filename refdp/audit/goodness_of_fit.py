"""Cross-checks: does another implementation sample the distribution it claims?

Each check takes samples drawn by someone else's mechanism and tests them
against refdp's exact distribution for the same parameters, with a stated
false-alarm probability ``alpha`` (default 1e-6: a correct sampler is
rejected with probability at most ``alpha``), and each comes with the sample
size that gives power ``1 - beta`` (default ``beta`` = 1e-3) against a stated
deviation.

* Finite outcome sets -- the exponential mechanism
  (:func:`crosscheck_exponential_mechanism`), a tree learner's split choice
  at a fixed node (:func:`crosscheck_split_choice`), permute-and-flip or any
  other law given as probabilities (:func:`crosscheck_finite`): the total
  variation distance between the empirical and the exact law, against
  :func:`tv_threshold` (McDiarmid's inequality; claim ``crosscheck-finite-tv``,
  and ``crosscheck-split-choice`` for split choices).  Power against a law
  at total variation ``tv`` or more: :func:`tv_sample_size`.
* Noise whose scale is itself drawn once per run from a finite law (a
  mixture over a learner's plans), ``k`` noises per run sharing it
  (:func:`crosscheck_noise_mixture`): the Kolmogorov-Smirnov distance of
  the pooled noises to the mixture's CDF against the DKW bound for the
  runs at ``alpha / k`` (claim ``crosscheck-noisy-size-mixture``); power:
  :func:`noise_mixture_runs`.
* Laplace noise (:func:`crosscheck_laplace`) and discrete Laplace /
  two-sided geometric noise (:func:`crosscheck_discrete_laplace`): the
  Kolmogorov-Smirnov distance against the exact CDF, compared with the
  Dvoretzky-Kiefer-Wolfowitz bound (claims ``crosscheck-laplace-ks`` and
  ``crosscheck-discrete-laplace-ks``).  Power against a scale off by a
  factor ``1 + scale_error`` (or more, either way):
  :func:`laplace_sample_size`, :func:`discrete_laplace_sample_size`.

A check says whether the samples fit; it cannot see a leak that the law
hides (for example which floats a floating-point Laplace sampler can reach,
Mironov 2012), nor one that depends on inputs other than those given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, List, Optional, Sequence, Tuple, TypeVar, Union

from refdp.errors import InvalidParameterError
from refdp.mechanisms import (
    SensitivityLike,
    discrete_laplace_cdf,
    exponential_probabilities,
    laplace_cdf,
)
from refdp.privacy import Number, Relation, as_epsilon, parse_relation
from refdp.scoring import CountTable, get_quality
from refdp.stats import dkw_bound, dkw_power_sample_size, ks_statistic

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_BETA",
    "GoodnessOfFit",
    "tv_threshold",
    "tv_sample_size",
    "tv_detectable",
    "crosscheck_finite",
    "crosscheck_exponential_mechanism",
    "crosscheck_split_choice",
    "split_choice_probabilities",
    "permute_and_flip_probabilities",
    "crosscheck_laplace",
    "crosscheck_discrete_laplace",
    "laplace_scale_distance",
    "discrete_laplace_scale_distance",
    "laplace_sample_size",
    "discrete_laplace_sample_size",
    "laplace_detectable_scale_error",
    "discrete_laplace_detectable_scale_error",
    "NoiseMixture",
    "crosscheck_noise_mixture",
    "noise_mixture_runs",
    "noise_mixture_detectable_scale_error",
]

DEFAULT_ALPHA = 1e-6
"""False-alarm probability of every check unless told otherwise."""
DEFAULT_BETA = 1e-3
"""Miss probability the sample sizes are computed for (power 0.999)."""


@dataclass(frozen=True)
class GoodnessOfFit:
    """The outcome of one cross-check.

    ``statistic`` is the observed distance (total variation for finite laws,
    Kolmogorov-Smirnov for the Laplace laws; ``inf`` when a sample is
    impossible under the exact law) and ``threshold`` the distance a correct
    sampler exceeds with probability at most ``alpha``; ``rejected`` is
    ``statistic > threshold``.  ``claim`` names the proof of that guarantee.
    """

    kind: str
    claim: str
    n: int
    statistic: float
    threshold: float
    alpha: float
    rejected: bool
    detail: str

    def summary(self) -> str:
        """One line with every number, for reports and assertion messages."""
        verdict = "REJECTED" if self.rejected else "consistent"
        return (
            f"{self.kind}: {verdict}: distance {self.statistic:.6g} vs threshold {self.threshold:.6g} "
            f"at false-alarm probability {self.alpha:g} with n={self.n} ({self.claim}); {self.detail}"
        )


def _probability(value: float, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
        raise InvalidParameterError(f"{name} must be a probability in (0, 1), for example 1e-6; got {value!r}")
    return float(value)


def _law(probabilities: Sequence[float]) -> List[float]:
    probs = [float(p) for p in probabilities]
    if not probs or any(not math.isfinite(p) or p < 0 for p in probs) or abs(math.fsum(probs) - 1) > 1e-9:
        raise InvalidParameterError(
            "probabilities must be a non-empty list of finite numbers >= 0 summing to 1 (within 1e-9)"
        )
    return probs


def _spread(probs: Sequence[float]) -> float:
    """sum_i sqrt(p_i (1 - p_i)): sqrt(n) times a bound on E||p_hat - p||_1."""
    return math.fsum(math.sqrt(p * (1 - p)) for p in probs)


def tv_threshold(probabilities: Sequence[float], n: int, alpha: float = DEFAULT_ALPHA) -> float:
    """The total variation a correct sampler's ``n`` samples exceed with probability at most ``alpha``.

    ``(sum_i sqrt(p_i (1 - p_i)) + sqrt(2 ln(1/alpha))) / (2 sqrt(n))``:
    half the mean bound of ``||p_hat - p||_1`` plus McDiarmid's deviation
    (claim ``crosscheck-finite-tv``).
    """
    probs = _law(probabilities)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameterError(f"n (the number of samples) must be an int >= 1, got {n!r}")
    a = _probability(alpha, "alpha")
    return (_spread(probs) + math.sqrt(2 * math.log(1 / a))) / (2 * math.sqrt(n))


def tv_sample_size(
    probabilities: Sequence[float], tv: float, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> int:
    """Samples after which a law at total variation >= ``tv`` from ``probabilities`` is rejected w.p. >= 1 - beta.

    ``ceil(((sum_i sqrt(p_i(1-p_i)) + sqrt(k-1) + sqrt(2 ln 1/alpha) + sqrt(2 ln 1/beta)) / (2 tv))^2)``
    for ``k`` outcomes (claim ``crosscheck-finite-tv``).
    """
    probs = _law(probabilities)
    if isinstance(tv, bool) or not isinstance(tv, (int, float)) or not 0 < tv <= 1:
        raise InvalidParameterError(f"tv (the deviation to detect) must be in (0, 1], got {tv!r}")
    a, b = _probability(alpha, "alpha"), _probability(beta, "beta")
    total = _spread(probs) + math.sqrt(len(probs) - 1) + math.sqrt(2 * math.log(1 / a)) + math.sqrt(2 * math.log(1 / b))
    return max(1, math.ceil((total / (2 * float(tv))) ** 2))


def tv_detectable(
    probabilities: Sequence[float], n: int, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> float:
    """The total variation from ``probabilities`` that ``n`` samples reject with probability >= 1 - beta.

    :func:`tv_sample_size` solved for ``tv``:
    ``(sum_i sqrt(p_i(1-p_i)) + sqrt(k-1) + sqrt(2 ln 1/alpha) + sqrt(2 ln 1/beta)) / (2 sqrt(n))``
    (claim ``crosscheck-finite-tv``); above 1 nothing is certain to be detected.
    """
    probs = _law(probabilities)
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameterError(f"n (the number of samples) must be an int >= 1, got {n!r}")
    a, b = _probability(alpha, "alpha"), _probability(beta, "beta")
    total = _spread(probs) + math.sqrt(len(probs) - 1) + math.sqrt(2 * math.log(1 / a)) + math.sqrt(2 * math.log(1 / b))
    return total / (2 * math.sqrt(n))


_S = TypeVar("_S")


def _sample_list(samples: Sequence[_S], what: str) -> List[_S]:
    """``samples`` as a list; InvalidParameterError when it is not a sequence of samples."""
    if isinstance(samples, (str, bytes)) or not hasattr(samples, "__iter__"):
        raise InvalidParameterError(f"{what}: samples must be a list of numbers, got {type(samples).__name__}")
    return list(samples)


def _indices(samples: Sequence[int], what: str) -> List[int]:
    values = _sample_list(samples, what)
    if not values:
        raise InvalidParameterError(f"{what}: give at least one sample")
    for s in values:
        if isinstance(s, bool) or not isinstance(s, int):
            raise InvalidParameterError(f"{what}: samples must be candidate indices (ints), got {s!r}")
    return values


def crosscheck_finite(
    samples: Sequence[int],
    probabilities: Sequence[float],
    *,
    alpha: float = DEFAULT_ALPHA,
    kind: str = "finite law",
    claim: str = "crosscheck-finite-tv",
) -> GoodnessOfFit:
    """Test samples (indices ``0..k-1``) against the law ``probabilities`` by total variation.

    Rejects when the empirical law is farther than :func:`tv_threshold`, or
    when a sample is an index of probability 0 (or outside ``0..k-1``).
    """
    probs = _law(probabilities)
    values = _indices(samples, kind)
    a = _probability(alpha, "alpha")
    n = len(values)
    counts = [0] * len(probs)
    impossible = sorted({s for s in values if not 0 <= s < len(probs) or probs[s] == 0})
    threshold = tv_threshold(probs, n, a)
    if impossible:
        shown = ", ".join(str(s) for s in impossible[:5])
        return GoodnessOfFit(kind, claim, n, math.inf, threshold, a, True,
                             f"outcome(s) {shown} have probability 0 under the exact law")
    for s in values:
        counts[s] += 1
    tv = 0.5 * math.fsum(abs(c / n - p) for c, p in zip(counts, probs))
    worst = max(range(len(probs)), key=lambda i: abs(counts[i] / n - probs[i]))
    detail = (
        f"largest gap at outcome {worst}: observed {counts[worst] / n:.5f}, exact {probs[worst]:.5f}; "
        f"{len(probs)} outcomes"
    )
    return GoodnessOfFit(kind, claim, n, tv, threshold, a, tv > threshold, detail)


def crosscheck_exponential_mechanism(
    samples: Sequence[int],
    utilities: Sequence[float],
    *,
    epsilon: Number,
    sensitivity: SensitivityLike,
    base_weights: Optional[Sequence[float]] = None,
    alpha: float = DEFAULT_ALPHA,
) -> GoodnessOfFit:
    """Test chosen candidate indices against the exponential mechanism's exact law.

    The law is ``P[r] ~ w_r exp(epsilon u_r / (2 Delta_u))``
    (:func:`refdp.mechanisms.exponential_probabilities`); an implementation
    that uses ``exp(epsilon u_r / Delta_u)`` for monotone utilities is
    checked by passing half its sensitivity.
    """
    probs = exponential_probabilities(utilities, epsilon=epsilon, sensitivity=sensitivity, base_weights=base_weights)
    return crosscheck_finite(samples, probs, alpha=alpha, kind="exponential mechanism")


def split_choice_probabilities(
    tables: Sequence[CountTable],
    *,
    quality: str,
    epsilon: Number,
    relation: Union[Relation, str] = Relation.ADD_REMOVE,
    max_size: Optional[int] = None,
    monotone: bool = False,
) -> List[float]:
    """The exponential mechanism's law over a node's candidate splits: ``P[a] ~ exp(epsilon q(T_a) / (2 Delta q))``.

    ``tables[a]`` is the node's class-count table for candidate split ``a``
    (one row per child, one count per class); the utility is refdp's
    ``quality`` (``max``, ``gini``, ``gini-weighted``, ``info-gain``) with
    its proved sensitivity under ``relation`` (``max_size`` is the public
    node-size bound information gain needs).  That is the textbook
    calibration, not always refdp's: under add-remove refdp's learners drop
    the factor 2 for the max operator and the Gini
    (``refdp.scoring.monotone_under``; claim ``split-quality-monotone``);
    ``monotone=True`` gives that law, ``exp(epsilon q(T_a) / Delta q)``.
    The whole root split of a refdp learner, candidates and budget plan
    included, is ``root_split_law`` in its module.
    """
    q = get_quality(quality)
    sensitivity = q.sensitivity(parse_relation(relation), max_size)
    if not tables:
        raise InvalidParameterError("tables: give one count table per candidate split")
    utilities = [float(q(table)) for table in tables]
    return exponential_probabilities(utilities, epsilon=epsilon, sensitivity=sensitivity, monotone=monotone)


def crosscheck_split_choice(
    samples: Sequence[int],
    tables: Sequence[CountTable],
    *,
    quality: str,
    epsilon: Number,
    relation: Union[Relation, str] = Relation.ADD_REMOVE,
    max_size: Optional[int] = None,
    alpha: float = DEFAULT_ALPHA,
    monotone: bool = False,
) -> GoodnessOfFit:
    """Test a tree learner's split choices at a fixed node against :func:`split_choice_probabilities`.

    ``samples[i]`` is the candidate (an index into ``tables``) that run
    ``i`` of the learner chose at the node; ``monotone`` as there.  Claim
    ``crosscheck-split-choice``.
    """
    probs = split_choice_probabilities(
        tables, quality=quality, epsilon=epsilon, relation=relation, max_size=max_size, monotone=monotone
    )
    return crosscheck_finite(samples, probs, alpha=alpha, kind=f"split choice ({quality})",
                             claim="crosscheck-split-choice")


def permute_and_flip_probabilities(
    utilities: Sequence[float], *, epsilon: Number, sensitivity: SensitivityLike
) -> List[float]:
    """The exact law of permute-and-flip (McKenna and Sheldon, NeurIPS 2020).

    Visit the candidates in a uniformly random order and return the first
    ``r`` accepted, each accepted with probability
    ``p_r = exp(epsilon (u_r - u_max) / (2 Delta_u))``.  Then
    ``P[r] = p_r (1/m) sum_{k=0}^{m-1} e_k({1 - p_j : j != r}) / C(m-1, k)``:
    ``r`` is in each position with probability ``1/m``, the ``k``
    candidates before it are a uniform ``k``-subset of the others, and all
    of them must be rejected (``e_k`` is the elementary symmetric
    polynomial; every term is >= 0, so floats lose nothing to cancellation).
    """
    u = [float(x) for x in utilities]
    if not u or not all(math.isfinite(x) for x in u):
        raise InvalidParameterError("utilities must be a non-empty list of finite numbers")
    eps = as_epsilon(epsilon)
    if isinstance(sensitivity, bool) or not isinstance(sensitivity, (int, float, Fraction)) or not sensitivity > 0:
        raise InvalidParameterError(f"sensitivity must be a number > 0, got {sensitivity!r}")
    c = float(eps) / (2 * float(sensitivity))
    top = max(u)
    accept = [math.exp(c * (x - top)) for x in u]
    m = len(u)
    out: List[float] = []
    for r in range(m):
        e = [1.0] + [0.0] * (m - 1)  # e_0..e_{m-1} of the others' rejection probabilities
        for j in range(m):
            if j != r:
                for k in range(m - 1, 0, -1):
                    e[k] += e[k - 1] * (1 - accept[j])
        out.append(accept[r] * math.fsum(e[k] / math.comb(m - 1, k) for k in range(m)) / m)
    return out


def _scale(value: Union[int, float, Fraction], name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InvalidParameterError(f"{name} must be a number > 0, got {value!r}")
    b = float(value)
    if not (math.isfinite(b) and b > 0):
        raise InvalidParameterError(f"{name} must be finite and > 0, got {value!r}")
    return b


def _floats(samples: Sequence[float], location: float, what: str) -> List[float]:
    values = _sample_list(samples, what)
    if not values:
        raise InvalidParameterError(f"{what}: give at least one sample")
    out = []
    for s in values:
        if isinstance(s, bool) or not isinstance(s, (int, float)) or not math.isfinite(s):
            raise InvalidParameterError(f"{what}: samples must be finite numbers, got {s!r}")
        out.append(float(s) - location)
    return out


def crosscheck_laplace(
    samples: Sequence[float], *, scale: float, location: float = 0.0, alpha: float = DEFAULT_ALPHA
) -> GoodnessOfFit:
    """Test samples of ``location + Laplace(scale)`` by the Kolmogorov-Smirnov distance and the DKW bound.

    Claim ``crosscheck-laplace-ks``.
    """
    b = _scale(scale, "scale")
    if isinstance(location, bool) or not isinstance(location, (int, float)) or not math.isfinite(location):
        raise InvalidParameterError(f"location must be a finite number, got {location!r}")
    xs = _floats(samples, float(location), "Laplace samples")
    a = _probability(alpha, "alpha")
    d = ks_statistic(xs, lambda x: laplace_cdf(x, b))
    threshold = dkw_bound(len(xs), a)
    mean_abs = math.fsum(abs(x) for x in xs) / len(xs)
    detail = f"scale {b!r}; mean |x - location| {mean_abs:.5g} (exact: the scale)"
    return GoodnessOfFit("Laplace", "crosscheck-laplace-ks", len(xs), d, threshold, a, d > threshold, detail)


def crosscheck_discrete_laplace(
    samples: Sequence[int], *, scale: Union[int, float, Fraction], location: int = 0, alpha: float = DEFAULT_ALPHA
) -> GoodnessOfFit:
    """Test integer samples of ``location + DLap(scale)``, ``P[x] ~ exp(-|x|/scale)``, by KS and DKW.

    A two-sided geometric mechanism with parameter ``epsilon / Delta`` is
    ``DLap(Delta / epsilon)``.  Claim ``crosscheck-discrete-laplace-ks``.
    """
    b = _scale(scale, "scale")
    if isinstance(location, bool) or not isinstance(location, int):
        raise InvalidParameterError(f"location must be an int, got {location!r}")
    values = _sample_list(samples, "discrete Laplace samples")
    for s in values:
        if isinstance(s, bool) or not isinstance(s, int):
            raise InvalidParameterError(f"discrete Laplace samples must be ints, got {s!r}")
    xs = _floats(values, float(location), "discrete Laplace samples")
    a = _probability(alpha, "alpha")
    d = ks_statistic(xs, lambda x: discrete_laplace_cdf(x, b))
    threshold = dkw_bound(len(xs), a)
    zero = sum(1 for x in xs if x == 0) / len(xs)
    detail = f"scale {b!r}; P[noise = 0] observed {zero:.5f}, exact {math.tanh(0.5 / b):.5f}"
    return GoodnessOfFit("discrete Laplace", "crosscheck-discrete-laplace-ks", len(xs), d, threshold, a,
                         d > threshold, detail)


def _ratio(scale_error: float) -> float:
    if isinstance(scale_error, bool) or not isinstance(scale_error, (int, float)) or not 0 < scale_error <= 10:
        raise InvalidParameterError(f"scale_error must be in (0, 10] (0.1 means 10%), got {scale_error!r}")
    return 1.0 + float(scale_error)


def laplace_scale_distance(scale_error: float) -> float:
    """sup_x |F_b(x) - F_{rb}(x)| for Laplace laws whose scales differ by the factor ``r = 1 + scale_error``.

    It does not depend on ``b``, equals its value for ``1/r``, and grows
    with ``r``: ``(e^{-t/r} - e^{-t}) / 2`` at ``t = r ln r / (r - 1)``.
    """
    r = _ratio(scale_error)
    t = r * math.log(r) / (r - 1)
    return 0.5 * (math.exp(-t / r) - math.exp(-t))


def discrete_laplace_scale_distance(scale: Union[int, float, Fraction], scale_error: float) -> float:
    """min over ``r in {1 + e, 1/(1 + e)}`` of sup_k |F_s(k) - F_{rs}(k)| for discrete Laplace laws.

    ``|F_s(k) - F_{rs}(k)|`` grows with ``|ln r|`` at every ``k``, so this is
    the least distance of any scale off by the factor ``1 + e`` or more.
    """
    s = _scale(scale, "scale")
    r = _ratio(scale_error)
    distances = []
    for other in (s * r, s / r):
        q = math.exp(-1 / max(s, other))
        top = 1 + math.ceil(40 / -math.log(q))  # beyond it both tails are below e^-40
        # By symmetry F(-k-1) = 1 - F(k): the integers k >= 0 suffice.
        distances.append(max(abs(discrete_laplace_cdf(k, s) - discrete_laplace_cdf(k, other)) for k in range(top)))
    return min(distances)


def laplace_sample_size(scale_error: float = 0.1, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> int:
    """Samples after which :func:`crosscheck_laplace` rejects a scale off by ``1 + scale_error`` w.p. >= 1 - beta."""
    return dkw_power_sample_size(laplace_scale_distance(scale_error), alpha, beta)


def discrete_laplace_sample_size(
    scale: Union[int, float, Fraction],
    scale_error: float = 0.1,
    *,
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
) -> int:
    """Samples after which :func:`crosscheck_discrete_laplace` rejects a scale off by ``1 + scale_error``."""
    return dkw_power_sample_size(discrete_laplace_scale_distance(scale, scale_error), alpha, beta)


def _detectable_scale_error(distance: Callable[[float], float], n: int, alpha: float, beta: float) -> float:
    """The least scale error ``e`` in (0, 10] whose KS ``distance(e)`` the DKW test detects with ``n`` samples.

    ``distance`` grows with ``e``, so bisection finds it (to a relative 1e-4,
    rounded up); ``inf`` when even a factor 11 is not certain to be detected.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InvalidParameterError(f"n (the number of samples) must be an int >= 1, got {n!r}")
    a, b = _probability(alpha, "alpha"), _probability(beta, "beta")
    needed = dkw_bound(n, a) + dkw_bound(n, b)
    high = 10.0
    if distance(high) <= needed:
        return math.inf
    low = 0.0
    while high - low > 1e-4 * high:
        middle = (low + high) / 2
        if distance(middle) > needed:
            high = middle
        else:
            low = middle
    return high


def laplace_detectable_scale_error(n: int, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA) -> float:
    """The scale error (0.1 = 10%, either way) that ``n`` samples detect by :func:`crosscheck_laplace` w.p. >= 1 - beta.

    :func:`laplace_sample_size` solved for the scale error.
    """
    return _detectable_scale_error(laplace_scale_distance, n, alpha, beta)


def discrete_laplace_detectable_scale_error(
    scale: Union[int, float, Fraction], n: int, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> float:
    """The scale error that ``n`` samples detect by :func:`crosscheck_discrete_laplace` w.p. >= 1 - beta.

    :func:`discrete_laplace_sample_size` solved for the scale error.
    """
    _scale(scale, "scale")
    return _detectable_scale_error(lambda e: discrete_laplace_scale_distance(scale, e), n, alpha, beta)


@dataclass(frozen=True)
class NoiseMixture:
    """Noise of scale ``s_j`` with probability ``p_j`` (``components``: ``(p_j, s_j)``), discrete Laplace or Laplace.

    Each run draws one ``j`` and then ``per_run`` independent noises of
    scale ``s_j``: they are independent given ``j``, not across it.
    """

    components: Tuple[Tuple[float, Fraction], ...]
    discrete: bool
    per_run: int

    def cdf(self, x: float, ratio: float = 1.0) -> float:
        """The mixture's CDF at ``x``, every scale multiplied by ``ratio``."""
        one = discrete_laplace_cdf if self.discrete else laplace_cdf
        return math.fsum(p * one(x, float(s) * ratio) for p, s in self.components)

    def scale_distance(self, scale_error: float) -> float:
        """min over ``r in {1 + e, 1/(1 + e)}`` of sup_x |F(x) - F_r(x)|, F_r with every scale times r.

        The supremum is taken over the integers (discrete) or a fine grid of
        the largest scale's range (continuous, a lower bound of it, so the
        runs it gives are enough).
        """
        r = _ratio(scale_error)
        top = max(float(s) for _, s in self.components) * r
        if self.discrete:
            xs: List[float] = [float(k) for k in range(-1, math.ceil(40 * top) + 1)]
        else:
            xs = [top * 40 * i / 20000 for i in range(20001)]
        return min(max(abs(self.cdf(x) - self.cdf(x, other)) for x in xs) for other in (r, 1 / r))


def crosscheck_noise_mixture(
    runs: Sequence[Sequence[Union[int, float]]], mixture: NoiseMixture, *, alpha: float = DEFAULT_ALPHA
) -> GoodnessOfFit:
    """Test the noises of ``runs`` (``mixture.per_run`` each) against ``mixture`` by KS and DKW.

    The statistic is the KS distance of all pooled noises to the mixture's
    CDF; the threshold is ``dkw_bound(len(runs), alpha / per_run)``: the
    pooled empirical CDF is the mean of the ``per_run`` per-position CDFs,
    each of ``n`` independent draws of the mixture, so the union bound over
    the positions holds whatever the dependence within a run (claim
    ``crosscheck-noisy-size-mixture``).
    """
    a = _probability(alpha, "alpha")
    values = [x for run in _sample_list(runs, "noise runs") for x in run]
    n = len(runs)
    if n == 0:
        raise InvalidParameterError("noise runs: give at least one run")
    xs = _floats(values, 0.0, "noise mixture samples")
    d = ks_statistic(xs, mixture.cdf)
    threshold = dkw_bound(n, a / mixture.per_run)
    shown = ", ".join(f"{float(s):.4g} (p {p:.4g})" for p, s in mixture.components)
    detail = f"scales {shown}; {n} runs of {mixture.per_run} noises"
    kind = "discrete Laplace mixture" if mixture.discrete else "Laplace mixture"
    return GoodnessOfFit(kind, "crosscheck-noisy-size-mixture", n, d, threshold, a, d > threshold, detail)


def noise_mixture_runs(
    mixture: NoiseMixture, scale_error: float = 0.1, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> int:
    """Runs after which :func:`crosscheck_noise_mixture` rejects every scale off by ``1 + scale_error`` w.p.
    at least ``1 - beta``: the smallest ``n`` with ``dkw(n, alpha/k) + dkw(n, beta/k)`` below the distance."""
    k = mixture.per_run
    return dkw_power_sample_size(mixture.scale_distance(scale_error), alpha / k, beta / k)


def noise_mixture_detectable_scale_error(
    mixture: NoiseMixture, n: int, *, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> float:
    """The scale error that ``n`` runs detect by :func:`crosscheck_noise_mixture` w.p. >= 1 - beta."""
    k = mixture.per_run
    return _detectable_scale_error(mixture.scale_distance, n, alpha / k, beta / k)
