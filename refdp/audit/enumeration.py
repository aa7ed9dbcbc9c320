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
(``proofs/exact-enumeration.md`` says what each result implies).  Of a
level that does not fit, the runs whose next call's input moves between D
and D' by more than its declared sensitivity go on, the largest excess
first, as far as the budget allows; the others stop there (their outcome is
their shorter prefix, still exact).
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
    LaplaceLaw,
    Law,
    Scalar,
    Utilities,
    exact_value,
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
    shown: List[Hashable] = field(default_factory=list)
    hidden: bool = False  # an output drawn and not released (a row sample) is among the forced ones

    def call(self, call: Call, rng: RandomSource, draw: Callable[[], T]) -> T:
        if isinstance(call.law, Deterministic):
            output = draw()
        elif self.position < len(self.prefix):
            output = copy.deepcopy(self.prefix[self.position])
            self.position += 1
            self.hidden = self.hidden or not call.released
        else:
            raise _Branch(call)
        if call.released:
            self.shown.append(_key(output))
        return output


@dataclass(frozen=True)
class _State:
    """Where a forced run got: its output (``done``) or the next call, and the outputs it released so far."""

    done: bool
    value: Any
    shown: Tuple[Hashable, ...]
    hidden: bool = False


def _run(fn: Callable[[Any, RandomSource], Any], data: Any, seed: int, prefix: Sequence[Any]) -> _State:
    forcing = _Forcing(prefix)
    try:
        with recording(forcing):
            output = fn(data, random.Random(seed))
    except _Branch as branch:
        return _State(False, branch.call, tuple(forcing.shown), forcing.hidden)
    return _State(True, output, tuple(forcing.shown), forcing.hidden)


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

    >>> [(output, round(log_p, 9)) for output, log_p in law_outcomes(FloatInversionLaw((0.25, 0.75)))]
    [(0, -1.386294361), (1, -0.287682072)]
    """
    if isinstance(law, FloatInversionLaw):
        return [(i, _log(p)) for i, p in _float_interval_law(law.chances)]
    if isinstance(law, ExponentialLaw):
        logs = [math.log(w) - float(law.gamma(r)) if w > 0 else -math.inf for r, w in enumerate(law.weights)]
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
        return int(2 ** min(law.n, 64))
    return 1


def _key(output: Any) -> Hashable:
    if isinstance(output, list):
        return tuple(_key(x) for x in output)
    if isinstance(output, dict):
        return tuple(sorted((repr(k), _key(v)) for k, v in output.items()))
    return output  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Outcome:
    """One outcome: a released model (``complete``) or what the first calls released, with both log-probabilities.

    ``low``/``high`` bound ``ln P_D(o) - ln P_D'(o)`` given the mass not
    enumerated; ``description`` names the calls and outputs that led to it.
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

    outcomes: List[Outcome] = field(default_factory=list)
    runs: int = 0
    complete: bool = True
    calls: int = 0
    depth: int = 0
    remainder_d: float = 0.0
    remainder_d_prime: float = 0.0
    unexplored_d: float = 0.0
    unexplored_d_prime: float = 0.0
    worst: Optional[Outcome] = None
    diverged: Optional[str] = None
    partial: int = 0  # levels expanded only where a call breaks its declared sensitivity

    @property
    def outcomes_d(self) -> int:
        return sum(1 for o in self.outcomes if o.log_d > -math.inf)

    @property
    def outcomes_d_prime(self) -> int:
        return sum(1 for o in self.outcomes if o.log_d_prime > -math.inf)

    @property
    def certified_loss(self) -> float:
        """A certified lower bound on the pair's privacy loss (max over outcomes and directions)."""
        return -math.inf if self.worst is None else self.worst.low

    def certified_delta(self, epsilon: float) -> float:
        """A certified lower bound on max_E P(E) - e^epsilon Q(E), over both directions (the hockey stick)."""
        best = 0.0
        for flip in (False, True):
            gained, paid = [], []
            for o in self.outcomes:
                a, b = (o.log_d_prime, o.log_d) if flip else (o.log_d, o.log_d_prime)
                if a > -math.inf and a > epsilon + b:
                    gained.append(a)
                    paid.append(b)
            slack = (self.remainder_d + self.unexplored_d) if flip else (self.remainder_d_prime + self.unexplored_d_prime)
            if gained:
                mass = math.exp(log_sum_exp(gained))
                other = math.exp(log_sum_exp(paid)) + slack
                best = max(best, mass - math.exp(epsilon) * other)
        return best


@dataclass
class _Node:
    prefix: List[Any]
    log_d: float
    log_d_prime: float
    words: List[str]


def _windows(call_d: Optional[Call], call_d_prime: Optional[Call], tail: Fraction) -> Tuple[Tuple[int, int], ...]:
    laws = [c.law for c in (call_d, call_d_prime) if c is not None and isinstance(c.law, DiscreteLaplaceLaw)]
    first = laws[0]
    width = _width(first.scale, tail)
    cells = []
    for j in range(len(first.centres)):
        centres = [law.centres[j] for law in laws if len(law.centres) == len(first.centres)]
        cells.append((min(centres) - width, max(centres) + width))
    return tuple(cells)


def _law_of(call: Optional[Call]) -> Optional[Law]:
    if call is None:
        return None
    if call.law is None or isinstance(call.law, LaplaceLaw):
        raise InvalidParameterError(
            f"{call.describe()} has no finite law (continuous Laplace noise, an MCMC chain or DPEA's subtree "
            "sampler); exact enumeration needs discrete mechanisms"
        )
    return call.law


class _Laws:
    """Outcome keys with their log-probabilities on each side (several runs may give one key)."""

    def __init__(self) -> None:
        self.logs: Dict[Hashable, Tuple[List[float], List[float]]] = {}
        self.words: Dict[Hashable, str] = {}
        self.complete: Dict[Hashable, bool] = {}

    def add(self, key: Hashable, side: int, log_p: float, complete: bool, words: str) -> None:
        entry = self.logs.setdefault(key, ([], []))
        entry[side].append(log_p)
        self.words.setdefault(key, words)
        self.complete[key] = complete


Pending = Tuple["_Node", Optional[Call], Optional[Call], Optional[Tuple[Tuple[int, int], ...]]]


def _excess(call_d: Optional[Call], call_dp: Optional[Call]) -> float:
    """How far the next call's input moves between D and D', over its declared sensitivity (0 when not known).

    >>> from refdp.mechanisms.recording import Utilities
    >>> from refdp.privacy import Relation
    >>> def call(u):
    ...     return Call("exponential", "split", (), Fraction(1), Fraction(0), Fraction(1, 4), Relation.ADD_REMOVE, (), (),
    ...                 Utilities(u), None)
    >>> _excess(call((0, 1)), call((0, 2)))
    4.0
    """
    if call_d is None or call_dp is None or call_d.sensitivity is None or call_d.sensitivity <= 0:
        return 0.0
    a, b = call_d.input, call_dp.input
    pairs: List[Tuple[Any, Any]]
    if isinstance(a, Utilities) and isinstance(b, Utilities) and len(a.values) == len(b.values):
        pairs = list(zip(a.values, b.values))
    elif isinstance(a, Scalar) and isinstance(b, Scalar):
        pairs = [(a.value, b.value)]
    else:
        return 0.0
    change = max(abs(float(exact_value(y) - exact_value(x))) for x, y in pairs)
    return change / float(call_d.sensitivity)


def _most_breaching(pending: Sequence[Pending], runs: int) -> List[Pending]:
    """The pending runs whose next call breaks its sensitivity (excess > 1), most first, within ``runs`` runs."""
    ranked = sorted(
        ((_excess(call_d, call_dp), i) for i, (_, call_d, call_dp, _) in enumerate(pending)), reverse=True,
    )
    chosen: List[Pending] = []
    for excess, i in ranked:
        if excess <= 1:
            break
        node, call_d, call_dp, window = pending[i]
        size = max(_law_size(_law_of(call_d), window), _law_size(_law_of(call_dp), window))
        if size > runs:
            break
        runs -= size
        chosen.append(pending[i])
    return chosen


def _stop(laws: "_Laws", result: "Enumeration", node: "_Node", state_d: Optional[_State], state_dp: Optional[_State]) -> None:
    """A run not expanded further: its outcome is what its calls released so far."""
    words = "; ".join(node.words) or "(no mechanism call)"
    for side, (state, log_p) in enumerate(((state_d, node.log_d), (state_dp, node.log_d_prime))):
        if state is not None and not state.done:
            laws.add(("released",) + state.shown, side, log_p, False, words)
            if side == 0:
                result.unexplored_d += math.exp(log_p)
            else:
                result.unexplored_d_prime += math.exp(log_p)


def enumerate_pair(
    fn: Callable[[Any, RandomSource], Any],
    data: Any,
    neighbour: Any,
    *,
    seed: int,
    to_key: Callable[[Any], Hashable],
    budget: int = DEFAULT_BUDGET,
    tail: Fraction = DEFAULT_TAIL,
    describe: Callable[[Call, Any], str] = lambda call, output: f"{call.describe()} -> {output!r}",
) -> Enumeration:
    """The exact laws of ``fn`` on ``data`` and ``neighbour`` (outputs grouped by ``to_key``), breadth first.

    Each level expands every run's next call on both data sets; when the
    next level would need more than ``budget`` runs in all, the enumeration
    stops, and a run not yet ended counts as the outcome "what its calls
    released so far" (``complete`` False).  A draw that is never released
    by itself (a row sample) is summed over.
    """
    result = Enumeration()
    laws = _Laws()
    level = [_Node([], 0.0, 0.0, [])]
    left: Tuple[List[float], List[float]] = ([], [])
    while level:
        pending: List[Tuple[_Node, Optional[Call], Optional[Call], Optional[Tuple[Tuple[int, int], ...]]]] = []
        stopped: List[Tuple[_Node, Optional[_State], Optional[_State]]] = []
        size = 0
        for node in level:
            states: List[Optional[_State]] = [
                _run(fn, data, seed, node.prefix) if node.log_d > -math.inf else None,
                _run(fn, neighbour, seed, node.prefix) if node.log_d_prime > -math.inf else None,
            ]
            result.runs += 1
            words = "; ".join(node.words) or "(no mechanism call)"
            for side, (state, log_p) in enumerate(zip(states, (node.log_d, node.log_d_prime))):
                if state is not None and state.done:
                    laws.add(to_key(state.value), side, log_p, True, words)
            calls = [s.value if s is not None and not s.done else None for s in states]
            call_d, call_dp = calls
            if call_d is None and call_dp is None:
                continue
            if call_d is not None and call_dp is not None and call_d.signature() != call_dp.signature():
                result.diverged = result.diverged or (
                    f"after {len(node.prefix)} call(s) [{words}] D makes {call_d.describe()} and D' makes "
                    f"{call_dp.describe()}"
                )
            law_d, law_dp = _law_of(call_d), _law_of(call_dp)
            window = None
            if isinstance(law_d, DiscreteLaplaceLaw) or isinstance(law_dp, DiscreteLaplaceLaw):
                window = _windows(call_d, call_dp, tail)
            pending.append((node, call_d, call_dp, window))
            stopped.append((node, states[0], states[1]))
            size += max(_law_size(law_d, window), _law_size(law_dp, window))
        if not pending:
            break
        if result.runs + size > budget:
            result.complete = False
            # Where the next call breaks its declared sensitivity, the most first, the runs go on; the rest stop.
            # Not after a draw that is not released: runs that differ only there share a prefix outcome.
            hidden = any(s is not None and s.hidden for _, state_d, state_dp in stopped for s in (state_d, state_dp))
            chosen = [] if hidden else _most_breaching(pending, budget - result.runs)
            keep = {id(node) for node, _, _, _ in chosen}
            for node, state_d, state_dp in stopped:
                if id(node) not in keep:
                    _stop(laws, result, node, state_d, state_dp)
            if not chosen:
                break
            pending = chosen
            result.partial += 1
        result.depth += 1
        expanded: List[_Node] = []
        for node, call_d, call_dp, window in pending:
            result.calls += 1
            outs = [
                law_outcomes(call.law, window) if call is not None and call.law is not None else []
                for call in (call_d, call_dp)
            ]
            for side, (call, log_p) in enumerate(((call_d, node.log_d), (call_dp, node.log_d_prime))):
                if call is not None and isinstance(call.law, DiscreteLaplaceLaw):
                    listed = log_sum_exp(lp for _, lp in outs[side])
                    missing = -math.expm1(listed) if listed < 0 else 0.0
                    if missing > 0:
                        left[side].append(log_p + math.log(missing))
            by_side = [{_key(o): (o, lp) for o, lp in outs[side]} for side in (0, 1)]
            call = call_d if call_d is not None else call_dp
            assert call is not None
            for key in list(by_side[0]) + [k for k in by_side[1] if k not in by_side[0]]:
                output = (by_side[0].get(key) or by_side[1][key])[0]
                ld = node.log_d + by_side[0][key][1] if key in by_side[0] else -math.inf
                ldp = node.log_d_prime + by_side[1][key][1] if key in by_side[1] else -math.inf
                expanded.append(_Node(node.prefix + [output], ld, ldp, node.words + [describe(call, output)]))
        level = expanded
    result.remainder_d = math.exp(log_sum_exp(left[0])) if left[0] else 0.0
    result.remainder_d_prime = math.exp(log_sum_exp(left[1])) if left[1] else 0.0
    for key, (logs_d, logs_dp) in laws.logs.items():
        complete = laws.complete[key]
        # A model may also come from runs not enumerated.  What the first calls released cannot: a run cut off at a
        # window released a value outside it, and every run not enumerated further is one of these outcomes.
        slack_d = result.remainder_d + result.unexplored_d if complete else 0.0
        slack_dp = result.remainder_d_prime + result.unexplored_d_prime if complete else 0.0
        outcome = _bounded(key, complete, log_sum_exp(logs_d), log_sum_exp(logs_dp), slack_d, slack_dp, laws.words[key])
        result.outcomes.append(outcome)
        if -outcome.high > outcome.low:  # the other direction is the larger: P_D'(o) over P_D(o)
            outcome = Outcome(
                outcome.key, outcome.complete, outcome.log_d_prime, outcome.log_d, -outcome.high, -outcome.low,
                outcome.description + " [D' over D]",
            )
        if result.worst is None or outcome.low > result.worst.low:
            result.worst = outcome
    return result


def _bounded(
    key: Hashable, complete: bool, ld: float, ldp: float, slack_d: float, slack_dp: float, words: str
) -> Outcome:
    """The bounds on ln P_D(o) - ln P_D'(o) when each probability may be larger by the mass not enumerated."""
    def upper(log_p: float, slack: float) -> float:
        return log_sum_exp([log_p, math.log(slack)]) if slack > 0 else log_p

    low = ld - upper(ldp, slack_dp) if ld > -math.inf else -math.inf
    high = upper(ld, slack_d) - ldp if ldp > -math.inf else math.inf
    return Outcome(key, complete, ld, ldp, low, high, words)
