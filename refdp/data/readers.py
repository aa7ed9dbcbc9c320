"""Reading data sets from CSV and Weka ARFF files, and (leakily) inferring schemas.

Missing values
--------------
A missing value is a cell equal to the CSV ``missing`` marker, or an
unquoted ``?`` in ARFF.  What happens to it is a *public* policy chosen per
kind of attribute:

* categorical (``categorical_missing``):

  - ``"category"`` (default): the marker is an ordinary value where the
    schema declares it in the attribute's domain; a missing value of an
    attribute whose domain lacks it is a SchemaError saying so.  Whether the
    marker is a value is the schema's public decision, never the reader's:
    the schema built from an ARFF header has the header's domains as they
    are, so an ARFF file with missing values needs a header that declares
    ``?`` where it may occur, a given ``schema`` that does, or another
    policy.  (Adding the marker to every domain would keep the domains
    public, but a value that never occurs still costs: a multiway split
    grows an empty child for it, and the noise of its leaves.)
  - ``"error"``: a missing value raises DataError.
  - ``"drop"``: the row is dropped (see below).

* continuous (``continuous_missing``): ``"error"`` (default) raises
  DataError; ``"drop"`` drops the row.

A missing class follows ``categorical_missing`` with the classes as domain.

Dropping is row-local: whether a row is kept depends on that row alone.  So
adding or removing one record adds or removes at most one record of the
filtered data, and an epsilon-DP mechanism under the add-remove relation
stays epsilon-DP when run on the filtered data.  Under the substitute
relation it does not carry over as is: a substitution can turn a kept row
into a dropped one, so the filtered data sets differ by a removal, not a
substitution, and their sizes differ.  Use ``"drop"`` with add-remove
accounting (the ledger's default).

Schemas
-------
:func:`read_csv` needs a public :class:`Schema`.  :func:`read_arff` builds one
from the ARFF header (nominal domains are public there) plus public
``bounds`` for the numeric attributes, or uses a given schema.
:func:`leaky_infer_schema` reads domains, bounds and classes off the rows;
it is not DP (claim ``schema-inference-leaks``) and says so in the schema's
``leaks``.
"""

from __future__ import annotations

import csv
import gzip
import math
import os
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
    "MAX_LINE", "ArffAttribute", "Source", "bounded_lines", "is_number", "leaky_infer_schema", "parse_arff_attribute", "read_arff", "read_csv",
    "read_schema",
]

Source = Union[str, "os.PathLike[str]", TextIO]
"""A path (a name ending in ``.gz`` is read through gzip) or an open text file."""

MAX_LINE = 8 * 2**20
"""The longest line read from a data file, in characters: a longer one (a gzip file that expands to one
line of gigabytes) is refused before it fills the memory."""

_CATEGORICAL_POLICIES = ("category", "error", "drop")
_CONTINUOUS_POLICIES = ("error", "drop")


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


def _check_policies(categorical_missing: str, continuous_missing: str) -> None:
    if categorical_missing not in _CATEGORICAL_POLICIES:
        raise InvalidParameterError(
            f"categorical_missing must be one of {_CATEGORICAL_POLICIES}, got {categorical_missing!r}"
        )
    if continuous_missing not in _CONTINUOUS_POLICIES:
        raise InvalidParameterError(
            f"continuous_missing must be one of {_CONTINUOUS_POLICIES}, got {continuous_missing!r}"
        )


# --- the shared back end ----------------------------------------------------

# A record is one line's fields; None marks a missing value.
_Record = Sequence[Optional[str]]


def _assemble(
    schema: Schema,
    records: List[_Record],
    lines: List[int],
    positions: Sequence[int],
    label_position: int,
    marker: str,
    categorical_missing: str,
    continuous_missing: str,
    source: str,
    declared_in: str = "the schema",
) -> Dataset:
    """Apply the missing-value policies, pick the schema's columns and validate.

    ``declared_in`` says where the domains come from, for the message that
    asks to declare the marker.
    """
    columns: List[Tuple[str, Attribute, int]] = [
        (a.name, a, p) for a, p in zip(schema.attributes, positions)
    ]
    # The class is checked like a categorical attribute whose domain is the classes.
    columns.append((schema.label, CategoricalAttribute(schema.label, schema.classes), label_position))
    kept_records: List[Sequence[Optional[str]]] = []
    kept_lines: List[int] = []
    for record, line in zip(records, lines):
        if None in record:
            filled = _fill_missing(
                record, columns, marker, categorical_missing, continuous_missing, line, source,
                declared_in,
            )
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
    complete = cast(List[Sequence[str]], kept_records)  # _fill_missing left no None
    pick = _picker(positions)
    rows = [pick(r) for r in complete]
    labels = [r[label_position] for r in complete]
    return Dataset.from_rows(
        schema, rows, labels, row_name=lambda i: f"line {kept_lines[i]} of {source}"
    )


def _fill_missing(
    record: _Record,
    columns: Sequence[Tuple[str, Attribute, int]],
    marker: str,
    categorical_missing: str,
    continuous_missing: str,
    line: int,
    source: str,
    declared_in: str,
) -> Optional[List[str]]:
    """``record`` with missing values replaced by ``marker``, or None to drop the row.

    ``columns`` ends with the class column.
    """
    label_position = columns[-1][2]
    for name, attribute, position in columns:
        if record[position] is not None:
            continue
        where = f"line {line} of {source}, column {name!r}"
        if isinstance(attribute, ContinuousAttribute):
            if continuous_missing == "drop":
                return None
            raise DataError(
                f"{where}: missing continuous value; fix the data or pass "
                "continuous_missing='drop' (row-local, so compatible with add-remove DP)"
            )
        if categorical_missing == "drop":
            return None
        declared = categorical_missing == "category" and marker in attribute.codes
        if position == label_position and not declared:
            raise DataError(
                f"{where}: the class is missing; a row without a class cannot be used for "
                "training: fix the data or pass categorical_missing='drop'"
            )
        if categorical_missing == "error":
            raise DataError(
                f"{where}: missing value; fix the data, or pass categorical_missing='category' "
                "(and declare the marker in the schema) or 'drop'"
            )
        if not declared:
            raise SchemaError(
                f"{where}: missing value, but the marker {marker!r} is not in the public "
                f"domain {attribute.values}; declare {marker!r} as a value of {name!r} in "
                f"{declared_in}, or pass categorical_missing='drop'"
            )
    return [marker if v is None else v for v in record]


def _picker(positions: Sequence[int]) -> Callable[[Sequence[str]], Tuple[str, ...]]:
    if len(positions) >= 2:
        # itemgetter returns a tuple only for two or more items.
        return itemgetter(*positions)
    return lambda record: tuple(record[p] for p in positions)


# --- CSV ------------------------------------------------------------------


def read_csv(
    source: Source,
    *,
    schema: Schema,
    label: Optional[str] = None,
    header: bool = True,
    missing: str = "?",
    categorical_missing: str = "category",
    continuous_missing: str = "error",
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
    docstring.  Every other error names the file and line.
    """
    if not isinstance(schema, Schema):
        raise InvalidParameterError(
            f"read_csv needs a public schema (a Schema), got {type(schema).__name__}; build one, "
            "load one with read_schema(), or (leaking) use leaky_infer_schema()"
        )
    _check_policies(categorical_missing, continuous_missing)
    _check_arguments(label)
    if label is not None and not header:
        raise InvalidParameterError(
            "label names a header column; without a header the class must be the last column"
        )
    if label in schema.names:
        raise InvalidParameterError(
            f"label {label!r} is an attribute of the schema; name the class column instead"
        )
    lines, name, close = _lines(source)
    try:
        reader = csv.reader(lines, skipinitialspace=True)
        records: List[_Record] = []
        numbers: List[int] = []
        names: Optional[List[str]] = None
        try:
            for fields in reader:
                cells = list(map(str.strip, fields))
                if not any(cells) or (comment and cells[0].startswith(comment)):
                    continue
                if header and names is None:
                    names = cells
                    continue
                if missing in cells:
                    records.append([None if c == missing else c for c in cells])
                else:
                    records.append(cells)
                numbers.append(reader.line_num)
        except csv.Error as exc:
            raise DataError(f"line {reader.line_num} of {name}: {exc}") from None
    finally:
        close()
    if header:
        if names is None:
            raise DataError(f"{name} is empty: expected a header line and at least one row")
        positions, label_position = _header_positions(names, schema, label or schema.label, name)
        width = len(names)
    else:
        width = schema.n_attributes + 1
        positions, label_position = list(range(schema.n_attributes)), schema.n_attributes
    for record, line in zip(records, numbers):
        if len(record) != width:
            raise DataError(
                f"line {line} of {name} has {len(record)} fields but "
                + ("the header has" if header else "the schema needs (attributes + class)")
                + f" {width}; fix the row (quote fields that contain commas)"
            )
    return _assemble(
        schema, records, numbers, positions, label_position, missing,
        categorical_missing, continuous_missing, name,
    )


def is_number(text: str) -> bool:
    """Whether ``text`` reads as a finite number in ASCII digits (as a continuous value or, by mistake, a column name)."""
    return is_plain_decimal(text) and math.isfinite(float(text))


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
        numeric = any(is_number(n) for n in names)
        raise SchemaError(
            f"{source}: the header lacks the column(s) {absent} that the schema needs; the header "
            f"is {names}" + ("" if label in where else "; pass label= to name the class column")
            + ("; its first line looks like a record: add a header line naming the columns" if numeric else "")
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


def read_arff(
    source: Source,
    *,
    label: Optional[str] = None,
    bounds: Optional[Mapping[str, Tuple[float, float]]] = None,
    schema: Optional[Schema] = None,
    categorical_missing: str = "category",
    continuous_missing: str = "error",
) -> Dataset:
    """Read a Weka ARFF file (dense format).

    Understood: ``@relation``, ``@attribute`` with a nominal domain
    ``{a, 'b c', "d"}`` or ``numeric``/``real``/``integer``, ``@data``; ``%``
    comments; ' and " quotes with backslash escapes; unquoted ``?`` as a
    missing value.  Keywords are case-insensitive.  Sparse rows and
    string/date attributes raise SchemaError.

    The class is the attribute named ``label``, by default the last one; it
    must be nominal, and its domain (without ``"?"``) gives the classes.

    Without ``schema``, the schema is built from the header: nominal domains
    exactly as declared (``"?"`` is a value only where the header lists it;
    see the module docstring); a numeric attribute needs public
    ``bounds[name] = (lower, upper)``, chosen without looking at the data.

    With ``schema`` (for example a trained model's), the rows are encoded
    against it: each of its attributes must be in the header with the same
    kind, other header attributes are ignored, the class defaults to
    ``schema.label``, and ``bounds`` must be None.
    """
    _check_policies(categorical_missing, continuous_missing)
    _check_arguments(label, schema, bounds)
    if schema is not None and bounds is not None:
        raise InvalidParameterError(
            "pass either schema or bounds: with a schema, the bounds are the schema's"
        )
    lines, name, close = _lines(source)
    header: List[ArffAttribute] = []
    records: List[_Record] = []
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
                records.append([None if (v == "?" and not q) else v for v, q in fields])
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
    width = len(header)
    for record, line_no in zip(records, numbers):
        if len(record) != width:
            raise DataError(
                f"line {line_no} of {name} has {len(record)} fields but the header declares "
                f"{width} attributes; fix the row"
            )
    positions_of = {attr_name: position for position, (attr_name, _) in enumerate(header)}
    if len(positions_of) != width:
        raise SchemaError(f"{name} declares an attribute name twice; rename one")
    if schema is None:
        schema = _schema_from_header(header, label, bounds, name)
        declared_in = "the ARFF header (or in a schema passed as schema=)"
    else:
        _check_header_against(header, schema, label or schema.label, name)
        declared_in = "the schema"
    positions = [positions_of[n] for n in schema.names]
    return _assemble(
        schema, records, numbers, positions, positions_of[label or schema.label], "?",
        categorical_missing, continuous_missing, name, declared_in,
    )


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
    given = dict(bounds or {})
    unknown = sorted(set(given) - {n for n, values in header if values is None})
    if unknown:
        raise SchemaError(f"{source}: bounds given for {unknown}, which are not numeric attributes")
    attributes: List[Attribute] = []
    classes: Tuple[str, ...] = ()
    for attr_name, values in header:
        if attr_name == label:
            if values is None:
                raise SchemaError(
                    f"{source}: the class {label!r} is numeric; refdp learns classifiers, so the "
                    "class must be nominal (pass label= to pick another attribute)"
                )
            classes = values
        elif values is not None:
            attributes.append(CategoricalAttribute(attr_name, values))
        elif attr_name in given:
            pair = given[attr_name]
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise InvalidParameterError(
                    f"bounds[{attr_name!r}] must be a pair (lower, upper), got {pair!r}"
                )
            attributes.append(ContinuousAttribute(attr_name, pair[0], pair[1]))
        else:
            raise SchemaError(
                f"{source}: attribute {attr_name!r} is numeric and has no public bounds; pass "
                f"bounds={{{attr_name!r}: (lower, upper)}} chosen without looking at the data, "
                "or (leaking privacy, and marking the receipt unsound) use leaky_infer_schema()"
            )
    return Schema(tuple(attributes), label, classes)


def _check_header_against(
    header: List[ArffAttribute], schema: Schema, label: str, source: str
) -> None:
    if label in schema.names:
        raise InvalidParameterError(
            f"label {label!r} is an attribute of the schema; name the class attribute instead"
        )
    kinds = {n: values is None for n, values in header}
    for attribute in schema.attributes:
        if attribute.name not in kinds:
            raise SchemaError(
                f"{source}: the schema's attribute {attribute.name!r} is not in the ARFF header"
            )
        if kinds[attribute.name] != isinstance(attribute, ContinuousAttribute):
            raise SchemaError(
                f"{source}: attribute {attribute.name!r} is "
                f"{'numeric' if kinds[attribute.name] else 'nominal'} in the header but "
                f"{attribute.kind} in the schema"
            )
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
            lower, upper = _leaky_bounds(column, attr_name)
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


def _leaky_bounds(column: List[RawValue], name: str) -> Tuple[float, float]:
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
