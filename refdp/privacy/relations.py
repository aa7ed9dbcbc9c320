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
import re
from fractions import Fraction
from typing import Union

from refdp.errors import InvalidParameterError
from refdp.numbers import is_plain_fraction

__all__ = [
    "BUDGET_RANGE",
    "MAX_DIGITS",
    "Relation",
    "Number",
    "as_budget",
    "as_fraction",
    "as_epsilon",
    "as_delta",
    "parse_relation",
]

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


MAX_DIGITS = 1000
"""The most decimal digits a numerator or denominator given as text may have.

Beyond, writing the number into a receipt would exceed CPython's limit on
integer-to-text conversion, and an exponent such as ``1e-99999999`` would
make the exact value take minutes to build.
"""

BUDGET_RANGE = (Fraction(1, 10**100), Fraction(10**100))
"""The smallest and the largest total epsilon a learner accepts.

Far outside it the noise scales and probabilities computed from epsilon
overflow or underflow floats; inside it every algorithm trains.
"""

_DIGIT_LIMIT = 10**MAX_DIGITS
_EXPONENT = re.compile(r"[eE]\s*([+-]?[0-9_]+)")


def _shown(value: object) -> str:
    """``repr(value)``, cut short so that an error message stays one readable line."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}...({len(text)} characters)"


def _parse(text: str, name: str) -> Fraction:
    if sum(c.isdigit() for c in text) > MAX_DIGITS:
        raise InvalidParameterError(f"{name} has more than {MAX_DIGITS} digits, got {_shown(text)}")
    exponent = _EXPONENT.search(text)
    if exponent and len(exponent.group(1).lstrip("+-_0")) > len(str(MAX_DIGITS)):
        raise InvalidParameterError(f"{name} has an exponent too large to handle exactly, got {_shown(text)}")
    try:
        if not is_plain_fraction(text):  # Fraction also reads other scripts' digits and underscores
            raise ValueError(text)
        result = Fraction(text.strip())
    except (ValueError, ZeroDivisionError):
        raise InvalidParameterError(
            f"{name} must be a finite number in ASCII digits such as 0.5 or 1/3, got {_shown(text)}"
        ) from None
    if max(abs(result.numerator), result.denominator) >= _DIGIT_LIMIT:
        raise InvalidParameterError(
            f"{name} has more than {MAX_DIGITS} digits in its exact value, got {_shown(text)}"
        )
    return result


def as_fraction(value: Number, name: str) -> Fraction:
    """Convert ``value`` to an exact finite Fraction, or raise a clear error.

    Text is read exactly (``"0.1"`` is 1/10), in ASCII digits
    (:func:`refdp.numbers.is_plain_fraction`), and may have at most
    :data:`MAX_DIGITS` digits in its numerator and denominator.
    """
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
        return _parse(value, name)
    raise InvalidParameterError(f"{name} must be a number, got {type(value).__name__}")


def as_epsilon(value: Number, name: str = "epsilon") -> Fraction:
    """Validate a privacy parameter epsilon: finite and strictly positive."""
    eps = as_fraction(value, name)
    if eps <= 0:
        raise InvalidParameterError(
            f"{name} must be > 0 (a smaller value means more privacy), got {_shown(value)}"
        )
    return eps


def as_budget(value: Number, name: str = "epsilon") -> Fraction:
    """Validate the total epsilon given to a learner: :func:`as_epsilon`, within :data:`BUDGET_RANGE`."""
    eps = as_epsilon(value, name)
    low, high = BUDGET_RANGE
    if not low <= eps <= high:
        raise InvalidParameterError(
            f"{name} must be between 1e-100 and 1e100 (beyond, the noise scales overflow floats), "
            f"got {_shown(value)}"
        )
    return eps


def as_delta(value: Number, name: str = "delta") -> Fraction:
    """Validate a privacy parameter delta: in [0, 1)."""
    delta = as_fraction(value, name)
    if not 0 <= delta < 1:
        raise InvalidParameterError(f"{name} must be in [0, 1), got {_shown(value)}")
    return delta
