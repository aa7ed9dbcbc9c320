"""How an audit watches the mechanisms: one context-local recorder that every mechanism call consults.

Every mechanism of :mod:`refdp.mechanisms` (and the few draws elsewhere
whose law depends on the data: DPEA's subtree samplers, kanon-rdt's
k-suppression) runs its draw through :func:`mechanism_call`, after it has
validated its arguments and recorded its charge.  With no recorder active
-- always, outside an audit -- that is one :class:`contextvars.ContextVar`
lookup and the draw itself, so no model changes.  An audit
(:mod:`refdp.audit.replay`, :mod:`refdp.audit.enumeration`) activates a
:class:`Recorder` with :func:`recording`; it is handed a :class:`Call` --
label, partition, epsilon, delta, the declared sensitivity and relation,
the claims, the public parameters that must not depend on the data, the
data-dependent input and, where it is known, the exact law of the output
-- and decides what the call returns: the draw (recording), the output
recorded on another data set (replay), or each outcome in turn
(enumeration).

The inputs know the norm their claim uses (:meth:`CallInput.finding`):
a count moves by at most its sensitivity; a histogram's record lies in one
cell (add-remove) or two (substitute); every utility of the exponential
mechanism moves by at most Delta_u, all one way when the call says its
utilities are monotone.  Distances are exact: ints and Fractions as they
are, a float by its exact binary value, with a rounding slack of
2**-40 relative for floats only (a float utility stands for a real one, and
the float sampler's claim is idealised; see ``proofs/replay-audit.md``).
"""

from __future__ import annotations

import contextlib
import math
from contextvars import ContextVar
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Dict, Hashable, Iterator, Optional, Protocol, Sequence, Tuple, TypeVar, Union

from refdp.privacy import Relation
from refdp.rng import RandomSource

__all__ = [
    "Call",
    "CallInput",
    "Finding",
    "Recorder",
    "Scalar",
    "Counts",
    "Utilities",
    "RowCount",
    "DiscreteLaplaceLaw",
    "LaplaceLaw",
    "ExponentialLaw",
    "FloatInversionLaw",
    "BernoulliRowsLaw",
    "DETERMINISTIC",
    "Deterministic",
    "Law",
    "calibration",
    "exact_value",
    "mechanism_call",
    "recording",
    "not_recording",
    "active_recorder",
]

T = TypeVar("T")

Number = Union[int, float, Fraction]

# A float stands for a real number computed with rounding: differences are compared with this relative slack.
FLOAT_SLACK = Fraction(1, 2**40)


def exact_value(x: Union[Number, Tuple[int, int]]) -> Fraction:
    """``x`` as an exact Fraction: an int or Fraction as it is, a float by its exact binary value, a pair as n/d."""
    if isinstance(x, tuple):
        return Fraction(*x)
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"not a finite number: {x!r}")
        return Fraction(*x.as_integer_ratio())
    return Fraction(x)


def _shown(x: Fraction) -> str:
    """A Fraction as a short decimal (and the fraction when it is short)."""
    text = f"{float(x):.6g}"
    exact = str(x)
    return exact if len(exact) <= 12 else f"{text} (exactly {exact[:40]}{'...' if len(exact) > 40 else ''})"


def _bound(declared: Fraction, values: Sequence[Number]) -> Fraction:
    """``declared`` plus the rounding slack of the floats among ``values`` (none for exact values)."""
    floats = [abs(exact_value(v)) for v in values if isinstance(v, float)]
    if not floats:
        return declared
    return declared + FLOAT_SLACK * (declared + max(floats))


def _number(x: Union[Number, Tuple[int, int]]) -> str:
    return str(Fraction(*x)) if isinstance(x, tuple) else repr(x)


@dataclass(frozen=True)
class Finding:
    """What broke: the field, what the call declared and what the run did."""

    field: str
    declared: str
    actual: str

    def line(self) -> str:
        return f"{self.field}: declared {self.declared}, actual {self.actual}"


class CallInput(Protocol):
    """The data-dependent input of a call, which knows the norm its claim bounds."""

    def finding(self, other: "CallInput", call: "Call") -> Optional[Finding]:
        """How the input ``other`` (the same call on a neighbour) breaks ``call``'s declared bound, or None."""
        ...

    def own_finding(self, call: "Call") -> Optional[Finding]:
        """A breach visible on one data set alone, or None."""
        ...


@dataclass(frozen=True)
class Scalar:
    """f(D) of a noisy number: ``|f(D) - f(D')|`` must not exceed the sensitivity."""

    value: Number

    def finding(self, other: CallInput, call: "Call") -> Optional[Finding]:
        assert isinstance(other, Scalar)
        if call.sensitivity is None:
            return None
        diff = abs(exact_value(self.value) - exact_value(other.value))
        bound = _bound(exact_value(call.sensitivity), (self.value, other.value))
        if diff > bound:
            return Finding(
                "input |f(D) - f(D')|", f"<= sensitivity {_shown(exact_value(call.sensitivity))}",
                f"{_shown(diff)} (f(D) = {self.value!r}, f(D') = {other.value!r})",
            )
        return None

    def own_finding(self, call: "Call") -> Optional[Finding]:
        return None


@dataclass(frozen=True)
class Counts:
    """The cells of a noisy histogram (or table), each a count of sensitivity ``call.sensitivity``.

    The cells are disjoint: one added or removed record changes one cell,
    a substituted one at most two (claim ``parallel-composition``).
    ``shape`` names them: one split ``(("class", 2),)`` with ``names``, or
    nested splits in row-major order (:func:`refdp.mechanisms.noisy_cells`).
    """

    values: Tuple[Number, ...]
    shape: Tuple[Tuple[str, int], ...]
    names: Tuple[str, ...] = ()

    def name(self, j: int) -> str:
        """Cell ``j`` as ``key=name`` (one split) or ``key1=i1/key2=i2`` (nested splits)."""
        if self.names:
            return f"{self.shape[0][0]}={self.names[j]}"
        parts = []
        for key, size in reversed(self.shape):
            j, index = divmod(j, size)
            parts.append(f"{key}={index}")
        return "/".join(reversed(parts))

    def finding(self, other: CallInput, call: "Call") -> Optional[Finding]:
        assert isinstance(other, Counts)
        if len(other.values) != len(self.values):
            return Finding("cells", f"{len(self.values)} cells", f"{len(other.values)} cells on D'")
        per_cell = exact_value(call.sensitivity) if call.sensitivity is not None else Fraction(1)
        changed = []
        for j, (a, b) in enumerate(zip(self.values, other.values)):
            if a == b:
                continue
            diff = abs(exact_value(a) - exact_value(b))
            if diff > _bound(per_cell, (a, b)):
                return Finding(
                    f"cell {self.name(j)}", f"changes by <= sensitivity {_shown(per_cell)}",
                    f"{_shown(diff)} ({a!r} on D, {b!r} on D')",
                )
            if diff:
                changed.append(self.name(j))
        allowed = 1 if call.relation is Relation.ADD_REMOVE else 2
        if len(changed) > allowed:
            return Finding(
                "cells changed", f"at most {allowed} (one record lies in one cell under {call.relation.value})",
                f"{len(changed)}: {', '.join(changed[:4])}{'...' if len(changed) > 4 else ''}",
            )
        return None

    def own_finding(self, call: "Call") -> Optional[Finding]:
        return None


@dataclass(frozen=True)
class Utilities:
    """The utilities of the exponential mechanism's candidates.

    Each may move by at most Delta_u; with ``monotone`` all of them move
    one way (all up or all down) between neighbours.
    """

    values: Tuple[Union[Number, Tuple[int, int]], ...]  # a pair (n, d) stands for n/d
    monotone: bool = False

    def finding(self, other: CallInput, call: "Call") -> Optional[Finding]:
        assert isinstance(other, Utilities)
        if len(other.values) != len(self.values):
            return Finding("candidates", f"{len(self.values)}", f"{len(other.values)} on D'")
        if call.sensitivity is None:
            return None
        declared = exact_value(call.sensitivity)
        p, q = declared.numerator, declared.denominator
        up = down = None
        for r, (a, b) in enumerate(zip(self.values, other.values)):
            if a == b:
                continue
            if isinstance(a, tuple) and isinstance(b, tuple):
                # n1/d1 - n2/d2 within p/q, in integers: the common case of exact utilities, and thousands of them
                gap = b[0] * a[1] - a[0] * b[1]
                if abs(gap) * q <= p * a[1] * b[1]:
                    if gap > 0 and up is None:
                        up = r
                    if gap < 0 and down is None:
                        down = r
                    continue
            diff = exact_value(b) - exact_value(a)
            if abs(diff) > _bound(declared, (a, b)):  # type: ignore[arg-type]
                return Finding(
                    f"utility of candidate {r}", f"changes by <= sensitivity {_shown(declared)}",
                    f"{_shown(abs(diff))} ({_number(a)} on D, {_number(b)} on D')",
                )
            if diff > 0 and up is None:
                up = r
            if diff < 0 and down is None:
                down = r
        if self.monotone and up is not None and down is not None:
            return Finding(
                "monotone utilities", "all move one way (no factor 2)",
                f"candidate {up} moves up and candidate {down} down",
            )
        return None

    def own_finding(self, call: "Call") -> Optional[Finding]:
        return None


@dataclass(frozen=True)
class RowCount:
    """The rows a row sampler draws from (their number is data-dependent; each row is kept on its own)."""

    n: int

    def finding(self, other: CallInput, call: "Call") -> Optional[Finding]:
        assert isinstance(other, RowCount)
        allowed = 1 if call.relation is Relation.ADD_REMOVE else 0
        if abs(self.n - other.n) > allowed:
            return Finding("rows", f"differ by <= {allowed} under {call.relation.value}", f"{self.n} and {other.n}")
        return None

    def own_finding(self, call: "Call") -> Optional[Finding]:
        return None


@dataclass(frozen=True)
class DiscreteLaplaceLaw:
    """Independent discrete Laplace noise of scale ``scale`` on each of ``centres`` (a list when ``vector``)."""

    centres: Tuple[int, ...]
    scale: Fraction
    vector: bool


@dataclass(frozen=True)
class ExponentialLaw:
    """The exponential mechanism: P[r] proportional to W_r exp(-gamma_r), gamma_r >= 0 exact.

    ``gammas`` are the distinct exponents as (numerator, denominator)
    pairs and ``slots[r]`` is candidate r's (-1: a candidate of weight 0).
    """

    weights: Tuple[int, ...]
    gammas: Tuple[Tuple[int, int], ...]
    slots: Tuple[int, ...]

    def gamma(self, r: int) -> Fraction:
        """gamma_r exactly (0 for a candidate of weight 0)."""
        slot = self.slots[r]
        return Fraction(*self.gammas[slot]) if slot >= 0 else Fraction(0)


@dataclass(frozen=True)
class FloatInversionLaw:
    """:func:`refdp.mechanisms.sample_index` on these float probabilities: one ``rng.random()``, inverted."""

    chances: Tuple[float, ...]


@dataclass(frozen=True)
class BernoulliRowsLaw:
    """Positions 0..n-1, each kept independently with probability ``p`` (or exp(``log_p``) when p is irrational)."""

    n: int
    p: Optional[Fraction]
    log_p: float
    log_q: float


@dataclass(frozen=True)
class LaplaceLaw:
    """Continuous Laplace noise of this float scale on ``centre`` (no finite law: it cannot be enumerated)."""

    centre: float
    scale: float


@dataclass(frozen=True)
class Deterministic:
    """A call with no randomness of its own (its output is a function of its input)."""


DETERMINISTIC = Deterministic()

Law = Union[DiscreteLaplaceLaw, LaplaceLaw, ExponentialLaw, FloatInversionLaw, BernoulliRowsLaw, Deterministic]


@dataclass(frozen=True)
class Call:
    """One mechanism call as an audit sees it.

    ``public`` holds what the call's privacy argument treats as public
    (the number of candidates, base weights, cell names, a probability):
    a replay on a neighbour must find it equal.  ``law`` is the exact law
    of the output given ``input``, or None where no finite description
    exists (continuous Laplace noise, an MCMC chain).  ``released`` is False
    for a draw that is used but never shown by itself (a row sample).
    """

    mechanism: str
    label: str
    partition: Tuple[str, ...]
    epsilon: Fraction
    delta: Fraction
    sensitivity: Optional[Union[Fraction, float]]
    relation: Relation
    claims: Tuple[str, ...]
    public: Tuple[Tuple[str, Hashable], ...]
    input: CallInput
    law: Optional[Law]
    released: bool = True

    def signature(self) -> Tuple[Hashable, ...]:
        """Everything a replay must find equal on a neighbour (all but the input)."""
        return (
            self.mechanism, self.label, self.partition, self.epsilon, self.delta, self.sensitivity,
            self.relation, self.claims, self.public,
        )

    def describe(self) -> str:
        where = "/".join(self.partition) or "(whole data set)"
        return f"{self.mechanism} {self.label!r} on {where}"


def _declared(value: Union[Fraction, float, None]) -> Optional[Fraction]:
    """A declared sensitivity as the mechanisms calibrate with it: a float by the decimal it prints as."""
    if value is None:
        return None
    return Fraction(repr(value)) if isinstance(value, float) else Fraction(value)


def calibration(call: "Call") -> Optional[Finding]:
    """How the law ``call`` draws from differs from what it declares, or None.

    Computed apart from the mechanisms' own arithmetic: a noise scale must
    be Delta/epsilon (1/epsilon for a histogram's cells); the exponential
    mechanism's weights must be the base weights times
    exp(-epsilon (u_max - u_r) / (2 Delta)), without the 2 when the call
    declares monotone utilities; the float sampler's probabilities must be
    those, to within 1e-9.
    """
    law, declared = call.law, _declared(call.sensitivity)
    if declared is None or declared <= 0:
        return None
    if isinstance(law, DiscreteLaplaceLaw):
        expected = declared / call.epsilon
        if law.scale != expected:
            return Finding("noise scale", f"Delta/epsilon = {_shown(expected)}", _shown(law.scale))
        return None
    if isinstance(law, LaplaceLaw):
        scale = float(declared / call.epsilon)
        if law.scale != scale:
            return Finding("noise scale", f"Delta/epsilon = {scale!r}", repr(law.scale))
        return None
    if not isinstance(law, (ExponentialLaw, FloatInversionLaw)) or not isinstance(call.input, Utilities):
        return None
    public = dict(call.public)
    monotone = bool(public.get("monotone"))
    c = call.epsilon / (declared if monotone else 2 * declared)
    values = call.input.values
    base = public.get("base_weights")
    raw: Sequence[Union[Number, Tuple[int, int]]] = (1,) * len(values) if base is None else base  # type: ignore[assignment]
    # int weights (the common case) are compared as they are; others made exact first
    weights: Sequence[Union[int, Fraction]] = (
        raw if all(type(w) is int for w in raw) else [exact_value(w) for w in raw]  # type: ignore[assignment]
    )
    positive = [r for r, w in enumerate(weights) if w > 0]
    exact: Dict[object, Fraction] = {}  # utilities repeat: each distinct one is made exact once
    for r in positive:
        if values[r] not in exact:
            exact[values[r]] = exact_value(values[r])
    top = max(exact.values())
    if isinstance(law, ExponentialLaw):
        first = positive[0]
        checked: Dict[Tuple[int, object], bool] = {}  # (slot, utility) pairs already compared
        for r in positive:
            key = (law.slots[r], values[r])
            if key not in checked:
                checked[key] = True
                gamma = c * (top - exact[values[r]])
                if law.gamma(r) != gamma:
                    form = "(u_max - u_r) / Delta" if monotone else "(u_max - u_r) / (2 Delta)"
                    return Finding(f"weight of candidate {r}", f"exp(-epsilon {form}) = exp(-{_shown(gamma)})",
                                   f"exp(-{_shown(law.gamma(r))})")
            if law.weights[r] * weights[first] != law.weights[first] * weights[r]:
                return Finding(f"base weight of candidate {r}", "proportional to the declared base weights",
                               f"{law.weights[r]} against {law.weights[first]}")
        return None
    logs = [math.log(weights[r]) + float(c) * float(exact_value(values[r]) - top) if weights[r] > 0 else -math.inf
            for r in range(len(values))]
    peak = max(logs)
    total = math.fsum(math.exp(x - peak) for x in logs)
    for r, (x, chance) in enumerate(zip(logs, law.chances)):
        expected_p = math.exp(x - peak) / total
        if abs(expected_p - chance) > 1e-9 * max(1.0, expected_p) + 1e-12:
            return Finding(f"probability of candidate {r}", f"{expected_p!r} (exponential mechanism)", repr(chance))
    return None


class Recorder(Protocol):
    """What an audit plugs in: it decides what each mechanism call returns."""

    def call(self, call: Call, rng: RandomSource, draw: Callable[[], T]) -> T:
        """The output of ``call``; ``draw()`` makes the mechanism's own draw from ``rng``."""
        ...


_ACTIVE: ContextVar[Optional[Recorder]] = ContextVar("refdp_mechanism_recorder", default=None)


def active_recorder() -> Optional[Recorder]:
    """The recorder of this context, or None (the normal case)."""
    return _ACTIVE.get()


def mechanism_call(describe: Callable[[], Call], rng: RandomSource, draw: Callable[[], T]) -> T:
    """``draw()``, or what the active recorder makes of the call ``describe()`` describes.

    Mechanisms call this after validating and charging, so that a bad call
    reaches no recorder.  ``describe`` is only called when a recorder is
    active: outside an audit a call costs one context-variable lookup.

    >>> mechanism_call(lambda: None, None, lambda: 42)  # type: ignore[arg-type,return-value]
    42
    """
    recorder = _ACTIVE.get()
    if recorder is None:
        return draw()
    return recorder.call(describe(), rng, draw)


@contextlib.contextmanager
def recording(recorder: Recorder) -> Iterator[Recorder]:
    """Make ``recorder`` see every mechanism call made in this context until the block ends."""
    token = _ACTIVE.set(recorder)
    try:
        yield recorder
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def not_recording() -> Iterator[None]:
    """No recorder in this block: the mechanism calls made here are not the run's (a model's
    re-derivation when it is finished, which replays its released values), so none sees them.

    >>> with not_recording():
    ...     mechanism_call(lambda: None, None, lambda: 7)  # type: ignore[arg-type,return-value]
    7
    """
    token = _ACTIVE.set(None)
    try:
        yield
    finally:
        _ACTIVE.reset(token)
