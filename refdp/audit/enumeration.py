"""Exact enumeration of a learner's law on a pair of small data sets: every outcome of every mechanism call.

The learner runs again and again, each time with the outputs of its first
mechanism calls forced (:mod:`refdp.mechanisms.recording`) and stopped at
the next call, whose exact law given its input is then expanded outcome by
outcome -- on ``D`` and on its neighbour ``D'`` together, so that every
outcome gets its probability on both:

* the exponential mechanism: every candidate, with the exact sampler's
  probability (log-probabilities in floats, as :mod:`refdp.audit.exact`),
  or, for the float sampler, the exact rational chance that one
  ``rng.random()`` lands in the candidate's interval of the float
  cumulative sums;
* discrete Laplace noise: every value within ``window`` of the true
  counts of ``D`` and ``D'``; the mass left out is computed exactly and
  reported (the certified remainder);
* a Bernoulli row sample: every subset of the rows (small data sets only);
* calls with no randomness (k-suppression) run as they are; continuous
  Laplace noise, MCMC chains and DPEA's subtree sampler have no finite law
  here, and a learner that makes them cannot be enumerated.

Randomness that does not read the data replays from the seed, so the law
is the learner's law given those draws (they are public, and refdp's
learners release them in the model or its receipt).  A transcript that ends
gives a model file, and transcripts are grouped by the model's bytes: the
exact law of the released model, each probability known to within the
mass not enumerated.  When the whole law does not fit in ``budget`` runs,
the enumeration stops after the last level of calls that does, and an
outcome is then the first K mechanism outputs: their law is exact, and it
is the law of what the model shows when the model shows those outputs
(``proofs/exact-enumeration.md`` says what each result implies).
"""

from __future__ import annotations

import copy
import itertools
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, List, Optional, Sequence, Tuple, TypeVar

from refdp.audit.exact import log_sum_exp
from refdp.errors import InvalidParameterError
from refdp.mechanisms.recording import (
    BernoulliRowsLaw,
    Call,
    Deterministic,
    DiscreteLaplaceLaw,
    ExponentialLaw,
    FloatInversionLaw,
    Law,
    recording,
)
from refdp.rng import RandomSource

__all__ = ["DEFAULT_BUDGET", "DEFAULT_TAIL", "Enumeration", "Outcome", "enumerate_pair", "law_outcomes"]

T = TypeVar("T")

DEFAULT_BUDGET = 60_000
"""The most runs (each on D and on D') an enumeration makes unless told otherwise."""

DEFAULT_TAIL = Fraction(1, 1000)
"""The largest mass a discrete Laplace window leaves out, per cell."""

_MAX_SAMPLE_ROWS = 14  # a row sample of n rows has 2**n outcomes


class _Branch(BaseException):
    """Stops a forced run at the first call past the prefix (a BaseException: the code under test cannot catch it)."""

    def __init__(self, call: Call) -> None:
        super().__init__()
        self.call = call


@dataclass
class _Forcing:
    prefix: Sequence[Any]
    position: int = 0

    def call(self, call: Call, rng: RandomSource, draw: Callable[[], T]) -> T:
        if isinstance(call.law, Deterministic):
            return draw()
        if self.position < len(self.prefix):
            output = copy.deepcopy(self.prefix[self.position])
            self.position += 1
            return output  # type: ignore[no-any-return]
        raise _Branch(call)


def _run(fn: Callable[[object, RandomSource], Any], data: object, seed: int, prefix: Sequence[Any]) -> Tuple[str, Any]:
    """("done", output) when the run ends within ``prefix``, else ("call", the next Call)."""
    forcing = _Forcing(prefix)
    try:
        with recording(forcing):
            output = fn(data, random.Random(seed))
    except _Branch as branch:
        return "call", branch.call
    return "done", output


def _log(x: Fraction) -> float:
    return math.log(x.numerator) - math.log(x.denominator) if x > 0 else -math.inf


def _tail(scale: Fraction, width: int) -> Fraction:
    """An upper bound on P[|Z| > width] for Z ~ DLap(scale): 2 q^(width+1) / (1 + q), q = e^(-1/scale), bounded above."""
    q = math.exp(-1 / float(scale)) * (1 + 1e-12)
    return Fraction(2 * q ** (width + 1) / (1 + q)) * Fraction(1 + 10**-9)


def _width(scale: Fraction, tail: Fraction) -> int:
    width = 0
    while _tail(scale, width) > tail:
        width = max(1, width * 2)
    low, high = width // 2, width
    while low < high:
        middle = (low + high) // 2
        if _tail(scale, middle) > tail:
            low = middle + 1
        else:
            high = middle
    return high


def _float_interval_law(chances: Sequence[float]) -> List[Tuple[int, Fraction]]:
    """The exact law of :func:`refdp.mechanisms.sample_index`: U = k / 2**53, k uniform, inverted left to right."""
    unit = 2**53
    out: List[Tuple[int, Fraction]] = []
    cumulative, below, last = 0.0, 0, 0
    for i, p in enumerate(chances):
        if p > 0:
            cumulative += p
            last = i
            upper = min(unit, math.ceil(Fraction(cumulative) * unit))  # k with k / 2**53 < cumulative
            if upper > below:
                out.append((i, Fraction(upper - below, unit)))
                below = upper
    if below < unit:  # U at or above the full sum: the last index of positive probability
        merged = dict(out)
        merged[last] = merged.get(last, Fraction(0)) + Fraction(unit - below, unit)
        out = sorted(merged.items())
    return out


def law_outcomes(law: Law, window: Optional[Tuple[Tuple[int, int], ...]] = None) -> List[Tuple[Any, float]]:
    """(output, ln P) of every outcome of ``law`` (a discrete Laplace within ``window``, per cell: (low, high)).

    >>> law_outcomes(FloatInversionLaw((0.25, 0.75)))
    [(0, -1.3862943611198906), (1, -0.2876820724517809)]
    """
    if isinstance(law, FloatInversionLaw):
        return [(i, _log(p)) for i, p in _float_interval_law(law.chances)]
    if isinstance(law, ExponentialLaw):
        logs = [math.log(w) - float(g) if w > 0 else -math.inf for w, g in zip(law.weights, law.gammas)]
        total = log_sum_exp(logs)
        return [(i, lp - total) for i, lp in enumerate(logs) if lp > -math.inf]
    if isinstance(law, DiscreteLaplaceLaw):
        assert window is not None
        s = float(law.scale)
        log_norm = math.log(math.tanh(1 / (2 * s)))
        axes = [
            [(x, log_norm - float(Fraction(abs(x - c)) / law.scale)) for x in range(low, high + 1)]
            for c, (low, high) in zip(law.centres, window)
        ]
        out: List[Tuple[Any, float]] = []
        for combo in itertools.product(*axes):
            value = [x for x, _ in combo]
            out.append((value if law.vector else value[0], math.fsum(lp for _, lp in combo)))
        return out
    if isinstance(law, BernoulliRowsLaw):
        if law.n > _MAX_SAMPLE_ROWS:
            raise InvalidParameterError(
                f"a row sample of {law.n} rows has 2**{law.n} outcomes; enumerate data sets of at most "
                f"{_MAX_SAMPLE_ROWS} rows"
            )
        out = []
        for kept in itertools.product((False, True), repeat=law.n):
            chosen = [i for i, k in enumerate(kept) if k]
            lp = len(chosen) * law.log_p + (law.n - len(chosen)) * law.log_q if chosen or law.n else 0.0
            if law.p is not None:
                lp = _log(law.p ** len(chosen) * (1 - law.p) ** (law.n - len(chosen)))
            if lp > -math.inf:
                out.append((chosen, lp))
        return out
    raise InvalidParameterError(f"no finite law for {law!r}")


def _law_size(law: Optional[Law], window: Optional[Tuple[Tuple[int, int], ...]]) -> int:
    """How many outcomes :func:`law_outcomes` lists (without listing them)."""
    if law is None:
        return 0
    if isinstance(law, DiscreteLaplaceLaw):
        assert window is not None
        return math.prod(high - low + 1 for low, high in window)
    if isinstance(law, FloatInversionLaw):
        return len(law.chances)
    if isinstance(law, ExponentialLaw):
        return len(law.weights)
    if isinstance(law, BernoulliRowsLaw):
        return 2 ** min(law.n, 64)
    return 1


def _key(output: Any) -> Hashable:
    if isinstance(output, list):
        return tuple(_key(x) for x in output)
    if isinstance(output, dict):
        return tuple(sorted((repr(k), _key(v)) for k, v in output.items()))
    return output  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Outcome:
    """One outcome: a released model (``complete``) or the first outputs of a run, with both log-probabilities.

    ``low``/``high`` bound ``ln P_D - ln P_D'`` given the mass not enumerated
    (equal to the exact value for a prefix outcome, whose probability is a
    product of the calls' exact probabilities).
    """

    key: Hashable
    complete: bool
    log_d: float
    log_d_prime: float
    low: float
    high: float
    description: str


@dataclass
class Enumeration:
    """The two laws, what was left out, and the worst outcome."""

    outcomes_d: int = 0
    outcomes_d_prime: int = 0
    runs: int = 0
    complete: bool = True
    calls: int = 0
    remainder_d: float = 0.0
    remainder_d_prime: float = 0.0
    worst: Optional[Outcome] = None
    diverged: Optional[str] = None
    laws: Dict[Hashable, List[float]] = field(default_factory=dict)

    @property
    def certified_loss(self) -> float:
        """A certified lower bound on the pair's privacy loss (max over outcomes of the lower bounds)."""
        return -math.inf if self.worst is None else self.worst.low


@dataclass
class _Node:
    prefix: List[Any]
    log_d: float
    log_d_prime: float
    words: List[str]


def _windows(call_d: Optional[Call], call_d_prime: Optional[Call], tail: Fraction) -> Tuple[Tuple[int, int], ...]:
    laws = [c.law for c in (call_d, call_d_prime) if c is not None and isinstance(c.law, DiscreteLaplaceLaw)]
    first = laws[0]
    assert isinstance(first, DiscreteLaplaceLaw)
    width = _width(first.scale, tail)
    cells = []
    for j in range(len(first.centres)):
        centres = [law.centres[j] for law in laws if len(law.centres) == len(first.centres)]  # type: ignore[union-attr]
        cells.append((min(centres) - width, max(centres) + width))
    return tuple(cells)


def _law_of(call: Optional[Call]) -> Optional[Law]:
    if call is None:
        return None
    if call.law is None:
        raise InvalidParameterError(
            f"{call.describe()} has no finite law (continuous Laplace noise, an MCMC chain or DPEA's subtree "
            "sampler); exact enumeration needs discrete mechanisms"
        )
    return call.law


def enumerate_pair(
    fn: Callable[[object, RandomSource], Any],
    data: object,
    neighbour: object,
    *,
    seed: int,
    to_key: Callable[[Any], Hashable],
    budget: int = DEFAULT_BUDGET,
    tail: Fraction = DEFAULT_TAIL,
    describe: Callable[[Call, Any], str] = lambda call, output: f"{call.describe()} -> {output!r}",
) -> Enumeration:
    """The exact laws of ``fn`` on ``data`` and ``neighbour`` (outputs grouped by ``to_key``), breadth first.

    Each level expands every run's next call; when the next level would
    need more than ``budget`` runs in all, the enumeration stops and the
    unfinished runs' outcomes are their first outputs (``complete`` False).
    """
    result = Enumeration()
    level = [_Node([], 0.0, 0.0, [])]
    model_log: Dict[Hashable, List[List[float]]] = {}
    model_words: Dict[Hashable, str] = {}
    prefixes: List[_Node] = []
    left_d: List[float] = []
    left_d_prime: List[float] = []
    while level:
        expanded: List[_Node] = []
        pending: List[Tuple[_Node, Optional[Call], Optional[Call], Optional[Tuple[Tuple[int, int], ...]]]] = []
        size = 0
        for node in level:
            state_d = _run(fn, data, seed, node.prefix) if node.log_d > -math.inf else ("none", None)
            state_dp = _run(fn, neighbour, seed, node.prefix) if node.log_d_prime > -math.inf else ("none", None)
            result.runs += 1
            for side, (kind, value), log_p in ((0, state_d, node.log_d), (1, state_dp, node.log_d_prime)):
                if kind == "done":
                    key = to_key(value)
                    entry = model_log.setdefault(key, [[], []])
                    entry[side].append(log_p)
                    model_words.setdefault(key, "; ".join(node.words) or "(no mechanism call)")
            call_d = state_d[1] if state_d[0] == "call" else None
            call_dp = state_dp[1] if state_dp[0] == "call" else None
            if call_d is None and call_dp is None:
                continue
            if call_d is not None and call_dp is not None and call_d.signature() != call_dp.signature():
                result.diverged = result.diverged or (
                    f"after {len(node.prefix)} call(s) [{'; '.join(node.words) or 'none'}] D makes "
                    f"{call_d.describe()} and D' makes {call_dp.describe()}"
                )
            law_d, law_dp = _law_of(call_d), _law_of(call_dp)
            window = None
            if isinstance(law_d, DiscreteLaplaceLaw) or isinstance(law_dp, DiscreteLaplaceLaw):
                window = _windows(call_d, call_dp, tail)
            pending.append((node, call_d, call_dp, window))
            size += max(_law_size(law_d, window), _law_size(law_dp, window))
        if not pending:
            break
        if result.runs + size > budget:
            result.complete = False
            prefixes = [node for node, *_ in pending]
            break
        for node, call_d, call_dp, window in pending:
            outs_d = law_outcomes(call_d.law, window) if call_d is not None and call_d.law is not None else []
            outs_dp = law_outcomes(call_dp.law, window) if call_dp is not None and call_dp.law is not None else []
            result.calls += 1
            by_d = {_key(o): (o, lp) for o, lp in outs_d}
            by_dp = {_key(o): (o, lp) for o, lp in outs_dp}
            for law, side, log_p in ((call_d, 0, node.log_d), (call_dp, 1, node.log_d_prime)):
                if law is not None and isinstance(law.law, DiscreteLaplaceLaw):
                    listed = log_sum_exp(lp for _, lp in (outs_d if side == 0 else outs_dp))
                    missing = -math.expm1(listed) if listed < 0 else 0.0
                    (left_d if side == 0 else left_d_prime).append(log_p + math.log(max(missing, 1e-300)))
            call = call_d if call_d is not None else call_dp
            assert call is not None
            for key in list(by_d) + [k for k in by_dp if k not in by_d]:
                output = (by_d.get(key) or by_dp[key])[0]
                ld = node.log_d + by_d[key][1] if key in by_d else -math.inf
                ldp = node.log_d_prime + by_dp[key][1] if key in by_dp else -math.inf
                expanded.append(_Node(node.prefix + [output], ld, ldp, node.words + [describe(call, output)]))
        level = expanded
    result.remainder_d = math.exp(log_sum_exp(left_d)) if left_d else 0.0
    result.remainder_d_prime = math.exp(log_sum_exp(left_d_prime)) if left_d_prime else 0.0
    unexplored_d = math.exp(log_sum_exp(n.log_d for n in prefixes)) if prefixes else 0.0
    unexplored_dp = math.exp(log_sum_exp(n.log_d_prime for n in prefixes)) if prefixes else 0.0
    outcomes: List[Outcome] = []
    slack_d = result.remainder_d + unexplored_d
    slack_dp = result.remainder_d_prime + unexplored_dp
    for key, (logs_d, logs_dp) in model_log.items():
        ld, ldp = log_sum_exp(logs_d), log_sum_exp(logs_dp)
        outcomes.append(_bounded(key, True, ld, ldp, slack_d, slack_dp, model_words[key]))
    for node in prefixes:
        outcomes.append(Outcome(
            ("prefix",) + tuple(_key(o) for o in node.prefix), False, node.log_d, node.log_d_prime,
            *_exact_gap(node.log_d, node.log_d_prime), "; ".join(node.words),
        ))
    result.outcomes_d = sum(1 for o in outcomes if o.log_d > -math.inf)
    result.outcomes_d_prime = sum(1 for o in outcomes if o.log_d_prime > -math.inf)
    for outcome in outcomes:
        if -outcome.high > outcome.low:  # the other direction is the larger: P_D'(o) over P_D(o)
            outcome = Outcome(
                outcome.key, outcome.complete, outcome.log_d_prime, outcome.log_d, -outcome.high, -outcome.low,
                outcome.description + " [D' over D]",
            )
        if result.worst is None or outcome.low > result.worst.low:
            result.worst = outcome
    return result


def _exact_gap(log_d: float, log_d_prime: float) -> Tuple[float, float]:
    if log_d == -math.inf and log_d_prime == -math.inf:
        return 0.0, 0.0
    gap = log_d - log_d_prime if log_d > -math.inf and log_d_prime > -math.inf else (
        math.inf if log_d > -math.inf else -math.inf
    )
    return gap, gap


def _bounded(
    key: Hashable, complete: bool, ld: float, ldp: float, slack_d: float, slack_dp: float, words: str
) -> Outcome:
    """The bounds on ln P_D(o) - ln P_D'(o) when each probability may be larger by the mass not enumerated."""
    def upper(log_p: float, slack: float) -> float:
        return log_sum_exp([log_p, math.log(slack)]) if slack > 0 else log_p

    low = ld - upper(ldp, slack_dp) if ld > -math.inf else -math.inf
    high = upper(ld, slack_d) - ldp if ldp > -math.inf else math.inf
    if ld == -math.inf and ldp > -math.inf:
        low = -math.inf
    return Outcome(key, complete, ld, ldp, low, high, words)

