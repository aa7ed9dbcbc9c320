"""The measured false-alarm rate of the Monte-Carlo audit on the correct mechanisms.

Claim ``empirical-epsilon-lower-bound`` says a correct (epsilon, delta) claim
is refuted with probability at most ``alpha``.  :func:`false_alarm_rate`
measures that probability: it audits a case's *correct* mechanism
``repetitions`` times with independent seeds, at an ``alpha`` large enough
(0.05, say) for false alarms to be countable, and reports the rate with its
two-sided Clopper-Pearson interval.  The rate should be at most ``alpha``;
on mechanisms whose worst log-ratio is exactly epsilon (the discrete Laplace
count) it is the closest the audit comes to a false alarm.
"""

from __future__ import annotations

import concurrent.futures
import random
from dataclasses import dataclass
from typing import Optional, Tuple

from refdp.audit.planted.case import PlantedCase, monte_carlo_check
from refdp.errors import InvalidParameterError
from refdp.stats import clopper_pearson

__all__ = ["FalseAlarmRate", "false_alarm_rate"]


@dataclass(frozen=True)
class FalseAlarmRate:
    """``refuted`` of ``repetitions`` audits of a correct mechanism refuted its (true) claim.

    ``interval`` is the two-sided Clopper-Pearson interval of the rate at
    ``confidence``; ``largest_bound`` is the largest certified lower bound
    seen, to set against ``epsilon``.
    """

    case: str
    epsilon: float
    alpha: float
    trials: int
    repetitions: int
    refuted: int
    interval: Tuple[float, float]
    confidence: float
    largest_bound: float
    seed: int

    @property
    def rate(self) -> float:
        """The measured false-alarm rate ``refuted / repetitions``."""
        return self.refuted / self.repetitions

    def summary(self) -> str:
        """One line with every number."""
        lo, hi = self.interval
        return (
            f"{self.case}: {self.refuted}/{self.repetitions} false alarms, rate {self.rate:.4f} "
            f"[{lo:.4f}, {hi:.4f}] at {self.confidence:g} vs alpha={self.alpha:g}; largest bound "
            f"{self.largest_bound:.4f} vs epsilon={self.epsilon:g}; {self.trials} runs per side and batch, "
            f"seed={self.seed}"
        )


def false_alarm_rate(
    case: PlantedCase,
    *,
    repetitions: int,
    trials: int,
    alpha: float,
    seed: int,
    confidence: float = 0.95,
    executor: Optional[concurrent.futures.Executor] = None,
    test: str = "combined",
) -> FalseAlarmRate:
    """Audit ``case.correct`` ``repetitions`` times (``trials`` per side and batch) and count refutations.

    Repetition ``r`` uses the ``r``-th 64-bit draw of ``random.Random(seed)``
    as its audit seed.
    """
    for value, name in ((repetitions, "repetitions"), (trials, "trials")):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be an int >= 1, got {value!r}")
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"confidence must be in (0, 1), got {confidence!r}")
    seeds = random.Random(seed)
    refuted, largest = 0, -float("inf")
    for _ in range(repetitions):
        result = monte_carlo_check(
            case, "correct", seed=seeds.getrandbits(64), trials=trials, selection_trials=trials,
            alpha=alpha, executor=executor, test=test,
        )
        refuted += result.refuted
        largest = max(largest, result.lower_bound)
    return FalseAlarmRate(
        case=case.name,
        epsilon=float(case.epsilon),
        alpha=alpha,
        trials=trials,
        repetitions=repetitions,
        refuted=refuted,
        interval=clopper_pearson(refuted, repetitions, 1 - confidence),
        confidence=confidence,
        largest_bound=largest,
        seed=seed,
    )
