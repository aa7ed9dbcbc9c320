"""Row sampling and k-suppression: the draws whose law depends on the data set's size, and a release by threshold.

* :func:`bernoulli_sample` keeps each of n rows independently with a
  rational probability p, exactly (:func:`refdp.mechanisms.bernoulli_positions`,
  claim ``exact-bernoulli-positions``); kanon-rdt's per-tree sample;
* :func:`row_sample` keeps the rows a sampler's decisions say, one decision
  per row in order (dp-adaboost's Poissonised bootstrap, probability 1 - 1/e);
* :func:`suppressed_release` releases counts after a threshold rule
  (kanon-rdt): what the audit checks is the rule's promise, that every
  released cell is 0 or its own count of at least k, so that a record
  changes the release of its own cell only (Li, Qardaji and Su's
  strongly-safe k-anonymisation; claim ``lqs-sampling-suppression``).

None of them charges the ledger: the caller charges the whole
sample-and-release (a sample is not released by itself).  They return
positions 0..n-1 in the caller's row order, which is the data set's
order, so that an audit can say which sampled row is which on a
neighbouring data set (:mod:`refdp.audit.replay`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Callable, Dict, Hashable, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.errors import InvalidParameterError
from refdp.mechanisms._params import Exact, exact_fraction
from refdp.mechanisms.exact import bernoulli_positions
from refdp.mechanisms.recording import (
    DETERMINISTIC,
    BernoulliRowsLaw,
    Call,
    CallInput,
    Finding,
    RowCount,
    mechanism_call,
)
from refdp.privacy import Ledger, Number, as_delta, as_fraction, check_partition
from refdp.rng import RandomSource

__all__ = ["bernoulli_sample", "row_sample", "suppressed_release", "Suppressed"]


def _rows(n: int) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidParameterError(f"the number of rows must be an int >= 0, got {n!r}")
    return n


def bernoulli_sample(
    n: int, p: Exact, rng: RandomSource, *, ledger: Ledger, label: str, partition: Sequence[str] = ()
) -> List[int]:
    """The positions among ``n`` rows kept, each independently with probability exactly ``p``.

    The draws of :func:`refdp.mechanisms.bernoulli_positions`.

    >>> import random
    >>> len(bernoulli_sample(1000, Fraction(1, 2), random.Random(1), ledger=Ledger(), label="sample")) > 400
    True
    """
    size = _rows(n)
    probability = exact_fraction(p, "p")
    if not 0 <= probability <= 1:
        raise InvalidParameterError(f"a sampling probability must be in [0, 1], got {probability}")
    path = check_partition(partition)
    log_p = math.log(probability) if probability > 0 else -math.inf
    log_q = math.log(1 - probability) if probability < 1 else -math.inf
    return mechanism_call(
        lambda: Call(
            "row-sampling", label, path, Fraction(0), Fraction(0), None, ledger.relation, ("exact-bernoulli-positions",),
            (("probability", probability),), RowCount(size), BernoulliRowsLaw(size, probability, log_p, log_q),
            released=False,
        ),
        rng,
        lambda: bernoulli_positions(probability, size, rng),
    )


def row_sample(
    n: int,
    draws: Callable[[int, RandomSource], Sequence[bool]],
    rng: RandomSource,
    *,
    log_keep: float,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
) -> List[int]:
    """The positions among ``n`` rows whose decision in ``draws(n, rng)`` is True (one per row, in order).

    ``log_keep`` is ln P[a row is kept], the same for every row (for an audit that enumerates samples).

    >>> import random
    >>> row_sample(3, lambda n, rng: [True] * n, random.Random(1), log_keep=0.0, ledger=Ledger(), label="all")
    [0, 1, 2]
    """
    size = _rows(n)
    if not (isinstance(log_keep, float) and log_keep <= 0):
        raise InvalidParameterError(f"log_keep must be a float <= 0 (ln of a probability), got {log_keep!r}")
    path = check_partition(partition)
    log_drop = math.log(-math.expm1(log_keep)) if log_keep < 0 else -math.inf
    return mechanism_call(
        lambda: Call(
            "row-sampling", label, path, Fraction(0), Fraction(0), None, ledger.relation, (),
            (("log_keep", log_keep),), RowCount(size), BernoulliRowsLaw(size, None, log_keep, log_drop),
            released=False,
        ),
        rng,
        lambda: _kept(size, draws(size, rng)),
    )


def _kept(size: int, decisions: Sequence[bool]) -> List[int]:
    if len(decisions) != size:
        raise InvalidParameterError(f"a row sampler decided {len(decisions)} rows of {size}")
    return [i for i, kept in enumerate(decisions) if kept]


Released = Tuple[Union[int, float], ...]
"""A released row of counts (the caller's count type)."""

Cells = Tuple[Tuple[Hashable, Tuple[int, ...]], ...]
ReleasedCells = Tuple[Tuple[Hashable, Released], ...]


@dataclass(frozen=True)
class Suppressed:
    """A release by threshold: ``counts[key][c]`` (the sample's) and ``released[key][c]``.

    The rule's promise (strongly-safe k-anonymisation, Li, Qardaji and Su
    2012): a cell is released as 0 or as its own count, and only when that
    count is at least ``k``; so whether a cell shows depends on the cell
    alone, and a record that joins changes its own cell's release only.
    """

    counts: Cells
    released: ReleasedCells
    k: int

    def own_finding(self, call: Call) -> Optional[Finding]:
        released = dict(self.released)
        for key, counts in self.counts:
            shown: Released = released.get(key, (0,) * len(counts))
            for c, (count, value) in enumerate(zip(counts, shown)):
                if value != 0 and (value != count or count < self.k):
                    return Finding(
                        f"released cell {key!r}, class {c}", f"0, or its own count when that is >= k = {self.k}",
                        f"{value} (its count is {count})",
                    )
        return None

    def finding(self, other: CallInput, call: Call) -> Optional[Finding]:
        assert isinstance(other, Suppressed)
        mine, theirs = dict(self.counts), dict(other.counts)
        shown, shown_other = dict(self.released), dict(other.released)
        for key in sorted(set(mine) | set(theirs), key=repr):
            width = len(mine.get(key) or theirs[key])
            zero: Tuple[int, ...] = (0,) * width
            a, b = mine.get(key, zero), theirs.get(key, zero)
            ra, rb = shown.get(key, zero), shown_other.get(key, zero)
            for c in range(width):
                if a[c] == b[c] and ra[c] != rb[c]:
                    return Finding(
                        f"released cell {key!r}, class {c}",
                        "unchanged when its own count is (the release of a cell depends on that cell only)",
                        f"count {a[c]} on both, released {ra[c]} on D and {rb[c]} on D'",
                    )
        return None


def suppressed_release(
    counts: Mapping[Any, Sequence[int]],
    released: Mapping[Any, Released],
    k: int,
    *,
    epsilon: Number,
    delta: Number,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
) -> Dict[Hashable, Released]:
    """``released``, the counts a threshold rule releases from a sample's ``counts``, as one call an audit sees.

    The rule itself is the caller's (kanon-rdt: per cell, or its planted
    fault on the leaf total); the call checks nothing at run time: an audit
    holds it to :class:`Suppressed`'s promise.  ``epsilon`` and ``delta``
    are what the caller charged for the sample and release.

    Why 9 parameters: the two count maps and k are the call's input and
    output; the keyword-only rest is what every mechanism call records
    (budget, random source, ledger, label, partition).

    >>> suppressed_release({"leaf": [5, 1]}, {"leaf": (5, 0)}, 3, epsilon=1, delta=0, rng=None,
    ...                    ledger=Ledger(), label="release")  # type: ignore[arg-type]
    {'leaf': (5, 0)}
    """
    if isinstance(k, bool) or not isinstance(k, int) or k < 0:
        raise InvalidParameterError(f"k must be an int >= 0, got {k!r}")
    path = check_partition(partition)
    eps, dlt = as_fraction(epsilon, "epsilon"), as_delta(delta)
    out = dict(released)
    return mechanism_call(
        lambda: Call(
            "k-suppression", label, path, eps, dlt, None, ledger.relation, ("lqs-sampling-suppression",),
            (("k", k),),
            Suppressed(
                tuple(sorted(((key, tuple(c)) for key, c in counts.items()), key=lambda kv: repr(kv[0]))),
                tuple(sorted(out.items(), key=lambda kv: repr(kv[0]))),
                k,
            ),
            DETERMINISTIC,
        ),
        rng,
        lambda: out,
    )
