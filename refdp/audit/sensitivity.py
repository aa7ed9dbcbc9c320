"""Exhaustive sensitivity search: the largest change of a function between neighbours.

The global sensitivity of ``f`` is ``Delta f = max |f(x) - f(x')|`` over
neighbouring inputs ``x, x'``.  A proof bounds it for all inputs; this module
checks the bound on every input of a finite family, and finds the worst pair,
which tells a reader whether the bound is reached.  For count tables (the
inputs of the quality functions in :mod:`refdp.scoring`) it provides the
neighbour relation and an enumeration of all small tables.

A randomised, shrinking search with ``hypothesis.target`` lives in
``tests/strategies.py`` (refdp itself imports only the standard library).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Generic, Iterable, Iterator, Optional, Tuple, TypeVar, Union

from refdp.errors import InvalidParameterError
from refdp.privacy import Relation, parse_relation
from refdp.scoring import CountTable, as_count_table

__all__ = [
    "Score",
    "SensitivityReport",
    "score_change",
    "exhaustive_sensitivity",
    "Table",
    "count_table_neighbours",
    "all_count_tables",
]

X = TypeVar("X")
Score = Union[int, float, Fraction]
Table = Tuple[Tuple[int, ...], ...]


@dataclass(frozen=True)
class SensitivityReport(Generic[X]):
    """The largest ``|f(x) - f(x')|`` seen, the pair reaching it and how many pairs were compared.

    ``worst_pair`` is None only when no pair was checked (then ``max_change``
    is 0).  Ties keep the first pair found.
    """

    max_change: Score
    worst_pair: Optional[Tuple[X, X]]
    pairs_checked: int


def score_change(a: Score, b: Score) -> Score:
    """``|a - b|``: exact (a Fraction) when both are ints or Fractions, a float otherwise."""
    if isinstance(a, (int, Fraction)) and isinstance(b, (int, Fraction)):
        return abs(Fraction(a) - Fraction(b))
    return abs(float(a) - float(b))


def exhaustive_sensitivity(
    f: Callable[[X], Score],
    inputs: Iterable[X],
    neighbours: Callable[[X], Iterable[X]],
) -> SensitivityReport[X]:
    """``max |f(x) - f(y)|`` over every ``x`` in ``inputs`` and every ``y`` in ``neighbours(x)``.

    ``f`` may return ints, Fractions (the comparison is then exact) or floats.
    The neighbours need not lie in ``inputs``.  A symmetric relation lists
    each unordered pair twice when both ends are inputs; that only costs time.
    """
    best: Score = 0
    worst: Optional[Tuple[X, X]] = None
    checked = 0
    for x in inputs:
        fx = f(x)
        for y in neighbours(x):
            change = score_change(fx, f(y))
            checked += 1
            if worst is None or change > best:
                best, worst = change, (x, y)
    return SensitivityReport(best, worst, checked)


def count_table_neighbours(table: CountTable, relation: Union[Relation, str]) -> Iterator[Table]:
    """Every count table neighbouring ``table`` (cells ``j`` by classes ``c``), lazily.

    ``add-remove``: one count ``tau_{j,c}`` plus or minus one (never below 0).
    ``substitute``: one record moves from a cell ``(j1, c1)`` with
    ``tau_{j1,c1} > 0`` to any other cell ``(j2, c2)`` (same row or same
    column allowed), so the total ``n`` is unchanged.  ``table`` is not
    modified; the neighbours are tuples of tuples.
    """
    base = as_count_table(table)
    relation = parse_relation(relation)
    cells = [(j, c) for j in range(len(base)) for c in range(len(base[0]))]

    def changed(*moves: Tuple[int, int, int]) -> Table:
        rows = [list(row) for row in base]
        for j, c, by in moves:
            rows[j][c] += by
        return tuple(tuple(row) for row in rows)

    if relation is Relation.ADD_REMOVE:
        for j, c in cells:
            yield changed((j, c, 1))
            if base[j][c] > 0:
                yield changed((j, c, -1))
        return
    for source in cells:
        if base[source[0]][source[1]] == 0:
            continue
        for target in cells:
            if target != source:
                yield changed((source[0], source[1], -1), (target[0], target[1], 1))


def all_count_tables(n_cells: int, n_classes: int, max_total: int) -> Iterator[Table]:
    """Every ``n_cells`` x ``n_classes`` table of non-negative counts summing to at most ``max_total``.

    Totals 0 to ``max_total`` in increasing order; there are
    ``C(max_total + k, k)`` tables for ``k = n_cells * n_classes`` cells.  An
    add-remove neighbour of a table of total ``max_total`` has total
    ``max_total + 1``: :func:`exhaustive_sensitivity` over these tables
    therefore covers every neighbouring pair with at most ``max_total`` records
    on the smaller side.
    """
    for name, value in (("n_cells", n_cells), ("n_classes", n_classes)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InvalidParameterError(f"{name} must be an int >= 1, got {value!r}")
    if isinstance(max_total, bool) or not isinstance(max_total, int) or max_total < 0:
        raise InvalidParameterError(f"max_total must be an int >= 0, got {max_total!r}")
    k = n_cells * n_classes
    for total in range(max_total + 1):
        # Stars and bars: choose k - 1 bar positions among total + k - 1 slots.
        for bars in itertools.combinations(range(total + k - 1), k - 1):
            counts = []
            previous = -1
            for bar in bars + (total + k - 1,):
                counts.append(bar - previous - 1)
                previous = bar
            yield tuple(
                tuple(counts[j * n_classes : (j + 1) * n_classes]) for j in range(n_cells)
            )
