"""An immutable labelled table, validated against a public :class:`Schema`.

Storage: one tuple per attribute (the code of the value for a categorical
attribute, a float for a continuous one) plus a tuple of class codes.  Tuples
rather than :mod:`array` arrays because they are immutable, so a column can
be handed out without copying and without anyone being able to change it.

A :meth:`Dataset.subset` shares those tuples: it keeps a reference to the
base columns and a tuple of row indices into them, and its columns are
:class:`ColumnView` objects (lazy, read-only sequences).  Subsets of subsets
compose their indices, so every view points straight at the base tuple.

Because a data set never changes, what is derived from its rows alone (an
engine's encoded columns, :meth:`Dataset.derived`) can be kept with it and
reused by every fit on it.
"""

from __future__ import annotations

import math
from typing import (
    Any,
    Callable,
    Dict,
    Iterable,
    Iterator,
    List,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
    cast,
    overload,
)

from refdp.data.missing import MissingPolicy
from refdp.data.schema import Attribute, CategoricalAttribute, ContinuousAttribute, Schema
from refdp.errors import DataError, InvalidParameterError, SchemaError

__all__ = ["Dataset", "ColumnView", "RawValue", "expect_dataset"]

T = TypeVar("T")

RawValue = Union[str, int, float]
"""A raw cell: a string for a categorical attribute; a string or a number for a continuous one."""

_Column = Union[Tuple[int, ...], Tuple[float, ...]]


class ColumnView(Sequence[T]):
    """A read-only view of ``base`` at positions ``indices`` (no copy of the values)."""

    __slots__ = ("_base", "_indices")

    def __init__(self, base: Tuple[T, ...], indices: Tuple[int, ...]) -> None:
        self._base = base
        self._indices = indices

    @property
    def base(self) -> Tuple[T, ...]:
        """The base column this view reads from (the same object for every subset)."""
        return self._base

    @property
    def indices(self) -> Tuple[int, ...]:
        """The positions in :attr:`base`, in view order."""
        return self._indices

    def __len__(self) -> int:
        return len(self._indices)

    @overload
    def __getitem__(self, position: int) -> T: ...

    @overload
    def __getitem__(self, position: slice) -> ColumnView[T]: ...

    def __getitem__(self, position: Union[int, slice]) -> Union[T, ColumnView[T]]:
        if isinstance(position, slice):
            return ColumnView(self._base, self._indices[position])
        return self._base[self._indices[position]]

    def __iter__(self) -> Iterator[T]:
        # map() over a bound __getitem__ runs in C: iterating a view costs about
        # as much as iterating a tuple.
        return map(self._base.__getitem__, self._indices)

    def __repr__(self) -> str:
        return f"ColumnView({list(self)!r})"


def _default_row_name(row: int) -> str:
    return f"row {row}"


def expect_dataset(value: object, what: str) -> "Dataset":
    """``value`` if it is a :class:`Dataset`; else a DataError saying how to make one (``what`` names the argument).

    >>> expect_dataset([[1, 2]], "train's data")
    Traceback (most recent call last):
    refdp.errors.DataError: train's data must be a refdp Dataset (refdp.load, read_csv, read_arff or Dataset.from_rows), got list; for rows and labels as lists, use the estimators of refdp.estimators
    """
    if not isinstance(value, Dataset):
        raise DataError(
            f"{what} must be a refdp Dataset (refdp.load, read_csv, read_arff or Dataset.from_rows), got "
            f"{type(value).__name__}; for rows and labels as lists, use the estimators of refdp.estimators"
        )
    return value


class Dataset:
    """An immutable table of rows that fit ``schema``, with one class label each.

    Build it with :meth:`from_rows` (raw values, as read from a file) or
    :meth:`from_codes` (codes and floats, as produced by generators and
    algorithms).  Both copy their input, so later changes to the caller's
    lists cannot reach the data set.
    """

    __slots__ = ("_schema", "_columns", "_labels", "_index", "_derived", "_missing")

    _schema: Schema
    _columns: Tuple[_Column, ...]
    _labels: Tuple[int, ...]
    _index: Optional[Tuple[int, ...]]
    _derived: Dict[str, object]
    _missing: Optional[MissingPolicy]

    def __init__(self) -> None:
        raise TypeError("use Dataset.from_rows(...) or Dataset.from_codes(...)")

    @classmethod
    def _make(
        cls,
        schema: Schema,
        columns: Tuple[_Column, ...],
        labels: Tuple[int, ...],
        index: Optional[Tuple[int, ...]],
        missing: Optional[MissingPolicy] = None,
    ) -> Dataset:
        obj = object.__new__(cls)
        object.__setattr__(obj, "_schema", schema)
        object.__setattr__(obj, "_columns", columns)
        object.__setattr__(obj, "_labels", labels)
        object.__setattr__(obj, "_index", index)
        object.__setattr__(obj, "_derived", {})
        object.__setattr__(obj, "_missing", _check_policy(missing))
        return obj

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("a Dataset is immutable; build a new one (for example with subset())")

    def __reduce__(self) -> Tuple[Any, ...]:
        # Pickle and copy rebuild through _make, as __setattr__ is closed.
        return (Dataset._make, (self._schema, self._columns, self._labels, self._index, self._missing))

    # --- construction -----------------------------------------------------

    @classmethod
    def from_rows(
        cls,
        schema: Schema,
        rows: Iterable[Sequence[RawValue]],
        labels: Iterable[str],
        *,
        row_name: Optional[Callable[[int], str]] = None,
        missing: Optional[MissingPolicy] = None,
    ) -> Dataset:
        """Validate and encode raw rows.

        ``rows[i][j]`` is the raw value of attribute ``j`` in row ``i``: a
        string from the attribute's domain for a categorical attribute (exact
        match, no trimming), a finite number or a string that parses as one
        within [lower, upper] for a continuous one.  ``labels[i]`` is a class
        name from ``schema.classes``.

        Raises DataError for empty data, ragged rows, a labels/rows length
        mismatch, a value of the wrong type, or a non-finite or unparsable
        number; SchemaError for an unknown category, an unknown class or a
        value outside the declared bounds.  ``row_name(i)`` names row ``i`` in
        the messages (the readers pass one that gives the file and line).
        ``missing`` records the missing-value policy the rows were read with
        (:attr:`missing`); the rows themselves must hold no missing value.
        """
        if not isinstance(schema, Schema):
            raise SchemaError(f"schema must be a Schema, got {type(schema).__name__}")
        name = row_name or _default_row_name
        raw_rows = list(_check_iterable(rows, "rows"))
        for i, row in enumerate(raw_rows):
            if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
                raise DataError(f"{name(i)} must be a sequence of values, got {row!r}")
        label_list = list(_check_iterable(labels, "labels"))
        if not raw_rows:
            raise DataError("no rows: a data set needs at least one row")
        if len(label_list) != len(raw_rows):
            raise DataError(
                f"{len(raw_rows)} rows but {len(label_list)} labels; give one label per row"
            )
        width = schema.n_attributes
        for i, row in enumerate(raw_rows):
            if len(row) != width:
                raise DataError(
                    f"{name(i)} has {len(row)} values but the schema has {width} attributes "
                    f"{list(schema.names)}; every row needs one value per attribute"
                )
        # zip copies the values into one new tuple per column.
        raw_columns = list(zip(*raw_rows)) if width else []
        columns = tuple(
            _encode_column(attribute, raw, name)
            for attribute, raw in zip(schema.attributes, raw_columns)
        )
        return cls._make(schema, columns, _encode_labels(schema, label_list, name), None, missing)

    @classmethod
    def from_codes(
        cls,
        schema: Schema,
        columns: Sequence[Sequence[Union[int, float]]],
        label_codes: Sequence[int],
        *,
        missing: Optional[MissingPolicy] = None,
    ) -> Dataset:
        """Validate and copy encoded columns.

        ``columns[j]`` holds, for every row, the code of the value of
        categorical attribute ``j`` (an int in ``range(n_values)``) or the
        value of continuous attribute ``j`` (a finite real in its bounds).
        ``label_codes`` are ints in ``range(n_classes)``.  Unlike
        :meth:`from_rows`, zero rows are allowed: the add-remove neighbour of
        a one-row data set is empty, and audits need it.  ``missing`` as for
        :meth:`from_rows`.
        """
        if not isinstance(schema, Schema):
            raise SchemaError(f"schema must be a Schema, got {type(schema).__name__}")
        column_list = list(_check_iterable(columns, "columns"))
        if len(column_list) != schema.n_attributes:
            raise DataError(
                f"{len(column_list)} columns for a schema with {schema.n_attributes} attributes; "
                "give one column per attribute, in schema order"
            )
        labels = tuple(_check_iterable(label_codes, "label_codes"))
        n = len(labels)
        encoded: List[_Column] = []
        for attribute, column in zip(schema.attributes, column_list):
            values = tuple(_check_iterable(column, f"the column of {attribute.name!r}"))
            if len(values) != n:
                raise DataError(
                    f"the column of {attribute.name!r} has {len(values)} entries but there are "
                    f"{n} labels; every column needs one entry per row"
                )
            if isinstance(attribute, CategoricalAttribute):
                encoded.append(_check_codes(values, attribute.n_values, f"attribute {attribute.name!r}"))
            else:
                encoded.append(_check_floats(values, attribute))
        return cls._make(
            schema, tuple(encoded), _check_codes(labels, schema.n_classes, "the class"), None, missing
        )

    # --- access -----------------------------------------------------------

    @property
    def schema(self) -> Schema:
        """The public schema the rows were validated against."""
        return self._schema

    @property
    def missing(self) -> Optional[MissingPolicy]:
        """The missing-value policy the rows were read with (None: no rule applied, as for the built-ins).

        A model trained on the data keeps it, its receipt records it, and
        prediction applies it (:mod:`refdp.data.missing`).
        """
        return self._missing

    def with_missing(self, missing: Optional[MissingPolicy]) -> Dataset:
        """The same rows, recorded as read with ``missing`` (the column tuples are shared).

        >>> from refdp.data import MissingPolicy, load
        >>> load("vote").with_missing(MissingPolicy("drop", "drop")).missing
        MissingPolicy(categorical='drop', continuous='drop')
        """
        return Dataset._make(self._schema, self._columns, self._labels, self._index, missing)

    def __len__(self) -> int:
        return len(self._labels) if self._index is None else len(self._index)

    def __repr__(self) -> str:
        return (
            f"<Dataset: {len(self)} rows, {self._schema.n_attributes} attributes, "
            f"{self._schema.n_classes} classes>"
        )

    @property
    def indices(self) -> Sequence[int]:
        """The positions of this data set's rows in the base data set (a range for a base)."""
        return range(len(self._labels)) if self._index is None else self._index

    def _view(self, base: Tuple[T, ...]) -> Sequence[T]:
        return base if self._index is None else ColumnView(base, self._index)

    @property
    def labels(self) -> Sequence[int]:
        """The class code of every row (positions in ``schema.classes``)."""
        return self._view(self._labels)

    def _position(self, index_or_name: Union[int, str]) -> int:
        if isinstance(index_or_name, str):
            return self._schema.index_of(index_or_name)
        if isinstance(index_or_name, bool) or not isinstance(index_or_name, int):
            raise SchemaError(f"a column is named by an int or a str, got {index_or_name!r}")
        if not 0 <= index_or_name < self._schema.n_attributes:
            raise SchemaError(
                f"column {index_or_name} does not exist; the schema has "
                f"{self._schema.n_attributes} attributes"
            )
        return index_or_name

    def column(self, index_or_name: Union[int, str]) -> Union[Sequence[int], Sequence[float]]:
        """Column ``index_or_name``: codes (categorical) or floats (continuous)."""
        return cast(Union[Sequence[int], Sequence[float]], self._view(self._columns[self._position(index_or_name)]))

    def codes(self, index_or_name: Union[int, str]) -> Sequence[int]:
        """The codes of categorical column ``index_or_name`` (SchemaError if continuous)."""
        position = self._position(index_or_name)
        attribute = self._schema.attributes[position]
        if not isinstance(attribute, CategoricalAttribute):
            raise SchemaError(f"attribute {attribute.name!r} is continuous; use values() for it")
        return self._view(cast(Tuple[int, ...], self._columns[position]))

    def values(self, index_or_name: Union[int, str]) -> Sequence[float]:
        """The floats of continuous column ``index_or_name`` (SchemaError if categorical)."""
        position = self._position(index_or_name)
        attribute = self._schema.attributes[position]
        if not isinstance(attribute, ContinuousAttribute):
            raise SchemaError(f"attribute {attribute.name!r} is categorical; use codes() for it")
        return self._view(cast(Tuple[float, ...], self._columns[position]))

    def class_counts(self) -> List[int]:
        """How many rows carry each class, in ``schema.classes`` order (zeros included)."""
        counts = [0] * self._schema.n_classes
        for code in self.labels:
            counts[code] += 1
        return counts

    def _base_row(self, i: int) -> int:
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self):
            raise DataError(f"row {i!r} does not exist; rows are numbered 0..{len(self) - 1}")
        return i if self._index is None else self._index[i]

    def row(self, i: int) -> Tuple[Union[str, float], ...]:
        """Row ``i`` decoded: value strings for categorical attributes, floats otherwise."""
        base = self._base_row(i)
        return tuple(
            attribute.values[column[base]]  # type: ignore[index]
            if isinstance(attribute, CategoricalAttribute)
            else column[base]
            for attribute, column in zip(self._schema.attributes, self._columns)
        )

    def label(self, i: int) -> str:
        """The class name of row ``i``."""
        return self._schema.classes[self._labels[self._base_row(i)]]

    def derived(self, key: str, make: Callable[[Dataset], T]) -> T:
        """``make(self)``, computed on the first call with ``key`` and kept with this data set.

        For data derived from the rows alone, such as an engine's encoded
        columns (:class:`refdp.fast.ColumnStore`): the rows never change, so
        neither does the result.  ``make`` must not keep a reference to the
        data set (the two would then only be freed by the cycle collector).
        Copies and pickles start without what was derived.
        """
        if key not in self._derived:
            self._derived[key] = make(self)
        return cast(T, self._derived[key])

    def subset(self, indices: Iterable[int]) -> Dataset:
        """The rows at ``indices`` (repeats allowed, as in a bootstrap sample; may be empty).

        The result shares this data set's column tuples; only the index
        tuple is new.
        """
        wanted = tuple(_check_iterable(indices, "indices"))
        n = len(self)
        for j in wanted:
            if type(j) is not int or not 0 <= j < n:
                raise DataError(
                    f"subset index {j!r} is not a row of this data set; use ints in 0..{n - 1}"
                )
        composed = wanted if self._index is None else tuple(map(self._index.__getitem__, wanted))
        return Dataset._make(self._schema, self._columns, self._labels, composed, self._missing)


def _check_policy(missing: object) -> Optional[MissingPolicy]:
    if missing is not None and not isinstance(missing, MissingPolicy):
        raise InvalidParameterError(f"missing must be a MissingPolicy or None, got {missing!r}")
    return missing


def _check_iterable(obj: Iterable[T], what: str) -> Iterable[T]:
    # A string is iterable but never the right thing here (a row, a column of
    # labels...); saying so beats an error about its characters later.
    if isinstance(obj, (str, bytes)) or not hasattr(obj, "__iter__"):
        raise DataError(f"{what} must be a sequence, got {type(obj).__name__}")
    return obj


def _encode_column(
    attribute: Attribute, raw: Tuple[RawValue, ...], name: Callable[[int], str]
) -> _Column:
    if isinstance(attribute, CategoricalAttribute):
        lookup = attribute.codes
        try:
            return tuple(map(lookup.__getitem__, raw))  # type: ignore[arg-type]
        except (KeyError, TypeError):
            row = next(i for i, v in enumerate(raw) if not isinstance(v, str) or v not in lookup)
            raise SchemaError(
                f"{name(row)}, column {attribute.name!r}: unknown category {raw[row]!r}; the "
                f"public domain is {attribute.values}; fix the value or declare it in the schema"
            ) from None
    if not set(map(type, raw)) <= _RAW_NUMBER_TYPES:
        row, v = next((i, v) for i, v in enumerate(raw) if type(v) not in _RAW_NUMBER_TYPES)
        raise DataError(
            f"{name(row)}, column {attribute.name!r}: {v!r} is a {type(v).__name__}; a "
            "continuous value must be a number (int or float) or a string holding one"
        )
    try:
        values = tuple(map(float, raw))
        # float() also reads other scripts' digits and underscores: a text value is plain ASCII
        texts = "".join(v for v in raw if type(v) is str)
        if not texts.isascii() or "_" in texts:
            raise ValueError(texts)
    except ValueError:
        row = next(i for i, v in enumerate(raw) if not _parses(v))
        raise DataError(
            f"{name(row)}, column {attribute.name!r}: {raw[row]!r} is not a number in ASCII digits; fix the "
            "value or mark it missing"
        ) from None
    return _check_floats(values, attribute, name)


# Exact types: bool is an int, but True is not a measurement.
_RAW_NUMBER_TYPES = frozenset((str, int, float))


def _parses(value: RawValue) -> bool:
    if type(value) is str and (not value.isascii() or "_" in value):
        return False
    try:
        float(value)
    except ValueError:
        return False
    return True


def _check_floats(
    values: Tuple[Union[int, float], ...],
    attribute: ContinuousAttribute,
    name: Callable[[int], str] = _default_row_name,
) -> Tuple[float, ...]:
    lower, upper = attribute.lower, attribute.upper
    floats: Tuple[float, ...]
    if set(map(type, values)) <= {float}:
        floats = cast(Tuple[float, ...], values)
    else:
        for i, v in enumerate(values):
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise DataError(
                    f"{name(i)}, column {attribute.name!r}: {v!r} is not a real number"
                )
        floats = tuple(map(float, values))
    # min and max skip a NaN they meet after the first value, so NaN is looked for apart; the bounds
    # are finite, so they also reject +-inf.  (All at C speed: the built-in data sets' columns have
    # tens of thousands of values.)
    if not floats or (lower <= min(floats) and max(floats) <= upper and not any(map(math.isnan, floats))):
        return floats
    row, value = next((i, v) for i, v in enumerate(floats) if not lower <= v <= upper)
    if not math.isfinite(value):
        raise DataError(
            f"{name(row)}, column {attribute.name!r}: {value} is not a finite number; "
            "drop or fix the row"
        )
    raise SchemaError(
        f"{name(row)}, column {attribute.name!r}: {value!r} lies outside the declared bounds "
        f"[{lower!r}, {upper!r}]; widen the public bounds (choose them without looking at the "
        "data) or clip the value before loading"
    )


def _check_codes(values: Tuple[object, ...], size: int, what: str) -> Tuple[int, ...]:
    if not values or set(map(type, values)) == {int}:
        codes = cast(Tuple[int, ...], values)
        if not codes or (0 <= min(codes) and max(codes) < size):
            return codes
    for i, v in enumerate(values):
        if type(v) is not int or not 0 <= v < size:
            raise DataError(f"entry {i} of {what}: {v!r} is not a code in range({size})")
    return cast(Tuple[int, ...], values)


def _encode_labels(
    schema: Schema, labels: List[str], name: Callable[[int], str]
) -> Tuple[int, ...]:
    lookup = {c: i for i, c in enumerate(schema.classes)}
    try:
        return tuple(map(lookup.__getitem__, labels))
    except (KeyError, TypeError):
        row = next(i for i, v in enumerate(labels) if not isinstance(v, str) or v not in lookup)
        raise SchemaError(
            f"{name(row)}: unknown class {labels[row]!r}; the public classes of "
            f"{schema.label!r} are {schema.classes}; fix the label or declare the class"
        ) from None
