"""Black-box audits of programs refdp did not write: a callable seeded by an int.

:func:`audit_program` audits the claim that ``program(data, seed) -> output``
is (epsilon, delta)-DP on a pair of neighbours ``(D, D')``.  The program is a
black box: it gets an integer seed, not refdp's random source, so it may be a
wrapper around another library, another process (see
:mod:`refdp.audit.program_audit`) or a remote service.

How it reuses :func:`refdp.audit.monte_carlo_audit` (whose statistics, event
choice and certified bound are used unchanged, claim
``empirical-epsilon-lower-bound``):

1. the audit's seed stream is laid out exactly as ``monte_carlo_audit`` lays
   it out (its docstring is the contract): run ``i`` has the stream's ``i``-th
   64-bit draw ``s_i``, selection runs on ``D`` then on ``D'``, then test runs
   on ``D`` then on ``D'``; the program's seed for run ``i`` is the first
   63-bit draw of ``random.Random(s_i)``;
2. every run is executed here, in chunks on a :class:`concurrent.futures.Executor`
   (a process pool by default; Dask's or Ray's executors work too, as does
   ``INLINE``), so that failures can be counted whatever the executor;
3. ``monte_carlo_audit`` is then called on a replay of those outcomes.

The result therefore depends on the seed only, not on the executor, its
workers or the chunk size.

Failures.  A run that raises (or whose output ``reduce`` rejects) is never
dropped: it becomes the outcome :class:`Failure` (``math.inf`` when the
events are thresholds on numbers, as is any other non-numeric outcome), which is part of the event space like any other
output -- a program that fails more often on ``D'`` than on ``D`` leaks
through its failures, and the audit may refute it for that.  But an audit
whose runs mostly fail says more about the set-up than about the claim, so
the audit stops with a :class:`~refdp.errors.DataError` when more than
``max_failure_rate`` of the runs on either data set fail (as soon as that is
certain), or when the first :data:`FAIL_FAST` runs all fail.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import math
import pickle
import random
import time
from dataclasses import dataclass
from typing import (
    Callable,
    Dict,
    Generic,
    Hashable,
    Iterable,
    List,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

from refdp.audit.montecarlo import MAX_TRIALS, TESTS, AuditResult, monte_carlo_audit, run_seeds, test_sides
from refdp.errors import DataError, InvalidParameterError
from refdp.privacy import Number
from refdp.rng import RandomSource

__all__ = [
    "INLINE",
    "PROCESS_POOL",
    "FAIL_FAST",
    "SEED_BITS",
    "Failure",
    "RunFailed",
    "ProgramAuditResult",
    "ProgramRuns",
    "RunDriver",
    "program_seeds",
    "audit_program",
]

X = TypeVar("X")
O = TypeVar("O")

INLINE = "inline"
"""``executor=INLINE``: run every run in this process, one after another."""
PROCESS_POOL = "process"
"""``executor=PROCESS_POOL`` (the default): a :class:`concurrent.futures.ProcessPoolExecutor` made for the audit."""
FAIL_FAST = 8
"""The audit stops when this many first runs (in seed order) all failed."""

SEED_BITS = 63
"""A program's seed is below 2**63: it fits a signed 64-bit integer (Java's long, C's int64_t, NumPy's seeds)."""
_DETAIL = 300  # characters of a failure's message kept


@dataclass(frozen=True)
class Failure:
    """The outcome of a run that gave no usable output.

    ``kind`` is ``"error"`` (the program raised or exited non-zero),
    ``"timeout"`` (it ran out of time) or ``"output"`` (its output could not
    be read or reduced).
    """

    kind: str

    def __repr__(self) -> str:
        return f"<failed: {self.kind}>"


class RunFailed(Exception):
    """Raised by a program wrapper to report a failed run of a given ``kind`` with a ``detail``."""

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(f"{kind}: {detail}")
        self.kind = kind
        self.detail = detail


@dataclass(frozen=True)
class ProgramAuditResult:
    """What :func:`audit_program` found.

    ``audit`` is :func:`monte_carlo_audit`'s result on the replayed outcomes
    (its ``wall_time`` is the whole audit's, runs included).  ``runs`` counts
    every run; ``failures`` is ``(failed runs on D, failed runs on D')`` and
    ``failure_kinds`` the failed runs by kind; ``first_failure`` describes the
    first failure in seed order ("" if none).  ``threshold_events`` says
    whether the events were thresholds on numbers.
    """

    audit: AuditResult
    runs: int
    failures: Tuple[int, int]
    failure_kinds: Tuple[Tuple[str, int], ...]
    first_failure: str
    threshold_events: bool

    @property
    def refuted(self) -> bool:
        """Whether the certified lower bound exceeds the claimed epsilon."""
        return self.audit.refuted

    def summary(self) -> str:
        """The audit's one-line summary followed by the run and failure counts."""
        failed = sum(self.failures)
        note = f"; first failure: {self.first_failure}" if failed else ""
        return (
            f"{self.audit.summary()}; {self.runs} program runs, {failed} failed "
            f"({self.failures[0]} on D, {self.failures[1]} on D'){note}"
        )


def program_seeds(seed: int, selection_trials: int, trials: int) -> List[int]:
    """The program's seed for each run, in the order selection-D, selection-D', test-D, test-D'.

    Run ``i`` gets the first 63-bit draw of ``random.Random(s_i)``, with
    ``s_i`` the seed :func:`refdp.audit.run_seeds` gives run ``i`` of
    ``monte_carlo_audit``.
    """
    return [random.Random(s).getrandbits(SEED_BITS) for s in run_seeds(seed, selection_trials, trials)]


Outcome = Hashable
Row = Tuple[Outcome, str]  # the outcome and, for a failure, what went wrong


@dataclass(frozen=True)
class ProgramRuns(Generic[X, O]):
    """One picklable unit of work: the program on ``data`` once per seed, failures caught.

    Each row is the reduced output, or a :class:`Failure` with what went wrong.
    A program with a ``run_batch(data, seeds)`` method gets the seeds at once
    and answers with a list holding each run's output or its
    :class:`RunFailed`.
    """

    program: Callable[[X, int], O]
    data: X
    reduce: Optional[Callable[[O], Hashable]]

    def __call__(self, seeds: Sequence[int]) -> List[Row]:
        run_batch = getattr(self.program, "run_batch", None)
        if run_batch is None:
            return [self.one(s) for s in seeds]
        # a program that runs a batch at once (refdp.audit.programs.BatchProgram) answers each seed
        # with its output or the RunFailed of that run
        return [
            (Failure(r.kind), r.detail[:_DETAIL]) if isinstance(r, RunFailed) else self._reduced(r)
            for r in run_batch(self.data, list(seeds))
        ]

    def one(self, seed: int) -> Row:
        try:
            output = self.program(self.data, seed)
        except RunFailed as failed:
            return Failure(failed.kind), failed.detail[:_DETAIL]
        except Exception as exc:  # any failure of a black box is an outcome, never a crash of the audit
            return Failure("error"), f"{type(exc).__name__}: {exc}"[:_DETAIL]
        return self._reduced(output)

    def _reduced(self, output: O) -> Row:
        if self.reduce is None:
            return _hashable(output)
        try:
            return _hashable(self.reduce(output))
        except Exception as exc:
            return Failure("output"), f"reduce: {type(exc).__name__}: {exc}"[:_DETAIL]


def _hashable(value: object) -> Row:
    try:
        hash(value)
    except TypeError:
        return Failure("output"), f"the output {value!r:.80} is not hashable; pass a reduce"
    return value, ""


@dataclass(frozen=True)
class _Replay:
    """A "mechanism" that looks a run's outcome up by the seed its random source would give the program."""

    outcomes: Dict[Tuple[int, int], Outcome]

    def __call__(self, side: int, rng: RandomSource) -> Outcome:
        key = (side, rng.getrandbits(SEED_BITS))
        try:
            return self.outcomes[key]
        except KeyError:
            raise AssertionError(
                "monte_carlo_audit no longer lays out its seeds as refdp.audit.external expects; "
                "update program_seeds"
            ) from None


def _is_number(outcome: Outcome) -> bool:
    return isinstance(outcome, (int, float)) and not isinstance(outcome, bool) and not math.isnan(outcome)


class RunDriver(Generic[X, O]):
    """Runs chunks on an executor in seed order, counting failures and stopping early when told to.

    ``sides`` names the data sets the runs are on (``per_side`` runs each);
    ``limit`` is what the error tells the user to raise when more than
    ``max_failure_rate`` of a side's runs fail.
    """

    def __init__(
        self,
        executor: Optional[concurrent.futures.Executor],
        chunk: int,
        per_side: int,
        max_failure_rate: float,
        progress: Optional[Callable[[int, int], None]],
        sides: Tuple[str, ...] = ("D", "D'"),
        limit: str = "max_failure_rate",
    ) -> None:
        self.executor = executor
        self.chunk = chunk
        self.per_side = per_side
        self.max_failure_rate = max_failure_rate
        self.progress = progress
        self.sides = sides
        self.limit = limit
        self.total = len(sides) * per_side
        self.done = 0
        self.failed = [0] * len(sides)
        self.kinds: Dict[str, int] = {}
        self.first_failure = ""
        self.all_failed_so_far = True

    def run(self, runs: ProgramRuns[X, O], side: int, seeds: Sequence[int]) -> List[Outcome]:
        pieces = [seeds[i : i + self.chunk] for i in range(0, len(seeds), self.chunk)]
        if self.executor is None:
            results: Iterable[List[Row]] = (runs(piece) for piece in pieces)
        else:
            futures = [self.executor.submit(runs, piece) for piece in pieces]
            results = (_result(f) for f in futures)
        outcomes: List[Outcome] = []
        for rows in results:
            for outcome, detail in rows:
                self._count(side, outcome, detail)
                outcomes.append(outcome)
            self.done += len(rows)
            if self.progress is not None:
                self.progress(self.done, self.total)
        return outcomes

    def _count(self, side: int, outcome: Outcome, detail: str) -> None:
        if not isinstance(outcome, Failure):
            self.all_failed_so_far = False
            return
        self.failed[side] += 1
        self.kinds[outcome.kind] = self.kinds.get(outcome.kind, 0) + 1
        if not self.first_failure:
            self.first_failure = f"{outcome.kind}: {detail}"
        if self.all_failed_so_far and sum(self.failed) >= FAIL_FAST:
            raise DataError(
                f"the first {sum(self.failed)} runs of the program all failed; fix the program or the command "
                f"first. First failure: {self.first_failure}"
            )
        if self.failed[side] > self.max_failure_rate * self.per_side:
            raise DataError(
                f"more than {self.max_failure_rate:g} of the {self.per_side} runs on {self.sides[side]} failed "
                f"({self._so_far(side)}): a verdict would be about the failures. Fix the program, raise the "
                f"time limit, or pass a larger {self.limit}. First failure: {self.first_failure}"
            )


    def _so_far(self, side: int) -> str:
        if self.all_failed_so_far:
            return f"every one of the {sum(self.failed)} runs so far failed"
        return f"{self.failed[side]} have failed so far"


def _result(future: "concurrent.futures.Future[List[Row]]") -> List[Row]:
    # ProgramRuns catches every exception of the program, so what reaches here is the executor's.
    try:
        return future.result()
    except (pickle.PicklingError, AttributeError, TypeError) as exc:
        raise InvalidParameterError(
            f"the program could not be sent to the executor ({exc}); use a module-level function "
            "or an instance of a module-level class, or executor=INLINE"
        ) from None


def _check_rate(value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise InvalidParameterError(f"max_failure_rate must be a number in [0, 1], got {value!r}")
    return float(value)


def _check_count(value: object, name: str, maximum: Optional[int] = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(f"{name} must be an int >= 1, got {value!r:.60}")
    if maximum is not None and value > maximum:
        raise InvalidParameterError(f"{name} must be at most {maximum}, got {value}")
    return value


def audit_program(
    program: Callable[[X, int], O],
    d: X,
    d_prime: X,
    *,
    epsilon: Number,
    delta: Number = 0,
    trials: int,
    selection_trials: Optional[int] = None,
    alpha: float = 1e-6,
    seed: int,
    reduce: Optional[Callable[[O], Hashable]] = None,
    threshold_events: Union[bool, str] = "auto",
    executor: Union[concurrent.futures.Executor, str] = PROCESS_POOL,
    chunk: int = 50,
    max_failure_rate: float = 0.1,
    progress: Optional[Callable[[int, int], None]] = None,
    test: str = "combined",
) -> ProgramAuditResult:
    """Audit the claim that ``program`` is (``epsilon``, ``delta``)-DP on the pair (``d``, ``d_prime``).

    ``program(data, seed)`` is called once per run with a 63-bit ``seed``
    (:func:`program_seeds`); it should return an output that is a function
    of the data and the seed, and raise on failure.  ``reduce`` maps an
    output to a hashable outcome (default: the output itself).
    ``threshold_events``: ``True`` for thresholds on numeric outcomes,
    ``False`` for sets of outcomes, ``"auto"`` (default) for thresholds when
    every outcome of the selection batch is a number -- a choice made on the
    selection batch only, so the test batch stays fresh.

    ``executor``: :data:`PROCESS_POOL` (default: a process pool made and shut
    down here), :data:`INLINE`, or any :class:`concurrent.futures.Executor`
    (used as is and not shut down, for example a Dask or Ray executor);
    with a pool, the program, the data and ``reduce`` must pickle.  Chunks
    of ``chunk`` runs are submitted; the result does not depend on either.

    ``trials``, ``selection_trials``, ``alpha``, ``seed`` and the verdict are
    as in :func:`refdp.audit.monte_carlo_audit`; failures as in the module
    docstring.  ``progress(done, total)`` is called after each chunk.

    Why 16 parameters: as :func:`refdp.audit.montecarlo.monte_carlo_audit`, plus how
    the program runs; each setting is keyword-only with a default, one per ``audit-cmd`` option.
    """
    started = time.perf_counter()
    n = _check_count(trials, "trials", MAX_TRIALS)
    m = n if selection_trials is None else _check_count(selection_trials, "selection_trials", MAX_TRIALS)
    _check_count(chunk, "chunk")
    rate = _check_rate(max_failure_rate)
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameterError(f"seed must be an int (it is reported so that the audit can be replayed), got {seed!r}")
    if threshold_events not in (True, False, "auto"):
        raise InvalidParameterError(f"threshold_events must be True, False or 'auto', got {threshold_events!r}")
    if isinstance(executor, str) and executor not in (INLINE, PROCESS_POOL):
        raise InvalidParameterError(
            f"executor must be {INLINE!r}, {PROCESS_POOL!r} or a concurrent.futures.Executor, got {executor!r}"
        )
    if not isinstance(executor, (str, concurrent.futures.Executor)):
        raise InvalidParameterError(
            f"executor must be {INLINE!r}, {PROCESS_POOL!r} or a concurrent.futures.Executor, got {executor!r}"
        )
    if test not in TESTS:
        raise InvalidParameterError(f"test must be one of {', '.join(TESTS)}, got {test!r}")
    seeds = program_seeds(seed, m, n)
    tested = list(zip(seeds[2 * m :], test_sides(seed, n, test)))
    layout = (
        (0, seeds[:m]), (1, seeds[m : 2 * m]),
        (0, [s for s, on_d in tested if on_d]), (1, [s for s, on_d in tested if not on_d]),
    )
    sides: Tuple[ProgramRuns[X, O], ProgramRuns[X, O]] = (ProgramRuns(program, d, reduce), ProgramRuns(program, d_prime, reduce))

    own = executor == PROCESS_POOL
    pool: Optional[concurrent.futures.Executor]
    if isinstance(executor, concurrent.futures.Executor):
        pool = executor
    else:
        pool = concurrent.futures.ProcessPoolExecutor() if own else None
    driver: RunDriver[X, O] = RunDriver(pool, chunk, m + n, rate, progress)
    table: Dict[Tuple[int, int], Outcome] = {}
    selection: List[Outcome] = []
    try:
        for k, (side, part) in enumerate(layout):
            outcomes = driver.run(sides[side], side, part)
            if k < 2:
                selection.extend(outcomes)
            table.update(((side, s), o) for s, o in zip(part, outcomes))
    finally:
        if own and pool is not None:
            pool.shutdown()

    if threshold_events == "auto":
        numeric = all(_is_number(o) for o in selection if not isinstance(o, Failure))
        numeric = numeric and any(not isinstance(o, Failure) for o in selection)
    else:
        numeric = bool(threshold_events)
    if numeric:
        # A failure (or any other non-number) counts as +inf: above every threshold, a
        # post-processing fixed before the runs like any other.
        table = {k: (o if _is_number(o) else math.inf) for k, o in table.items()}
    result = monte_carlo_audit(
        _Replay(table), 0, 1, epsilon=epsilon, delta=delta, trials=n, selection_trials=m, alpha=alpha,
        seed=seed, threshold_events=numeric, test=test,
    )
    result = dataclasses.replace(result, wall_time=time.perf_counter() - started)
    return ProgramAuditResult(
        audit=result,
        runs=2 * (m + n),
        failures=(driver.failed[0], driver.failed[1]),
        failure_kinds=tuple(sorted(driver.kinds.items())),
        first_failure=driver.first_failure,
        threshold_events=numeric,
    )
