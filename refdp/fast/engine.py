"""The array engine: :class:`~refdp.fast.counts.ArrayCounts` and the float arithmetic of
:mod:`refdp.fast.exponential`; the exact samplers (:mod:`refdp.mechanisms.exact`) and every charge are
the reference's own."""

from __future__ import annotations

from refdp.engine import Engine
from refdp.fast.counts import ArrayCounts
from refdp.fast.exponential import draw, probabilities

__all__ = ["ARRAY"]

ARRAY = Engine("array", ArrayCounts, probabilities=probabilities, draw=draw)
"""The engine behind ``engine="array"``: same draws, same floats, same model as ``REFERENCE``."""
