"""Rows to predict, read as a model reads them: its schema, its missing-value policy, its public bounds.

:func:`raw_rows` turns what a caller passes into one tuple of raw values per
row, in the schema's attribute order: a list of mappings from attribute
name to value (other keys, such as the class, are ignored), or anything
:func:`refdp.data.rows.read_table` reads (a list of rows in attribute order,
a 2-D NumPy array, a pandas DataFrame, whose columns are matched by
attribute name when they have names).  NumPy and pandas are recognised by
their features only: refdp never imports them.

:func:`encode_row` then reads one row as a model's schema and missing-value
policy say (:mod:`refdp.data.missing`): a missing value (None, NaN, pandas'
NA, or the string ``?``) becomes the category ``?`` or the midpoint of the
bounds, and a value beyond a public bound is clipped to it
(:mod:`refdp.data.clipping`).  :func:`rows_to_predict` does both for every
row; ``TreeModel.predict`` and the command line's ``predict`` use it.
"""

from __future__ import annotations

import math
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.data.dataset import Dataset
from refdp.data.missing import MARKER, MissingPolicy, fill_value
from refdp.data.rows import read_table
from refdp.data.schema import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.errors import DataError, ModelError, SchemaError

__all__ = ["raw_rows", "encode_row", "rows_to_predict", "is_missing"]

Encoded = Tuple[Union[int, float], ...]


def is_missing(value: object) -> bool:
    """Whether ``value`` stands for a missing value: None, a NaN, pandas' NA or NaT, or the marker ``"?"``.

    >>> is_missing(None), is_missing(float("nan")), is_missing("?"), is_missing(0.0), is_missing("red")
    (True, True, True, False, False)
    """
    if value is None:
        return True
    if isinstance(value, str):
        return value == MARKER
    if type(value).__name__ in ("NAType", "NaTType"):
        return True
    try:
        return math.isnan(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return False


def _mapping_row(row: Mapping[object, object], schema: Schema, i: int) -> Tuple[object, ...]:
    absent = [name for name in schema.names if name not in row]
    if absent:
        raise DataError(
            f"row {i} lacks the attribute(s) {absent}; give every attribute of {list(schema.names)} "
            "(None for a missing value)"
        )
    return tuple(row[name] for name in schema.names)


def _sequence_row(row: object, schema: Schema, i: int) -> Tuple[object, ...]:
    values = read_table([row]).columns
    if len(values) != schema.n_attributes:
        raise DataError(
            f"row {i} has {len(values)} values but the schema has {schema.n_attributes} attributes "
            f"{list(schema.names)}; give one value per attribute, in that order (or a dict by attribute name)"
        )
    return tuple(column[0] for column in values)


def raw_rows(X: object, schema: Schema) -> List[Tuple[object, ...]]:
    """The rows of ``X`` as tuples of raw values in the order of ``schema``'s attributes.

    See the module notes for what ``X`` may be.  DataError when it is none
    of them, or a row lacks an attribute or has the wrong number of values.

    >>> from refdp.data import ContinuousAttribute
    >>> schema = Schema((CategoricalAttribute("colour", ("red", "blue")), ContinuousAttribute("age", 0, 100)),
    ...                 "class", ("no", "yes"))
    >>> raw_rows([("red", 30), ("blue", None)], schema)
    [('red', 30), ('blue', None)]
    >>> raw_rows([{"age": None, "colour": "blue", "class": "yes"}, ("red", 5)], schema)
    [('blue', None), ('red', 5)]
    """
    if isinstance(X, (list, tuple)) and any(isinstance(row, Mapping) for row in X):
        return [
            _mapping_row(row, schema, i) if isinstance(row, Mapping) else _sequence_row(row, schema, i)
            for i, row in enumerate(X)
        ]
    if isinstance(X, Mapping):
        raise DataError(
            f"rows must be a sequence of rows (tuples or dicts by attribute name), a 2-D array or a data frame; "
            f"got one {type(X).__name__}: put it in a list"
        )
    table = read_table(X)
    names = schema.names
    if table.names is not None and any(name in table.names for name in names):
        absent = [name for name in names if name not in table.names]
        if absent:
            raise DataError(f"the frame lacks the column(s) {absent}; the model's attributes are {list(names)}")
        positions = [table.names.index(name) for name in names]
    elif table.n_columns == len(names):
        positions = list(range(len(names)))
    else:
        raise DataError(
            f"the rows have {table.n_columns} values but the schema has {len(names)} attributes {list(names)}; "
            "give one value per attribute, in that order (or name a frame's columns after them)"
        )
    columns = [table.columns[p] for p in positions]
    return [tuple(column[i] for column in columns) for i in range(table.n_rows)]


def _why_not(attribute: str, policy: Optional[MissingPolicy], kind: str) -> str:
    if policy is None:
        rule = "its training data was read without a rule for missing values"
    elif getattr(policy, kind) == "drop":
        rule = "its training data had the rows with a missing value dropped"
    else:
        rule = "its training data was read with missing values refused"
    return f"{attribute!r} is missing, and the model has no rule for that ({rule})"


def _category(value: object, attribute: CategoricalAttribute, policy: Optional[MissingPolicy]) -> int:
    codes = attribute.codes
    if isinstance(value, str) and value in codes:
        return codes[value]
    if is_missing(value):
        if policy is not None and policy.categorical != "category":
            raise DataError(_why_not(attribute.name, policy, "categorical"))
        if MARKER in codes:
            return codes[MARKER]
        raise SchemaError(
            f"{attribute.name!r} is missing and its public domain {attribute.values} has no category {MARKER!r} "
            "for missing values"
        )
    # an int such as pandas reads from a column of digits: its decimal text, if that is a value
    if hasattr(value, "__index__") and not isinstance(value, bool) and str(int(value)) in codes:
        return codes[str(int(value))]
    raise SchemaError(f"{attribute.name!r} has the unknown category {value!r}; its public domain is {attribute.values}")


def _number(value: object, attribute: ContinuousAttribute, policy: Optional[MissingPolicy]) -> Tuple[float, bool]:
    """The value, whether it was clipped."""
    if is_missing(value):
        if policy is None or policy.continuous != "midpoint":
            raise DataError(_why_not(attribute.name, policy, "continuous"))
        return fill_value(attribute), False
    if isinstance(value, bool) or not (isinstance(value, str) or hasattr(value, "__float__")):
        raise DataError(f"{attribute.name!r} is {value!r}, not a number")
    try:
        number = float(value)
    except ValueError:
        raise DataError(f"{attribute.name!r} is {value!r}, not a number") from None
    if not math.isfinite(number):
        raise DataError(f"{attribute.name!r} is {value!r}, not a finite number")
    clipped = min(max(number, attribute.lower), attribute.upper)
    return clipped, clipped != number


def encode_row(
    values: Sequence[object], schema: Schema, missing: Optional[MissingPolicy]
) -> Tuple[Encoded, int]:
    """One row of raw values (attribute order) as codes and floats, and how many values were clipped.

    ``missing`` is the policy of the model's training data (None: no rule,
    so only a ``?`` that the domain declares is read).  DataError or
    SchemaError saying why a row cannot be read: a missing value without a
    rule, an unknown category, a value that is not a number.

    >>> from refdp.data import ContinuousAttribute
    >>> schema = Schema((CategoricalAttribute("colour", ("red", "?")), ContinuousAttribute("age", 0, 100)),
    ...                 "class", ("no", "yes"))
    >>> encode_row((None, "250"), schema, MissingPolicy())   # '?', and 250 clipped to 100
    ((1, 100.0), 1)
    >>> encode_row(("red", None), schema, MissingPolicy())   # the midpoint of the bounds
    ((0, 50.0), 0)
    """
    codes: List[Union[int, float]] = []
    clipped = 0
    for attribute, value in zip(schema.attributes, values):
        if isinstance(attribute, CategoricalAttribute):
            codes.append(_category(value, attribute, missing))
        else:
            number, was_clipped = _number(value, attribute, missing)
            codes.append(number)
            clipped += was_clipped
    return tuple(codes), clipped


def rows_to_predict(X: object, schema: Schema, missing: Optional[MissingPolicy] = None) -> Tuple[Dataset, int]:
    """``X`` as a data set to predict with a model of ``schema`` and ``missing``, and how many values were clipped.

    A :class:`Dataset` of ``schema``'s attributes is returned as it is (one
    read with another schema is read by attribute name and value); anything
    :func:`raw_rows` reads is encoded row by row with :func:`encode_row` (the first row that cannot
    be read raises, naming it).  The class of every row is a placeholder:
    prediction reads the attributes only.

    >>> from refdp.data import ContinuousAttribute
    >>> schema = Schema((ContinuousAttribute("age", 0, 100),), "class", ("no", "yes"))
    >>> data, clipped = rows_to_predict([[20], [None], [130]], schema, MissingPolicy())
    >>> [data.row(i) for i in range(3)], clipped
    ([(20.0,), (50.0,), (100.0,)], 1)
    """
    if isinstance(X, Dataset):
        if X.schema.attributes == schema.attributes:
            return X, 0
        absent = [name for name in schema.names if name not in X.schema.names]
        if absent:
            raise ModelError(
                f"the data's attributes differ from the model's schema: it lacks {absent}; read the data with the "
                "schema stored in the model"
            )
        # read with another schema (say without the category '?'): its values, by attribute name
        X = [dict(zip(X.schema.names, X.row(i))) for i in range(len(X))]
    encoded: List[Encoded] = []
    clipped = 0
    for i, values in enumerate(raw_rows(X, schema)):
        try:
            row, count = encode_row(values, schema, missing)
        except (DataError, SchemaError) as exc:
            raise type(exc)(f"row {i}: {exc}") from None
        encoded.append(row)
        clipped += count
    columns: Dict[int, List[Union[int, float]]] = {a: [] for a in range(schema.n_attributes)}
    for row in encoded:
        for a, value in enumerate(row):
            columns[a].append(value)
    data = Dataset.from_codes(schema, [columns[a] for a in range(schema.n_attributes)], [0] * len(encoded))
    return data, clipped
