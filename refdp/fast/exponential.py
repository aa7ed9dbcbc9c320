"""The exponential mechanism's float arithmetic, column-wise: the same floats and draw as the reference.

:func:`refdp.mechanisms.float_probabilities` computes log-probabilities
a_r = log w_r + 2 (c (u_r / 2 - u_max / 2)), normalises them in log space
and exponentiates; :func:`probabilities` here performs the same float
operations in the same order, in list comprehensions.
:func:`refdp.mechanisms.sample_index` inverts ONE ``rng.random()`` draw
through the cumulative sums accumulated left to right; :func:`draw` makes
the same draw and finds the index in :func:`itertools.accumulate` (a
left-to-right running sum, exactly the reference's loop) with
:func:`bisect.bisect_right`.  The array engine hands both to
:func:`refdp.mechanisms.exponential_mechanism`, which validates and charges
as always.  Candidates of weight 0 are rare (an interval's share of a
range rounded to 0); the reference arithmetic handles them.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate
from typing import List, Sequence, Tuple

from refdp.mechanisms import float_probabilities
from refdp.rng import RandomSource

__all__ = ["probabilities", "draw"]


def probabilities(u: Tuple[float, ...], weights: Tuple[float, ...], c: float) -> List[float]:
    """:func:`refdp.mechanisms.float_probabilities`, column-wise (the same floats)."""
    if min(weights) <= 0.0:
        return float_probabilities(u, weights, c)
    # One comprehension per step: CPython (3.11+) runs float arithmetic in a comprehension faster
    # than a chain of maps, and the operations and their order are the reference's.
    half_max = 0.5 * max(u)
    log = math.log
    a = [log(w) + 2.0 * (c * (0.5 * x - half_max)) for w, x in zip(weights, u)]
    a_max = max(a)
    shifted = [x - a_max for x in a]
    log_sum = math.log(math.fsum(map(math.exp, shifted)))
    exp = math.exp
    return [exp(x - log_sum) for x in shifted]


def draw(chances: Sequence[float], rng: RandomSource) -> int:
    """The index :func:`refdp.mechanisms.sample_index` draws, from the same single ``rng.random()``."""
    u = rng.random()
    cumulative = list(accumulate(chances))
    index = bisect_right(cumulative, u)
    if index < len(cumulative):
        return index
    return max(i for i, p in enumerate(chances) if p > 0)
