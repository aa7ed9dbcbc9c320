"""``audit_program``: black-box audits of a callable seeded by an int, on any executor.

Every verdict asserted here comes from :func:`refdp.audit.monte_carlo_audit`'s
certified bound, whose false-alarm probability is alpha = 1e-6; the trial
counts come from :func:`refdp.audit.required_trials` (power 0.999) for the
event the audit should find, and the seeds are fixed.
"""

from __future__ import annotations

import concurrent.futures
import math
import random
from dataclasses import dataclass
from typing import List

import pytest

from refdp.audit import monte_carlo_audit, required_trials
from refdp.audit.external import (
    INLINE,
    Failure,
    ProgramAuditResult,
    audit_program,
    program_seeds,
)
from refdp.errors import DataError, InvalidParameterError
from refdp.mechanisms import laplace_noise
from refdp.rng import RandomSource

EPSILON = 1


@dataclass(frozen=True)
class NoisyLength:
    """Release len(data) + Laplace(factor / epsilon) from the seed: epsilon-DP under add-remove iff factor >= 1."""

    factor: float

    def __call__(self, data: List[int], seed: int) -> float:
        return len(data) + laplace_noise(self.factor / EPSILON, random.Random(seed))


@dataclass(frozen=True)
class AsMechanism:
    """The same program as a refdp mechanism ``(data, rng)``, seeded the way audit_program seeds it."""

    program: NoisyLength

    def __call__(self, data: List[int], rng: RandomSource) -> float:
        return self.program(data, rng.getrandbits(63))


@dataclass(frozen=True)
class CrashesOnTail:
    """Release a fair coin, but on D' (length 4) raise with probability 1/4: a leak through failures."""

    def __call__(self, data: List[int], seed: int) -> int:
        coin = random.Random(seed).randrange(2)
        if len(data) == 4 and coin == 1 and random.Random(seed + 1).random() < 0.5:
            raise RuntimeError("the program crashed")
        return coin


def always_fails(data: List[int], seed: int) -> int:
    raise ValueError(f"no output for {len(data)} rows")


D, D_PRIME = [1, 2, 3, 4, 5], [1, 2, 3, 4]


def _message(result: ProgramAuditResult) -> str:
    return result.summary()


@pytest.mark.smoke
@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_leaky_program_is_refuted_and_the_correct_one_is_not() -> None:
    # Laplace(1/2) on a count: the event {o > t} at the selection batch's best t has
    # p1/p2 near e^2; sized for a true epsilon of 1.9 at p2 = 0.1.
    trials = required_trials(1.9, EPSILON, 0.1)
    leaky = audit_program(NoisyLength(0.5), D, D_PRIME, epsilon=EPSILON, trials=trials, seed=11, executor=INLINE)
    assert leaky.refuted and leaky.threshold_events and leaky.failures == (0, 0), _message(leaky)
    correct = audit_program(NoisyLength(1.0), D, D_PRIME, epsilon=EPSILON, trials=trials, seed=11, executor=INLINE)
    assert not correct.refuted and correct.runs == 4 * trials, _message(correct)
    assert D == [1, 2, 3, 4, 5] and D_PRIME == [1, 2, 3, 4]


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_same_result_inline_on_threads_and_processes_and_as_monte_carlo_audit() -> None:
    kwargs = dict(epsilon=EPSILON, trials=300, seed=5)
    inline = audit_program(NoisyLength(0.5), D, D_PRIME, executor=INLINE, chunk=7, **kwargs)  # type: ignore[arg-type]
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        threads = audit_program(NoisyLength(0.5), D, D_PRIME, executor=pool, chunk=13, **kwargs)  # type: ignore[arg-type]
    processes = audit_program(NoisyLength(0.5), D, D_PRIME, chunk=100, **kwargs)  # type: ignore[arg-type]
    direct = monte_carlo_audit(AsMechanism(NoisyLength(0.5)), D, D_PRIME, threshold_events=True, **kwargs)  # type: ignore[arg-type]
    for other in (threads.audit, processes.audit, direct):
        assert (other.event, other.direction, other.k1, other.k2, other.lower_bound) == (
            inline.audit.event, inline.audit.direction, inline.audit.k1, inline.audit.k2, inline.audit.lower_bound
        ), (inline.summary(), other.summary())


def test_program_seeds_are_the_audits_stream() -> None:
    seeds = program_seeds(7, 3, 4)
    master = random.Random(7)
    assert seeds == [random.Random(master.getrandbits(64)).getrandbits(63) for _ in range(14)]
    assert all(0 <= s < 2**63 for s in seeds) and len(set(seeds)) == 14


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_failures_are_counted_and_are_outcomes() -> None:
    # On D' the outcome "failed" has probability 1/4 and on D probability 0: a leak that only
    # the failures show.  With 400 test runs, k1 >= 70 with probability > 0.999, and then the
    # certified bound is at least ln(CP_lower(70, 400) / CP_upper(0, 400)) > 1.
    for numeric in (False, "auto"):
        result = audit_program(CrashesOnTail(), D, D_PRIME, epsilon=EPSILON, trials=400, seed=3, executor=INLINE,
                               max_failure_rate=0.3, threshold_events=numeric)
        assert result.failures[0] == 0 and result.failures[1] > 150, _message(result)
        assert result.failure_kinds == (("error", sum(result.failures)),), _message(result)
        assert "the program crashed" in result.first_failure
        assert result.threshold_events is (numeric == "auto"), _message(result)
        assert ("failed" in result.audit.event) is (numeric is False), _message(result)  # else inf > threshold
        assert result.refuted and math.isinf(result.audit.point_estimate), _message(result)


def test_a_program_that_always_fails_stops_the_audit() -> None:
    with pytest.raises(DataError, match="the first 8 runs of the program all failed.*no output for 5 rows"):
        audit_program(always_fails, D, D_PRIME, epsilon=EPSILON, trials=100, seed=1, executor=INLINE)
    with pytest.raises(DataError, match="more than 0.1 of the 800 runs on D' failed"):
        audit_program(CrashesOnTail(), D, D_PRIME, epsilon=EPSILON, trials=400, seed=3, executor=INLINE)
    assert D == [1, 2, 3, 4, 5] and D_PRIME == [1, 2, 3, 4]


def test_failure_is_a_readable_outcome() -> None:
    assert repr(Failure("timeout")) == "<failed: timeout>" and Failure("error") == Failure("error")


def test_unhashable_outputs_fail_unless_reduced() -> None:
    def listing(data: List[int], seed: int) -> List[int]:
        return [len(data)]

    with pytest.raises(DataError, match="not hashable; pass a reduce"):
        audit_program(listing, D, D_PRIME, epsilon=EPSILON, trials=20, seed=1, executor=INLINE)
    result = audit_program(listing, D, D_PRIME, epsilon=EPSILON, trials=20, seed=1, executor=INLINE, reduce=tuple)
    assert result.failures == (0, 0) and not result.threshold_events


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(trials=0), "trials must be an int >= 1"),
        (dict(selection_trials=-1), "selection_trials must be an int >= 1"),
        (dict(chunk=0), "chunk must be an int >= 1"),
        (dict(max_failure_rate=1.5), "max_failure_rate must be a number in"),
        (dict(seed=1.5), "seed must be an int"),
        (dict(threshold_events="yes"), "threshold_events must be True, False or 'auto'"),
        (dict(executor="threads"), "executor must be 'inline', 'process' or a concurrent.futures.Executor"),
        (dict(epsilon=-1), "epsilon must be >= 0"),
    ],
)
def test_bad_parameters(kwargs: dict, message: str) -> None:  # type: ignore[type-arg]
    arguments = dict(epsilon=EPSILON, trials=10, seed=1, executor=INLINE)
    arguments.update(kwargs)
    with pytest.raises(InvalidParameterError, match=message):
        audit_program(NoisyLength(1.0), D, D_PRIME, **arguments)  # type: ignore[arg-type]


def test_a_program_that_cannot_be_pickled_gets_a_clear_error() -> None:
    with pytest.raises(InvalidParameterError, match="could not be sent to the executor"):
        audit_program(lambda data, seed: 0, D, D_PRIME, epsilon=EPSILON, trials=5, seed=1, chunk=5)
