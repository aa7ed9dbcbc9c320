"""Exact utilities as unreduced integer pairs, read as the sequence of their values.

A node of a large data set scores about 1,600 candidate splits; the Gini
index of each is a quotient of integers, and a :class:`fractions.Fraction`
reduces every one to lowest terms (a gcd each) although the exact
exponential mechanism needs no reduction.  :class:`Ratios` carries the
(numerator, denominator) pairs to the sampler as they were computed, and
reads element by element as their exact values (an int for denominator 1,
else a Fraction), so that anything expecting numbers (the float sampler, a
law computed by a test) sees the same values a list of Fractions would give.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import chain
from operator import itemgetter
from typing import Iterator, List, Sequence, Tuple, Union, overload

from refdp.errors import InvalidParameterError
from refdp.mechanisms._params import Exact

__all__ = ["Ratio", "Ratios"]

Ratio = Tuple[int, int]
"""(numerator, denominator > 0) of an exact rational, not necessarily in lowest terms."""


def _value(pair: Ratio) -> Exact:
    numerator, denominator = pair
    return numerator if denominator == 1 else Fraction(numerator, denominator)


@dataclass(frozen=True)
class Ratios(Sequence[Exact]):
    """Exact values given as unreduced (numerator, denominator > 0) integer pairs."""

    pairs: Tuple[Ratio, ...]

    def __post_init__(self) -> None:
        # Checked at C speed (a node makes about 1,600 pairs): pairs of ints, every denominator > 0.
        pairs = self.pairs
        if (
            set(map(len, pairs)) - {2}
            or set(map(type, chain.from_iterable(pairs))) - {int}
            or min(map(itemgetter(1), pairs), default=1) <= 0
        ):
            raise InvalidParameterError("Ratios holds (numerator, denominator) pairs of ints with denominator > 0")

    def __len__(self) -> int:
        return len(self.pairs)

    def __iter__(self) -> Iterator[Exact]:
        return map(_value, self.pairs)

    @overload
    def __getitem__(self, index: int) -> Exact: ...

    @overload
    def __getitem__(self, index: slice) -> List[Exact]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[Exact, List[Exact]]:
        if isinstance(index, slice):
            return [_value(pair) for pair in self.pairs[index]]
        return _value(self.pairs[index])
