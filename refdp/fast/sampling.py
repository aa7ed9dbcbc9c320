"""The array engine's exact samplers: the reference's draws, with fewer Python calls per draw.

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

:func:`discrete_laplace` is :func:`refdp.mechanisms.discrete_laplace`
itself, given the generator through :class:`Words`, whose ``randrange(n)``
draws ``getrandbits`` as ``_randbelow`` does (the sampler's every draw is a
``randrange`` of one positive bound), without ``randrange``'s argument
handling.
"""

from __future__ import annotations

import random
from typing import List, Optional

from refdp.mechanisms import Exact, bootstrap_draws
from refdp.mechanisms import discrete_laplace as reference_discrete_laplace
from refdp.rng import RandomSource

__all__ = ["Words", "bootstrap", "discrete_laplace"]


class Words:
    """A :class:`random.Random` whose ``randrange(n)``, for one bound n > 0, calls ``getrandbits`` as
    ``Random._randbelow`` does (the same draws, the same results); other calls go to the generator."""

    def __init__(self, rng: random.Random) -> None:
        self._rng = rng
        self.getrandbits = rng.getrandbits
        self.random = rng.random

    def randrange(self, start: int, stop: Optional[int] = None, step: int = 1) -> int:
        if stop is not None or step != 1 or type(start) is not int or start <= 0:
            return self._rng.randrange(start, stop, step)
        width = start.bit_length()
        r = self.getrandbits(width)
        while r >= start:
            r = self.getrandbits(width)
        return r


def discrete_laplace(scale: Exact, rng: RandomSource) -> int:
    """:func:`refdp.mechanisms.discrete_laplace` (the same draws and result).

    >>> discrete_laplace(3, random.Random(5)) == reference_discrete_laplace(3, random.Random(5))
    True
    """
    return reference_discrete_laplace(scale, Words(rng) if type(rng) is random.Random else rng)


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
