"""The optional fast path: an array-backed column store and counting kernels (standard library only).

``engine="array"`` (:func:`refdp.algorithms.train`, the estimators, the CLI's
``--engine``) runs the learners' own code with the counting and
partitioning of :class:`ArrayCounts` and the arithmetic of
:mod:`refdp.fast.exponential` plugged into the
mechanisms of :mod:`refdp.mechanisms`, which still validate and charge.
Both engines draw the same random numbers in the same order and compute
every float the same way, so a seed gives the same model JSON, byte for
byte; the tests check it on random data sets, schemas, parameters and
seeds.  This package builds on :mod:`refdp.engine` only, never on
:mod:`refdp.algorithms`.
"""

from __future__ import annotations

from refdp.fast.columns import ColumnStore
from refdp.fast.counts import ArrayCounts, ArrayThresholds, tally
from refdp.fast.engine import ARRAY

__all__ = ["ARRAY", "ArrayCounts", "ArrayThresholds", "ColumnStore", "tally"]
