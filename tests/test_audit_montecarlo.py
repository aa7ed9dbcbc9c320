"""Monte-Carlo audits: a correct noisy count passes, a miscalibrated one is refuted, runs replay exactly.

Every statistical assertion here has false-alarm probability at most 1e-6
(the audit's alpha) and power at least 0.999 from ``required_trials``, for
the event the audit should select; seeds are fixed, and the messages carry
the audit's numbers.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import List, Tuple

import pytest

from refdp.audit import (
    D_PRIME_OVER_D,
    AuditResult,
    OutcomeSet,
    Threshold,
    binomial_lower_quantile,
    certified_lower_bound,
    monte_carlo_audit,
    required_trials,
)
from refdp.errors import InvalidParameterError
from refdp.mechanisms import discrete_laplace, laplace_noise
from refdp.rng import RandomSource

EPSILON = Fraction(1)
D, D_PRIME = 5, 6  # a count with sensitivity 1


@dataclass(frozen=True)
class NoisyCount:
    """count + DLap(scale): epsilon-DP for sensitivity 1 when scale = 1/epsilon."""

    scale: Fraction

    def __call__(self, count: int, rng: RandomSource) -> int:
        return count + discrete_laplace(self.scale, rng)


@dataclass(frozen=True)
class LaplaceCount:
    """count + Lap(scale), continuous: epsilon-DP for sensitivity 1 when scale = 1/epsilon."""

    scale: float

    def __call__(self, count: int, rng: RandomSource) -> float:
        return count + laplace_noise(self.scale, rng)


@dataclass(frozen=True)
class LeakyCount:
    """With probability ``leak`` publish the true count, else count + DLap(1/epsilon): (epsilon, leak)-DP."""

    leak: float

    def __call__(self, count: int, rng: RandomSource) -> Tuple[str, int]:
        if rng.random() < self.leak:
            return ("exact", count)
        return ("noisy", count + discrete_laplace(Fraction(1), rng))


def _tail(scale: float) -> Tuple[float, float]:
    """P[DLap(scale) >= 0] and P[DLap(scale) >= 1]: the event {o >= 6} under D' and D."""
    r = math.exp(-1 / scale)
    return 1 / (1 + r), r / (1 + r)


def _message(result: AuditResult, *notes: str) -> str:
    return " | ".join((result.summary(),) + notes)


@pytest.mark.smoke
@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_miscalibrated_discrete_laplace_is_refuted() -> None:
    """Scale 1/(2 eps) instead of 1/eps: true epsilon 2 on {o >= 6}, claimed 1."""
    p1, p2 = _tail(0.5)
    trials = required_trials(2.0, EPSILON, p2)
    result = monte_carlo_audit(
        NoisyCount(Fraction(1, 2)), D, D_PRIME, epsilon=EPSILON, trials=trials, seed=1
    )
    note = f"required_trials(2, 1, p2={p2:.4f}) = {trials}; exact p1={p1:.4f}"
    assert result.refuted, _message(result, note)
    assert result.direction == D_PRIME_OVER_D, _message(result, note)
    assert result.lower_bound > 1.0, _message(result, note)


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_correct_discrete_laplace_is_not_refuted_and_the_bound_is_tight() -> None:
    """Scale 1/eps: the log-ratio on {o >= 6} is exactly eps = 1, so the bound approaches 1 from below.

    trials = required_trials(1, 0.8, p2): with power 0.999 the bound exceeds 0.8
    (if the audit picks {o >= 6}), and with probability >= 1 - 1e-6 it stays <= 1.
    """
    p1, p2 = _tail(1.0)
    trials = required_trials(1.0, Fraction(4, 5), p2)
    result = monte_carlo_audit(NoisyCount(Fraction(1)), D, D_PRIME, epsilon=EPSILON, trials=trials, seed=2)
    note = f"required_trials(1, 0.8, p2={p2:.4f}) = {trials}; exact p1={p1:.4f}"
    assert not result.refuted, _message(result, note)
    assert 0.8 < result.lower_bound <= 1.0, _message(result, note)
    assert abs(result.point_estimate - 1.0) < 0.1, _message(result, note)


@pytest.mark.slow
@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_correct_discrete_laplace_bound_is_within_five_percent() -> None:
    """As above at claimed 0.95: about 135,000 runs per batch and side, on a pool of 2 processes."""
    p1, p2 = _tail(1.0)
    trials = required_trials(1.0, Fraction(19, 20), p2)
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        result = monte_carlo_audit(
            NoisyCount(Fraction(1)), D, D_PRIME, epsilon=EPSILON, trials=trials, seed=8, executor=pool, chunk=5000
        )
    note = f"required_trials(1, 0.95, p2={p2:.4f}) = {trials}; exact p1={p1:.4f}"
    assert not result.refuted, _message(result, note)
    assert 0.95 < result.lower_bound <= 1.0, _message(result, note)


@pytest.mark.claim("empirical-epsilon-lower-bound")
@pytest.mark.parametrize("scale, refuted", [(1.0, False), (0.5, True)])
def test_threshold_events_on_a_continuous_laplace_count(scale: float, refuted: bool) -> None:
    """P[count + Lap(s) > t] for t >= 6: the ratio D'/D is e^{1/s}; thresholds come from the selection batch.

    Both runs use the trials that detect scale 1/2 (true epsilon 2 on {o > 6},
    p2 = e^-2 / 2) with power 0.999.
    """
    p2 = 0.5 * math.exp(-2.0)  # P[5 + Lap(1/2) > 6]
    trials = required_trials(2.0, EPSILON, p2)
    result = monte_carlo_audit(
        LaplaceCount(scale), D, D_PRIME, epsilon=EPSILON, trials=trials, seed=3, threshold_events=True
    )
    note = f"scale={scale}; trials=required_trials(2, 1, {p2:.4f})={trials}"
    assert isinstance(result.chosen_event, Threshold), _message(result, note)
    assert result.refuted is refuted, _message(result, note)


def _leak_trials(leak: float, claimed: float, power: float = 0.999, alpha: float = 1e-6) -> int:
    """Runs per side after which an event of probability ``leak`` on one side and 0 on the other
    beats ``claimed`` with probability >= power (the p2 = 0 case of required_trials)."""
    n = 1
    while True:
        k1 = binomial_lower_quantile(n, leak, (1 - power) / 2)
        if certified_lower_bound(k1, n, 0, n, alpha=alpha) > claimed:
            return n
        n = math.ceil(n * 1.1)


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_delta_is_subtracted() -> None:
    """Publishing the exact count with probability 0.05 is (1, 0.05)-DP but not (1, 0)-DP.

    The event {("exact", 6)} has probability 0.05 under D' and 0 under D.
    """
    leak = 0.05
    trials = _leak_trials(leak, float(EPSILON))
    note = f"trials={trials} detect a one-sided event of probability {leak} with power 0.999"
    kwargs = dict(epsilon=EPSILON, trials=trials, seed=4)
    claimed_pure = monte_carlo_audit(LeakyCount(leak), D, D_PRIME, **kwargs)  # type: ignore[arg-type]
    assert claimed_pure.refuted, _message(claimed_pure, note)
    assert claimed_pure.event == "output in {('exact', 6)}", _message(claimed_pure, note)
    claimed_approx = monte_carlo_audit(LeakyCount(leak), D, D_PRIME, delta=leak, **kwargs)  # type: ignore[arg-type]
    assert not claimed_approx.refuted, _message(claimed_approx, note)


def _stripped(result: AuditResult) -> AuditResult:
    return dataclasses.replace(result, wall_time=0.0)


def test_replay_is_identical_with_and_without_executors() -> None:
    mechanism = NoisyCount(Fraction(1, 2))
    kwargs = dict(epsilon=EPSILON, trials=400, selection_trials=300, seed=12345)
    inline = monte_carlo_audit(mechanism, D, D_PRIME, **kwargs)  # type: ignore[arg-type]
    again = monte_carlo_audit(mechanism, D, D_PRIME, chunk=64, **kwargs)  # type: ignore[arg-type]
    assert _stripped(inline) == _stripped(again)
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        threaded = monte_carlo_audit(mechanism, D, D_PRIME, executor=pool, chunk=50, **kwargs)  # type: ignore[arg-type]
    assert _stripped(inline) == _stripped(threaded), (inline.summary(), threaded.summary())
    other_seed = monte_carlo_audit(mechanism, D, D_PRIME, **dict(kwargs, seed=54321))  # type: ignore[arg-type]
    assert (other_seed.k1, other_seed.k2) != (inline.k1, inline.k2)


def test_replay_is_identical_on_a_process_pool() -> None:
    mechanism = NoisyCount(Fraction(1))
    kwargs = dict(epsilon=EPSILON, trials=1000, selection_trials=300, seed=99)
    inline = monte_carlo_audit(mechanism, D, D_PRIME, **kwargs)  # type: ignore[arg-type]
    with concurrent.futures.ProcessPoolExecutor(max_workers=2) as pool:
        pooled = monte_carlo_audit(mechanism, D, D_PRIME, executor=pool, chunk=250, **kwargs)  # type: ignore[arg-type]
    assert _stripped(inline) == _stripped(pooled), (inline.summary(), pooled.summary())


def test_progress_and_result_fields() -> None:
    calls: List[Tuple[int, int]] = []
    result = monte_carlo_audit(
        NoisyCount(Fraction(1)),
        D,
        D_PRIME,
        epsilon=1,
        trials=300,
        selection_trials=200,
        seed=5,
        chunk=128,
        progress=lambda done, total: calls.append((done, total)),
    )
    assert calls[-1] == (1000, 1000) and all(b[0] > a[0] for a, b in zip(calls, calls[1:]))
    # 600 test runs go to D or D' by fair coins (the conditional test's layout)
    assert result.n1 + result.n2 == 600 and abs(result.n1 - 300) < 60
    assert (result.trials, result.selection_trials, result.test) == (300, 200, "combined")
    assert isinstance(result.chosen_event, OutcomeSet) and result.event.startswith("output in {")
    assert result.seed == 5 and result.alpha == 1e-6 and result.wall_time > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.refuted = True  # type: ignore[misc]


def test_a_data_independent_mechanism_is_not_refuted_at_epsilon_zero() -> None:
    """Output uniform on 200 values whatever the input: many candidate events, none certified."""
    result = monte_carlo_audit(_uniform_200, D, D_PRIME, epsilon=0, trials=4000, seed=6)
    assert not result.refuted and result.lower_bound <= 0, _message(result)


def _uniform_200(count: int, rng: RandomSource) -> int:
    return rng.randrange(200)


def test_invalid_arguments() -> None:
    mechanism = NoisyCount(Fraction(1))
    for bad in (
        dict(trials=0),
        dict(trials=10, selection_trials=0),
        dict(trials=10, alpha=1.0),
        dict(trials=10, chunk=0),
        dict(trials=10, epsilon=-1),
        dict(trials=10, delta=1),
        dict(trials=10, seed=None),
    ):
        arguments = dict(dict(epsilon=1, seed=0), **bad)
        with pytest.raises(InvalidParameterError):
            monte_carlo_audit(mechanism, D, D_PRIME, **arguments)
    with pytest.raises(InvalidParameterError, match="numeric"):
        monte_carlo_audit(LeakyCount(0.5), D, D_PRIME, epsilon=1, trials=20, seed=0, threshold_events=True)
