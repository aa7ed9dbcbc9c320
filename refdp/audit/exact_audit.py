"""The exact audit of a learner on small data sets (what ``audit --method exact`` runs for a registry algorithm).

:func:`audit_exact` draws ``D`` (``rows`` rows of the data, 1 by
default) and neighbours of it -- rows of the data added, rows removed
(under substitute: replaced) -- and enumerates the learner's law on each
pair (:func:`refdp.audit.enumeration.enumerate_pair`) until one is refuted
or ``candidates`` pairs are done.  The verdict is REFUTED when an
outcome's certified log-ratio exceeds the claimed epsilon: a released model
(whole law enumerated; certified to within the mass left out) or the
first K mechanism outputs (the law did not fit the budget; exact, and the
loss of what the model shows when it shows them: ``proofs/exact-enumeration.md``).
"""

from __future__ import annotations

import json
import math
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, List, Mapping, Optional, Tuple

from refdp.audit.enumeration import DEFAULT_BUDGET, DEFAULT_TAIL, Enumeration, enumerate_pair
from refdp.audit.exact import LOG_SLACK
from refdp.audit.neighbours import Record, record_of
from refdp.audit.pair import Neighbour, addition, removal, substitution
from refdp.audit.timing import PhaseProgress
from refdp.data import Dataset
from refdp.mechanisms.recording import Call
from refdp.privacy import Relation
from refdp.rng import RandomSource
from refdp.tree import TreeModel

__all__ = ["DEFAULT_EXACT_ROWS", "ExactAudit", "audit_exact", "exact_pairs"]

DEFAULT_EXACT_ROWS = 1
"""Rows of ``D`` for an exact audit unless ``--rows`` says otherwise."""

_CANDIDATES = 4


@dataclass(frozen=True)
class ExactAudit:
    """What to enumerate: ``learner`` on ``D = data.subset(rows)`` and its neighbours, against ``epsilon``.

    ``neighbour`` fixes the pair; otherwise up to ``candidates`` neighbours
    are tried in turn.  ``budget`` bounds the runs of each enumeration;
    ``tail`` the mass a discrete Laplace window may leave out per cell.
    """

    learner: Callable[[Dataset, RandomSource], TreeModel]
    name: str
    description: str
    params: Mapping[str, object]
    data: Dataset
    data_name: str
    rows: Tuple[int, ...]
    epsilon: Fraction
    delta: Fraction
    relation: Relation
    seed: int
    neighbour: Optional[Neighbour] = None
    candidates: int = _CANDIDATES
    budget: int = DEFAULT_BUDGET
    tail: Fraction = DEFAULT_TAIL


def exact_pairs(data: Dataset, rows: Tuple[int, ...], relation: Relation, seed: int, count: int) -> List[Neighbour]:
    """Up to ``count`` neighbours of ``data.subset(rows)``, drawn with ``seed``.

    Add-remove: rows of the data added, those of a class ``D`` lacks first
    (a record that splits a pure node moves the split qualities most),
    every third a row of ``D`` removed; substitute: a row replaced by a row
    of another class.
    """
    d = data.subset(list(rows))
    rng = random.Random(f"refdp-exact-pairs-{seed}")
    present = set(d.labels)
    outside = [i for i in range(len(data)) if i not in set(rows)] or list(range(len(data)))
    others = [i for i in outside if data.labels[i] not in present] or outside
    out: List[Neighbour] = []
    for k in range(count):
        record: Record = record_of(data, rng.choice(others))
        if relation is Relation.ADD_REMOVE:
            if k % 3 == 2 and len(d) > 1:
                out.append(removal(d, rng.randrange(len(d))))
            else:
                out.append(addition(d, record))
        else:
            i = rng.randrange(len(d))
            if record == record_of(d, i):
                record = Record(record.values, (record.label + 1) % data.schema.n_classes)
            out.append(substitution(d, i, record))
    return out


def _model_key(model: TreeModel) -> str:
    return json.dumps(model.to_json(), sort_keys=True, separators=(",", ":"))


def _describe(call: Call, output: Any) -> str:
    """One call and its output in words: ``split attribute Q2 on tree-0 -> candidate 9``."""
    text = f"candidate {output}" if call.mechanism == "exponential" else repr(output)
    if len(text) > 60:
        text = text[:57] + "..."
    return f"{call.label} on {'/'.join(call.partition) or '(whole data set)'} -> {text}"


def audit_exact(request: ExactAudit, progress: Optional[PhaseProgress] = None) -> Dict[str, Any]:
    """Enumerate ``request``'s pairs; the report (the fields ``audit --json`` prints).

    ``progress`` hears of the ``"exact"`` pairs.
    """
    started = time.perf_counter()
    d = request.data.subset(list(request.rows))
    receipt = request.learner(d, random.Random(request.seed)).receipt
    neighbours = [request.neighbour] if request.neighbour is not None else exact_pairs(
        request.data, request.rows, request.relation, request.seed, request.candidates
    )
    tick = progress("exact") if progress is not None else None
    best: Optional[Tuple[Neighbour, Enumeration]] = None
    threshold = float(request.epsilon) + LOG_SLACK
    tried = 0

    def refutes(result: Enumeration) -> bool:
        if request.delta == 0:
            return result.certified_loss > threshold
        return result.certified_delta(threshold) > float(request.delta)

    for neighbour in neighbours:
        result = enumerate_pair(
            request.learner, d, neighbour.d_prime, seed=request.seed, to_key=_model_key,
            budget=request.budget, tail=request.tail,
            describe=_describe,
        )
        tried += 1
        if tick is not None:
            tick(tried, len(neighbours))
        if best is None or result.certified_loss > best[1].certified_loss:
            best = (neighbour, result)
        if refutes(result):
            best = (neighbour, result)
            break
    assert best is not None
    neighbour, result = best
    worst = result.worst
    fields: Dict[str, Any] = {
        "algorithm": request.name,
        "description": request.description,
        "params": {k: v for k, v in sorted(request.params.items())},
        "data": request.data_name,
        "rows": len(d),
        "epsilon": str(request.epsilon),
        "delta": str(request.delta),
        "relation": request.relation.value,
        "seed": request.seed,
        "method": "exact",
        "enumeration": True,
        "receipt": f"epsilon={receipt.epsilon} delta={receipt.delta} (level {receipt.level})",
        "neighbour": neighbour.description,
        "pairs": tried,
        "complete": result.complete,
        "calls_enumerated": result.calls,
        "depth": result.depth,
        "partial": result.partial,
        "runs": result.runs,
        "outcomes": [result.outcomes_d, result.outcomes_d_prime],
        "remainder": [result.remainder_d, result.remainder_d_prime],
        "loss": None if worst is None else _finite(worst.low),
        "loss_upper": None if worst is None else _finite(worst.high),
        "outcome": "" if worst is None else worst.description,
        "outcome_kind": "" if worst is None else ("model" if worst.complete else "prefix"),
        "delta_lower_bound": result.certified_delta(threshold),
        "diverged": result.diverged,
        "verdict": "refuted" if refutes(result) else "not refuted",
        "wall_time": time.perf_counter() - started,
    }
    return fields


def _finite(x: float) -> Any:
    return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")
