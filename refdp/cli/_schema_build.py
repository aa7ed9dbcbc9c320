"""What ``schema`` writes: a data file's schema, with what is read off the data recorded as leaks.

The command is :mod:`refdp.cli.schema`; this module loads only when it runs.
"""

from __future__ import annotations

import argparse
import csv
import sys
from typing import List, Optional, Sequence, Tuple

from refdp.cli._data import text_lines
from refdp.data import (
    BUILTIN_NAMES,
    Attribute,
    CategoricalAttribute,
    ContinuousAttribute,
    RawValue,
    Schema,
    builtin_schema,
    leaky_infer_schema,
    read_arff,
)
from refdp.data.missing import MARKER
from refdp.data.readers import header_advice, is_number, parse_arff_attribute
from refdp.errors import DataError, InvalidParameterError, SchemaError

__all__ = ["schema_of", "summary"]

_MARKER = MARKER

_WIDEST = (-sys.float_info.max, sys.float_info.max)


# --- one column at a time, through leaky_infer_schema ------------------------------------------


def _column(
    name: str, cells: Sequence[RawValue], labels: Sequence[str], continuous: bool, label: str
) -> Tuple[Attribute, str]:
    """The attribute ``leaky_infer_schema`` reads off ``cells``, and its leak."""
    inferred = leaky_infer_schema(
        [[c] for c in cells], labels, attribute_names=[name], continuous=[name] if continuous else [], label=label,
    )
    return inferred.attributes[0], inferred.leaks[0]


def _classes(label: str, labels: Sequence[str]) -> Tuple[Tuple[str, ...], str]:
    inferred = leaky_infer_schema([()] * len(labels), labels, attribute_names=[], label=label)
    return inferred.classes, inferred.leaks[-1]


def _with_marker(attribute: Attribute) -> Attribute:
    """A categorical attribute with the missing-value category last (whether or not a value is missing)."""
    if not isinstance(attribute, CategoricalAttribute):
        return attribute
    values = tuple(v for v in attribute.values if v != _MARKER) + (_MARKER,)
    return CategoricalAttribute(attribute.name, values)


# --- CSV ---------------------------------------------------------------------------------------


def _csv_table(path: str) -> Tuple[List[str], List[Tuple[int, List[str]]]]:
    """The header and the (line number, cells) of every row of the CSV file ``path``."""
    reader = csv.reader(text_lines(path), skipinitialspace=True)
    header: Optional[List[str]] = None
    rows: List[Tuple[int, List[str]]] = []
    try:
        for fields in reader:
            cells = [c.strip() for c in fields]
            if not any(cells):
                continue
            if header is None:
                header = cells
            else:
                rows.append((reader.line_num, cells))
    except csv.Error as exc:
        raise DataError(f"line {reader.line_num} of {path}: {exc}") from None
    if header is None or not rows:
        raise DataError(f"{path} needs a header line and at least one row")
    if len(set(header)) != len(header) or "" in header:
        raise DataError(f"{path}: the header {header} names a column twice or leaves one unnamed")
    for line, cells in rows:
        if len(cells) != len(header):
            raise DataError(
                f"line {line} of {path} has {len(cells)} fields but the header (its first line) has {len(header)}"
                + header_advice(header)
            )
    return header, rows


def _csv_schema(path: str, label: Optional[str]) -> Tuple[Schema, List[str]]:
    header, rows = _csv_table(path)
    notes: List[str] = []
    numeric = [name for name in header if is_number(name)]
    if numeric:
        # UCI files such as adult.data have no header line: their first record would name the columns.
        notes.append(
            f"column name(s) {', '.join(repr(n) for n in numeric[:5])} of {path} are numbers: if the first "
            "line is a record, not a header, add a header line naming the columns (else that record is left "
            "out and names the columns)"
        )
    label = label or header[-1]
    if label not in header:
        raise InvalidParameterError(f"--label {label!r} is not a column of {path}; its columns are {header}")
    position = header.index(label)
    kept = [cells for _, cells in rows if cells[position] != _MARKER]
    if not kept:
        raise DataError(f"{path}: every row lacks its class ({_MARKER!r} in column {label!r})")
    labels = [cells[position] for cells in kept]
    attributes: List[Attribute] = []
    leaks: List[str] = []
    for j, name in enumerate(header):
        if j == position:
            continue
        present = [cells for cells in kept if cells[j] != _MARKER]
        continuous = bool(present) and all(is_number(cells[j]) for cells in present)
        if continuous and len(present) < len(kept):
            notes.append(
                f"{name!r} is continuous with missing values: they read as the midpoint of its bounds (the default "
                "--missing category) or drop their rows (--missing drop)"
            )
        rows_used = present if continuous else kept
        attribute, leak = _column(
            name, [cells[j] for cells in rows_used], [cells[position] for cells in rows_used], continuous, label
        )
        attributes.append(_with_marker(attribute))
        leaks.append(leak)
    classes, leak = _classes(label, labels)
    if len(kept) < len(rows):
        notes.append(f"{len(rows) - len(kept)} row(s) without a class ({_MARKER!r}) were left out")
    return Schema(tuple(attributes), label, classes, tuple(leaks + [leak])), notes


# --- ARFF --------------------------------------------------------------------------------------


def _arff_header(path: str) -> List[Tuple[str, Optional[Tuple[str, ...]]]]:
    header = []
    for number, line in enumerate(text_lines(path), start=1):
        text = line.strip()
        keyword = text.split(None, 1)[0].lower() if text else ""
        if keyword == "@attribute":
            header.append(parse_arff_attribute(text[len("@attribute"):], f"line {number} of {path}"))
        elif keyword == "@data":
            break
    return header


def _arff_schema(path: str, label: Optional[str]) -> Tuple[Schema, List[str]]:
    header = _arff_header(path)
    if not header:
        raise SchemaError(f"{path} declares no @attribute; is it an ARFF file?")
    label = label or header[-1][0]
    declared = dict(header)
    if label not in declared:
        raise InvalidParameterError(f"--label {label!r} is not an attribute of {path}; it has {list(declared)}")
    numeric = [name for name, values in header if values is None and name != label]
    # the rows are read with every numeric attribute unbounded, to take their bounds off them
    data = read_arff(
        path, label=label, bounds={name: _WIDEST for name in numeric},
        categorical_missing="drop", continuous_missing="drop",
    )
    labels = [data.schema.classes[c] for c in data.labels]
    attributes: List[Attribute] = []
    leaks: List[str] = []
    for attribute in data.schema.attributes:
        if isinstance(attribute, ContinuousAttribute):
            attribute, leak = _column(attribute.name, list(data.values(attribute.name)), labels, True, label)
            leaks.append(leak)
        attributes.append(_with_marker(attribute))
    notes = [
        f"nominal domains and classes are the header's (public); each domain ends with {_MARKER!r}, the category "
        "of a missing value (as training reads the file with the default --missing category)",
        "numeric bounds come from the rows without a missing value",
    ]
    return Schema(tuple(attributes), label, data.schema.classes, tuple(leaks)), notes


# --- the command -------------------------------------------------------------------------------


def schema_of(args: argparse.Namespace) -> Tuple[Schema, List[str]]:
    """The schema of ``--data`` (read with ``--label``) and notes for the user."""
    if args.data in BUILTIN_NAMES:
        if args.label is not None:
            raise InvalidParameterError(f"{args.data} is a built-in data set with its own public schema; drop --label")
        return builtin_schema(args.data), []
    lowered = args.data.lower()
    if lowered.endswith((".csv", ".csv.gz")):
        return _csv_schema(args.data, args.label)
    if lowered.endswith((".arff", ".arff.gz")):
        return _arff_schema(args.data, args.label)
    raise InvalidParameterError(
        f"--data {args.data!r} is neither a .csv or .arff file (optionally .gz) nor a built-in data set"
    )


def summary(schema: Schema) -> str:
    """One line on ``schema``: its attributes and classes."""
    continuous = sum(isinstance(a, ContinuousAttribute) for a in schema.attributes)
    return (
        f"{schema.n_attributes} attributes ({schema.n_attributes - continuous} categorical, {continuous} continuous), "
        f"class {schema.label!r} with {schema.n_classes} classes"
    )
