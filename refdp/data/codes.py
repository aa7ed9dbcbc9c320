"""A pre-encoded form of a vendored data set, so that loading it skips parsing text.

Reading ``adult.data`` as CSV (32,561 rows) took most of a whole-process
``train`` on it. The same rows, already encoded as the schema's codes and
floats, load in a few milliseconds. The text files stay the source of truth:
``scripts/encode_builtin.py`` writes the encoded form from them, and a test
checks that both give the same data set.

The form, zlib-compressed: the magic line ``refdp-codes/1``, the sha256 of the
schema's JSON (hex, one line), the number of rows n (one line); then for each
attribute in schema order n bytes of codes (categorical, fewer than 256
values) or n little-endian IEEE doubles (continuous); then n bytes of class
codes. :func:`decode` returns None when the form was written for another
schema, so a changed schema falls back to parsing the text, never to wrong
data.
"""

from __future__ import annotations

import hashlib
import json
import sys
import zlib
from array import array
from typing import List, Optional, Sequence, Union

from refdp.data.dataset import Dataset
from refdp.data.schema import CategoricalAttribute, Schema
from refdp.errors import DataError

__all__ = ["encode", "decode"]

MAGIC = b"refdp-codes/1"


def _fingerprint(schema: Schema) -> bytes:
    text = json.dumps(schema.to_json(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest().encode("ascii")


def _doubles(values: Sequence[float]) -> bytes:
    out = array("d", values)
    if sys.byteorder != "little":
        out.byteswap()
    return out.tobytes()


def encode(data: Dataset) -> bytes:
    """The encoded form of ``data`` (a base data set, no row subset needed).

    >>> from refdp.data.builtin import load_builtin
    >>> vote = load_builtin("vote")
    >>> decode(encode(vote), vote.schema).column(0) == vote.column(0)
    True
    """
    schema = data.schema
    if max((a.n_values for a in schema.attributes if isinstance(a, CategoricalAttribute)), default=0) > 256 or (
        schema.n_classes > 256
    ):
        raise DataError("the encoded form holds at most 256 values per categorical attribute and class")
    parts = [MAGIC, b"\n", _fingerprint(schema), b"\n", str(len(data)).encode("ascii"), b"\n"]
    for j, attribute in enumerate(schema.attributes):
        column = data.column(j)
        if isinstance(attribute, CategoricalAttribute):
            parts.append(bytes(column))  # type: ignore[arg-type]
        else:
            parts.append(_doubles(column))
    parts.append(bytes(data.labels))
    return zlib.compress(b"".join(parts), 9)


def decode(blob: bytes, schema: Schema) -> Optional[Dataset]:
    """The data set in ``blob`` for ``schema``; None when ``blob`` was encoded for another schema.

    Every code and value is validated as :meth:`Dataset.from_codes` does.

    >>> from refdp.data.builtin import load_builtin
    >>> decode(encode(load_builtin("vote")), load_builtin("credit-g").schema) is None
    True
    """
    raw = zlib.decompress(blob)
    magic, fingerprint, size, body = raw.split(b"\n", 3)
    if magic != MAGIC or fingerprint != _fingerprint(schema):
        return None
    n = int(size)
    columns: List[Union[Sequence[int], Sequence[float]]] = []
    at = 0
    for attribute in schema.attributes:
        if isinstance(attribute, CategoricalAttribute):
            columns.append(tuple(body[at : at + n]))
            at += n
        else:
            values = array("d")
            values.frombytes(body[at : at + 8 * n])
            if sys.byteorder != "little":
                values.byteswap()
            columns.append(tuple(values))
            at += 8 * n
    labels = tuple(body[at : at + n])
    if at + n != len(body):
        raise DataError(f"the encoded data set holds {len(body)} bytes after its header; {at + n} expected")
    return Dataset.from_codes(schema, columns, labels)
