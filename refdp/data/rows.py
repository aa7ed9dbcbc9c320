"""Tables as callers hold them (lists of rows, NumPy arrays, pandas DataFrames), read without NumPy or pandas.

A scikit-learn user passes ``X`` as a list of rows, a two-dimensional NumPy
array of any numeric or object dtype, or a pandas DataFrame, and ``y`` as a
list, an array or a Series.  :func:`read_table` and :func:`read_labels` read
each through the methods the object itself offers (``tolist``, ``__array__``,
``columns``, ``iloc``, ``dtype``), so refdp never imports either library and
works without them.  Values come out as Python objects, one tuple per column;
what they mean (a category, a number, a class) is decided against the public
schema (:mod:`refdp.data.declared`, :mod:`refdp.data.coding`).

Output follows the same rule: :func:`as_output` gives a NumPy array when the
input was one (NumPy is then loaded already) and a list otherwise.
"""

from __future__ import annotations

import sys
import warnings
from dataclasses import dataclass
from typing import Any, List, Optional, Sequence, Tuple

from refdp.errors import DataConversionWarning, DataError

__all__ = ["Table", "read_table", "read_labels", "label_name", "is_array_like", "as_output"]

NUMBER = "number"
"""A column hint: the container's dtype is numeric."""

CATEGORY = "category"
"""A column hint: the container's dtype holds categories (bool, string or categorical)."""

_RESHAPE = (
    "X must be two-dimensional, one row per sample; got {what}. Reshape your data either using "
    "X.reshape(-1, 1) if your data has a single feature or X.reshape(1, -1) if it contains a single sample "
    "(for a list: [[v] for v in X] or [X])"
)


@dataclass(frozen=True)
class Table:
    """A table read from a caller's container: Python values, one tuple per column.

    ``names`` are the column names when the container has them and all are
    strings (a DataFrame's), else None.  ``hints`` say per column what the
    container's dtype declares: :data:`NUMBER`, :data:`CATEGORY`, or ``""``
    when only the values can tell (lists, object arrays).  ``categories``
    holds a pandas categorical column's declared categories (None
    elsewhere).  ``arrays`` is True for NumPy or pandas input.
    """

    columns: Tuple[Tuple[Any, ...], ...]
    n_rows: int
    names: Optional[Tuple[str, ...]]
    hints: Tuple[str, ...]
    categories: Tuple[Optional[Tuple[Any, ...]], ...]
    arrays: bool

    @property
    def n_columns(self) -> int:
        """The number of columns (features)."""
        return len(self.columns)

    @property
    def shape(self) -> Tuple[int, int]:
        """(rows, columns), as NumPy would say it."""
        return (self.n_rows, self.n_columns)


def is_array_like(obj: object) -> bool:
    """Whether ``obj`` is a NumPy array, a pandas object or anything else offering ``__array__``.

    >>> is_array_like([[1, 2]]), is_array_like("text")
    (False, False)
    """
    return hasattr(obj, "__array__") and not isinstance(obj, (list, tuple, str, bytes))


def read_table(X: object) -> Table:
    """The columns of ``X``: a sequence of rows, a 2-D array (anything with ``__array__``) or a DataFrame.

    >>> t = read_table([["red", 1.5], ["blue", 2]])
    >>> t.columns, t.shape, t.names, t.arrays
    ((('red', 'blue'), (1.5, 2)), (2, 2), None, False)

    A one-dimensional input, a sparse matrix, complex numbers, no rows or no
    columns raise DataError saying what to pass instead.
    """
    if hasattr(X, "toarray") and hasattr(X, "nnz"):
        raise DataError(
            f"X is a sparse matrix ({type(X).__name__}); refdp reads dense rows and does not support sparse "
            "input: pass X.toarray()"
        )
    if hasattr(X, "columns") and hasattr(X, "iloc"):
        table = _frame_table(X)
    elif is_array_like(X):
        table = _array_table(X)
    elif isinstance(X, (str, bytes)) or not hasattr(X, "__iter__"):
        raise DataError(f"X must be a sequence of rows, a 2-D array or a DataFrame, got {type(X).__name__}")
    else:
        table = _rows_table(list(X))
    if table.n_rows == 0:
        raise DataError(f"X has no rows (shape={table.shape}); give at least one row")
    if table.n_columns == 0:
        raise DataError(
            f"X has 0 feature(s) (shape={table.shape}) while a minimum of 1 is required."
        )
    return table


def _array(obj: Any) -> Any:
    # An object that only offers __array__ (no shape or tolist) is asked for its array.
    return obj if hasattr(obj, "tolist") and hasattr(obj, "ndim") else obj.__array__()


def _hint(dtype: Any, what: str) -> str:
    """A column hint from a NumPy or pandas dtype; DataError for complex, date and time values."""
    if getattr(dtype, "name", "") in ("category", "string", "str"):
        return CATEGORY
    kind = getattr(dtype, "kind", "O")
    if kind == "c":
        raise DataError(f"{what} holds complex numbers: Complex data not supported; give real numbers")
    if kind in "mMV":
        raise DataError(
            f"{what} has dtype {dtype}; refdp reads numbers, strings and categories: convert it (a date to a "
            "number, say)"
        )
    if kind in "fiu":
        return NUMBER
    if kind in "bUS":
        return CATEGORY
    return ""


def _array_table(X: object) -> Table:
    array = _array(X)
    if array.ndim != 2:
        raise DataError(_RESHAPE.format(what=f"a {array.ndim}-dimensional array of shape {array.shape}"))
    n_rows, n_columns = array.shape
    hint = _hint(array.dtype, "X")
    rows = array.tolist()
    columns = tuple(zip(*rows)) if n_rows else ((),) * n_columns
    return Table(columns, n_rows, None, (hint,) * n_columns, (None,) * n_columns, True)


def _frame_table(X: Any) -> Table:
    raw_names = list(X.columns)
    named = [isinstance(n, str) for n in raw_names]
    if any(named) and not all(named):
        raise DataError(
            f"X's column names mix strings and other types ({sorted({type(n).__name__ for n in raw_names})}); "
            "name every column by a string (X.columns = X.columns.astype(str)) or none"
        )
    columns, hints, categories = [], [], []
    for j, name in enumerate(raw_names):
        column = X.iloc[:, j]
        hints.append(_hint(column.dtype, f"column {name!r}"))
        declared = getattr(column.dtype, "categories", None)
        categories.append(None if declared is None else tuple(declared.tolist()))
        columns.append(tuple(column.tolist()))
    names = tuple(raw_names) if raw_names and all(named) else None
    return Table(tuple(columns), len(X), names, tuple(hints), tuple(categories), True)


def _rows_table(rows: List[Any]) -> Table:
    if rows and not _is_row(rows[0]):
        raise DataError(_RESHAPE.format(what=f"a sequence whose first item is {rows[0]!r}, not a row"))
    as_lists: List[Sequence[Any]] = []
    for i, row in enumerate(rows):
        if not _is_row(row):
            raise DataError(f"row {i} must be a sequence of values, got {row!r}")
        as_lists.append(_array(row).tolist() if is_array_like(row) else row)
    width = len(as_lists[0]) if as_lists else 0
    for i, row in enumerate(as_lists):
        if len(row) != width:
            raise DataError(f"row {i} has {len(row)} values but row 0 has {width}; every row needs one value per feature")
    columns = tuple(zip(*as_lists)) if width else ()
    return Table(columns, len(rows), None, ("",) * width, (None,) * width, False)


def _is_row(row: object) -> bool:
    return not isinstance(row, (str, bytes)) and hasattr(row, "__len__") and hasattr(row, "__getitem__")


def read_labels(y: object, n_rows: int) -> Tuple[Any, ...]:
    """The labels in ``y`` (a sequence, a 1-D array or a Series), one per row of X.

    A column vector (shape ``(n, 1)``) is read as a flat one, with a
    :class:`~refdp.errors.DataConversionWarning`.

    >>> read_labels([0, 1, 1], 3)
    (0, 1, 1)
    """
    if y is None:
        raise DataError(
            "this estimator requires y to be passed, but the target y is None: give one class label per row"
        )
    if isinstance(y, (str, bytes)) or not (hasattr(y, "__iter__") or is_array_like(y)):
        raise DataError(f"y must be a sequence of class labels, one per row, got {type(y).__name__}")
    if hasattr(y, "columns") and hasattr(y, "to_numpy"):  # a DataFrame: read as a 2-D array
        y = y.to_numpy()
    if is_array_like(y):
        array = _array(y)
        if array.ndim == 2 and array.shape[1] == 1:
            _warn_column_vector()
            labels = [row[0] for row in array.tolist()]
        elif array.ndim != 1:
            raise DataError(f"y must be one-dimensional, one class label per row; got shape {array.shape}")
        else:
            _hint(array.dtype, "y")
            labels = array.tolist()
    else:
        labels = list(y)  # type: ignore[call-overload]
        if labels and all(_is_row(v) and len(v) == 1 for v in labels):
            _warn_column_vector()
            labels = [v[0] for v in labels]
    if len(labels) != n_rows:
        raise DataError(f"X has {n_rows} rows but y has {len(labels)} labels; give one label per row")
    return tuple(labels)


def label_name(y: object) -> Optional[str]:
    """The name ``y`` carries (a pandas Series's), if it is a non-empty string.

    >>> label_name([0, 1]) is None
    True
    """
    name = getattr(y, "name", None)
    return name if isinstance(name, str) and name else None


def _warn_column_vector() -> None:
    warnings.warn(
        DataConversionWarning(
            "A column-vector y was passed when a 1d array was expected; refdp reads it as one label per row "
            "(pass y.ravel() to say so)"
        ),
        stacklevel=4,
    )


def as_output(values: Sequence[Any], arrays: bool, dtype: Optional[str] = None) -> Any:
    """``values`` as a NumPy array when ``arrays`` (and NumPy is loaded), else as a list.

    refdp never imports NumPy: ``arrays`` is True only when the caller's
    input was an array, which has loaded it.

    >>> as_output((1, 2), arrays=False)
    [1, 2]
    """
    numpy = sys.modules.get("numpy") if arrays else None
    if numpy is None:
        return list(values)
    return numpy.asarray(values, dtype=dtype)
