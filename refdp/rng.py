"""Injected randomness.

Every randomised function in refdp takes an ``rng`` argument.  It may be

* ``None``: a cryptographically secure source, :class:`secrets.SystemRandom`
  (the default, because a DP release must not be replayable by an attacker);
* an ``int``: a seeded :class:`random.Random`, for exact replay (same seed and
  same input give the same model, bit for bit);
* any object with the methods of :class:`RandomSource` (for example a
  ``random.Random`` the caller owns), used as is and advanced in place.
"""

from __future__ import annotations

import random
import secrets
from typing import Optional, Protocol, Union, runtime_checkable

from refdp.errors import InvalidParameterError

__all__ = ["RandomSource", "RngLike", "as_rng"]


@runtime_checkable
class RandomSource(Protocol):
    """The subset of :class:`random.Random` that refdp uses."""

    def random(self) -> float:
        """A float uniform on [0, 1)."""
        ...

    def randrange(self, start: int, stop: Optional[int] = ..., step: int = ...) -> int:
        """An int uniform on range(start, stop, step)."""
        ...

    def getrandbits(self, k: int) -> int:
        """An int with k uniform random bits."""
        ...


RngLike = Union[None, int, RandomSource]


def as_rng(rng: RngLike) -> RandomSource:
    """Turn ``None``, a seed or a source into a :class:`RandomSource`.

    >>> as_rng(7).random() == as_rng(7).random()
    True
    """
    if rng is None:
        return secrets.SystemRandom()
    if isinstance(rng, bool):
        raise InvalidParameterError(
            "rng must be None, an int seed or a random.Random-like object, not a bool"
        )
    if isinstance(rng, int):
        return random.Random(rng)
    if isinstance(rng, RandomSource):
        return rng
    raise InvalidParameterError(
        f"rng must be None, an int seed or an object with random(), randrange() and "
        f"getrandbits() (such as random.Random); got {type(rng).__name__}"
    )
