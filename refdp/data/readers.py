"""Reading data sets from CSV and Weka ARFF files, and (leakily) inferring schemas.

Missing values
--------------
A missing value is a cell equal to the CSV ``missing`` marker, or an
unquoted ``?`` in ARFF.  What happens to it is a *public* policy chosen per
kind of attribute (:mod:`refdp.data.missing`), and the data set records it
(:attr:`Dataset.missing`):

* categorical (``categorical_missing``):

  - ``"category"`` (default): a missing value is the category ``?``, which
    this policy adds as the last value of every categorical domain that does
    not list it, in a given schema as in one built from an ARFF header (a
    rule of the schema format: it never looks at the rows;
    :func:`refdp.data.missing.with_missing_category`).
  - ``"error"``: a missing value raises DataError.
  - ``"drop"``: the row is dropped (see below).

* continuous (``continuous_missing``): ``"midpoint"`` (default) reads it as
  the midpoint of the attribute's public bounds
  (:func:`refdp.data.missing.fill_value`); ``"error"`` raises DataError;
  ``"drop"`` drops the row.

A missing class follows ``categorical_missing`` with the classes as domain
(the ARFF rule does not add ``?`` to the classes): a row without a class is
an error unless dropped.

Reading a missing value as a public category or a public number maps each
row to a row of the public schema by a rule fixed in advance, so a learner's
guarantee carries over under both neighbouring relations (claim
``missing-values-public-rule``).  Dropping is row-local: whether a row is
kept depends on that row alone.  So adding or removing one record adds or
removes at most one record of the filtered data, and an epsilon-DP mechanism
under the add-remove relation stays epsilon-DP when run on the filtered
data.  Under the substitute relation it does not carry over as is: a
substitution can turn a kept row into a dropped one, so the filtered data
sets differ by a removal, not a substitution, and their sizes differ
(claim ``missing-values-drop``).

Schemas
-------
:func:`read_csv` needs a public :class:`Schema`.  :func:`read_arff` builds one
from the ARFF header (nominal domains are public there) plus public
``bounds`` for the numeric attributes, or uses a given schema.
:func:`leaky_infer_schema` reads domains, bounds and classes off the rows;
it is not DP (claim ``schema-inference-leaks``) and says so in the schema's
``leaks``.  :func:`read_csv_records` and :func:`read_arff_records` give a
file's cells before any schema (the rows to predict are read with them).
"""

from __future__ import annotations

import csv
import gzip
import math
import os
from dataclasses import dataclass
from operator import itemgetter
from pathlib import Path
from typing import (
    Callable,
    Collection,
    Dict,
    Iterable,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    TextIO,
    Tuple,
    Union,
    cast,
)

from refdp.data.dataset import Dataset, RawValue
from refdp.data.missing import MARKER, MissingPolicy, fill_value, with_missing_category
from refdp.data.schema import (
    Attribute,
    CategoricalAttribute,
    ContinuousAttribute,
    Schema,
)
from refdp.errors import DataError, InvalidParameterError, SchemaError
from refdp.files import read_json
from refdp.numbers import is_plain_decimal

__all__ = [
    "MAX_LINE", "ArffAttribute", "RawTable", "Source", "bounded_lines", "is_number", "leaky_infer_schema",
    "parse_arff_attribute", "read_arff", "read_arff_records", "read_csv", "read_csv_records", "read_schema",
]

Source = Union[str, "os.PathLike[str]", TextIO]
"""A path (a name ending in ``.gz`` is read through gzip) or an open text file."""

MAX_LINE = 8 * 2**20
"""The longest line read from a data file, in characters: a longer one (a gzip file that expands to one
line of gigabytes) is refused before it fills the memory."""


# --- opening --------------------------------------------------------------


def _lines(source: Source) -> Tuple[Iterator[str], str, Callable[[], None]]:
    """The lines of ``source``, its name for messages, and how to close it."""
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            if path.name.endswith(".gz"):
                stream: TextIO = gzip.open(path, "rt", encoding="utf-8", newline="")
            else:
                stream = open(path, encoding="utf-8", newline="")
        except OSError as exc:
            raise DataError(f"cannot open {str(path)!r}: {exc.strerror or exc}") from None
        return _checked_lines(bounded_lines(stream, str(path)), str(path)), str(path), stream.close
    if not hasattr(source, "__iter__"):
        raise DataError(f"source must be a path or an open text file, got {type(source).__name__}")
    name = str(getattr(source, "name", "<stream>"))
    return _checked_lines(source, name), name, lambda: None


def bounded_lines(stream: TextIO, name: str) -> Iterator[str]:
    """The lines of ``stream`` (named ``name`` in messages); DataError at a line over :data:`MAX_LINE` characters."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise DataError(
                f"line {number} of {name} is longer than {MAX_LINE} characters; is it a text data file?"
            )
        yield line


def _checked_lines(stream: Iterable[str], name: str) -> Iterator[str]:
    try:
        lines = iter(stream)
        first = next(lines, None)
        if first is None:
            return
        if not isinstance(first, str):
            raise DataError(f"{name} yields {type(first).__name__}, not text; open it in text mode")
        # a byte-order mark (an editor's "UTF-8 with BOM") is not part of the first name or value
        yield first[1:] if first.startswith("\ufeff") else first
        yield from lines
    except (UnicodeDecodeError, gzip.BadGzipFile, EOFError) as exc:
        raise DataError(f"cannot read {name}: {exc}; is it UTF-8 text (gzipped if .gz)?") from None


def _check_arguments(
    label: object, schema: object = None, bounds: object = None
) -> None:
    """Refuse a ``label``, ``schema`` or ``bounds`` of the wrong type before reading anything."""
    if label is not None and not isinstance(label, str):
        raise InvalidParameterError(f"label must be a column name (a str) or None, got {type(label).__name__}")
    if schema is not None and not isinstance(schema, Schema):
        raise InvalidParameterError(
            f"schema must be a Schema (for example read_schema('schema.json')) or None, got {type(schema).__name__}"
        )
    if bounds is not None and (
        not isinstance(bounds, Mapping) or not all(isinstance(name, str) for name in bounds)
    ):
        raise InvalidParameterError(
            "bounds must map numeric attribute names to (lower, upper), such as {'age': (0, 120)}; got "
            f"{type(bounds).__name__}"
        )


def _check_policies(categorical_missing: str, continuous_missing: str) -> MissingPolicy:
    return MissingPolicy(categorical_missing, continuous_missing)


# --- the shared back end ----------------------------------------------------

# A record is one line's fields; None marks a missing value.
_Record = Sequence[Optional[str]]


@dataclass(frozen=True)
class RawTable:
    """A file's cells before any schema: column names, records and their line numbers.

    ``names`` are the header's column names (empty for a CSV file read
    without a header); ``records[i]`` holds the fields of the line numbered
    ``lines[i]``, with None for a missing value.  Records may have any
    number of fields: the readers check them against the header.

    >>> import io
    >>> table = read_csv_records(io.StringIO("a,b\\n1,?\\n"))
    >>> table.names, table.records, table.lines
    (('a', 'b'), (('1', None),), (2,))
    """

    source: str
    names: Tuple[str, ...]
    records: Tuple[Tuple[Optional[str], ...], ...]
    lines: Tuple[int, ...]


def _assemble(
    schema: Schema,
    records: Sequence[_Record],
    lines: Sequence[int],
    positions: Sequence[int],
    label_position: int,
    policy: MissingPolicy,
    source: str,
) -> Dataset:
    """Apply the missing-value policy, pick the schema's columns and validate.

    Under the ``category`` policy ``schema`` must already have the category
    ``?`` in every categorical domain (:func:`with_missing_category`).
    """
    columns: List[Tuple[str, Attribute, int]] = [
        (a.name, a, p) for a, p in zip(schema.attributes, positions)
    ]
    # The class is checked like a categorical attribute whose domain is the classes.
    columns.append((schema.label, CategoricalAttribute(schema.label, schema.classes), label_position))
    kept_records: List[Sequence[Optional[RawValue]]] = []
    kept_lines: List[int] = []
    for record, line in zip(records, lines):
        if None in record:
            filled = _fill_missing(record, columns, policy, line, source)
            if filled is None:
                continue
            kept_records.append(filled)
        else:
            kept_records.append(record)
        kept_lines.append(line)
    if not kept_records:
        raise DataError(
            f"{source} has no rows left"
            + (" after dropping rows with missing values" if records else "")
            + "; a data set needs at least one row"
        )
    complete = cast(List[Sequence[RawValue]], kept_records)  # _fill_missing left no None
    pick = _picker(positions)
    rows = [pick(r) for r in complete]
    labels = cast(List[str], [r[label_position] for r in complete])
    return Dataset.from_rows(
        schema, rows, labels, row_name=lambda i: f"line {kept_lines[i]} of {source}", missing=policy
    )


def _fill_missing(
    record: _Record,
    columns: Sequence[Tuple[str, Attribute, int]],
    policy: MissingPolicy,
    line: int,
    source: str,
) -> Optional[List[Optional[RawValue]]]:
    """``record`` with each missing value replaced as ``policy`` says, or None to drop the row.

    ``columns`` ends with the class column.
    """
    label_position = columns[-1][2]
    filled: List[Optional[RawValue]] = list(record)
    for name, attribute, position in columns:
        if record[position] is not None:
            continue
        where = f"line {line} of {source}, column {name!r}"
        if isinstance(attribute, ContinuousAttribute):
            if policy.continuous == "drop":
                return None
            if policy.continuous == "error":
                raise DataError(
                    f"{where}: missing continuous value; fix the data, or pass continuous_missing='midpoint' "
                    "(the midpoint of the public bounds) or 'drop'"
                )
            filled[position] = fill_value(attribute)
            continue
        if policy.categorical == "drop":
            return None
        if position == label_position and not (policy.categorical == "category" and MARKER in attribute.codes):
            raise DataError(
                f"{where}: the class is missing; a row without a class cannot be used for "
                "training: fix the data or pass categorical_missing='drop'"
            )
        if policy.categorical == "error":
            raise DataError(
                f"{where}: missing value; fix the data, or pass categorical_missing='category' "
                f"(the category {MARKER!r}) or 'drop'"
            )
        filled[position] = MARKER
    return filled


def _picker(positions: Sequence[int]) -> Callable[[Sequence[RawValue]], Tuple[RawValue, ...]]:
    if len(positions) >= 2:
        # itemgetter returns a tuple only for two or more items.
        return itemgetter(*positions)
    return lambda record: tuple(record[p] for p in positions)


# --- CSV ------------------------------------------------------------------


def read_csv_records(
    source: Source, *, header: bool = True, missing: str = "?", comment: Optional[str] = None
) -> RawTable:
    """The header and records of a comma-separated file, read as :func:`read_csv` reads them.

    A field equal to ``missing`` becomes None.  DataError for an empty file
    (with ``header``: one without a header line) or a line the :mod:`csv`
    module cannot read.

    >>> import io
    >>> read_csv_records(io.StringIO("# made by hand\\nx,class\\n3, yes\\n"), comment="#").records
    (('3', 'yes'),)
    """
    lines, name, close = _lines(source)
    try:
        reader = csv.reader(lines, skipinitialspace=True)
        records: List[Tuple[Optional[str], ...]] = []
        numbers: List[int] = []
        names: Optional[Tuple[str, ...]] = None
        try:
            for fields in reader:
                cells = tuple(map(str.strip, fields))
                if not any(cells) or (comment and cells[0].startswith(comment)):
                    continue
                if header and names is None:
                    names = cells
                    continue
                records.append(tuple(None if c == missing else c for c in cells) if missing in cells else cells)
                numbers.append(reader.line_num)
        except csv.Error as exc:
            raise DataError(f"line {reader.line_num} of {name}: {exc}") from None
    finally:
        close()
    if header and names is None:
        raise DataError(f"{name} is empty: expected a header line and at least one row")
    return RawTable(name, names or (), tuple(records), tuple(numbers))


def read_csv(
    source: Source,
    *,
    schema: Schema,
    label: Optional[str] = None,
    header: bool = True,
    missing: str = "?",
    categorical_missing: str = "category",
    continuous_missing: str = "midpoint",
    comment: Optional[str] = None,
) -> Dataset:
    """Read a comma-separated file whose columns fit the public ``schema``.

    With ``header=True`` the first non-blank line names the columns: each
    schema attribute and the class column (named ``label``, by default
    ``schema.label``) must appear once; other columns are ignored.  With
    ``header=False`` the columns are the attributes in schema order followed
    by the class (``label`` must then be None).

    Fields are read with :mod:`csv` (double quotes), and surrounding
    whitespace is stripped.  Blank lines are skipped, and so are lines whose
    first field starts with ``comment`` (if given).  A field equal to
    ``missing`` is missing and follows the policies in the module
    docstring: under the default ``category`` policy the data set's schema
    is ``schema`` with the category ``?`` added to every categorical domain
    that lacks it.  Every other error names the file and line.

    >>> from refdp.data import ContinuousAttribute
    >>> schema = Schema((ContinuousAttribute("x", 0, 10),), "class", ("no", "yes"))
    >>> import io
    >>> data = read_csv(io.StringIO("x,class\\n3,yes\\n?,no\\n"), schema=schema)
    >>> data.row(1), data.missing.continuous   # a missing value is the midpoint of the bounds
    ((5.0,), 'midpoint')
    """
    if not isinstance(schema, Schema):
        raise InvalidParameterError(
            f"read_csv needs a public schema (a Schema), got {type(schema).__name__}; build one, "
            "load one with read_schema(), or (leaking) use leaky_infer_schema()"
        )
    policy = _check_policies(categorical_missing, continuous_missing)
    _check_arguments(label)
    if label is not None and not header:
        raise InvalidParameterError(
            "label names a header column; without a header the class must be the last column"
        )
    if label in schema.names:
        raise InvalidParameterError(
            f"label {label!r} is an attribute of the schema; name the class column instead"
        )
    if policy.categorical == "category":
        schema = with_missing_category(schema)
    table = read_csv_records(source, header=header, missing=missing, comment=comment)
    name = table.source
    if header:
        positions, label_position = _header_positions(list(table.names), schema, label or schema.label, name)
        width = len(table.names)
    else:
        width = schema.n_attributes + 1
        positions, label_position = list(range(schema.n_attributes)), schema.n_attributes
    for record, line in zip(table.records, table.lines):
        if len(record) != width:
            raise DataError(
                f"line {line} of {name} has {len(record)} fields but "
                + ("the header has" if header else "the schema needs (attributes + class)")
                + f" {width}; fix the row (quote fields that contain commas)"
                + (header_advice(table.names) if header else "")
            )
    return _assemble(schema, table.records, table.lines, positions, label_position, policy, name)


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a finite number in ASCII digits (as a continuous value or, by mistake, a column name).

    >>> is_number("1e3"), is_number("nan"), is_number("age")
    (True, False, False)
    """
    return is_plain_decimal(text) and math.isfinite(float(text))


def header_advice(names: Sequence[str], needed: Sequence[str] = ()) -> str:
    """What to say about a CSV header line ``names`` that looks like a record ('' when it does not).

    ``needed`` are the columns the header must name, the class last, when a
    schema says so.

    >>> header_advice(["age", "class"])
    ''
    >>> print(header_advice(["569", "30", "malignant", "benign"]))
    ; its first line looks like a record: add a header line naming every column (every attribute and the class), comma-separated, in any order; '569,30,malignant,benign' is the first line of scikit-learn's bundled CSV files (the numbers of rows and columns, then the class names), not a header: replace it
    """
    if not any(is_number(n) for n in names):
        return ""
    must = (
        f"the attributes {list(needed[:-1])} and the class column {needed[-1]!r}" if needed
        else "every attribute and the class"
    )
    advice = f"; its first line looks like a record: add a header line naming every column ({must}), comma-separated, in any order"
    if len(names) >= 3 and names[0].isdigit() and names[1].isdigit() and not any(is_number(n) for n in names[2:]):
        advice += (
            f"; {','.join(names)[:80]!r} is the first line of scikit-learn's bundled CSV files (the numbers of rows "
            "and columns, then the class names), not a header: replace it"
        )
    return advice


def _header_positions(
    names: List[str], schema: Schema, label: str, source: str
) -> Tuple[List[int], int]:
    where: Dict[str, int] = {}
    for position, column in enumerate(names):
        if column in where:
            raise DataError(f"{source}: the header names column {column!r} twice; rename one")
        where[column] = position
    absent = [n for n in schema.names + (label,) if n not in where]
    if absent:
        raise SchemaError(
            f"{source}: the header lacks the column(s) {absent} that the schema needs; the header "
            f"is {names}" + ("" if label in where else "; pass label= to name the class column")
            + header_advice(names, schema.names + (label,))
        )
    return [where[n] for n in schema.names], where[label]


# --- ARFF -----------------------------------------------------------------

_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}


def _split_fields(text: str, where: str) -> List[Tuple[str, bool]]:
    """Split ARFF comma-separated fields into (value, was_quoted) pairs.

    Quotes are ' or " with backslash escapes; an unquoted % starts a
    comment; unquoted fields are stripped.  A blank line gives no fields.
    """
    if "'" not in text and '"' not in text:
        body = text.split("%", 1)[0]
        return [(f.strip(), False) for f in body.split(",")] if body.strip() else []
    fields: List[Tuple[str, bool]] = []
    i, n = 0, len(text)
    while True:
        while i < n and text[i] in " \t":
            i += 1
        if i < n and text[i] in "'\"":
            quote, i, chars = text[i], i + 1, []
            while True:
                if i >= n:
                    raise DataError(f"{where}: a value opened with {quote} is never closed")
                char = text[i]
                if char == "\\" and i + 1 < n:
                    chars.append(_ESCAPES.get(text[i + 1], text[i + 1]))
                    i += 2
                elif char == quote:
                    i += 1
                    break
                else:
                    chars.append(char)
                    i += 1
            fields.append(("".join(chars), True))
            while i < n and text[i] in " \t\r\n":
                i += 1
            if i < n and text[i] not in ",%":
                raise DataError(f"{where}: unexpected {text[i]!r} after a quoted value; add a comma")
        else:
            start = i
            while i < n and text[i] not in ",%":
                i += 1
            fields.append((text[start:i].strip(), False))
        if i >= n or text[i] == "%":
            return fields
        i += 1  # the comma


def _header_word(text: str, where: str) -> Tuple[str, str]:
    """The first (possibly quoted) word of ``text`` and the rest of it."""
    text = text.strip()
    if text[:1] in ("'", '"'):
        quote = text[0]
        end = text.find(quote, 1)
        if end < 0:
            raise SchemaError(f"{where}: unterminated quoted name")
        return text[1:end], text[end + 1 :].strip()
    parts = text.split(None, 1)
    if not parts:
        raise SchemaError(f"{where}: expected a name")
    return parts[0], parts[1].strip() if len(parts) > 1 else ""


ArffAttribute = Tuple[str, Optional[Tuple[str, ...]]]
"""One ARFF attribute: its name and its nominal values (None for numeric)."""


def parse_arff_attribute(rest: str, where: str) -> ArffAttribute:
    """The attribute an ARFF ``@attribute`` line declares (``rest``: the line after the keyword).

    ``where`` names the line in error messages.
    """
    name, kind = _header_word(rest, where)
    if kind.startswith("{"):
        end = kind.rfind("}")
        if end < 0:
            raise SchemaError(f"{where}: nominal domain of {name!r} lacks its closing '}}'")
        trailing = kind[end + 1 :].strip()
        if trailing and not trailing.startswith("%"):
            raise SchemaError(f"{where}: unexpected {trailing!r} after the domain of {name!r}")
        values = tuple(v for v, _ in _split_fields(kind[1:end], where))
        if not values:
            raise SchemaError(f"{where}: nominal attribute {name!r} has an empty domain")
        return name, values
    word = kind.split(None, 1)[0].lower() if kind else ""
    if word in ("numeric", "real", "integer"):
        return name, None
    raise SchemaError(
        f"{where}: attribute {name!r} has type {kind or '(none)'!r}; refdp reads nominal "
        "{...} and numeric/real/integer attributes only"
    )


def read_arff_records(source: Source) -> Tuple[List[ArffAttribute], RawTable]:
    """The header (each attribute's name and nominal values, None for numeric) and records of an ARFF file.

    An unquoted ``?`` becomes None; a quoted ``'?'`` stays a value.  The
    syntax understood is :func:`read_arff`'s; SchemaError for a header it
    cannot read or an empty one.

    >>> import io
    >>> header, table = read_arff_records(io.StringIO("@relation r\\n@attribute x real\\n@attribute c {p, q}\\n@data\\n?,p\\n"))
    >>> header, table.records
    ([('x', None), ('c', ('p', 'q'))], ((None, 'p'),))
    """
    lines, name, close = _lines(source)
    header: List[ArffAttribute] = []
    records: List[Tuple[Optional[str], ...]] = []
    numbers: List[int] = []
    try:
        in_data = False
        for number, line in enumerate(lines, start=1):
            text = line.strip()
            if not text or text.startswith("%"):
                continue
            where = f"line {number} of {name}"
            if in_data:
                if text.startswith("{"):
                    raise SchemaError(f"{where}: sparse ARFF rows are not supported; use dense rows")
                fields = _split_fields(text, where)
                if not fields:
                    continue
                records.append(tuple(None if (v == MARKER and not q) else v for v, q in fields))
                numbers.append(number)
                continue
            keyword = text.split(None, 1)[0].lower()
            if keyword == "@relation":
                continue
            if keyword == "@attribute":
                header.append(parse_arff_attribute(text[len("@attribute") :], where))
            elif keyword == "@data":
                in_data = True
            else:
                raise SchemaError(f"{where}: expected @relation, @attribute or @data, got {text[:40]!r}")
    finally:
        close()
    if not header:
        raise SchemaError(f"{name} declares no @attribute; is it an ARFF file?")
    if len({n for n, _ in header}) != len(header):
        raise SchemaError(f"{name} declares an attribute name twice; rename one")
    return header, RawTable(name, tuple(n for n, _ in header), tuple(records), tuple(numbers))


def read_arff(
    source: Source,
    *,
    label: Optional[str] = None,
    bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
    schema: Optional[Schema] = None,
    categorical_missing: str = "category",
    continuous_missing: str = "midpoint",
) -> Dataset:
    """Read a Weka ARFF file (dense format).

    Understood: ``@relation``, ``@attribute`` with a nominal domain
    ``{a, 'b c', "d"}`` or ``numeric``/``real``/``integer``, ``@data``; ``%``
    comments; ' and " quotes with backslash escapes; unquoted ``?`` as a
    missing value.  Keywords are case-insensitive.  Sparse rows and
    string/date attributes raise SchemaError.

    The class is the attribute named ``label``, by default the last one; it
    must be nominal, and its domain gives the classes.

    Without ``schema``, the schema is built from the header: nominal domains
    as declared (with ``"?"`` appended where it is not listed when
    ``categorical_missing`` is ``"category"``, as for a given schema: the
    public category of a missing value; see the module docstring); a numeric
    attribute needs public ``bounds[name] = (lower, upper)``, chosen without
    looking at the data.

    With ``schema`` (for example a trained model's), the rows are encoded
    against it: each of its attributes must be in the header with the same
    kind, other header attributes are ignored, the class defaults to
    ``schema.label``, and ``bounds`` must be None.

    >>> text = "@relation r\\n@attribute a {x, y}\\n@attribute n real\\n@attribute c {p, q}\\n@data\\n?,?,p\\ny,3,q\\n"
    >>> import io
    >>> data = read_arff(io.StringIO(text), bounds={"n": (0, 10)})
    >>> data.schema.attributes[0].values, data.row(0)
    (('x', 'y', '?'), ('?', 5.0))
    """
    policy = _check_policies(categorical_missing, continuous_missing)
    _check_arguments(label, schema, bounds)
    if schema is not None and bounds is not None:
        raise InvalidParameterError(
            "pass either schema or bounds: with a schema, the bounds are the schema's"
        )
    header, table = read_arff_records(source)
    name = table.source
    width = len(header)
    for record, line_no in zip(table.records, table.lines):
        if len(record) != width:
            raise DataError(
                f"line {line_no} of {name} has {len(record)} fields but the header declares "
                f"{width} attributes; fix the row"
            )
    positions_of = {attr_name: position for position, attr_name in enumerate(table.names)}
    if schema is None:
        schema = _schema_from_header(header, label, bounds, name)
    else:
        _check_header_against(header, schema, label or schema.label, name)
    if policy.categorical == "category":
        schema = with_missing_category(schema)
    positions = [positions_of[n] for n in schema.names]
    return _assemble(schema, table.records, table.lines, positions, positions_of[label or schema.label], policy, name)


def _schema_from_header(
    header: List[ArffAttribute],
    label: Optional[str],
    bounds: Optional[Mapping[str, Tuple[float, float]]],
    source: str,
) -> Schema:
    names = [n for n, _ in header]
    label = names[-1] if label is None else label
    if label not in names:
        raise SchemaError(f"{source}: no attribute {label!r} to use as the class; it has {names}")
    if dict(header)[label] is None:
        raise SchemaError(
            f"{source}: the class {label!r} is numeric; refdp learns classifiers, so the "
            "class must be nominal (pass label= to pick another attribute)"
        )
    given = dict(bounds or {})
    numeric = [n for n, values in header if values is None and n != label]
    unknown = sorted(set(given) - set(numeric))
    if unknown:
        raise SchemaError(f"{source}: bounds given for {unknown}, which are not numeric attributes")
    unbounded = [n for n in numeric if n not in given]
    if unbounded:
        wanted = ", ".join(f"{n!r}: (lower, upper)" for n in unbounded)
        raise SchemaError(
            f"{source}: {len(unbounded)} numeric attribute(s) have no public bounds: "
            f"{', '.join(map(repr, unbounded))}; pass bounds={{{wanted}}} with values chosen without looking at "
            "the data, or (leaking privacy, and marking the receipt unsound) use leaky_infer_schema()"
        )
    attributes: List[Attribute] = []
    classes: Tuple[str, ...] = ()
    for attr_name, values in header:
        if attr_name == label:
            classes = cast(Tuple[str, ...], values)
        elif values is not None:
            attributes.append(CategoricalAttribute(attr_name, values))
        else:
            pair = given[attr_name]
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise InvalidParameterError(
                    f"bounds[{attr_name!r}] must be a pair (lower, upper), got {pair!r}"
                )
            attributes.append(ContinuousAttribute(attr_name, pair[0], pair[1]))
    return Schema(tuple(attributes), label, classes)


def _check_header_against(
    header: List[ArffAttribute], schema: Schema, label: str, source: str
) -> None:
    if label in schema.names:
        raise InvalidParameterError(
            f"label {label!r} is an attribute of the schema; name the class attribute instead"
        )
    kinds = {n: values is None for n, values in header}
    absent = [a.name for a in schema.attributes if a.name not in kinds]
    if absent:
        raise SchemaError(
            f"{source}: the schema's attribute(s) {absent} are not in the ARFF header"
        )
    differing = [
        f"{a.name!r} is {'numeric' if kinds[a.name] else 'nominal'} in the header but {a.kind} in the schema"
        for a in schema.attributes if kinds[a.name] != isinstance(a, ContinuousAttribute)
    ]
    if differing:
        raise SchemaError(f"{source}: attribute " + "; attribute ".join(differing))
    if label not in kinds:
        raise SchemaError(f"{source}: no attribute {label!r} to use as the class; pass label=")
    if kinds[label]:
        raise SchemaError(f"{source}: the class {label!r} is numeric; it must be nominal")


# --- schema files -----------------------------------------------------------


def read_schema(path: Union[str, "os.PathLike[str]"]) -> Schema:
    """Read a schema from a JSON file written from :meth:`Schema.to_json`.

    Whatever the file holds (deep nesting, huge numbers, bytes that are not
    UTF-8) is one :class:`SchemaError` (:func:`refdp.files.read_json`).
    """
    try:
        return Schema.from_json(read_json(path, "schema file", SchemaError))
    except OSError as exc:
        raise SchemaError(f"cannot read schema file {str(path)!r}: {exc.strerror or exc}") from None


# --- leaky inference --------------------------------------------------------


def leaky_infer_schema(
    rows: Iterable[Sequence[RawValue]],
    labels: Iterable[str],
    *,
    attribute_names: Sequence[str],
    continuous: Collection[str] = (),
    label: str = "class",
) -> Schema:
    """Read a schema off the data.  NOT differentially private.

    Categorical domains are the sorted distinct values, continuous bounds
    the minimum and maximum (widened by 0.5 on each side when they are
    equal), and the classes the sorted distinct labels.  One record can add
    a category or a class, or move a bound, so the schema itself reveals
    records (claim ``schema-inference-leaks``).  The returned schema lists
    each inferred part in ``leaks``; a model trained on it gets a receipt
    marked unsound.  Prefer declaring the schema from public knowledge.
    """
    if isinstance(attribute_names, str):
        raise InvalidParameterError("attribute_names must be a sequence of names, not one string")
    names = list(attribute_names)
    wanted = set(continuous)
    if isinstance(continuous, str) or not wanted <= set(names):
        raise InvalidParameterError(
            f"continuous must name attributes among {names}, got {sorted(map(str, wanted))}"
        )
    table = [tuple(row) for row in rows]
    label_list = list(labels)
    if not table:
        raise DataError("no rows to infer a schema from")
    if len(label_list) != len(table):
        raise DataError(f"{len(table)} rows but {len(label_list)} labels; give one label per row")
    for i, row in enumerate(table):
        if len(row) != len(names):
            raise DataError(
                f"row {i} has {len(row)} values but {len(names)} attribute names were given"
            )
    attributes: List[Attribute] = []
    leaks: List[str] = []
    for j, attr_name in enumerate(names):
        column = [row[j] for row in table]
        if attr_name in wanted:
            lower, upper = leaky_bounds(column, attr_name)
            attributes.append(ContinuousAttribute(attr_name, lower, upper))
            leaks.append(f"bounds of {attr_name!r} read off the data (leaky_infer_schema)")
        else:
            values = sorted({_leaky_category(v, attr_name) for v in column})
            attributes.append(CategoricalAttribute(attr_name, tuple(values)))
            leaks.append(f"domain of {attr_name!r} read off the data (leaky_infer_schema)")
    classes = sorted({_leaky_category(v, label) for v in label_list})
    leaks.append(f"classes of {label!r} read off the data (leaky_infer_schema)")
    return Schema(tuple(attributes), label, tuple(classes), tuple(leaks))


def _leaky_category(value: object, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise DataError(f"column {name!r}: categorical values must be non-empty strings, got {value!r}")
    return value


def leaky_bounds(column: Sequence[RawValue], name: str) -> Tuple[float, float]:
    """The bounds :func:`leaky_infer_schema` reads off a column: its minimum and maximum (NOT private).

    Equal ends are widened by 0.5 each (or by one unit in the last place
    where 0.5 is too small to move them).

    >>> leaky_bounds([3, 1.5, "2"], "size"), leaky_bounds([4], "size")
    ((1.5, 3.0), (3.5, 4.5))
    """
    numbers: List[float] = []
    for v in column:
        try:
            plain = not isinstance(v, bool) and (not isinstance(v, str) or is_plain_decimal(v))
            number = float(v) if plain else math.nan
        except (TypeError, ValueError):
            number = math.nan
        if not math.isfinite(number):
            raise DataError(f"column {name!r}: {v!r} is not a finite number")
        numbers.append(number)
    lower, upper = min(numbers), max(numbers)
    if lower == upper:
        lower, upper = lower - 0.5, upper + 0.5
        if lower == upper:  # |value| >= 2**53: 0.5 is below one unit in the last place
            lower, upper = math.nextafter(lower, -math.inf), math.nextafter(upper, math.inf)
    return lower, upper
