"""Running an audit's mechanism: how long a run takes, chunks, progress reports."""

from __future__ import annotations

import random
import time
from typing import Any, Callable, Tuple

from refdp.data import Dataset
from refdp.rng import RandomSource

__all__ = ["PhaseProgress", "chunk_for", "time_runs"]

PhaseProgress = Callable[[str], Callable[[int, int], None]]
"""Called with its name (``"pilot"``, ``"audit"``) as a phase of runs begins; returns that phase's
``progress(done, total)`` callback.  A phase ends when the next one begins or the audit returns."""


def time_runs(mechanism: Callable[[Dataset, RandomSource], Any], data: Dataset, seed: int) -> Tuple[float, Any]:
    """Seconds per run (one run, or the mean of three when runs are quick) and the first output.

    The timing runs use seeds unrelated to the audit's; their outputs are
    not part of the audit.
    """
    outputs, started = [], time.perf_counter()
    for i in range(3):
        outputs.append(mechanism(data, random.Random(f"refdp-audit-timing-{seed}-{i}")))
        if time.perf_counter() - started > 0.5:
            break
    return (time.perf_counter() - started) / len(outputs), outputs[0]


def chunk_for(seconds: float) -> int:
    """Runs per chunk: about one second of them, so that progress moves and pools balance."""
    return max(10, min(1000, int(1.0 / max(seconds, 1e-6))))

