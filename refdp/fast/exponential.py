"""The exponential mechanism's float sampler, column-wise: the same draw as the reference, faster.

:func:`refdp.mechanisms.exponential_mechanism` (``exact=False``) computes
log-probabilities a_r = log w_r + 2 (c (u_r / 2 - u_max / 2)), normalises
them in log space, and inverts ONE ``rng.random()`` draw through the
cumulative sums of the probabilities, accumulated left to right
(:func:`refdp.mechanisms.sample_index`).  :func:`exponential_mechanism`
here performs the same float operations in the same order, in list
comprehensions and :func:`itertools.accumulate` (a left-to-right running sum, exactly the
reference's loop) and finds the index with :func:`bisect.bisect_right`, so
the result is the reference's index for every draw.  It records the same
ledger charge, before drawing.  Candidates of weight 0 are rare
(an interval's share of a range rounded to 0); the reference handles them
directly.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from itertools import accumulate
from typing import List, Optional, Sequence

from refdp.mechanisms import SensitivityLike
from refdp.mechanisms import exponential_mechanism as reference_mechanism
from refdp.mechanisms._params import sensitivity_value
from refdp.privacy import Ledger, Number, as_epsilon, check_partition
from refdp.rng import RandomSource

__all__ = ["exponential_mechanism"]

_SAMPLER_CLAIM = "exponential-mechanism-float-sampler"


def _probabilities(u: List[float], weights: Optional[List[float]], c: float) -> List[float]:
    # One comprehension per step: CPython (3.11+) runs float arithmetic in a comprehension faster
    # than a chain of maps, and the operations and their order are the reference's.
    half_max = 0.5 * max(u)
    log = math.log
    if weights is None:
        a = [0.0 + 2.0 * (c * (0.5 * x - half_max)) for x in u]
    else:
        a = [log(w) + 2.0 * (c * (0.5 * x - half_max)) for w, x in zip(weights, u)]
    a_max = max(a)
    shifted = [x - a_max for x in a]
    log_sum = math.log(math.fsum(map(math.exp, shifted)))
    exp = math.exp
    return [exp(x - log_sum) for x in shifted]


def exponential_mechanism(
    utilities: Sequence[float],
    *,
    epsilon: Number,
    sensitivity: SensitivityLike,
    rng: RandomSource,
    ledger: Ledger,
    label: str,
    partition: Sequence[str] = (),
    claims: Sequence[str] = ("exponential-mechanism",),
    base_weights: Optional[Sequence[float]] = None,
    sound: bool = True,
    note: str = "",
) -> int:
    """:func:`refdp.mechanisms.exponential_mechanism` with ``exact=False``, computed column-wise.

    Same validation, same charge, same single ``rng.random()`` draw, same
    index.  Utilities that are not all finite floats, and base weights that
    are not all positive finite floats, go to the reference function.
    """
    u = list(utilities)
    weights = None if base_weights is None else list(base_weights)
    plain = (
        u
        and set(map(type, u)) == {float}
        and all(map(math.isfinite, u))
        and (
            weights is None
            or (
                len(weights) == len(u)
                and set(map(type, weights)) == {float}
                and all(map(math.isfinite, weights))
                and min(weights) > 0.0
            )
        )
    )
    if not plain:
        return reference_mechanism(
            utilities, epsilon=epsilon, sensitivity=sensitivity, rng=rng, ledger=ledger, label=label,
            partition=partition, claims=claims, base_weights=base_weights, sound=sound, note=note,
        )
    eps = as_epsilon(epsilon)
    recorded, delta_u = sensitivity_value(sensitivity)
    path = check_partition(partition)
    charge_claims = tuple(claims) + ((_SAMPLER_CLAIM,) if _SAMPLER_CLAIM not in claims else ())
    try:
        c = float(eps / (2 * delta_u))
    except OverflowError:
        # The reference raises the error with its message; nothing has been charged or drawn.
        return reference_mechanism(
            utilities, epsilon=epsilon, sensitivity=sensitivity, rng=rng, ledger=ledger, label=label,
            partition=partition, claims=claims, base_weights=base_weights, sound=sound, note=note,
        )
    probabilities = _probabilities(u, weights, c)
    ledger.charge(
        label=label,
        mechanism="exponential",
        epsilon=eps,
        sensitivity=recorded,
        claims=charge_claims,
        partition=path,
        sound=sound,
        note=note,
    )
    draw = rng.random()
    cumulative = list(accumulate(probabilities))
    index = bisect_right(cumulative, draw)
    if index < len(cumulative):
        return index
    return max(i for i, p in enumerate(probabilities) if p > 0)
