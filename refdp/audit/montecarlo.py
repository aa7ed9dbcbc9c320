"""Black-box Monte-Carlo audit: a certified lower bound on a mechanism's epsilon.

:func:`monte_carlo_audit` runs a mechanism many times on two neighbouring
inputs ``D`` and ``D'`` and reports a number that, with probability at least
``1 - alpha``, is at most the mechanism's true epsilon on that pair (claim
``empirical-epsilon-lower-bound``).  If it exceeds the claimed epsilon, the
claim is refuted.

It works in two batches with disjoint randomness:

1. *selection*: ``selection_trials`` runs per side choose an event ``E`` (a
   set of outcomes, or a threshold ``{o > t}`` / ``{o <= t}`` for numeric
   outputs) and a direction, the one whose estimated ratio promises the
   largest bound;
2. *test*: ``2 trials`` fresh runs, each on ``D`` or ``D'`` by a fair coin,
   count ``k1`` hits of ``E`` on the numerator side and ``k2`` on the other.
   The conditional bound is the logit of the Clopper-Pearson lower limit of
   the share of hits from the numerator side (:mod:`refdp.audit.conditional`,
   claim ``conditional-ratio-test``): fewer runs than two limits for events
   of small probability.  The two-limit bound is
   ``ln((CP_lower(k1) - delta) / CP_upper(k2))`` with one-sided
   Clopper-Pearson limits (claim ``empirical-epsilon-lower-bound``):
   better for events of large probability.  ``test="combined"`` (default)
   reports the larger of the two, each at ``alpha/2``; ``"conditional"`` and
   ``"clopper-pearson"`` (this one with ``trials`` runs per side, no coins)
   use one at ``alpha``.

The test batch must not be the selection batch: the event that looks most
lopsided on a batch is lopsided partly by chance, and reusing the batch would
certify that chance (the proof explains).

Replay: run ``i`` gets its own ``random.Random`` seeded with the ``i``-th
64-bit draw of ``random.Random(seed)`` (:func:`run_seeds`: selection runs on
``D``, then on ``D'``, then test runs on ``D``, then on ``D'``).  Results are
therefore the same with or without an executor, whatever its scheduling and
``chunk``.
With a :class:`concurrent.futures.ProcessPoolExecutor` the mechanism, the
inputs and ``reduce`` are pickled: use module-level functions or instances of
module-level classes, not lambdas or closures.
"""

from __future__ import annotations

import bisect
import concurrent.futures
import functools
import math
import random
import statistics
import time
from dataclasses import dataclass
from typing import (
    Callable,
    Dict,
    FrozenSet,
    Generic,
    Hashable,
    List,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

from refdp.audit.conditional import assign_sides, conditional_detectable_epsilon, conditional_lower_bound, delta_allowance
from refdp.audit.sample_size import certified_lower_bound, detectable_epsilon
from refdp.errors import InvalidParameterError
from refdp.privacy import Number, as_delta, as_fraction
from refdp.rng import RandomSource
from refdp.stats import binomial_cdf, binomial_sf

__all__ = [
    "OutcomeSet",
    "Threshold",
    "Event",
    "AuditResult",
    "monte_carlo_audit",
    "run_seeds",
    "D_OVER_D_PRIME",
    "D_PRIME_OVER_D",
    "TESTS",
    "detectable",
    "test_sides",
]

TESTS = ("combined", "conditional", "clopper-pearson")
"""The statistical tests of the test batch: the larger of the conditional and the two-limit bound at
alpha/2 each (default), one conditional binomial limit, or two Clopper-Pearson limits."""

X = TypeVar("X")
O = TypeVar("O")
R = TypeVar("R")

D_OVER_D_PRIME = "P[M(D) in E] / P[M(D') in E]"
"""Direction: the bound is on ``ln(P[M(D) in E] / P[M(D') in E])``."""
D_PRIME_OVER_D = "P[M(D') in E] / P[M(D) in E]"
"""Direction: the bound is on ``ln(P[M(D') in E] / P[M(D) in E])``."""

_SHOWN = 8  # outcomes listed in an event's description


@dataclass(frozen=True)
class OutcomeSet:
    """The event "the reduced output is one of ``outcomes``"."""

    outcomes: FrozenSet[Hashable]

    def __contains__(self, outcome: object) -> bool:
        return outcome in self.outcomes

    def describe(self) -> str:
        """The outcomes, sorted where they can be, at most eight of them shown."""
        try:
            ordered: List[Hashable] = sorted(self.outcomes)  # type: ignore[type-var]
        except TypeError:
            ordered = sorted(self.outcomes, key=repr)
        shown = ", ".join(repr(o) for o in ordered[:_SHOWN])
        more = f", ... ({len(ordered)} outcomes)" if len(ordered) > _SHOWN else ""
        return f"output in {{{shown}{more}}}"


@dataclass(frozen=True)
class Threshold:
    """The event ``{o > threshold}`` (``above``) or ``{o <= threshold}`` on a numeric output."""

    threshold: float
    above: bool

    def __contains__(self, outcome: object) -> bool:
        if isinstance(outcome, bool) or not isinstance(outcome, (int, float)):
            raise InvalidParameterError(
                f"threshold events need numeric outputs, but reduce gave {outcome!r}; "
                "make reduce return a float or use threshold_events=False"
            )
        return outcome > self.threshold if self.above else outcome <= self.threshold

    def describe(self) -> str:
        """``output > t`` or ``output <= t``."""
        return f"output {'>' if self.above else '<='} {self.threshold!r}"


Event = Union[OutcomeSet, Threshold]


@dataclass(frozen=True)
class AuditResult:
    """What a Monte-Carlo audit found; every number needed to check or replay it.

    ``k1`` of ``n1`` numerator-side runs and ``k2`` of ``n2`` denominator-side
    runs fell in the event (``direction`` says which side is which).
    ``lower_bound`` is the certified bound at confidence ``1 - alpha``
    (``-inf`` when ``CP_lower(k1) <= delta``); ``refuted`` is ``lower_bound > epsilon``.
    ``detectable_epsilon`` is the smallest true epsilon these ``trials``
    would have detected with probability >= 0.999 for an event with the
    observed denominator probability ``k2/n2`` (``inf`` if none or if
    ``k2`` is 0 or ``n2``).  ``wall_time`` is in seconds.
    """

    event: str
    chosen_event: Event
    direction: str
    k1: int
    n1: int
    k2: int
    n2: int
    point_estimate: float
    lower_bound: float
    epsilon: float
    delta: float
    alpha: float
    refuted: bool
    seed: int
    trials: int
    selection_trials: int
    wall_time: float
    detectable_epsilon: float
    test: str = "combined"

    def summary(self) -> str:
        """One line with every number, for logs and assertion messages."""
        verdict = "REFUTED" if self.refuted else "not refuted"
        return (
            f"{verdict}: claimed epsilon={self.epsilon!r} delta={self.delta!r}; event {self.event}; "
            f"{self.direction}: k1={self.k1}/{self.n1}, k2={self.k2}/{self.n2}; point estimate "
            f"{self.point_estimate:.4f}; certified lower bound {self.lower_bound:.4f} at confidence "
            f"1-{self.alpha:g} ({self.test} test); detectable epsilon {self.detectable_epsilon:.4f}; "
            f"seed={self.seed}, "
            f"selection_trials={self.selection_trials}, trials={self.trials}, "
            f"{self.wall_time:.2f} s"
        )


@dataclass(frozen=True)
class _Runner(Generic[X, O]):
    """One picklable unit of work: run the mechanism on ``data`` once per seed."""

    mechanism: Callable[[X, RandomSource], O]
    data: X
    reduce: Optional[Callable[[O], Hashable]]

    def outcome(self, seed: int) -> Hashable:
        output = self.mechanism(self.data, random.Random(seed))
        return output if self.reduce is None else self.reduce(output)

    def outcomes(self, seeds: Sequence[int]) -> List[Hashable]:
        return [self.outcome(s) for s in seeds]

    def hits(self, event: Event, seeds: Sequence[int]) -> int:
        return sum(1 for s in seeds if self.outcome(s) in event)


MAX_TRIALS = 10**7
"""The most runs per side an audit accepts: its seeds and outcomes are kept in memory (about 1 GB at this bound)."""


def _positive_int(value: object, name: str, maximum: Optional[int] = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InvalidParameterError(f"{name} must be an int >= 1, got {value!r:.60}")
    if maximum is not None and value > maximum:
        raise InvalidParameterError(f"{name} must be at most {maximum}, got {value}")
    return value


class _Batches:
    """Runs chunks in order, inline or on an executor, and reports progress."""

    def __init__(
        self,
        executor: Optional[concurrent.futures.Executor],
        chunk: int,
        total: int,
        progress: Optional[Callable[[int, int], None]],
    ) -> None:
        self.executor = executor
        self.chunk = chunk
        self.total = total
        self.done = 0
        self.progress = progress

    def _advance(self, runs: int) -> None:
        self.done += runs
        if self.progress is not None:
            self.progress(self.done, self.total)

    def map(self, work: Callable[[Sequence[int]], R], seeds: Sequence[int]) -> List[R]:
        pieces = [seeds[i : i + self.chunk] for i in range(0, len(seeds), self.chunk)]
        results: List[R] = []
        if self.executor is None:
            for piece in pieces:
                results.append(work(piece))
                self._advance(len(piece))
            return results
        futures = [self.executor.submit(work, piece) for piece in pieces]
        for piece, future in zip(pieces, futures):
            results.append(future.result())
            self._advance(len(piece))
        return results


# Below this many successes (or failures) a Clopper-Pearson limit is cheap to
# compute and the normal approximation is poor; above it the reverse.
_EXACT_BELOW = 100


@functools.lru_cache(maxsize=4096)
def _limit(hits: int, n: int, beta: float, upper: bool) -> float:
    """An approximate one-sided Clopper-Pearson limit at error ``beta``, for ranking events only.

    Clopper-Pearson to within 2**-40 (bisection on the exact binomial tail)
    for counts near 0 or n, where the normal approximation is poor; the
    Wilson score limit elsewhere, where it is close and much cheaper.
    """
    if upper and hits == n:
        return 1.0
    if not upper and hits == 0:
        return 0.0
    if min(hits, n - hits) >= _EXACT_BELOW:
        z = statistics.NormalDist().inv_cdf(1 - beta)
        p = hits / n
        centre = p + z * z / (2 * n)
        spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
        return (centre + spread if upper else centre - spread) / (1 + z * z / n)
    lo, hi = 0.0, 1.0
    for _ in range(40):
        mid = (lo + hi) / 2
        # Upper limit: P_p[K <= hits] falls with p; lower limit: P_p[K >= hits] rises with p.
        below = binomial_cdf(hits, n, mid) > beta if upper else binomial_sf(hits - 1, n, mid) <= beta
        lo, hi = (mid, hi) if below else (lo, mid)
    return hi if upper else lo


def _projected_bound(a: float, b: float, m: int, n: int, alpha: float, delta: float, test: str) -> float:
    """The bound expected from ``n`` test runs per side if the selection frequencies ``a/m``, ``b/m`` held."""
    if test == "combined":
        return max(
            _projected_bound(a, b, m, n, alpha / 2, delta, "conditional"),
            _projected_bound(a, b, m, n, alpha / 2, delta, "clopper-pearson"),
        )
    k1 = min(n, round(a / m * n))
    k2 = min(n, round(b / m * n))
    if test == "conditional":
        q = _allowance(2 * n, delta, alpha)
        j = k1 - q
        if j <= 0:
            return -math.inf
        theta = _limit(j, j + k2, alpha if q == 0 and delta == 0 else alpha / 2, False)
        return math.log(theta) - math.log1p(-theta) if 0.0 < theta < 1.0 else (math.inf if theta >= 1 else -math.inf)
    lower = _limit(k1, n, alpha / 2, False) - delta
    if lower <= 0:
        return -math.inf
    return math.log(lower) - math.log(_limit(k2, n, alpha / 2, True))


@functools.lru_cache(maxsize=64)
def _allowance(n: int, delta: float, alpha: float) -> int:
    return delta_allowance(n, delta, alpha)


Candidate = Tuple[float, Event, str]


def _best_set_event(
    first: List[Hashable], second: List[Hashable], n: int, alpha: float, delta: float, test: str
) -> Candidate:
    """The best superlevel set of the estimated likelihood ratio, in either direction.

    Neyman-Pearson: for a fixed direction, the most lopsided events of a given
    probability are the outcomes of highest ratio; the prefixes of the
    outcomes sorted by estimated ratio are those sets.  Each outcome's
    denominator count gets one pseudo-count (Laplace's rule of succession):
    an outcome seen once on the numerator side and never on the other is
    more likely a rare outcome of both than a leak, and adding it to an event
    whose denominator count is 0 would cost far more than it gains.
    """
    m = len(first)
    counts: Dict[Hashable, List[int]] = {}
    for o in first:
        counts.setdefault(o, [0, 0])[0] += 1
    for o in second:
        counts.setdefault(o, [0, 0])[1] += 1
    best: Optional[Tuple[float, List[Hashable], int, str]] = None
    for num, den, direction in ((0, 1, D_OVER_D_PRIME), (1, 0, D_PRIME_OVER_D)):
        ordered = sorted(
            counts, key=lambda o: (counts[o][num] / (counts[o][den] + 1), counts[o][num]), reverse=True
        )
        a = b = 0
        for length, o in enumerate(ordered, start=1):
            a += counts[o][num]
            b += counts[o][den] + 1
            score = _projected_bound(a, b, m, n, alpha, delta, test)
            if best is None or score > best[0]:
                best = (score, ordered, length, direction)
    assert best is not None  # at least one outcome was seen
    score, ordered, length, direction = best
    return score, OutcomeSet(frozenset(ordered[:length])), direction


def _numeric(outcomes: List[Hashable]) -> List[float]:
    for o in outcomes:
        if isinstance(o, bool) or not isinstance(o, (int, float)) or math.isnan(o):
            raise InvalidParameterError(
                f"threshold_events=True needs numeric outputs, but reduce gave {o!r}; "
                "make reduce return a float"
            )
    return sorted(float(o) for o in outcomes)  # type: ignore[arg-type]


def _best_threshold_event(
    first: List[Hashable], second: List[Hashable], n: int, alpha: float, delta: float, test: str
) -> Candidate:
    """The best event ``{o > t}`` or ``{o <= t}``, ``t`` a percentile of the pooled batch."""
    xs, ys = _numeric(first), _numeric(second)
    m = len(xs)
    pooled = sorted(xs + ys)
    thresholds = sorted({pooled[min(len(pooled) - 1, (len(pooled) * q) // 100)] for q in range(1, 100)})
    candidates: List[Candidate] = []
    for t in thresholds:
        at_most = (bisect.bisect_right(xs, t), bisect.bisect_right(ys, t))
        for above in (True, False):
            hits = (m - at_most[0], m - at_most[1]) if above else at_most
            event = Threshold(t, above)
            # One pseudo-count on the denominator side, as in _best_set_event.
            candidates.append(
                (_projected_bound(hits[0], hits[1] + 1, m, n, alpha, delta, test), event, D_OVER_D_PRIME)
            )
            candidates.append(
                (_projected_bound(hits[1], hits[0] + 1, m, n, alpha, delta, test), event, D_PRIME_OVER_D)
            )
    # max() keeps the first of equal scores, and candidates come in a fixed order.
    return max(candidates, key=lambda c: c[0])


def detectable(test: str, n: int, epsilon: Number, p_event: float, alpha: float, delta: float) -> float:
    """The true epsilon ``n`` test runs per side detect (power 0.999) on an event of probability ``p_event``."""
    if test == "combined":
        return min(detectable("conditional", n, epsilon, p_event, alpha / 2, delta),
                   detectable("clopper-pearson", n, epsilon, p_event, alpha / 2, delta))
    if test == "conditional":
        return conditional_detectable_epsilon(2 * n, epsilon, p_event, alpha=alpha, delta=delta)
    return detectable_epsilon(n, epsilon, p_event, alpha=alpha, delta=delta)


def test_sides(seed: int, trials: int, test: str) -> List[bool]:
    """Which data set each of the ``2 trials`` test runs uses (True: ``D``), in run order.

    Fair coins from ``random.Random("refdp-audit-sides-" + seed)``, except
    under ``test="clopper-pearson"``: the first ``trials`` runs on ``D``, the
    others on ``D'``.
    """
    if test == "clopper-pearson":
        return [True] * trials + [False] * trials
    return assign_sides(2 * trials, random.Random(f"refdp-audit-sides-{seed}"))


def run_seeds(seed: int, selection_trials: int, trials: int) -> List[int]:
    """The seed of each run's ``random.Random``: the 64-bit draws of ``random.Random(seed)`` in run order.

    The order is ``selection_trials`` selection runs on ``D``, as many on
    ``D'``, then ``trials`` test runs on ``D`` and as many on ``D'``.
    :func:`refdp.audit.program_seeds` derives a program's seeds from these.
    """
    master = random.Random(seed)
    return [master.getrandbits(64) for _ in range(2 * selection_trials + 2 * trials)]


def monte_carlo_audit(
    mechanism: Callable[[X, RandomSource], O],
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
    threshold_events: bool = False,
    executor: Optional[concurrent.futures.Executor] = None,
    chunk: int = 1000,
    progress: Optional[Callable[[int, int], None]] = None,
    test: str = "combined",
    event: Optional[Event] = None,
    direction: str = D_OVER_D_PRIME,
) -> AuditResult:
    """Audit the claim that ``mechanism`` is (``epsilon``, ``delta``)-DP on the pair (``d``, ``d_prime``).

    ``mechanism(x, rng)`` is called with a fresh ``random.Random`` per run;
    ``reduce`` (default: none, the output itself) maps an output to a
    hashable outcome -- the noisy count, the tree's structure, a predicted
    label.  ``selection_trials`` (default: ``trials``) runs per side choose
    the event; ``trials`` fresh runs per side test it.  With
    ``threshold_events=True`` the reduced outputs must be numbers and the
    events are thresholds at the selection batch's percentiles; otherwise
    they are sets of outcomes (superlevel sets of the estimated ratio).
    Candidate events are ranked by the bound they promise on ``trials`` test
    runs, with one pseudo-count per outcome on the denominator side so that
    rare outcomes are not mistaken for leaks; a mechanism with very many
    rare outputs (a whole tree) needs a coarser ``reduce``.

    The bound holds at confidence ``1 - alpha`` for the chosen event: under
    ``test="conditional"`` (default) the ``2 trials`` test runs go to ``D``
    or ``D'`` by fair coins and one Clopper-Pearson limit bounds the share
    of hits (:mod:`refdp.audit.conditional`); under ``"clopper-pearson"``
    each side gets ``trials`` runs and two limits at ``alpha/2`` each (see
    :mod:`refdp.audit.sample_size`).  ``executor`` runs chunks of ``chunk``
    runs in parallel without changing the result; ``progress(done, total)``
    is called after each chunk.  Use
    :func:`refdp.audit.sample_size.required_trials` to choose ``trials``.

    Why 17 parameters: the claim (mechanism, pair, epsilon, delta), then the audit's
    settings (trials, alpha, seed, events, executor, chunk, progress, ...), each
    keyword-only, so that a call names every setting it changes.
    """
    started = time.perf_counter()
    eps = as_fraction(epsilon, "epsilon")
    if eps < 0:
        raise InvalidParameterError(f"epsilon must be >= 0, got {epsilon!r}")
    dlt = float(as_delta(delta))
    n = _positive_int(trials, "trials", MAX_TRIALS)
    if event is not None:
        if direction not in (D_OVER_D_PRIME, D_PRIME_OVER_D):
            raise InvalidParameterError(f"direction must be one of the two ratios, got {direction!r}")
        m = 0
    else:
        m = n if selection_trials is None else _positive_int(selection_trials, "selection_trials", MAX_TRIALS)
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not 0 < alpha < 1:
        raise InvalidParameterError(f"alpha must be a float in (0, 1), for example 1e-6; got {alpha!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameterError(f"seed must be an int (it is reported so that the audit can be replayed), got {seed!r}")
    _positive_int(chunk, "chunk")
    if test not in TESTS:
        raise InvalidParameterError(f"test must be one of {', '.join(TESTS)}, got {test!r}")

    seeds = run_seeds(seed, m, n)
    on_d: _Runner[X, O] = _Runner(mechanism, d, reduce)
    on_d_prime: _Runner[X, O] = _Runner(mechanism, d_prime, reduce)
    batches = _Batches(executor, chunk, len(seeds), progress)

    if event is None:
        first = [o for part in batches.map(on_d.outcomes, seeds[:m]) for o in part]
        second = [o for part in batches.map(on_d_prime.outcomes, seeds[m : 2 * m]) for o in part]
        choose = _best_threshold_event if threshold_events else _best_set_event
        _, event, direction = choose(first, second, n, float(alpha), dlt, test)

    tested = seeds[2 * m :]
    sides = test_sides(seed, n, test)
    on_d_seeds = [s for s, side in zip(tested, sides) if side]
    on_d_prime_seeds = [s for s, side in zip(tested, sides) if not side]
    hits_d = sum(batches.map(functools.partial(on_d.hits, event), on_d_seeds))
    hits_d_prime = sum(batches.map(functools.partial(on_d_prime.hits, event), on_d_prime_seeds))
    forward = direction == D_OVER_D_PRIME
    k1, k2 = (hits_d, hits_d_prime) if forward else (hits_d_prime, hits_d)
    n1, n2 = (len(on_d_seeds), len(on_d_prime_seeds)) if forward else (len(on_d_prime_seeds), len(on_d_seeds))

    if test == "conditional":
        bound = conditional_lower_bound(k1, k2, len(tested), alpha=alpha, delta=dlt)
    elif test == "combined":
        # Each bound at alpha/2: the larger exceeds the truth with probability at most alpha (union bound).
        bound = max(
            conditional_lower_bound(k1, k2, len(tested), alpha=alpha / 2, delta=dlt),
            certified_lower_bound(k1, n1, k2, n2, alpha=alpha / 2, delta=dlt),
        )
    else:
        bound = certified_lower_bound(k1, n1, k2, n2, alpha=alpha, delta=dlt)
    if k1 == 0:
        point = -math.inf
    elif k2 == 0:
        point = math.inf
    else:
        point = math.log(k1 / n1) - math.log(k2 / n2)
    reach = math.inf if k2 in (0, n2) else detectable(test, n, eps, k2 / n2, float(alpha), dlt)
    return AuditResult(
        event=event.describe(),
        chosen_event=event,
        direction=direction,
        k1=k1,
        n1=n1,
        k2=k2,
        n2=n2,
        point_estimate=point,
        lower_bound=bound,
        epsilon=float(eps),
        delta=dlt,
        alpha=float(alpha),
        refuted=bound > float(eps),
        seed=seed,
        trials=n,
        selection_trials=m,
        wall_time=time.perf_counter() - started,
        detectable_epsilon=reach,
        test=test,
    )
