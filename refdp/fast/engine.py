"""The array engine: :class:`~refdp.fast.counts.ArrayCounts` and the arithmetic of :mod:`refdp.fast.noise` and
:mod:`refdp.fast.exponential`; every charge stays in :mod:`refdp.mechanisms`."""

from __future__ import annotations

from refdp.engine import Engine
from refdp.fast.counts import ArrayCounts
from refdp.fast.exponential import draw, probabilities
from refdp.fast.noise import bernoulli, discrete_laplace

__all__ = ["ARRAY"]

ARRAY = Engine(
    "array", ArrayCounts, discrete_laplace=discrete_laplace, probabilities=probabilities, draw=draw,
    bernoulli=bernoulli,
)
"""The engine behind ``engine="array"``: same draws, same floats, same model as ``REFERENCE``."""
