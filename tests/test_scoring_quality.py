"""Exact values of the quality functions, input validation and the registry."""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import Any, List

import pytest

from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.scoring import (
    QUALITY_FUNCTIONS,
    as_count_table,
    get_quality,
    gini_unnormalised,
    gini_weighted,
    information_gain,
    max_operator,
)

# A table worked by hand: cells [3, 1] and [0, 2], n = 6.
#   max:  3 + 2 = 5
#   gini: -(4 (1 - 9/16 - 1/16) + 2 (1 - 1)) = -(4 * 6/16) = -3/2
#   gini-weighted: -3/2 / 6 = -1/4
#   info-gain: 3 log2(3/4) + 1 log2(1/4) + 2 log2(1) = 3 log2 3 - 8
HAND = [[3, 1], [0, 2]]


@pytest.mark.smoke
@pytest.mark.claim("max-operator-sensitivity", "gini-unnormalised-sensitivity")
def test_hand_computed_table() -> None:
    assert max_operator(HAND) == Fraction(5)
    assert gini_unnormalised(HAND) == Fraction(-3, 2)
    assert gini_weighted(HAND) == Fraction(-1, 4)
    assert math.isclose(information_gain(HAND), 3 * math.log2(3) - 8, rel_tol=1e-15)


@pytest.mark.claim("gini-weighted-sensitivity", "information-gain-sensitivity")
def test_three_cells_three_classes() -> None:
    # Cells: [2, 2, 0] (n=4), [1, 1, 1] (n=3), [0, 0, 5] (n=5); n = 12.
    table = [[2, 2, 0], [1, 1, 1], [0, 0, 5]]
    assert max_operator(table) == 2 + 1 + 5
    # Impurity masses: 4 - 8/4 = 2; 3 - 3/3 = 2; 5 - 25/5 = 0.
    assert gini_unnormalised(table) == -4
    assert gini_weighted(table) == Fraction(-4, 12)
    # Entropies in bits: 1, log2 3, 0.
    assert math.isclose(information_gain(table), -(4 * 1 + 3 * math.log2(3)), rel_tol=1e-15)


def test_empty_cells_and_empty_tables_score_zero() -> None:
    assert max_operator([[0, 0], [0, 0]]) == 0
    assert gini_unnormalised([[0, 0], [0, 0]]) == 0
    assert gini_weighted([[0, 0], [0, 0]]) == 0
    assert information_gain([[0, 0], [0, 0]]) == 0.0
    # An empty cell next to a non-empty one contributes nothing.
    assert gini_unnormalised([[0, 0], [1, 1]]) == gini_unnormalised([[1, 1]]) == -1
    assert information_gain([[0, 0], [1, 1]]) == information_gain([[1, 1]]) == -2.0


def test_pure_cells_are_the_best_score_of_the_impurity_functions() -> None:
    pure = [[5, 0], [0, 7]]
    assert gini_unnormalised(pure) == 0
    assert gini_weighted(pure) == 0
    assert information_gain(pure) == 0.0
    assert max_operator(pure) == 12


def test_weighted_gini_is_the_unnormalised_one_over_n_and_bounded() -> None:
    table = [[4, 4, 4], [1, 2, 3]]
    n = 18
    assert gini_weighted(table) == gini_unnormalised(table) / n
    # -(1 - 1/k) <= G <= 0 for k classes; the first cell alone reaches -(1 - 1/3).
    assert gini_weighted([[4, 4, 4]]) == Fraction(-2, 3)


def test_rational_functions_are_exact_fractions_and_info_gain_a_float() -> None:
    table = [[1, 2], [3, 0]]
    assert isinstance(max_operator(table), Fraction)
    assert isinstance(gini_unnormalised(table), Fraction)
    assert isinstance(gini_weighted(table), Fraction)
    assert isinstance(information_gain(table), float)
    assert gini_unnormalised([[1, 2]]) == Fraction(-4, 3)  # 3 - 5/3, not a rounded float


def test_tuples_and_single_class_tables_are_accepted() -> None:
    assert max_operator(((2,), (3,))) == 5
    assert gini_unnormalised(((2,), (3,))) == 0
    assert as_count_table([[1, 2]]) == ((1, 2),)


BAD_TABLES: List[Any] = [
    [],
    [[]],
    [[1, 2], [3]],
    [[1, 2], [3, 4, 5]],
    [[1, -1]],
    [[1, 2.0]],
    [[1, True]],
    [[1, "2"]],
    [[1, None]],
    "12",
    [1, 2],
    [["12"]],
    ["ab"],
    {0: [1]},
    None,
]


@pytest.mark.parametrize("table", BAD_TABLES, ids=repr)
@pytest.mark.parametrize("name", tuple(QUALITY_FUNCTIONS))
def test_bad_tables_raise_and_leave_the_input_unchanged(name: str, table: Any) -> None:
    before = copy.deepcopy(table)
    with pytest.raises(InvalidParameterError) as raised:
        QUALITY_FUNCTIONS[name](table)
    assert table == before
    message = str(raised.value)
    assert "count" in message or "table" in message or "row" in message, message


@pytest.mark.smoke
def test_validation_messages_say_what_and_where() -> None:
    with pytest.raises(InvalidParameterError, match=r"row 1 .* 1 counts but row 0 has 2"):
        as_count_table([[1, 2], [3]])
    with pytest.raises(InvalidParameterError, match=r"count \[0\]\[1\] must be >= 0, got -3"):
        as_count_table([[1, -3]])
    with pytest.raises(InvalidParameterError, match=r"count \[1\]\[0\] must be an int"):
        as_count_table([[1], [0.5]])  # type: ignore[list-item]
    with pytest.raises(InvalidParameterError, match="at least one row"):
        as_count_table([])
    with pytest.raises(InvalidParameterError, match="at least one column"):
        as_count_table([[], []])


def test_valid_input_is_not_mutated() -> None:
    table = [[3, 1], [0, 2]]
    for quality in QUALITY_FUNCTIONS.values():
        quality(table)
    assert table == [[3, 1], [0, 2]]


@pytest.mark.smoke
@pytest.mark.claim(
    "max-operator-sensitivity",
    "gini-unnormalised-sensitivity",
    "gini-weighted-sensitivity",
    "information-gain-sensitivity",
)
def test_registry_sensitivities() -> None:
    assert tuple(QUALITY_FUNCTIONS) == ("max", "gini", "gini-weighted", "info-gain")
    for relation in (Relation.ADD_REMOVE, Relation.SUBSTITUTE, "add-remove", "substitute"):
        assert get_quality("max").sensitivity(relation) == Fraction(1)
        assert get_quality("gini").sensitivity(relation) == Fraction(2)
        assert get_quality("gini-weighted").sensitivity(relation) == Fraction(1, 2)
        assert get_quality("info-gain").sensitivity(relation, max_size=100) == (
            math.log2(101) + 1 / math.log(2)
        )
    for name, quality in QUALITY_FUNCTIONS.items():
        assert quality.name == name
        assert quality.claim.endswith("-sensitivity")


def test_sensitivity_depends_on_max_size_exactly_when_declared() -> None:
    for quality in QUALITY_FUNCTIONS.values():
        if quality.needs_max_size:
            with pytest.raises(InvalidParameterError, match="max_size=N"):
                quality.sensitivity(Relation.ADD_REMOVE)
            small = quality.sensitivity(Relation.ADD_REMOVE, max_size=10)
            assert small < quality.sensitivity(Relation.ADD_REMOVE, max_size=11)
        else:
            value = quality.sensitivity(Relation.ADD_REMOVE)
            for size in (1, 2, 10**6):
                assert quality.sensitivity(Relation.SUBSTITUTE, max_size=size) == value


@pytest.mark.parametrize("bad", [0, -1, 2.5, True, "10"])
def test_bad_max_size_is_refused(bad: Any) -> None:
    for quality in QUALITY_FUNCTIONS.values():
        with pytest.raises(InvalidParameterError, match="max_size must be a positive int"):
            quality.sensitivity(Relation.ADD_REMOVE, max_size=bad)


@pytest.mark.parametrize("bad", ["bounded", 3, None])
def test_bad_relation_is_refused(bad: Any) -> None:
    with pytest.raises(InvalidParameterError, match="add-remove"):
        get_quality("gini").sensitivity(bad)


def test_unknown_quality_name_lists_the_names() -> None:
    with pytest.raises(InvalidParameterError) as raised:
        get_quality("entropy")
    message = str(raised.value)
    assert "'entropy'" in message
    for name in ("max", "gini", "gini-weighted", "info-gain"):
        assert name in message
    with pytest.raises(InvalidParameterError):
        get_quality(["gini"])  # type: ignore[arg-type]


def test_registry_is_read_only() -> None:
    with pytest.raises(TypeError):
        QUALITY_FUNCTIONS["gini"] = QUALITY_FUNCTIONS["max"]  # type: ignore[index]
