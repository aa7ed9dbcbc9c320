"""The array engine's Poissonised bootstrap: the reference's draws, without a Python call per draw.

:func:`refdp.mechanisms.bootstrap_draws` decides each record with
:func:`refdp.mechanisms.joins_sample`: K is the first k with
``rng.randrange(k) != 0`` and the record joins when K is even, so about
five ``randrange`` calls per record, each a few Python calls deep.  For a
:class:`random.Random` itself (exactly that class, so that no method is
overridden), ``randrange(k)`` with k > 0 is ``_randbelow(k)``, which draws
``getrandbits(k.bit_length())`` until the value is below k (CPython 3.9 to
3.13, ``Lib/random.py``); :func:`bootstrap` calls ``getrandbits`` the same
way, in the same order, and so returns the same decisions and leaves the
generator in the same state (the tests compare both on many seeds).  Any
other random source gets the reference loop.
"""

from __future__ import annotations

import random
from typing import List

from refdp.mechanisms import bootstrap_draws
from refdp.rng import RandomSource

__all__ = ["bootstrap"]


def bootstrap(count: int, rng: RandomSource) -> List[bool]:
    """:func:`refdp.mechanisms.bootstrap_draws` (the same draws and decisions).

    >>> bootstrap(6, random.Random(2)) == bootstrap_draws(6, random.Random(2))
    True
    """
    if type(rng) is not random.Random:
        return bootstrap_draws(count, rng)
    bits = rng.getrandbits
    out: List[bool] = []
    add = out.append
    for _ in range(count):
        while bits(1):  # k = 1: randrange(1) draws one bit until it is 0, and returns 0
            pass
        r = bits(2)  # k = 2: two bits until below 2
        while r >= 2:
            r = bits(2)
        if r:
            add(True)  # K = 2
            continue
        k = 3
        while True:
            width = k.bit_length()
            r = bits(width)
            while r >= k:
                r = bits(width)
            if r:
                break
            k += 1
        add(k % 2 == 0)
    return out
