"""The array engine: :class:`~refdp.fast.counts.ArrayCounts`, the column-wise exponential sampler, fast exact noise."""

from __future__ import annotations

from refdp.algorithms.greedy import Engine
from refdp.fast.counts import ArrayCounts
from refdp.fast.exponential import exponential_mechanism
from refdp.fast.noise import noisy_count, noisy_histogram

__all__ = ["ARRAY"]

ARRAY = Engine("array", ArrayCounts, exponential_mechanism, noisy_histogram, noisy_count)
"""The engine behind ``engine="array"``: same draws, same floats, same model as ``REFERENCE``."""
