"""The counting-engine layer, below the algorithms: the interface and the reference engine.

* :mod:`refdp.engine.counts`: :class:`NodeCounts` (what a learner counts and
  splits at a node), :class:`RowMasks`, the reference loops
  (:class:`ReferenceCounts`);
* :mod:`refdp.engine.engine`: :class:`Engine`, counting plus the arithmetic of
  the mechanisms' draws, and :data:`REFERENCE`.

The optional array engine (:mod:`refdp.fast`) builds on this package and on
nothing in :mod:`refdp.algorithms`; the algorithm registry resolves an
engine by its name.
"""

from refdp.engine.counts import (
    Interval,
    NodeCounts,
    ReferenceCounts,
    ReferenceThresholds,
    RowMasks,
    Rows,
    Table,
    ThresholdCandidates,
    TrainingView,
    class_counts,
    first_best,
    threshold_intervals,
    value_table,
    weighted_class_counts,
    weighted_table,
)
from refdp.engine.engine import REFERENCE, Engine

__all__ = [
    "REFERENCE",
    "Engine",
    "Interval",
    "NodeCounts",
    "ReferenceCounts",
    "ReferenceThresholds",
    "RowMasks",
    "Rows",
    "Table",
    "ThresholdCandidates",
    "TrainingView",
    "class_counts",
    "first_best",
    "threshold_intervals",
    "value_table",
    "weighted_class_counts",
    "weighted_table",
]
