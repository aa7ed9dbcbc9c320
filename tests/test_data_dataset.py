"""Dataset: construction, validation with helpful errors, typed access, subsets."""

from __future__ import annotations

import copy
import math
import pickle
from typing import Any, List, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refdp.data import (
    CategoricalAttribute,
    ColumnView,
    ContinuousAttribute,
    Dataset,
    RawValue,
    Schema,
)
from refdp.errors import DataError, SchemaError

SCHEMA = Schema(
    attributes=(
        CategoricalAttribute("colour", ("red", "green", "blue")),
        ContinuousAttribute("age", 0.0, 100.0),
    ),
    label="class",
    classes=("yes", "no", "maybe"),
)


def _rows() -> List[List[RawValue]]:
    return [["red", 30], ["green", "41.5"], ["red", 0.0], ["blue", 100]]


def _labels() -> List[str]:
    return ["yes", "no", "yes", "no"]


@pytest.mark.smoke
def test_from_rows_encodes_and_decodes() -> None:
    data = Dataset.from_rows(SCHEMA, _rows(), _labels())
    assert len(data) == 4
    assert list(data.codes("colour")) == [0, 1, 0, 2]
    assert list(data.values(1)) == [30.0, 41.5, 0.0, 100.0]
    assert all(type(v) is float for v in data.values("age"))
    assert list(data.labels) == [0, 1, 0, 1]
    assert data.class_counts() == [2, 2, 0]
    assert data.row(1) == ("green", 41.5) and data.label(1) == "no"
    assert list(data.column("colour")) == [0, 1, 0, 2]
    assert data.schema is SCHEMA
    assert list(data.indices) == [0, 1, 2, 3]
    assert "4 rows" in repr(data)


def test_typed_accessors_reject_the_wrong_kind() -> None:
    data = Dataset.from_rows(SCHEMA, _rows(), _labels())
    with pytest.raises(SchemaError, match="continuous; use values"):
        data.codes("age")
    with pytest.raises(SchemaError, match="categorical; use codes"):
        data.values(0)
    with pytest.raises(SchemaError, match="no attribute named 'size'"):
        data.column("size")
    with pytest.raises(SchemaError, match="column 2 does not exist"):
        data.column(2)
    with pytest.raises(SchemaError, match="an int or a str"):
        data.column(True)
    with pytest.raises(DataError, match="row 4 does not exist"):
        data.row(4)
    with pytest.raises(DataError, match="row -1 does not exist"):
        data.label(-1)


def test_dataset_is_immutable() -> None:
    data = Dataset.from_rows(SCHEMA, _rows(), _labels())
    with pytest.raises(AttributeError, match="immutable"):
        data._labels = ()
    with pytest.raises(TypeError, match="from_rows"):
        Dataset()
    assert isinstance(data.labels, tuple) and isinstance(data.codes(0), tuple)


def test_caller_lists_are_copied() -> None:
    rows, labels = _rows(), _labels()
    data = Dataset.from_rows(SCHEMA, rows, labels)
    rows[0][0] = "blue"
    labels[0] = "no"
    assert data.row(0) == ("red", 30.0) and data.label(0) == "yes"
    columns: List[List[Any]] = [[0, 1], [1.0, 2]]
    codes = [0, 1]
    coded = Dataset.from_codes(SCHEMA, columns, codes)
    columns[0][0] = 2
    codes[0] = 2
    assert list(coded.codes(0)) == [0, 1] and list(coded.labels) == [0, 1]
    assert list(coded.values(1)) == [1.0, 2.0]


BAD_ROWS = [
    (lambda r, l: (r[:2] + [["red"]] + r[3:], l), DataError, "row 2 has 1 values but the schema has 2"),
    (lambda r, l: (r + [["red", 1, 2]], l + ["yes"]), DataError, "row 4 has 3 values"),
    (lambda r, l: ([], []), DataError, "no rows"),
    (lambda r, l: (r, l[:-1]), DataError, "4 rows but 3 labels"),
    (lambda r, l: (r[:1] + [["purple", 3]] + r[2:], l), SchemaError, "row 1, column 'colour': unknown category 'purple'"),
    (lambda r, l: (r[:1] + [[1, 3]] + r[2:], l), SchemaError, "row 1, column 'colour': unknown category 1"),
    (lambda r, l: (r[:3] + [["red", math.nan]], l), DataError, "row 3, column 'age': nan is not a finite"),
    (lambda r, l: (r[:3] + [["red", "inf"]], l), DataError, "row 3, column 'age': inf is not a finite"),
    (lambda r, l: (r[:3] + [["red", 100.5]], l), SchemaError, r"row 3, column 'age': 100.5 lies outside the declared bounds \[0.0, 100.0\]; widen"),
    (lambda r, l: (r[:3] + [["red", -1]], l), SchemaError, "outside the declared bounds"),
    (lambda r, l: (r[:3] + [["red", "forty"]], l), DataError, "'forty' is not a number"),
    (lambda r, l: (r[:3] + [["red", True]], l), DataError, "True is a bool"),
    (lambda r, l: (r[:3] + [["red", None]], l), DataError, "None is a NoneType"),
    (lambda r, l: (r, l[:3] + ["perhaps"]), SchemaError, "row 3: unknown class 'perhaps'.*'yes', 'no', 'maybe'"),
    (lambda r, l: (r[:3] + ["ab"], l), DataError, "row 3 must be a sequence"),
    (lambda r, l: ("abc", l), DataError, "rows must be a sequence"),
    (lambda r, l: (r, "yes"), DataError, "labels must be a sequence"),
]


@pytest.mark.smoke
@pytest.mark.parametrize("mutate, error, message", BAD_ROWS)
def test_from_rows_rejects_bad_input_and_leaves_it_unchanged(
    mutate: Any, error: type, message: str
) -> None:
    rows, labels = mutate(_rows(), _labels())
    before = copy.deepcopy((rows, labels))
    with pytest.raises(error, match=message):
        Dataset.from_rows(SCHEMA, rows, labels)
    assert (rows, labels) == before


def test_row_names_appear_in_messages() -> None:
    with pytest.raises(SchemaError, match="line 12 of f.csv, column 'colour'"):
        Dataset.from_rows(
            SCHEMA, [["red", 1], ["pink", 2]], ["yes", "no"], row_name=lambda i: f"line {11 + i} of f.csv"
        )


BAD_CODES = [
    (lambda c, l: ([c[0]], l), "1 columns for a schema with 2"),
    (lambda c, l: ([c[0][:1], c[1]], l), "column of 'colour' has 1 entries but there are 2"),
    (lambda c, l: ([[0, 3], c[1]], l), "entry 1 of attribute 'colour': 3 is not a code in range"),
    (lambda c, l: ([[0, True], c[1]], l), "True is not a code"),
    (lambda c, l: ([[0, 1.0], c[1]], l), "1.0 is not a code"),
    (lambda c, l: ([c[0], [1.0, math.inf]], l), "inf is not a finite"),
    (lambda c, l: ([c[0], [1.0, "2"]], l), "'2' is not a real number"),
    (lambda c, l: (c, [0, 3]), "entry 1 of the class: 3 is not a code in range"),
    (lambda c, l: (c, [0, -1]), "-1 is not a code"),
]


@pytest.mark.parametrize("mutate, message", BAD_CODES)
def test_from_codes_rejects_bad_input_and_leaves_it_unchanged(mutate: Any, message: str) -> None:
    columns, labels = mutate([[0, 1], [1.0, 2.0]], [0, 1])
    before = copy.deepcopy((columns, labels))
    with pytest.raises((DataError, SchemaError), match=message):
        Dataset.from_codes(SCHEMA, columns, labels)
    assert (columns, labels) == before


def test_from_codes_outside_bounds_is_a_schema_error() -> None:
    with pytest.raises(SchemaError, match="outside the declared bounds"):
        Dataset.from_codes(SCHEMA, [[0], [101.0]], [0])


@pytest.mark.smoke
def test_from_codes_allows_empty_data() -> None:
    empty = Dataset.from_codes(SCHEMA, [[], []], [])
    assert len(empty) == 0 and empty.class_counts() == [0, 0, 0]
    assert list(empty.values("age")) == []


@pytest.mark.smoke
def test_subset_shares_the_base_columns() -> None:
    data = Dataset.from_rows(SCHEMA, _rows(), _labels())
    sub = data.subset([3, 1, 1])
    codes = sub.codes("colour")
    assert isinstance(codes, ColumnView)
    assert codes.base is data.codes("colour")
    values = sub.values("age")
    assert isinstance(values, ColumnView) and values.base is data.values("age")
    labels = sub.labels
    assert isinstance(labels, ColumnView) and labels.base is data.labels
    assert list(codes) == [2, 1, 1] and list(values) == [100.0, 41.5, 41.5]
    assert sub.class_counts() == [0, 3, 0]
    assert sub.row(0) == ("blue", 100.0) and sub.label(2) == "no"
    assert list(sub.indices) == [3, 1, 1]
    # Subsets of subsets compose their indices and still point at the base.
    subsub = sub.subset([2, 0])
    view = subsub.codes(0)
    assert isinstance(view, ColumnView) and view.base is data.codes(0)
    assert list(subsub.indices) == [1, 3] and list(view) == [1, 2]
    assert subsub.row(1) == data.row(3)


def test_subset_edge_cases() -> None:
    data = Dataset.from_rows(SCHEMA, _rows(), _labels())
    assert len(data.subset([])) == 0 and data.subset([]).class_counts() == [0, 0, 0]
    view = data.subset([0, 1, 2, 3]).values(1)
    assert isinstance(view, ColumnView)
    assert view[-1] == 100.0 and list(view[1:3]) == [41.5, 0.0] and len(view) == 4
    assert "ColumnView([" in repr(view)
    wanted = [0, 4]
    with pytest.raises(DataError, match="subset index 4 is not a row"):
        data.subset(wanted)
    assert wanted == [0, 4]
    with pytest.raises(DataError, match="subset index -1"):
        data.subset([-1])
    with pytest.raises(DataError, match="subset index True"):
        data.subset([True])
    with pytest.raises(DataError, match="subset index 1"):
        data.subset([0]).subset([1])


@given(
    st.lists(st.tuples(st.sampled_from(["red", "green", "blue"]), st.floats(0, 100)), min_size=1, max_size=30),
    st.data(),
)
def test_subset_agrees_with_rebuilding(rows: Sequence[Any], draw: Any) -> None:
    labels = [("yes", "no", "maybe")[i % 3] for i in range(len(rows))]
    data = Dataset.from_rows(SCHEMA, rows, labels)
    first = draw.draw(st.lists(st.integers(0, len(rows) - 1), max_size=40))
    sub = data.subset(first)
    if first:
        second = draw.draw(st.lists(st.integers(0, len(first) - 1), max_size=40))
        sub = sub.subset(second)
        first = [first[j] for j in second]
    if not first:
        assert len(sub) == 0
        return
    rebuilt = Dataset.from_rows(SCHEMA, [rows[i] for i in first], [labels[i] for i in first])
    assert [sub.row(i) for i in range(len(sub))] == [rebuilt.row(i) for i in range(len(rebuilt))]
    assert list(sub.labels) == list(rebuilt.labels)
    assert sub.class_counts() == rebuilt.class_counts()


def test_no_attributes() -> None:
    schema = Schema((), "y", ("a", "b"))
    data = Dataset.from_rows(schema, [(), ()], ["a", "a"])
    assert data.class_counts() == [2, 0] and data.row(0) == ()


def test_pickle_and_deepcopy_round_trip() -> None:
    data = Dataset.from_rows(SCHEMA, _rows(), _labels()).subset([2, 0])
    for clone in (pickle.loads(pickle.dumps(data)), copy.deepcopy(data)):
        assert clone.schema == SCHEMA
        assert [clone.row(i) for i in range(2)] == [data.row(i) for i in range(2)]
        assert list(clone.labels) == list(data.labels) and list(clone.indices) == [2, 0]
