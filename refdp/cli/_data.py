"""The data the command line's flags name: ``--data``, ``--label``, ``--schema``, ``--bounds``, ``--missing``.

* a built-in name: its own public schema; the other flags do not apply;
* a ``.csv`` file (optionally ``.gz``): ``--schema`` is required;
* an ``.arff`` file: the header's nominal domains and ``--bounds
  ATTR=LO:HI`` for each numeric attribute, or a ``--schema``.

``--missing`` chooses what a missing value (``?``) does: ``category``
(default: a value of a categorical attribute, which the schema must declare;
an error for a continuous one), ``drop`` (the row is dropped; row-local, so
compatible with add-remove DP) or ``error``.

:func:`read_unlabelled` reads rows to predict, with or without a class column;
rows to predict or to test a model on (:func:`read_test_data`) may
hold continuous values outside the schema's public bounds, which are clipped
to them (:mod:`refdp.data.clipping`: a clipped value takes the branch the
value itself would in every sound variant's tree).
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import os
import sys
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence, TextIO, Tuple, cast

from refdp.data import BUILTIN_NAMES, Dataset, Schema, clipped, load, read_arff, read_csv, widened
from refdp.data.readers import bounded_lines
from refdp.errors import DataError, InvalidParameterError, SchemaError
from refdp.files import check_writable
from refdp.numbers import is_plain_decimal

__all__ = [
    "MISSING",
    "check_output",
    "parse_bounds",
    "read_data",
    "read_unlabelled",
    "text_lines",
    "note_clipped",
    "read_test_data",
]

MISSING: Dict[str, Tuple[str, str]] = {
    "category": ("category", "error"),
    "drop": ("drop", "drop"),
    "error": ("error", "error"),
}
"""``--missing`` value -> the readers' (categorical, continuous) missing-value policies."""

_PLACEHOLDER_LABEL = "refdp-no-class"
_PLACEHOLDER_CLASS = "unlabelled"


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


class _Lines:
    """An iterable of text lines with a ``name``, which the readers use in their messages.

    The readers take an open text file and use only these two of its features.
    """

    def __init__(self, name: str, lines: Iterator[str]) -> None:
        self.name = name
        self._lines = lines

    def __iter__(self) -> Iterator[str]:
        return self._lines


def _csv_with_class(lines: Iterator[str]) -> Iterator[str]:
    """The CSV ``lines`` with a placeholder class column appended; blank lines stay blank (line numbers hold)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    header = True
    for fields in csv.reader(lines, skipinitialspace=True):
        if not any(f.strip() for f in fields):
            yield "\n"
            continue
        writer.writerow(fields + [_PLACEHOLDER_LABEL if header else _PLACEHOLDER_CLASS])
        header = False
        yield from buffer.getvalue().splitlines(keepends=True)
        buffer.seek(0)
        buffer.truncate()


def _arff_with_class(lines: Iterator[str]) -> Iterator[str]:
    """The ARFF ``lines`` with a placeholder class attribute declared first and a value on each row.

    The declaration takes the place of the ``@relation`` line (which the
    reader skips), so every other line keeps its number in messages.
    """
    declaration = f"@attribute {_PLACEHOLDER_LABEL} {{{_PLACEHOLDER_CLASS}}}\n"
    declared = in_data = False
    for line in lines:
        text = line.strip()
        if in_data:
            yield line if not text or text.startswith(("%", "{")) else f"{_PLACEHOLDER_CLASS},{line}"
            continue
        keyword = text.split(None, 1)[0].lower() if text else ""
        if not declared and keyword in ("@relation", "@attribute", "@data"):
            declared = True
            yield declaration
            if keyword == "@relation":
                continue
        in_data = keyword == "@data"
        yield line


def read_test_data(
    path: str, schema: Schema, *, label: Optional[str] = None, missing: Optional[str] = None, flag: str = "--test-data"
) -> Tuple[Dataset, int]:
    """The labelled file ``path`` to test a model of ``schema`` on, values beyond the bounds clipped; and how many."""
    return clipped(read_data(path, label=label, schema=widened(schema), missing=missing, flag=flag), schema)


def read_unlabelled(path: str, schema: Schema, missing: Optional[str] = None) -> Tuple[Dataset, int]:
    """The rows of ``path`` to predict with a model of ``schema``, and how many values were clipped.

    A built-in data set is loaded as it is.  A file's rows are read with the
    model's attributes and a placeholder class, so the file needs no class
    column (or may have one with any values, ``?`` included); continuous
    values outside the bounds are clipped to them.  A class column, if any,
    is ignored.
    """
    if path in BUILTIN_NAMES:
        return _builtin(path, (("--missing", missing),)), 0
    categorical, continuous = _policies(missing)
    reading = Schema(schema.attributes, _PLACEHOLDER_LABEL, (_PLACEHOLDER_CLASS,))
    wide = widened(reading)
    try:
        if _kind(path, "--data") == "csv":
            rows = _Lines(path, _csv_with_class(text_lines(path)))
            read = read_csv(
                cast(TextIO, rows), schema=wide, categorical_missing=categorical, continuous_missing=continuous
            )
        else:
            rows = _Lines(path, _arff_with_class(text_lines(path)))
            read = read_arff(
                cast(TextIO, rows), schema=wide, categorical_missing=categorical, continuous_missing=continuous
            )
    except (DataError, SchemaError) as exc:
        # the placeholder class column is ours, not the user's: keep it out of what they read
        raise type(exc)(_without_placeholder(str(exc))) from None
    return clipped(read, reading)


def _without_placeholder(message: str) -> str:
    """``message`` without the placeholder class column in the lists of columns it quotes."""
    for quoted in (f", {_PLACEHOLDER_LABEL!r}", f"{_PLACEHOLDER_LABEL!r}, ", f"{_PLACEHOLDER_LABEL!r}"):
        message = message.replace(quoted, "")
    if _PLACEHOLDER_LABEL in message:  # the file has a column of that name itself
        message += f" (refdp reads the rows to predict with a class column named {_PLACEHOLDER_LABEL!r} of its own)"
    return message

