"""The data the command line's flags name: ``--data``, ``--label``, ``--schema``, ``--bounds``, ``--missing``.

* a built-in name: its own public schema; the other flags do not apply;
* a ``.csv`` file (optionally ``.gz``): ``--schema`` is required;
* an ``.arff`` file: the header's nominal domains and ``--bounds ATTR=LO:HI``
  for each numeric attribute, or a ``--schema``.

``--missing`` chooses what a missing value (``?``) does: ``category``
(default: a missing categorical value is the category ``?``, which every
categorical domain gets where the schema does not list it, and a missing
continuous value the midpoint of its public bounds; :mod:`refdp.data.missing`),
``drop`` (the row is dropped; row-local, so compatible with add-remove DP)
or ``error``.

:func:`read_rows_to_predict` reads rows to predict, with or without a class
column, one result per row (a row that cannot be read keeps its place, with
the reason); :func:`read_test_data` reads rows to test a model on.  Both read
missing values with the model's policy, and clip continuous values outside
the schema's public bounds to them (:mod:`refdp.data.clipping`: a clipped
value takes the branch the value itself would in every sound variant's tree).
"""

from __future__ import annotations

import gzip
import math
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, TextIO, Tuple

from refdp.data import BUILTIN_NAMES, Dataset, MissingPolicy, Schema, load, read_arff, read_csv
from refdp.data.predict_rows import Encoded, encode_row, raw_rows
from refdp.data.readers import RawTable, bounded_lines, header_advice, read_arff_records, read_csv_records
from refdp.errors import DataError, InvalidParameterError, SchemaError
from refdp.files import check_writable
from refdp.numbers import is_plain_decimal

__all__ = [
    "MISSING",
    "RowsToPredict",
    "check_output",
    "parse_bounds",
    "read_data",
    "read_rows_to_predict",
    "text_lines",
    "note_clipped",
    "read_test_data",
]

MISSING: Dict[str, Tuple[str, str]] = {
    "category": ("category", "midpoint"),
    "drop": ("drop", "drop"),
    "error": ("error", "error"),
}
"""``--missing`` value -> the readers' (categorical, continuous) missing-value policies."""


def parse_bounds(pairs: Sequence[str]) -> Optional[Dict[str, Tuple[float, float]]]:
    """``["age=0:120", ...]`` as ``{"age": (0.0, 120.0), ...}``; None when no ``--bounds`` was given."""
    if not pairs:
        return None
    out: Dict[str, Tuple[float, float]] = {}
    for pair in pairs:
        name, sep, interval = pair.rpartition("=")
        low, colon, high = interval.partition(":")
        plain = is_plain_decimal(low) and is_plain_decimal(high)
        lower, upper = (float(low), float(high)) if plain else (math.nan, math.nan)
        if not (sep and name.strip() and colon and math.isfinite(lower) and math.isfinite(upper)):
            raise InvalidParameterError(
                f"--bounds takes ATTR=LO:HI with finite numbers in ASCII digits, for example --bounds age=0:120; "
                f"got {pair!r}"
            )
        if name.strip() in out:
            raise InvalidParameterError(f"--bounds names {name.strip()!r} twice; give each attribute once")
        out[name.strip()] = (lower, upper)
    return out


def _policies(missing: Optional[str]) -> Tuple[str, str]:
    return MISSING[missing or "category"]


def _builtin(name: str, given: Sequence[Tuple[str, object]]) -> Dataset:
    flags = [flag for flag, value in given if value]
    if flags:
        raise InvalidParameterError(
            f"{name} is a built-in data set with its own public schema and missing-value handling; "
            f"drop {', '.join(flags)}"
        )
    return load(name)


def _kind(path: str, flag: str) -> str:
    """``csv`` or ``arff``: the kind of the file ``path`` that ``flag`` names, which must exist."""
    lowered = path.lower()
    for suffix in ("csv", "arff"):
        if lowered.endswith((f".{suffix}", f".{suffix}.gz")):
            if os.path.isdir(path) or not os.path.exists(path):
                found = "is a directory" if os.path.isdir(path) else "does not exist"
                raise InvalidParameterError(f"{flag} {path}: the file {found}")
            return suffix
    raise InvalidParameterError(
        f"{flag} {path!r} is neither a built-in data set (see `python3 -m refdp datasets`) nor a "
        ".csv or .arff file (optionally .gz)"
    )


def note_clipped(path: str, count: int) -> None:
    """Say on stderr how many values of ``path`` were clipped to the public bounds, if any."""
    if count:
        print(
            f"refdp: note: {count} value(s) of {path} lie outside the model's public bounds and were "
            "clipped to them (a value beyond a bound takes the bound's branch)",
            file=sys.stderr,
        )


def read_data(
    path: str,
    *,
    label: Optional[str] = None,
    schema: Optional[Schema] = None,
    bounds: Optional[Dict[str, Tuple[float, float]]] = None,
    missing: Optional[str] = None,
    flag: str = "--data",
) -> Dataset:
    """The data set ``path`` names, read as the flags say (see the module notes)."""
    if path in BUILTIN_NAMES:
        return _builtin(path, (("--label", label), ("--schema", schema), ("--bounds", bounds), ("--missing", missing)))
    categorical, continuous = _policies(missing)
    if _kind(path, flag) == "csv":
        if schema is None:
            raise InvalidParameterError(
                f"{flag} {path}: a CSV file needs --schema FILE, its public schema (docs/schema.md; "
                f"`python3 -m refdp schema --data {path} --out schema.json` writes one from the data, which leaks)"
            )
        if bounds is not None:
            raise InvalidParameterError("--bounds is for ARFF files; a CSV file's bounds are in its --schema")
        return read_csv(
            path, schema=schema, label=label, categorical_missing=categorical, continuous_missing=continuous
        )
    if schema is not None and bounds is not None:
        raise InvalidParameterError("give --schema or --bounds, not both: the schema holds the bounds")
    return read_arff(
        path, label=label, bounds=bounds, schema=schema,
        categorical_missing=categorical, continuous_missing=continuous,
    )


def check_output(out: Optional[str], inputs: Sequence[Optional[str]]) -> None:
    """Refuse, before any work, an ``--out`` that cannot be written or is one of the input files."""
    if out is None:
        return
    check_writable(out)
    target = Path(out)
    for given in inputs:
        if given and given not in BUILTIN_NAMES and target.exists() and Path(given).exists():
            if os.path.samefile(target, given):
                raise InvalidParameterError(f"--out {out} is an input of this command; write to another file")


# --- rows to predict ---------------------------------------------------------------------------


def text_lines(path: str) -> Iterator[str]:
    """The lines of the text file ``path`` (through gzip when it ends in ``.gz``); DataError if unreadable."""
    try:
        # utf-8-sig: a byte-order mark at the start is skipped
        stream: TextIO = (
            gzip.open(path, "rt", encoding="utf-8-sig", newline="") if path.lower().endswith(".gz")
            else open(path, encoding="utf-8-sig", newline="")
        )
    except OSError as exc:
        raise DataError(f"cannot open {path!r}: {exc.strerror or exc}") from None
    with stream:
        try:
            yield from bounded_lines(stream, path)
        except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
            raise DataError(f"cannot read {path}: {exc}; is it UTF-8 text (gzipped if .gz)?") from None


@dataclass(frozen=True)
class RowsToPredict:
    """Every row of a file (or a built-in), read with a model's schema: one entry per row, in order.

    ``encoded[i]`` is row i as codes and floats, or None when it cannot be
    read, and then ``reasons[i]`` says why; ``where[i]`` names it ("line 5
    of f.csv").  ``labels`` holds each row's class value (None where it is
    missing) when the data has the class column, else is None.  ``clipped``
    counts the values clipped to the public bounds.
    """

    source: str
    where: Tuple[str, ...]
    encoded: Tuple[Optional[Encoded], ...]
    reasons: Tuple[Optional[str], ...]
    labels: Optional[Tuple[Optional[str], ...]]
    clipped: int

    def dataset(self, schema: Schema) -> Dataset:
        """The rows that could be read, as a data set of ``schema`` (class codes are placeholders)."""
        rows = [row for row in self.encoded if row is not None]
        columns = [[row[a] for row in rows] for a in range(schema.n_attributes)]
        return Dataset.from_codes(schema, columns, [0] * len(rows))


def _table(path: str, flag: str) -> RawTable:
    """The records of the CSV (with a header line) or ARFF file ``path`` that ``flag`` names."""
    return read_csv_records(path) if _kind(path, flag) == "csv" else read_arff_records(path)[1]


def read_rows_to_predict(
    path: str, schema: Schema, missing: Optional[MissingPolicy], *, label: Optional[str] = None, flag: str = "--data"
) -> RowsToPredict:
    """The rows of ``path`` read with a model's ``schema`` and missing-value policy ``missing``.

    A file needs the model's attributes, by name, in any order (a CSV file a
    header line); other columns are ignored, except the class column
    (``label``, by default the schema's), whose values are kept when it is
    there.  A row that cannot be read (a missing value the model has no rule
    for, an unknown category, a number that is not one, a wrong number of
    fields) keeps its place with the reason.
    """
    class_column = label or schema.label
    if path in BUILTIN_NAMES:
        data = load(path)
        present = set(data.schema.names)
        absent = [n for n in schema.names if n not in present]
        if absent:
            raise SchemaError(
                f"{path} lacks the model's attribute(s) {absent}: the data's attributes differ from the model's schema"
            )
        rows = [dict(zip(data.schema.names, data.row(i))) for i in range(len(data))]
        records = raw_rows(rows, schema)
        where = tuple(f"row {i} of {path}" for i in range(len(data)))
        labels: Optional[Tuple[Optional[str], ...]] = tuple(data.label(i) for i in range(len(data)))
        return _encoded(path, records, where, labels, schema, missing)
    table = _table(path, flag)
    positions = {name: i for i, name in enumerate(table.names)}
    absent = [n for n in schema.names if n not in positions]
    if absent:
        raise SchemaError(
            f"{path}: the header lacks the column(s) {absent} that the model's schema needs; the header is "
            f"{list(table.names)}" + header_advice(table.names, schema.names + (schema.label,))
        )
    width = len(table.names)
    picked: List[Optional[Tuple[object, ...]]] = []
    reasons: List[Optional[str]] = []
    for record in table.records:
        if len(record) != width:
            picked.append(None)
            reasons.append(f"it has {len(record)} fields but the header has {width}")
        else:
            picked.append(tuple(record[positions[n]] for n in schema.names))
            reasons.append(None)
    where = tuple(f"line {line} of {path}" for line in table.lines)
    labels = None
    if class_column in positions:
        at = positions[class_column]
        labels = tuple(r[at] if len(r) == width else None for r in table.records)
    result = _encoded(path, picked, where, labels, schema, missing)
    return RowsToPredict(
        result.source, result.where, result.encoded,
        tuple(r or e for r, e in zip(reasons, result.reasons)), result.labels, result.clipped,
    )


def _encoded(
    path: str,
    records: Sequence[Optional[Sequence[object]]],
    where: Tuple[str, ...],
    labels: Optional[Tuple[Optional[str], ...]],
    schema: Schema,
    missing: Optional[MissingPolicy],
) -> RowsToPredict:
    encoded: List[Optional[Encoded]] = []
    reasons: List[Optional[str]] = []
    clipped = 0
    for values in records:
        if values is None:
            encoded.append(None)
            reasons.append(None)
            continue
        try:
            row, count = encode_row(values, schema, missing)
        except (DataError, SchemaError) as exc:
            encoded.append(None)
            reasons.append(str(exc))
            continue
        encoded.append(row)
        reasons.append(None)
        clipped += count
    return RowsToPredict(path, where, tuple(encoded), tuple(reasons), labels, clipped)


def read_test_data(
    path: str, schema: Schema, missing: Optional[MissingPolicy], *, label: Optional[str] = None
) -> Tuple[Dataset, int]:
    """The labelled rows of ``path`` to test a model of ``schema`` on, and how many values were clipped.

    Read as :func:`read_rows_to_predict` reads them; every row must be
    readable and have a class of the schema.
    """
    rows = read_rows_to_predict(path, schema, missing, label=label, flag="--test-data")
    class_column = label or schema.label
    if rows.labels is None:
        raise SchemaError(f"{path} has no class column {class_column!r} to test on; pass --label to name it")
    for where, reason, value in zip(rows.where, rows.reasons, rows.labels):
        if reason is not None:
            raise DataError(f"{where}: {reason}")
        if value is None:
            raise DataError(f"{where}: the class is missing; a test row needs its class")
    data = rows.dataset(schema)
    codes = [schema.class_index(str(value)) for value in rows.labels]
    return Dataset.from_codes(schema, [data.column(a) for a in range(schema.n_attributes)], codes), rows.clipped
