"""One entry point for data: a built-in name or a CSV/ARFF path."""

from __future__ import annotations

import os
from typing import Mapping, Optional, Tuple, Union

from refdp.data.builtin import BUILTIN_NAMES, builtin_schema, load_builtin
from refdp.data.dataset import Dataset
from refdp.data.readers import read_arff, read_csv
from refdp.data.schema import Schema
from refdp.errors import InvalidParameterError

__all__ = ["load"]


def load(
    name_or_path: Union[str, "os.PathLike[str]"],
    *,
    label: Optional[str] = None,
    schema: Optional[Schema] = None,
    bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
) -> Dataset:
    """Load a built-in data set by name, or a ``.csv``/``.arff`` file (optionally ``.gz``).

    * A built-in name (see :data:`BUILTIN_NAMES`): ``label`` and ``bounds``
      must be None; ``schema``, if given, must equal the built-in's schema.
    * A CSV file: ``schema`` is required (the header names the columns;
      ``label`` names the class column, by default ``schema.label``).
    * An ARFF file: the header gives the schema, with public ``bounds`` for
      numeric attributes; or pass ``schema`` to encode the rows against it
      (for example a trained model's).  ``label`` names the class attribute
      (default: the last one, or ``schema.label``).

    The readers' default missing-value policies apply; call :func:`read_csv`
    or :func:`read_arff` directly for others.

    >>> vote = load("vote")
    >>> len(vote), vote.schema.classes
    (435, ('democrat', 'republican'))
    """
    if not isinstance(name_or_path, (str, os.PathLike)):
        raise InvalidParameterError(
            f"load takes a built-in name {list(BUILTIN_NAMES)} or a .csv/.arff path (a str or pathlib.Path), "
            f"got {type(name_or_path).__name__}"
        )
    text = os.fspath(name_or_path)
    if not isinstance(text, str):
        raise InvalidParameterError(f"load takes a path as text, got {type(text).__name__}")
    if text in BUILTIN_NAMES:
        if label is not None or bounds is not None:
            raise InvalidParameterError(
                f"{text!r} is a built-in data set with a fixed schema; do not pass label or bounds"
            )
        if schema is not None and schema != builtin_schema(text):
            raise InvalidParameterError(
                f"the schema given does not match the built-in {text!r}'s; drop the schema"
            )
        return load_builtin(text)
    lowered = text.lower()
    if lowered.endswith((".csv", ".csv.gz")):
        if schema is None:
            raise InvalidParameterError(
                f"{text}: a CSV file needs a public schema; pass schema= (for example "
                "read_schema('schema.json'))"
            )
        if bounds is not None:
            raise InvalidParameterError("bounds are for ARFF files; a CSV schema holds its bounds")
        return read_csv(name_or_path, schema=schema, label=label)
    if lowered.endswith((".arff", ".arff.gz")):
        return read_arff(name_or_path, label=label, bounds=bounds, schema=schema)
    raise InvalidParameterError(
        f"{text!r} is neither a built-in data set {list(BUILTIN_NAMES)} nor a .csv/.arff "
        "(optionally .gz) file"
    )
