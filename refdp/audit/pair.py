"""The pair (``D``, ``D'``) of an audit: ``D`` drawn from a data set, described neighbours, a pilot choice.

What :mod:`refdp.audit.learner` and :mod:`refdp.audit.program_audit`
share: ``D`` as rows drawn with the audit's seed (:func:`draw_rows`);
neighbours with the description a report prints (:func:`removal`,
:func:`addition`, :func:`substitution`, :func:`row_neighbour`, in the words
of :func:`refdp.audit.all_neighbours`); and the choice among candidate
neighbours by pilot audits on seeds separate from the audit's
(:func:`choose_by_pilot`), which keeps the audit's test batch fresh and its
bound valid.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, List, Optional, Tuple

from refdp.audit.montecarlo import AuditResult
from refdp.audit.neighbours import Record, add_record, record_of, remove_row, replace_row
from refdp.data import Dataset
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation

__all__ = [
    "Neighbour",
    "PilotChoice",
    "addition",
    "choose_by_pilot",
    "draw_rows",
    "removal",
    "row_neighbour",
    "substitution",
]


def draw_rows(size: int, rows: int, seed: int) -> List[int]:
    """``rows`` of the indices ``0..size-1``, drawn without replacement with ``seed``, in order."""
    return sorted(random.Random(seed).sample(range(size), rows))


@dataclass(frozen=True)
class Neighbour:
    """A neighbour ``d_prime`` of ``D`` and how it was made, in words."""

    description: str
    d_prime: Dataset


def removal(d: Dataset, i: int) -> Neighbour:
    """``D`` without row ``i``."""
    return Neighbour(f"remove row {i} {record_of(d, i).describe(d.schema)}", remove_row(d, i))


def addition(d: Dataset, record: Record) -> Neighbour:
    """``D`` with ``record`` appended."""
    return Neighbour(f"add {record.describe(d.schema)}", add_record(d, record))


def substitution(d: Dataset, i: int, record: Record) -> Neighbour:
    """``D`` with row ``i`` replaced by ``record``."""
    old = record_of(d, i)
    return Neighbour(
        f"replace row {i} {old.describe(d.schema)} by {record.describe(d.schema)}", replace_row(d, i, record)
    )


def row_neighbour(d: Dataset, relation: Relation, i: int) -> Neighbour:
    """The neighbour that changes row ``i``: removed (add-remove), or its class changed to the next (substitute)."""
    if relation is Relation.ADD_REMOVE:
        return removal(d, i)
    if d.schema.n_classes < 2:
        raise InvalidParameterError("a substitute neighbour by a class change needs two classes; give a FILE")
    record = record_of(d, i)
    return substitution(d, i, Record(record.values, (record.label + 1) % d.schema.n_classes))


@dataclass(frozen=True)
class PilotChoice:
    """The candidate a pilot search chose (its index) and how, in words."""

    index: int
    note: str


def choose_by_pilot(
    candidates: int, per_side: int, stream: str, pilot: Callable[[int, int], AuditResult]
) -> PilotChoice:
    """The candidate whose pilot audit gives the largest bound (then point estimate).

    ``pilot(k, seed)`` audits candidate ``k`` of ``candidates`` with
    ``per_side`` runs per side and batch; its seeds are drawn from
    ``random.Random(stream)``, a stream the caller keeps separate from the
    audit's, so that the audit's test batch is fresh and its bound stays
    valid.  Ties keep the earlier candidate.
    """
    seeds = random.Random(stream)
    best: Optional[Tuple[Tuple[float, float], int]] = None
    for k in range(candidates):
        result = pilot(k, seeds.getrandbits(64))
        score = (result.lower_bound, result.point_estimate)
        if best is None or score > best[0]:
            best = (score, k)
    if best is None:
        raise InvalidParameterError("a pilot search needs at least one candidate neighbour")
    return PilotChoice(
        best[1],
        f"searched: the best of {candidates} candidates by a pilot audit of {per_side} runs per side and "
        "batch each, on seeds separate from the audit's (the test batch is fresh, so the bound stays valid)",
    )
