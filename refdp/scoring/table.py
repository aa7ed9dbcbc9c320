"""Class-count tables, the input of every quality function.

A candidate split of a node's records is summarised by its count table
``table[j][c] = tau_{j,c}``: row ``j`` is a cell of the split (a value of the
attribute, or one side of a binary test), column ``c`` is a class.  Writing
``tau_j = sum_c tau_{j,c}`` for the size of cell ``j`` and
``n = sum_j tau_j`` for the size of the node, the quality functions in
:mod:`refdp.scoring.quality` are functions of this table alone, which is what
lets their sensitivities be proved once, for every attribute.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

from refdp.errors import InvalidParameterError

__all__ = ["CountTable", "as_count_table"]

CountTable = Sequence[Sequence[int]]


def _sequence(value: object, what: str) -> Sequence[object]:
    # A str is a Sequence too, but never a meaningful row of counts.
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise InvalidParameterError(
            f"{what} must be a list or tuple, got {type(value).__name__}; "
            "pass the table as a list of rows, one row of class counts per cell of the split"
        )
    return value


def as_count_table(table: CountTable) -> Tuple[Tuple[int, ...], ...]:
    """Validate a count table and return an immutable copy of it.

    The table must have at least one row (cell ``j``) and at least one column
    (class ``c``), every row must have the same number of columns, and every
    count ``tau_{j,c}`` must be a non-negative ``int`` (``bool`` is refused).
    The input is never modified; a bad table raises
    :class:`~refdp.errors.InvalidParameterError`.
    """
    rows = _sequence(table, "a count table")
    if len(rows) == 0:
        raise InvalidParameterError(
            "a count table needs at least one row (one per cell of the split), got none"
        )
    checked: List[Tuple[int, ...]] = []
    width = -1
    for j, raw_row in enumerate(rows):
        row = _sequence(raw_row, f"row {j} of the count table")
        if width < 0:
            width = len(row)
            if width == 0:
                raise InvalidParameterError(
                    "a count table needs at least one column (one per class), got an empty row 0"
                )
        elif len(row) != width:
            raise InvalidParameterError(
                f"row {j} of the count table has {len(row)} counts but row 0 has {width}; "
                "every row needs one count per class, in the same class order"
            )
        counts: List[int] = []
        for c, count in enumerate(row):
            if isinstance(count, bool) or not isinstance(count, int):
                raise InvalidParameterError(
                    f"count [{j}][{c}] must be an int, got {count!r} ({type(count).__name__}); "
                    "class counts are whole numbers of records"
                )
            if count < 0:
                raise InvalidParameterError(
                    f"count [{j}][{c}] must be >= 0, got {count}; class counts cannot be negative"
                )
            counts.append(count)
        checked.append(tuple(counts))
    return tuple(checked)
