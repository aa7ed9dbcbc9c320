"""The array engine: :class:`~refdp.fast.counts.ArrayCounts` and the float arithmetic of
:mod:`refdp.fast.exponential`; the exact samplers (:mod:`refdp.mechanisms.exact`) and every charge are
the reference's own.  It keeps what it derives from a data set's rows (encoded columns, binned
columns) with the data set, so later fits on the same data set skip that work."""

from __future__ import annotations

from refdp.engine import Engine
from refdp.fast.counts import ArrayCounts
from refdp.fast.exponential import draw, probabilities

__all__ = ["ARRAY"]

ARRAY = Engine("array", ArrayCounts, probabilities=probabilities, draw=draw, keeps_derived=True)
"""The engine behind ``engine="array"``: same draws, same floats, same model as ``REFERENCE``."""
