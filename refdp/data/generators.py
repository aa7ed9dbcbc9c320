"""Data sets that are defined by a rule and so can be generated exactly.

* UCI "Tic-Tac-Toe Endgame": every board at the end of a game of
  tic-tac-toe in which x moved first (958 boards, 626 won by x).
* UCI "MONK's problems" 1-3: all 432 combinations of six attributes, with the
  class given by the problem's rule (Thrun et al., 1991).

Generating them rather than vendoring them keeps the package small and makes
the definition the documentation.  Row order is deterministic.
"""

from __future__ import annotations

from itertools import product
from typing import Callable, Dict, List, Set, Tuple

from refdp.data.dataset import Dataset
from refdp.data.schema import CategoricalAttribute, Schema
from refdp.errors import InvalidParameterError

__all__ = [
    "TIC_TAC_TOE_SCHEMA",
    "MONK_DOMAIN_SIZES",
    "monk_schema",
    "tic_tac_toe",
    "monk",
]

_SQUARES = (
    "top-left-square",
    "top-middle-square",
    "top-right-square",
    "middle-left-square",
    "middle-middle-square",
    "middle-right-square",
    "bottom-left-square",
    "bottom-middle-square",
    "bottom-right-square",
)

TIC_TAC_TOE_SCHEMA = Schema(
    attributes=tuple(CategoricalAttribute(name, ("x", "o", "b")) for name in _SQUARES),
    label="Class",
    classes=("positive", "negative"),
)
"""The public schema of :func:`tic_tac_toe` (square codes: x=0, o=1, b=2)."""

_X, _O, _BLANK = 0, 1, 2
_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _has_line(board: Tuple[int, ...], player: int) -> bool:
    return any(board[a] == board[b] == board[c] == player for a, b, c in _LINES)


def tic_tac_toe() -> Dataset:
    """The UCI Tic-Tac-Toe Endgame data set, generated from the rules of the game.

    A row is a board at the end of a game in which x moved first and the
    players alternated until one had three in a row or the board was full.
    The class is ``positive`` when x has three in a row, ``negative``
    otherwise (o won, or a draw).  There are 958 distinct such boards, 626
    positive and 332 negative, as in the UCI file.

    Order: the positive boards, then the negative ones, each sorted
    lexicographically with x < o < b, reading the squares from top left to
    bottom right.  This matches the first rows of the UCI file (we checked
    those, not the whole file).
    """
    endings: Set[Tuple[int, ...]] = set()
    seen: Set[Tuple[int, ...]] = set()
    # Depth-first search over positions rather than over games: many move
    # orders reach the same position, and there are only 5,478 positions.
    stack: List[Tuple[int, ...]] = [(_BLANK,) * 9]
    while stack:
        board = stack.pop()
        if board in seen:
            continue
        seen.add(board)
        if _has_line(board, _X) or _has_line(board, _O) or _BLANK not in board:
            endings.add(board)
            continue
        mover = _X if board.count(_X) == board.count(_O) else _O
        for square in range(9):
            if board[square] == _BLANK:
                stack.append(board[:square] + (mover,) + board[square + 1 :])
    positive = sorted(b for b in endings if _has_line(b, _X))
    negative = sorted(b for b in endings if not _has_line(b, _X))
    boards = positive + negative
    columns = [[board[square] for board in boards] for square in range(9)]
    labels = [0] * len(positive) + [1] * len(negative)
    return Dataset.from_codes(TIC_TAC_TOE_SCHEMA, columns, labels)


MONK_DOMAIN_SIZES: Tuple[int, ...] = (3, 3, 2, 3, 4, 2)
"""The domain sizes of the MONK attributes a1..a6; values are coded "1".."k"."""

# The rules, on attribute values 1..k (a[0] is a1).
_MONK_RULES: Dict[int, Callable[[Tuple[int, ...]], bool]] = {
    1: lambda a: a[0] == a[1] or a[4] == 1,
    2: lambda a: sum(1 for v in a if v == 1) == 2,
    3: lambda a: (a[4] == 3 and a[3] == 1) or (a[4] != 4 and a[1] != 3),
}


def monk_schema(problem: int) -> Schema:
    """The public schema of :func:`monk` (the same for the three problems)."""
    _check_problem(problem)
    return Schema(
        attributes=tuple(
            CategoricalAttribute(f"a{j + 1}", tuple(str(v) for v in range(1, size + 1)))
            for j, size in enumerate(MONK_DOMAIN_SIZES)
        ),
        label="class",
        classes=("1", "0"),
    )


def _check_problem(problem: int) -> None:
    if isinstance(problem, bool) or not isinstance(problem, int) or problem not in _MONK_RULES:
        raise InvalidParameterError(f"MONK problem must be 1, 2 or 3, got {problem!r}")


def monk(problem: int) -> Dataset:
    """The full, noiseless MONK's problem ``problem`` (1, 2 or 3): all 432 rows.

    Attributes a1..a6 have 3, 3, 2, 3, 4, 2 values, coded "1".."k".  The
    class is "1" when the rule holds and "0" otherwise:

    * MONK-1: a1 = a2 or a5 = 1 (216 of 432 rows hold);
    * MONK-2: exactly two of the six attributes take their first value;
    * MONK-3: (a5 = 3 and a4 = 1) or (a5 != 4 and a2 != 3).

    The original MONK-3 *training* set (122 rows) had 5% class noise; this
    is the noiseless full set (the UCI test file is the same 432 rows).
    Rows are in lexicographic order of (a1, ..., a6), a6 changing fastest.
    """
    schema = monk_schema(problem)
    rule = _MONK_RULES[problem]
    rows = list(product(*(range(1, size + 1) for size in MONK_DOMAIN_SIZES)))
    columns = [[row[j] - 1 for row in rows] for j in range(len(MONK_DOMAIN_SIZES))]
    labels = [0 if rule(row) else 1 for row in rows]
    return Dataset.from_codes(schema, columns, labels)
