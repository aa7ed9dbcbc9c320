"""Neighbour generators: counts, descriptions, no mutation, random neighbours are neighbours."""

from __future__ import annotations

import random
from collections import Counter
from typing import List, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.audit import (
    Record,
    add_record,
    all_neighbours,
    are_neighbours,
    random_neighbour,
    record_of,
    record_universe,
    remove_row,
    replace_row,
    universe_record,
    universe_size,
)
from refdp.data import CategoricalAttribute, ContinuousAttribute, Dataset, Schema
from refdp.errors import DataError, SchemaError
from refdp.privacy import Relation
from strategies import datasets, neighbouring_pairs, schemas

SCHEMA = Schema(
    (CategoricalAttribute("a", ("x", "o", "b")), CategoricalAttribute("b", ("yes", "no"))),
    "class",
    ("positive", "negative"),
)
MIXED = Schema(
    (CategoricalAttribute("a", ("x", "o")), ContinuousAttribute("t", 0.0, 10.0)),
    "class",
    ("p", "n"),
)


def _data() -> Dataset:
    rows = [("x", "yes"), ("o", "no"), ("x", "yes"), ("b", "no")]
    return Dataset.from_rows(SCHEMA, rows, ["positive", "negative", "positive", "negative"])


def _snapshot(data: Dataset) -> Tuple[object, ...]:
    return tuple(data.row(i) + (data.label(i),) for i in range(len(data)))


def _multiset(data: Dataset) -> Counter[Record]:
    return Counter(record_of(data, i) for i in range(len(data)))


@pytest.mark.smoke
def test_universe_size_and_order() -> None:
    assert universe_size(SCHEMA) == 3 * 2 * 2
    universe = list(record_universe(SCHEMA))
    assert len(universe) == len(set(universe)) == 12
    assert universe[0] == Record((0, 0), 0) and universe[1] == Record((0, 0), 1)
    assert [universe_record(SCHEMA, i) for i in range(12)] == universe
    # Continuous attributes default to lower, midpoint and upper bound.
    assert universe_size(MIXED) == 2 * 3 * 2
    assert {r.values[1] for r in record_universe(MIXED)} == {0.0, 5.0, 10.0}
    assert universe_size(MIXED, {"t": [1.0, 2.0, 2.0]}) == 2 * 2 * 2


def test_candidates_are_validated() -> None:
    with pytest.raises(SchemaError, match="outside its public bounds"):
        universe_size(MIXED, {"t": [11.0]})
    with pytest.raises(SchemaError, match="not continuous attributes"):
        universe_size(MIXED, {"a": [1.0]})
    with pytest.raises(SchemaError, match="non-empty"):
        universe_size(MIXED, {"t": []})


def test_add_remove_neighbours_count_and_descriptions() -> None:
    data = _data()
    before = _snapshot(data)
    neighbours = list(all_neighbours(data, Relation.ADD_REMOVE))
    assert len(neighbours) == len(data) + universe_size(SCHEMA) == 4 + 12
    descriptions = [d for d, _ in neighbours]
    assert descriptions[0] == "remove row 0 (x,yes; positive)"
    assert descriptions[4] == "add (x,yes; positive)"
    for description, neighbour in neighbours:
        assert are_neighbours(data, neighbour, Relation.ADD_REMOVE), description
        assert abs(len(neighbour) - len(data)) == 1
    assert _snapshot(data) == before


def test_substitute_neighbours_exclude_identical_replacements() -> None:
    data = _data()
    before = _snapshot(data)
    neighbours = list(all_neighbours(data, "substitute"))
    # Every row's own record is in the universe, so each row has |U| - 1 replacements.
    assert len(neighbours) == len(data) * (universe_size(SCHEMA) - 1) == 4 * 11
    assert neighbours[0][0] == "replace row 0 (x,yes; positive) by (x,yes; negative)"
    for description, neighbour in neighbours:
        assert are_neighbours(data, neighbour, Relation.SUBSTITUTE), description
        assert len(neighbour) == len(data)
    assert _snapshot(data) == before


def test_continuous_rows_off_the_candidates_have_all_replacements() -> None:
    data = Dataset.from_rows(MIXED, [("x", 2.5)], ["p"])
    # 2.5 is not a candidate, so no replacement is identical: |U| of them.
    assert len(list(all_neighbours(data, Relation.SUBSTITUTE))) == universe_size(MIXED)
    assert len(list(all_neighbours(data, Relation.ADD_REMOVE))) == 1 + universe_size(MIXED)


def test_empty_and_single_row_data() -> None:
    empty = Dataset.from_codes(SCHEMA, [[], []], [])
    assert len(list(all_neighbours(empty, Relation.ADD_REMOVE))) == 12
    assert list(all_neighbours(empty, Relation.SUBSTITUTE)) == []
    with pytest.raises(DataError, match="no substitute neighbour"):
        random_neighbour(empty, Relation.SUBSTITUTE, random.Random(0))
    one = remove_row(remove_row(remove_row(_data(), 0), 0), 0)
    assert len(one) == 1 and len(remove_row(one, 0)) == 0


def test_edits_build_new_data_and_validate() -> None:
    data = _data()
    before = _snapshot(data)
    added = add_record(data, Record((2, 1), 1))
    assert added.row(4) == ("b", "no") and added.label(4) == "negative"
    replaced = replace_row(data, 1, Record((0, 0), 0))
    assert replaced.row(1) == ("x", "yes")
    assert remove_row(data, 1).row(1) == ("x", "yes")
    with pytest.raises(DataError, match="not a code"):
        add_record(data, Record((3, 0), 0))
    with pytest.raises(DataError):
        add_record(data, Record((0,), 0))
    with pytest.raises(DataError):
        remove_row(data, 4)
    with pytest.raises(DataError):
        record_of(data, -1)
    assert _snapshot(data) == before


@pytest.mark.parametrize("relation", list(Relation))
def test_random_neighbour_is_uniform_over_all_neighbours(relation: Relation) -> None:
    data = _data()
    before = _snapshot(data)
    expected = [d for d, _ in all_neighbours(data, relation)]
    rng = random.Random(20240601)
    draws = 200 * len(expected)
    seen = Counter(random_neighbour(data, relation, rng)[0] for _ in range(draws))
    assert set(seen) == set(expected)
    # Each description has probability 1/m, so a count of mean 200; one below
    # half of it has probability < 1e-6 for the test (Chernoff with a union
    # bound: m * exp(-0.5^2 * 200 / 2) < 44 * 1.4e-11).
    assert min(seen.values()) > 100, f"seed 20240601: {seen.most_common()[-3:]}"
    assert _snapshot(data) == before


@settings(max_examples=40)
@given(data=st.data(), relation=st.sampled_from(list(Relation)))
def test_random_neighbours_are_neighbours(data: st.DataObject, relation: Relation) -> None:
    schema = data.draw(schemas())
    d = data.draw(datasets(schema, 1, 6))
    before = _snapshot(d)
    if relation is Relation.SUBSTITUTE and universe_size(schema) == 1:
        with pytest.raises(DataError, match="no substitute neighbour"):
            random_neighbour(d, relation, random.Random(0))
        return
    description, neighbour = random_neighbour(d, relation, random.Random(data.draw(st.integers(0, 2**32))))
    assert are_neighbours(d, neighbour, relation), description
    assert not are_neighbours(d, neighbour, Relation.SUBSTITUTE if relation is Relation.ADD_REMOVE else Relation.ADD_REMOVE)
    assert _snapshot(d) == before


@settings(max_examples=60)
@given(pair=neighbouring_pairs(Relation.ADD_REMOVE))
def test_strategy_pairs_are_add_remove_neighbours(pair: Tuple[Dataset, Dataset]) -> None:
    assert are_neighbours(*pair, Relation.ADD_REMOVE)
    assert are_neighbours(pair[1], pair[0], Relation.ADD_REMOVE)


@settings(max_examples=60)
@given(pair=neighbouring_pairs(Relation.SUBSTITUTE))
def test_strategy_pairs_are_substitute_neighbours(pair: Tuple[Dataset, Dataset]) -> None:
    assert are_neighbours(*pair, Relation.SUBSTITUTE)
    assert _multiset(pair[0]) != _multiset(pair[1])


def test_are_neighbours_ignores_order_and_rejects_equal_data() -> None:
    data = _data()
    reordered = data.subset([3, 2, 1, 0])
    assert not are_neighbours(data, reordered, Relation.ADD_REMOVE)
    assert not are_neighbours(data, reordered, Relation.SUBSTITUTE)
    two_changes = replace_row(replace_row(data, 0, Record((2, 1), 1)), 1, Record((2, 0), 0))
    assert not are_neighbours(data, two_changes, Relation.SUBSTITUTE)
    with pytest.raises(SchemaError):
        are_neighbours(data, Dataset.from_rows(MIXED, [("x", 1.0)], ["p"]), Relation.ADD_REMOVE)


@pytest.mark.slow
def test_tic_tac_toe_neighbour_counts() -> None:
    from refdp.data import load_builtin

    data = load_builtin("tic-tac-toe").subset(range(5))
    size = universe_size(data.schema)
    assert size == 3**9 * 2
    counted: List[int] = [sum(1 for _ in all_neighbours(data, r)) for r in Relation]
    assert counted == [5 + size, 5 * (size - 1)]
