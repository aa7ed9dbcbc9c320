"""A planted case -- a faulty mechanism and its correct counterpart on a pair -- and its checks.

:func:`exact_check` compares the exact laws of the reduced outputs on ``D``
and ``D'`` (claim ``exact-max-log-ratio``): a deterministic verdict.
:func:`monte_carlo_check` runs the black-box audit (claim
``empirical-epsilon-lower-bound``), with the number of runs from
:func:`monte_carlo_plan`: the event that the exact laws say is easiest to
catch, and :func:`refdp.audit.required_trials` for it.
"""

from __future__ import annotations

import concurrent.futures
import math
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Hashable, List, Optional, Tuple

from refdp.audit.exact import LOG_SLACK, Distribution, SupportMismatch, max_log_ratio_report
from refdp.audit.montecarlo import D_OVER_D_PRIME, D_PRIME_OVER_D, AuditResult, monte_carlo_audit
from refdp.audit.sample_size import power_guaranteed, required_trials
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.rng import RandomSource

__all__ = [
    "VERSIONS",
    "Mechanism",
    "Law",
    "PlantedCase",
    "ExactVerdict",
    "MonteCarloPlan",
    "exact_check",
    "monte_carlo_plan",
    "monte_carlo_check",
]

VERSIONS = ("faulty", "correct")

Mechanism = Callable[[Dataset, RandomSource], Any]
"""``mechanism(data, rng) -> output``: a module-level function or a frozen dataclass (picklable)."""

Law = Callable[[Dataset], Distribution]
"""``law(data)``: the exact distribution of ``reduce(mechanism(data, rng))``."""

# Denominator probability used for sizing when an event is impossible on one side.
_IMPOSSIBLE = 1e-12
# Planned events: numerator probability at least this, log-ratio at least epsilon + _GAP
# (rarer events or thinner gaps need more runs than any audit here can afford).
_RAREST = 0.01
_GAP = 0.01
# Selection runs per outcome of the planned event (numerator side).
_SEEN = 10
# Share of the planned event's numerator mass the selected event may miss.
_MISSED = 0.05


@dataclass(frozen=True)
class PlantedCase:
    """A deliberately wrong mechanism, its correct counterpart, and the pair that exposes the fault.

    ``d`` and ``d_prime`` are neighbours under ``relation``, cut from the
    built-in data set ``data``; ``neighbour`` says how ``d_prime`` was
    made and why that neighbour.  Both mechanisms claim
    (``epsilon``, ``delta``)-DP; only ``correct`` keeps the claim.
    ``reduce`` is the public post-processing the checks compare (numeric
    when ``threshold_events``); ``exact_faulty`` and ``exact_correct`` give
    the exact law of the reduced output, where it can be computed.
    """

    name: str
    description: str
    correction: str
    data: str
    neighbour: str
    epsilon: Fraction
    delta: Fraction
    relation: Relation
    d: Dataset
    d_prime: Dataset
    faulty: Mechanism
    correct: Mechanism
    reduce: Callable[[Any], Hashable]
    threshold_events: bool = False
    exact_faulty: Optional[Law] = None
    exact_correct: Optional[Law] = None

    def mechanism(self, version: str) -> Mechanism:
        """``faulty`` or ``correct``."""
        return self.faulty if _version(version) == "faulty" else self.correct

    def law(self, version: str) -> Optional[Law]:
        """The exact law of ``version``, or None."""
        return self.exact_faulty if _version(version) == "faulty" else self.exact_correct


def _version(version: str) -> str:
    if version not in VERSIONS:
        raise InvalidParameterError(f"version must be one of {VERSIONS}, got {version!r}")
    return version


@dataclass(frozen=True)
class ExactVerdict:
    """The exact comparison of ``P = law(D)`` and ``Q = law(D')``.

    ``max_log_ratio`` is ``inf`` when the supports differ; ``outcome`` is
    where the largest log-ratio is reached or an outcome in one support
    only (``only_in`` names the side: ``"D"`` or ``"D'"``).  ``refuted`` is
    ``max_log_ratio > epsilon + LOG_SLACK``.
    """

    case: str
    version: str
    epsilon: float
    max_log_ratio: float
    outcome: Hashable
    log_p: float
    log_q: float
    only_in: Optional[str]
    outcomes: Tuple[int, int]
    refuted: bool
    wall_time: float

    def summary(self) -> str:
        """One line with every number."""
        verdict = "REFUTED" if self.refuted else "not refuted"
        if self.only_in is not None:
            found = (
                f"supports differ: outcome {self.outcome!r} is possible on {self.only_in} only"
            )
        else:
            found = (
                f"max log-ratio {self.max_log_ratio:.6f} at outcome {self.outcome!r} "
                f"(ln P = {self.log_p:.6f}, ln Q = {self.log_q:.6f})"
            )
        return (
            f"{verdict} (exact): {self.case} [{self.version}], claimed epsilon={self.epsilon!r}; {found}; "
            f"{self.outcomes[0]} and {self.outcomes[1]} outcomes; {self.wall_time:.3f} s"
        )


def exact_check(case: PlantedCase, version: str) -> ExactVerdict:
    """Compare the exact laws of ``version`` on ``D`` and ``D'`` (claim ``exact-max-log-ratio``)."""
    law = case.law(version)
    if law is None:
        raise InvalidParameterError(
            f"planted case {case.name!r} has no exact law for its {version} mechanism; "
            "use the Monte-Carlo check"
        )
    started = time.perf_counter()
    p, q = law(case.d), law(case.d_prime)
    eps = float(case.epsilon)
    try:
        report = max_log_ratio_report(p, q)
    except SupportMismatch as mismatch:
        log_p, log_q = p.log_probability(mismatch.outcome), q.log_probability(mismatch.outcome)
        return ExactVerdict(
            case.name, version, eps, math.inf, mismatch.outcome, log_p, log_q,
            "D" if mismatch.in_first else "D'", (len(p), len(q)), True, time.perf_counter() - started,
        )
    return ExactVerdict(
        case.name, version, eps, report.max_log_ratio, report.outcome, report.log_p, report.log_q,
        None, (len(p), len(q)), report.max_log_ratio > eps + LOG_SLACK, time.perf_counter() - started,
    )


@dataclass(frozen=True)
class MonteCarloPlan:
    """How many runs a Monte-Carlo audit needs to catch a case's fault.

    The event: the ``size`` outcomes of largest likelihood ratio in
    ``direction`` under the faulty mechanism's exact laws, with
    probabilities ``p1`` (numerator side) and ``p2``; ``trials`` runs per
    side give power ``power`` at false-alarm ``alpha`` for that event
    (:func:`refdp.audit.required_trials` with ``0.95 p1`` for ``p1``, as
    the selected event may miss the planned one's rarest outcomes; ``p2 = 0``
    is sized as 1e-12).
    The audit chooses its own event on a selection batch, so the plan is a
    target, not a guarantee.
    """

    direction: str
    size: int
    p1: float
    p2: float
    trials: int
    power: float
    alpha: float

    @property
    def selection_trials(self) -> int:
        """Selection runs per side: ``trials``, or enough to see each outcome of the event ~10 times.

        The audit ranks outcomes with one pseudo-count each on the
        denominator side, so an event of many rare outcomes is found only
        when each of them has been seen well more than once.
        """
        return max(self.trials, math.ceil(_SEEN * self.size / self.p1))

    @property
    def true_epsilon(self) -> float:
        """``ln(p1/p2)`` of the planned event (``inf`` when ``p2 = 0``)."""
        return math.inf if self.p2 == 0 else math.log(self.p1 / self.p2)


def _prefixes(num: Distribution, den: Distribution) -> List[Tuple[int, float, float]]:
    """``(size, p1, p2)`` of the superlevel sets of ``num/den``, largest ratio first."""
    outcomes = sorted(
        num,
        key=lambda o: num[o] - den.log_probability(o),
        reverse=True,
    )
    p1 = p2 = 0.0
    prefixes = []
    for size, o in enumerate(outcomes, start=1):
        p1 += math.exp(num[o])
        p2 += den.probability(o)
        prefixes.append((size, min(p1, 1.0), min(p2, 1.0)))
    return prefixes


def monte_carlo_plan(case: PlantedCase, *, power: float = 0.999, alpha: float = 1e-6) -> MonteCarloPlan:
    """The event easiest to catch in the faulty mechanism's exact laws, and the runs it needs.

    Among the superlevel sets of the likelihood ratio in both directions
    (Neyman-Pearson: the most lopsided events of their size), at most 10
    sizes per direction are tried, spread by their numerator probability,
    among events of numerator probability >= 0.01 whose log-ratio exceeds
    epsilon by at least 0.01.
    """
    law = case.exact_faulty
    if law is None:
        raise InvalidParameterError(f"planted case {case.name!r} has no exact law to plan from")
    p, q = law(case.d), law(case.d_prime)
    eps = float(case.epsilon)
    best: Optional[MonteCarloPlan] = None
    for num, den, direction in ((p, q, D_OVER_D_PRIME), (q, p, D_PRIME_OVER_D)):
        tried = set()
        for size, p1, p2 in _prefixes(num, den):
            level = round(10 * p1)  # at most 10 sizes per direction, spread over p1
            denominator = max(p2, _IMPOSSIBLE)
            # Sized as if the selected event caught only 95% of the planned one's numerator mass:
            # a selection batch misses the event's rarest outcomes.
            true_epsilon = math.log((1 - _MISSED) * p1 / denominator)
            if level in tried or p1 < _RAREST or true_epsilon <= eps + _GAP:
                continue
            tried.add(level)
            # One power check first: most events cannot beat the best so far.
            if best is not None and not power_guaranteed(
                best.trials - 1, true_epsilon, eps, denominator, power=power, alpha=alpha
            ):
                continue
            n = required_trials(true_epsilon, eps, denominator, power=power, alpha=alpha)
            if best is None or n < best.trials:
                best = MonteCarloPlan(direction, size, p1, p2, n, power, alpha)
    if best is None:
        raise InvalidParameterError(
            f"the faulty mechanism of {case.name!r} has no event whose ratio exceeds epsilon={eps}; "
            "there is nothing for a Monte-Carlo audit to find"
        )
    return best


def monte_carlo_check(
    case: PlantedCase,
    version: str,
    *,
    seed: int,
    trials: Optional[int] = None,
    selection_trials: Optional[int] = None,
    alpha: float = 1e-6,
    executor: Optional[concurrent.futures.Executor] = None,
    chunk: int = 1000,
    progress: Optional[Callable[[int, int], None]] = None,
    test: str = "combined",
) -> AuditResult:
    """The black-box audit of ``version`` on the case's pair (claim ``empirical-epsilon-lower-bound``).

    ``trials`` and ``selection_trials`` default to :func:`monte_carlo_plan`'s
    (power 0.999 at ``alpha`` against the faulty mechanism), for both
    versions.

    Why 10 parameters: the case, the version audited and the run counts, then the
    audit's settings as :func:`refdp.audit.montecarlo.monte_carlo_audit` takes them.
    """
    if trials is None or selection_trials is None:
        plan = monte_carlo_plan(case, alpha=alpha)
        trials = plan.trials if trials is None else trials
        selection_trials = plan.selection_trials if selection_trials is None else selection_trials
    return monte_carlo_audit(
        case.mechanism(version),
        case.d,
        case.d_prime,
        epsilon=case.epsilon,
        delta=case.delta,
        trials=trials,
        selection_trials=selection_trials,
        alpha=alpha,
        seed=seed,
        reduce=case.reduce,
        threshold_events=case.threshold_events,
        test=test,
        executor=executor,
        chunk=chunk,
        progress=progress,
    )
