"""The optional fast path: an array-backed column store and counting kernels (standard library only).

``engine="array"`` (:func:`refdp.algorithms.train`, the estimators, the CLI's
``--engine``) runs the learners' own code with the counting and
partitioning of :class:`ArrayCounts` and the exponential sampler of
:func:`exponential_mechanism`.  Both draw the same random numbers in the
same order as the reference and compute every float the same way, so a
seed gives the same model JSON, byte for byte; the tests check it on
random data sets, schemas, parameters and seeds.
"""

from __future__ import annotations

from refdp.fast.columns import ColumnStore
from refdp.fast.counts import ArrayCounts, ArrayThresholds, tally
from refdp.fast.engine import ARRAY
from refdp.fast.exponential import exponential_mechanism

__all__ = ["ARRAY", "ArrayCounts", "ArrayThresholds", "ColumnStore", "exponential_mechanism", "tally"]
