"""Rows to predict with values beyond a schema's public bounds: read them wide, then clip.

A training row must lie within the public bounds (they enter the privacy
argument).  A row to predict need not.  A threshold t with
lower < t <= upper sends a value beyond a bound where it sends the bound, so
clipping changes no prediction of a tree whose thresholds and bin edges are
all such: every sound variant's (public grid points, equal-width bin edges,
draws from (start, end]) and the non-private baseline's.  The published
thesis-tree splits on data values, which may equal a bound; there a
clipped value can take the other branch.  Prediction is post-processing;
nothing here touches a model's privacy.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import Tuple

from refdp.data.dataset import Dataset
from refdp.data.schema import ContinuousAttribute, Schema

__all__ = ["widened", "clipped"]


def widened(schema: Schema) -> Schema:
    """``schema`` with every continuous attribute's bounds at the largest finite floats, to read rows to predict."""
    widest = sys.float_info.max
    return replace(schema, attributes=tuple(
        replace(a, lower=-widest, upper=widest) if isinstance(a, ContinuousAttribute) else a
        for a in schema.attributes
    ))


def clipped(data: Dataset, schema: Schema) -> Tuple[Dataset, int]:
    """``data`` (read with :func:`widened` ``schema``) in ``schema``, its continuous values clipped to the bounds,
    and how many values were clipped."""
    columns = []
    count = 0
    for a, attribute in enumerate(schema.attributes):
        column = data.column(a)
        if isinstance(attribute, ContinuousAttribute):
            low, high = attribute.lower, attribute.upper
            count += sum(1 for v in column if not low <= v <= high)
            column = [min(max(v, low), high) for v in column]
        columns.append(column)
    return Dataset.from_codes(schema, columns, data.labels), count
