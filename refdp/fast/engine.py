"""The array engine: :class:`~refdp.fast.counts.ArrayCounts`, the float arithmetic of
:mod:`refdp.fast.exponential` and the draws of :mod:`refdp.fast.sampling` (the exact samplers of
:mod:`refdp.mechanisms.exact`, called with fewer Python calls per random word); every charge is the
reference's own.
It keeps what it derives from a data set's rows (encoded columns, binned columns) with the data set,
so later fits on the same data set skip that work."""

from __future__ import annotations

from refdp.engine import Engine
from refdp.fast.counts import ArrayCounts
from refdp.fast.exponential import draw, probabilities
from refdp.fast.sampling import bootstrap, discrete_laplace

__all__ = ["ARRAY"]

ARRAY = Engine(
    "array", ArrayCounts, discrete_laplace=discrete_laplace, probabilities=probabilities, draw=draw,
    bootstrap=bootstrap, keeps_derived=True,
)
"""The engine behind ``engine="array"``: same draws, same floats, same model as ``REFERENCE``."""
