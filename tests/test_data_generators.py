"""Generated data sets: exact counts, rules and deterministic order."""

from __future__ import annotations

from itertools import product

import pytest

from refdp.data import monk, tic_tac_toe
from refdp.data.generators import MONK_DOMAIN_SIZES, TIC_TAC_TOE_SCHEMA
from refdp.errors import InvalidParameterError

LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))


def _wins(board: tuple, mark: str) -> bool:  # type: ignore[type-arg]
    return any(all(board[i] == mark for i in line) for line in LINES)


@pytest.mark.smoke
def test_tic_tac_toe_counts() -> None:
    data = tic_tac_toe()
    assert len(data) == 958
    assert data.class_counts() == [626, 332]
    assert data.schema == TIC_TAC_TOE_SCHEMA
    assert data.schema.names[0] == "top-left-square" and data.schema.names[-1] == "bottom-right-square"
    assert data.schema.label == "Class" and data.schema.classes == ("positive", "negative")


def test_tic_tac_toe_boards_are_legal_endings() -> None:
    data = tic_tac_toe()
    boards = [data.row(i) for i in range(len(data))]
    assert len(set(boards)) == 958
    for i, board in enumerate(boards):
        x, o = board.count("x"), board.count("o")
        x_wins, o_wins = _wins(board, "x"), _wins(board, "o")
        assert x - o in (0, 1), board
        assert not (x_wins and o_wins), board
        assert x_wins or o_wins or "b" not in board, board
        # The winner moved last.
        assert not x_wins or x == o + 1, board
        assert not o_wins or x == o, board
        assert data.label(i) == ("positive" if x_wins else "negative")
    # The first rows of the UCI file, in its order.
    assert [",".join(map(str, b)) for b in boards[:4]] == [
        "x,x,x,x,o,o,x,o,o",
        "x,x,x,x,o,o,o,x,o",
        "x,x,x,x,o,o,o,o,x",
        "x,x,x,x,o,o,o,b,b",
    ]


def test_tic_tac_toe_is_deterministic() -> None:
    a, b = tic_tac_toe(), tic_tac_toe()
    assert [a.row(i) for i in range(len(a))] == [b.row(i) for i in range(len(b))]


@pytest.mark.smoke
@pytest.mark.parametrize("problem, positives", [(1, 216), (2, 142), (3, 228)])
def test_monk_counts(problem: int, positives: int) -> None:
    data = monk(problem)
    assert len(data) == 432
    assert data.class_counts() == [positives, 432 - positives]
    assert data.schema.names == ("a1", "a2", "a3", "a4", "a5", "a6")
    assert tuple(len(a.values) for a in data.schema.attributes) == MONK_DOMAIN_SIZES  # type: ignore[union-attr]
    assert data.schema.classes == ("1", "0")


@pytest.mark.parametrize("problem", [1, 2, 3])
def test_monk_rules_row_by_row(problem: int) -> None:
    data = monk(problem)
    expected_rows = list(product(*(range(1, k + 1) for k in MONK_DOMAIN_SIZES)))
    for i, values in enumerate(expected_rows):
        row = data.row(i)
        assert row == tuple(str(v) for v in values)
        a1, a2, a3, a4, a5, a6 = values
        if problem == 1:
            holds = a1 == a2 or a5 == 1
        elif problem == 2:
            holds = sum(v == 1 for v in values) == 2
        else:
            holds = (a5 == 3 and a4 == 1) or (a5 != 4 and a2 != 3)
        assert data.label(i) == ("1" if holds else "0"), (problem, values)


@pytest.mark.parametrize("problem", [0, 4, True, "1", 1.0])
def test_monk_rejects_unknown_problems(problem: object) -> None:
    with pytest.raises(InvalidParameterError, match="1, 2 or 3"):
        monk(problem)  # type: ignore[arg-type]
