"""Sensitivity search: exhaustive on small count tables, and Hypothesis-steered on random ones."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from refdp.audit import (
    all_count_tables,
    all_neighbours,
    count_table_neighbours,
    exhaustive_sensitivity,
)
from refdp.data import CategoricalAttribute, Dataset, Schema
from refdp.errors import InvalidParameterError
from refdp.privacy import Relation
from refdp.scoring import gini_unnormalised, max_operator
from strategies import count_table_pairs, neighbouring_pairs, schemas, search_sensitivity


def test_all_count_tables_counts_and_uniqueness() -> None:
    tables = list(all_count_tables(2, 2, 4))
    assert len(tables) == len(set(tables)) == math.comb(4 + 4, 4)
    assert tables[0] == ((0, 0), (0, 0))
    assert all(sum(map(sum, t)) <= 4 for t in tables)
    assert list(all_count_tables(1, 1, 2)) == [((0,),), ((1,),), ((2,),)]
    with pytest.raises(InvalidParameterError):
        list(all_count_tables(0, 2, 3))
    with pytest.raises(InvalidParameterError):
        list(all_count_tables(2, 2, -1))


def test_count_table_neighbours() -> None:
    table = [[1, 0], [0, 2]]
    add_remove = list(count_table_neighbours(table, Relation.ADD_REMOVE))
    # +1 in each of 4 cells, -1 in the 2 non-empty ones.
    assert len(add_remove) == 6
    assert ((0, 0), (0, 2)) in add_remove and ((1, 0), (0, 3)) in add_remove
    substitute = list(count_table_neighbours(table, "substitute"))
    # A record leaves one of the 2 non-empty cells for one of the 3 others.
    assert len(substitute) == 2 * 3
    assert all(sum(map(sum, t)) == 3 for t in substitute)
    assert table == [[1, 0], [0, 2]]


@pytest.mark.parametrize("relation", list(Relation))
def test_exhaustive_search_finds_the_max_operator_sensitivity(relation: Relation) -> None:
    """Delta q = 1 for the max operator under both relations, reached already at n = 1."""
    report = exhaustive_sensitivity(
        max_operator, all_count_tables(2, 2, 6), lambda t: count_table_neighbours(t, relation)
    )
    assert report.max_change == 1, report
    assert report.worst_pair is not None
    x, y = report.worst_pair
    assert abs(max_operator(x) - max_operator(y)) == 1
    assert report.pairs_checked > 1000


def test_exhaustive_search_on_a_function_of_data_sets() -> None:
    """The count of class c0 has sensitivity 1 under add-remove and substitute; its square does not."""
    schema = Schema((CategoricalAttribute("a", ("x", "o")),), "class", ("c0", "c1"))
    inputs = [
        Dataset.from_codes(schema, [[0] * n], [0] * k + [1] * (n - k)) for n in range(4) for k in range(n + 1)
    ]

    def count(data: Dataset) -> int:
        return data.class_counts()[0]

    for relation in Relation:
        report = exhaustive_sensitivity(count, inputs, lambda d: (n for _, n in all_neighbours(d, relation)))
        assert report.max_change == 1, (relation, report.max_change)
    squared = exhaustive_sensitivity(
        lambda d: count(d) ** 2, inputs, lambda d: (n for _, n in all_neighbours(d, Relation.ADD_REMOVE))
    )
    assert squared.max_change == 2 * 3 + 1


def test_exhaustive_search_with_no_pairs() -> None:
    report = exhaustive_sensitivity(lambda x: x, [1, 2], lambda x: [])
    assert report.max_change == 0 and report.worst_pair is None and report.pairs_checked == 0


@pytest.mark.parametrize("relation", list(Relation))
def test_hypothesis_search_finds_the_max_operator_sensitivity(relation: Relation) -> None:
    report = search_sensitivity(max_operator, count_table_pairs(relation), max_examples=150, seed=1)
    assert report.max_change == 1, report
    assert report.pairs_checked >= 100


@pytest.mark.parametrize("relation", list(Relation))
def test_hypothesis_search_approaches_the_gini_supremum(relation: Relation) -> None:
    """Unnormalised Gini: Delta = 2 is a supremum (2 - 2/N over N records); target() climbs towards it."""
    exhaustive = exhaustive_sensitivity(
        gini_unnormalised, all_count_tables(2, 2, 6), lambda t: count_table_neighbours(t, relation)
    )
    found = search_sensitivity(gini_unnormalised, count_table_pairs(relation), max_examples=300, seed=2)
    assert found.max_change < 2 and exhaustive.max_change < 2
    assert found.max_change >= Fraction(3, 2), (found, exhaustive)


def test_hypothesis_search_over_data_set_pairs() -> None:
    def size(data: Dataset) -> int:
        return len(data)

    for relation, expected in ((Relation.ADD_REMOVE, 1), (Relation.SUBSTITUTE, 0)):
        pairs = neighbouring_pairs(relation, schema_strategy=schemas(max_attributes=1))
        report = search_sensitivity(size, pairs, max_examples=40)
        assert report.max_change == expected, (relation, report)
    report = search_sensitivity(
        lambda d: d.class_counts()[0], neighbouring_pairs(Relation.SUBSTITUTE), max_examples=80
    )
    assert report.max_change == 1, report
