"""Verification by execution: record every mechanism call on D, replay on a neighbour D' with the outputs frozen.

A run on ``D`` records, for each mechanism call (:mod:`refdp.mechanisms.recording`),
its description, its output and the random source's state after it.  A
run on the neighbour ``D'`` from the same seed then meets each call in turn:
it must be the same call (label, partition, epsilon, delta, declared
sensitivity, relation, claims, public parameters), its data-dependent input
must lie within the declared sensitivity of ``D``'s in the norm the claim
uses, and it returns ``D``'s output and restores ``D``'s random state, so
that a sampler that consumes a data-dependent number of random bits cannot
desynchronise the run.  A row sampler returns ``D``'s sample on the rows
the two data sets share, and the record ``D'`` adds (or substitutes) in
the sample when ``D``'s row was (an addition: always).  At the end the two
outputs (the released model files) must be byte-identical: everything
released must be a function of the mechanisms' outputs and of randomness
that does not read the data.

Across calls, the changed inputs must fit one changed record: two sibling
cells of one disjoint split (components ``KEY=A`` and ``KEY=B`` under one
parent) cannot both see a change under add-remove (three under
substitute), or the ledger's parallel composition was wrong.

The first failure is reported with the call, the field, and the declared
and actual values.  What a pass implies, and what it does not: one path per
seed, and the mechanisms' own samplers are trusted (``proofs/replay-audit.md``).
"""

from __future__ import annotations

import copy
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, TypeVar

from refdp.data import Dataset
from refdp.errors import InvalidParameterError, RefdpError
from refdp.mechanisms.recording import Call, Finding, calibration, recording
from refdp.privacy import Ledger, Relation
from refdp.rng import RandomSource

__all__ = [
    "Alignment",
    "RecordedCall",
    "ReplayReport",
    "Violation",
    "align",
    "record_run",
    "replay_check",
    "replay_pair",
]

T = TypeVar("T")


@dataclass(frozen=True)
class Alignment:
    """How the rows of ``D`` sit in ``D'``: row i of D is row ``i`` of D' before ``at`` and shifted by ``shift`` after.

    ``kind`` is ``"add"`` (D' has a record at ``at`` that D lacks),
    ``"remove"`` (D's row ``at`` is missing from D') or ``"substitute"``
    (row ``at`` differs), or ``"same"``.
    """

    kind: str
    at: int
    n: int

    def position(self, i: int) -> Optional[int]:
        """Row i of D in D' (None: removed or substituted)."""
        if self.kind == "add":
            return i if i < self.at else i + 1
        if self.kind == "remove":
            return None if i == self.at else (i if i < self.at else i - 1)
        if self.kind == "substitute" and i == self.at:
            return None
        return i

    def couple(self, sample: Sequence[int]) -> List[int]:
        """D's sample of row positions, as a sample of D' (the changed record kept when D's row was, or added)."""
        out = [p for p in (self.position(i) for i in sample) if p is not None]
        if self.kind == "add" or (self.kind == "substitute" and self.at in sample):
            out.append(self.at)
        return sorted(out)

    def describe(self) -> str:
        return {"add": f"D' adds a record at row {self.at}", "remove": f"D' drops row {self.at}",
                "substitute": f"D' replaces row {self.at}", "same": "D' equals D"}[self.kind]


def _rows(data: object) -> Optional[List[Any]]:
    if isinstance(data, Dataset):
        columns = [data.column(j) for j in range(data.schema.n_attributes)]
        return list(zip(*columns, data.labels)) if columns else [(label,) for label in data.labels]
    if isinstance(data, (list, tuple)):
        return list(data)
    return None


def align(data: object, neighbour: object) -> Optional[Alignment]:
    """Where ``neighbour`` differs from ``data`` by one row (None when they are not sequences of rows).

    >>> align([1, 2, 3], [1, 3]).describe()
    "D' drops row 1"
    """
    a, b = _rows(data), _rows(neighbour)
    if a is None or b is None:
        return None
    front = 0
    while front < min(len(a), len(b)) and a[front] == b[front]:
        front += 1
    back = 0
    while back < min(len(a), len(b)) - front and a[len(a) - 1 - back] == b[len(b) - 1 - back]:
        back += 1
    if len(b) == len(a) + 1 and front + back >= len(a):
        return Alignment("add", front, len(a))
    if len(b) == len(a) - 1 and front + back >= len(b):
        return Alignment("remove", front, len(a))
    if len(b) == len(a):
        if front == len(a):
            return Alignment("same", 0, len(a))
        if front + back == len(a) - 1:
            return Alignment("substitute", front, len(a))
    raise InvalidParameterError(
        f"the neighbour differs from the data set in more than one row ({len(a)} and {len(b)} rows); "
        "replay compares a data set with one row added, removed or replaced"
    )


@dataclass(frozen=True)
class RecordedCall:
    """A call made on D: what it was, what it returned, the random state after it, and any breach on D alone."""

    call: Call
    output: Any
    state: Any
    breach: Optional[Tuple[str, Finding]]


@dataclass(frozen=True)
class Violation:
    """The first thing a replay found wrong."""

    kind: str  # "sequence", "sensitivity", "release", "cells", "output", "failure"
    index: Optional[int]
    where: str
    finding: Finding

    def line(self) -> str:
        at = f"call {self.index + 1} ({self.where})" if self.index is not None else self.where
        return f"{self.kind}: {at}: {self.finding.line()}"


@dataclass(frozen=True)
class ReplayReport:
    """The result of one replay: ``ok``, the violations (one line each; the first failure) and the calls checked."""

    ok: bool
    violations: List[str]
    calls: int
    first: Optional[Violation] = None
    seconds: float = 0.0


class _Stop(BaseException):
    """Ends a replay run at its first violation (a BaseException, so that the code under test cannot catch it)."""


def _state(rng: RandomSource) -> Any:
    getstate = getattr(rng, "getstate", None)
    if getstate is None:
        raise InvalidParameterError("a replay needs a seeded random source (random.Random); give a seed")
    try:
        return getstate()
    except NotImplementedError:
        raise InvalidParameterError(
            "a replay needs a seeded random source (random.Random), not secrets.SystemRandom; give a seed"
        ) from None


Steer = Callable[[Call], Any]
"""Returns the output to force for a call on D (steering the run into a rare path), or None to draw it."""


@dataclass
class _Recorder:
    steer: Optional[Steer] = None
    calls: List[RecordedCall] = field(default_factory=list)

    def call(self, call: Call, rng: RandomSource, draw: Callable[[], T]) -> T:
        forced = self.steer(call) if self.steer is not None else None
        output = draw() if forced is None else forced
        self.calls.append(RecordedCall(call, copy.deepcopy(output), _state(rng), _breach(call)))
        return output


def _breach(call: Call) -> Optional[Tuple[str, Finding]]:
    """What is wrong with a call on its own data set: its law against its declaration, or its release."""
    wrong = calibration(call)
    if wrong is not None:
        return "calibration", wrong
    own = call.input.own_finding(call)
    return None if own is None else ("release", own)


@dataclass
class _Replayer:
    recorded: Sequence[RecordedCall]
    alignment: Optional[Alignment]
    position: int = 0
    violation: Optional[Violation] = None
    changed: List[Tuple[int, Call]] = field(default_factory=list)

    def _stop(self, kind: str, index: Optional[int], where: str, finding: Finding) -> _Stop:
        self.violation = Violation(kind, index, where, finding)
        return _Stop()

    def call(self, call: Call, rng: RandomSource, draw: Callable[[], T]) -> T:
        i = self.position
        if i >= len(self.recorded):
            raise self._stop("sequence", i, call.describe(), Finding(
                "calls", f"{len(self.recorded)} on D", f"D' makes another: {call.describe()}"))
        recorded = self.recorded[i]
        if recorded.breach is not None:
            raise self._stop(recorded.breach[0], i, recorded.call.describe(), recorded.breach[1])
        mismatch = _mismatch(recorded.call, call)
        if mismatch is not None:
            raise self._stop("sequence", i, recorded.call.describe(), mismatch)
        finding = recorded.call.input.finding(call.input, recorded.call)
        if finding is not None:
            # A threshold release breaks its rule, not a sensitivity (refdp.mechanisms.sampling.Suppressed).
            kind = "release" if recorded.call.mechanism == "k-suppression" else "sensitivity"
            raise self._stop(kind, i, recorded.call.describe(), finding)
        breach = _breach(call)
        if breach is not None:
            kind, own = breach
            raise self._stop(kind, i, call.describe(), Finding(own.field + " (on D')", own.declared, own.actual))
        if _differs(recorded.call, call):
            self.changed.append((i, call))
        output = copy.deepcopy(recorded.output)
        if call.mechanism == "row-sampling":
            if self.alignment is None:
                raise InvalidParameterError(
                    "this function samples rows; give the data set and its neighbour as Datasets or lists of rows"
                )
            output = self.alignment.couple(output)
        setstate = getattr(rng, "setstate")
        setstate(recorded.state)
        self.position += 1
        return output  # type: ignore[no-any-return]


_FIELDS = ("mechanism", "label", "partition", "epsilon", "delta", "sensitivity", "relation", "claims")


def _mismatch(recorded: Call, call: Call) -> Optional[Finding]:
    """The first field in which ``call`` (on D') is not the call made on D, or None."""
    if recorded.signature() == call.signature():
        return None
    for name in _FIELDS:
        a, b = getattr(recorded, name), getattr(call, name)
        if a != b:
            return Finding(name, f"{_show(a)} (on D)", f"{_show(b)} (on D')")
    mine, theirs = dict(recorded.public), dict(call.public)
    for key in list(mine) + [k for k in theirs if k not in mine]:
        if mine.get(key) != theirs.get(key):
            return Finding(f"public parameter {key}", f"{_show(mine.get(key))} (on D)", f"{_show(theirs.get(key))} (on D')")
    return Finding("call", "the same", "a different call")


def _show(value: object) -> str:
    if isinstance(value, tuple) and value and all(isinstance(v, str) for v in value):
        text = "/".join(value)
    else:
        text = str(value)
    return text if len(text) <= 120 else text[:117] + "..."


def _differs(a: Call, b: Call) -> bool:
    """Whether the data-dependent input changed between D and D' (as far as it can tell)."""
    for name in ("values", "value", "n", "counts"):
        if hasattr(a.input, name):
            return bool(getattr(a.input, name) != getattr(b.input, name))
    return False


def _cells_finding(changed: Sequence[Tuple[int, Call]], relation: Relation) -> Optional[Violation]:
    """Two (three) sibling cells of one disjoint split whose calls both saw the change, or None."""
    allowed = 1 if relation is Relation.ADD_REMOVE else 2
    seen: Dict[Tuple[Tuple[str, ...], str], Dict[str, int]] = {}
    for index, call in changed:
        for j, component in enumerate(call.partition):
            key, sep, value = component.partition("=")
            if not sep:
                continue
            cells = seen.setdefault((call.partition[:j], key), {})
            cells.setdefault(value, index)
            if len(cells) > allowed:
                names = ", ".join(f"{key}={v}" for v in cells)
                parent = "/".join(call.partition[:j]) or "(whole data set)"
                return Violation("cells", index, call.describe(), Finding(
                    f"split {key!r} under {parent}",
                    f"one changed record lies in at most {allowed} of its disjoint cells (parallel composition)",
                    f"the calls of {len(cells)} cells saw a change: {names}",
                ))
    return None


# A model file's fields that hash the others: a difference elsewhere is the one worth showing.
_HASHES = frozenset({"digest", "signature"})


def _json_difference(a: Any, b: Any, path: str = "$") -> Optional[Tuple[str, str, str]]:
    """The first path at which two JSON values differ, with both values shown (hash fields last).

    >>> _json_difference({"digest": "x", "n": 1}, {"digest": "y", "n": 2})
    ('$.n', '1', '2')
    """
    if type(a) is not type(b):
        return path, _show(a), _show(b)
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b), key=lambda k: (str(k) in _HASHES, str(k))):
            if key not in a or key not in b:
                return f"{path}.{key}", _show(a.get(key, "(absent)")), _show(b.get(key, "(absent)"))
            found = _json_difference(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, list):
        for i, (x, y) in enumerate(zip(a, b)):
            found = _json_difference(x, y, f"{path}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{path} (length)", str(len(a)), str(len(b))
        return None
    return None if a == b else (path, repr(a), repr(b))


def record_run(fn: Callable[[], T], steer: Optional[Steer] = None) -> Tuple[T, List[RecordedCall]]:
    """Run ``fn()`` and record every mechanism call it makes (output, calls); ``steer`` may force outputs."""
    recorder = _Recorder(steer)
    with recording(recorder):
        output = fn()
    return output, recorder.calls


def _canonical(output: Any) -> str:
    try:
        return json.dumps(output, sort_keys=True, separators=(",", ":"), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"the function's output must be JSON-serialisable (finite numbers): {exc}") from None


def replay_pair(
    run: Callable[[Any, RandomSource], Any],
    data: Any,
    neighbour: Any,
    *,
    seed: int,
    relation: Relation = Relation.ADD_REMOVE,
    to_json: Callable[[Any], Any] = lambda output: output,
    steer: Optional[Steer] = None,
) -> ReplayReport:
    """Record ``run(data, rng)`` and replay ``run(neighbour, rng)`` from ``seed``; the report of the first failure.

    ``to_json`` turns an output into the JSON value whose bytes must agree
    (a model's file, or the output itself).  ``steer(call)`` may force a
    call's output on ``data`` (which the replay then returns on
    ``neighbour`` too), to take the run into a path its draws would rarely
    take: a noisy count far above the true one, say.  A run on ``data``
    that raises a refdp error is not replayed (the error propagates); a run
    on ``neighbour`` that raises one where ``data``'s did not is a
    violation.
    """
    started = time.perf_counter()
    output, calls = record_run(lambda: run(data, random.Random(seed)), steer)
    text = _canonical(to_json(output))
    sampled = any(c.call.mechanism == "row-sampling" for c in calls)
    replayer = _Replayer(calls, align(data, neighbour) if sampled else None)
    violation: Optional[Violation] = None
    try:
        with recording(replayer):
            other = run(neighbour, random.Random(seed))
    except _Stop:
        violation = replayer.violation
    except RefdpError as exc:
        violation = Violation("failure", replayer.position, "the run on D'", Finding(
            "the run", "completes as on D", f"{type(exc).__name__}: {str(exc)[:160]}"))
    else:
        if replayer.position < len(calls):
            missing = calls[replayer.position].call
            violation = Violation("sequence", replayer.position, missing.describe(), Finding(
                "calls", f"{len(calls)} on D", f"{replayer.position} on D' (it stops before this one)"))
        else:
            violation = _cells_finding(replayer.changed, relation)
            if violation is None:
                other_text = _canonical(to_json(other))
                if other_text != text:
                    where, a, b = _json_difference(json.loads(text), json.loads(other_text)) or ("$", "", "")
                    violation = Violation("output", None, "the released output", Finding(
                        where, "equal on D and D' (a function of the mechanisms' outputs)", f"{a} on D, {b} on D'"))
    seconds = time.perf_counter() - started
    if violation is None:
        return ReplayReport(True, [], len(calls), None, seconds)
    return ReplayReport(False, [violation.line()], len(calls), violation, seconds)


def replay_check(
    fn: Callable[[Any, RandomSource, Ledger], Any],
    data: Any,
    neighbour: Any,
    *,
    seed: int,
    relation: Relation = Relation.ADD_REMOVE,
) -> ReplayReport:
    """Replay ``fn`` on ``neighbour`` against its run on ``data`` (the public check for code built on refdp.mechanisms).

    ``fn(data, rng, ledger)`` must pass ``rng`` and ``ledger`` to every
    mechanism it calls and return a JSON-serialisable output.  The report
    says whether the replay passed (``ok``), the first violation
    (``violations``, one line) and how many mechanism calls were checked.

    >>> from fractions import Fraction
    >>> from refdp.mechanisms import discrete_laplace_mechanism
    >>> def noisy_sum(data, rng, ledger):
    ...     return discrete_laplace_mechanism(sum(data), sensitivity=1, epsilon=Fraction(1), rng=rng,
    ...                                       ledger=ledger, label="sum")
    >>> replay_check(noisy_sum, [1, 0, 1], [1, 0, 1, 1], seed=3).ok
    True
    >>> replay_check(noisy_sum, [1, 0, 1], [1, 0, 1, 5], seed=3).violations[0][:46]
    "sensitivity: call 1 (discrete-laplace 'sum' on"
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise InvalidParameterError(f"seed must be an int, got {seed!r}")
    return replay_pair(lambda d, rng: fn(d, rng, Ledger(relation)), data, neighbour, seed=seed, relation=relation)
