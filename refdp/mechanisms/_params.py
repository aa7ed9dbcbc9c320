"""Validation shared by the mechanisms (private: the public checks are in refdp.privacy).

Each mechanism validates everything before it records a charge or draws a
random number, so that a bad call changes neither the ledger nor the rng.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Sequence, Tuple, Union

from refdp.errors import InvalidParameterError
from refdp.privacy import as_fraction

Exact = Union[int, Fraction]
"""An exact rational number: an int or a :class:`fractions.Fraction` (never a float)."""

SensitivityLike = Union[int, float, Fraction]
"""A sensitivity as callers give it: exact (int, Fraction) or a float for irrational bounds."""


def exact_fraction(value: Exact, name: str) -> Fraction:
    """``value`` as a Fraction; a float is refused because it is not what the caller typed."""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InvalidParameterError(
            f"{name} must be an int or a fractions.Fraction (exact), got {value!r}; "
            f"convert a decimal with Fraction('0.1') or refdp.privacy.as_fraction"
        )
    return Fraction(value)


def sensitivity_value(value: SensitivityLike) -> Tuple[Union[Fraction, float], Fraction]:
    """(what the ledger records, the exact value used for calibration) of a sensitivity.

    An int or Fraction is recorded exactly; a float is recorded as the float
    and calibrated with the decimal it prints as (like epsilon, see
    :func:`refdp.privacy.as_fraction`).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
        raise InvalidParameterError(f"sensitivity must be a number, got {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InvalidParameterError(f"sensitivity must be finite, got {value!r}")
    exact = as_fraction(value, "sensitivity")
    if exact <= 0:
        raise InvalidParameterError(
            f"sensitivity must be > 0 (the largest change of the query between neighbours), "
            f"got {value!r}"
        )
    return (value if isinstance(value, float) else exact), exact


def finite_floats(values: Sequence[Union[float, int, Fraction]], name: str) -> Tuple[float, ...]:
    """``values`` as a non-empty tuple of finite floats."""
    result = []
    for value in values:
        if isinstance(value, bool) or not isinstance(value, (int, float, Fraction)):
            raise InvalidParameterError(f"{name} must hold numbers, got {value!r}")
        number = float(value)
        if not math.isfinite(number):
            raise InvalidParameterError(f"{name} must be finite, got {value!r}")
        result.append(number)
    if not result:
        raise InvalidParameterError(f"{name} must not be empty")
    return tuple(result)
