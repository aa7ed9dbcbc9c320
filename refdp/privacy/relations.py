"""Neighbouring relations and the validation of privacy parameters.

refdp names the neighbouring relation everywhere it matters:

* ``add-remove`` (unbounded DP): D' is D with one record added or removed;
* ``substitute`` (bounded DP): D' is D with one record replaced by another.

Privacy parameters are kept as :class:`fractions.Fraction` so that a receipt's
total is computed exactly and can be compared with the budget asked for.
A float is read as the shortest decimal that prints as it (``0.1`` becomes
``1/10``), which is the number the user typed; the receipt records that
fraction, and every mechanism is calibrated with it.
"""

from __future__ import annotations

import enum
import math
from fractions import Fraction
from typing import Union

from refdp.errors import InvalidParameterError

__all__ = ["Relation", "Number", "as_fraction", "as_epsilon", "as_delta", "parse_relation"]

Number = Union[int, float, Fraction, str]


class Relation(enum.Enum):
    """Which pairs of datasets count as neighbours."""

    ADD_REMOVE = "add-remove"
    SUBSTITUTE = "substitute"

    def __str__(self) -> str:
        return self.value


def parse_relation(value: Union[str, Relation]) -> Relation:
    """Return the relation named ``value`` (``add-remove`` or ``substitute``)."""
    if isinstance(value, Relation):
        return value
    names = ", ".join(r.value for r in Relation)
    if not isinstance(value, str):
        raise InvalidParameterError(f"a neighbouring relation is one of: {names}; got {value!r}")
    for relation in Relation:
        if value == relation.value or value.replace("_", "-").lower() == relation.value:
            return relation
    raise InvalidParameterError(f"unknown neighbouring relation {value!r}; use one of: {names}")


def as_fraction(value: Number, name: str) -> Fraction:
    """Convert ``value`` to an exact finite Fraction, or raise a clear error."""
    if isinstance(value, bool):
        raise InvalidParameterError(f"{name} must be a number, not a bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidParameterError(f"{name} must be finite, got {value!r}")
        return Fraction(repr(value))
    if isinstance(value, str):
        try:
            result = Fraction(value.strip())
        except (ValueError, ZeroDivisionError):
            raise InvalidParameterError(
                f"{name} must be a finite number such as 0.5 or 1/3, got {value!r}"
            ) from None
        return result
    raise InvalidParameterError(f"{name} must be a number, got {type(value).__name__}")


def as_epsilon(value: Number, name: str = "epsilon") -> Fraction:
    """Validate a privacy parameter epsilon: finite and strictly positive."""
    eps = as_fraction(value, name)
    if eps <= 0:
        raise InvalidParameterError(
            f"{name} must be > 0 (a smaller value means more privacy), got {value!r}"
        )
    return eps


def as_delta(value: Number, name: str = "delta") -> Fraction:
    """Validate a privacy parameter delta: in [0, 1)."""
    delta = as_fraction(value, name)
    if not 0 <= delta < 1:
        raise InvalidParameterError(f"{name} must be in [0, 1), got {value!r}")
    return delta
