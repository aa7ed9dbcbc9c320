"""Algorithm parameters: typed, with their ranges declared once.

A :class:`Parameter` says what ``--param name=value`` (or a keyword of an
estimator) may be: its type, its default, the choices of a string, and the
range of a number.  :meth:`Parameter.parse` is the only place a value is
checked, so every learner receives values that are already of the declared
type and in range; checks that involve several parameters or the data (a
forest no larger than the number of attributes, say) stay with the learner.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from refdp.errors import InvalidParameterError

__all__ = ["Param", "Parameter"]

Param = Union[int, float, str]
"""A parameter's value: an int, a float or a string."""

Bound = Union[int, float]


@dataclass(frozen=True)
class Parameter:
    """A typed algorithm parameter, settable as ``--param name=value``.

    ``minimum`` and ``maximum`` bound an int or float parameter (inclusive,
    or exclusive where ``minimum_open`` / ``maximum_open``); ``choices``
    lists a string parameter's values.  The default must itself be valid.
    """

    name: str
    kind: type
    default: Param
    help: str
    choices: Tuple[str, ...] = ()
    minimum: Optional[Bound] = None
    maximum: Optional[Bound] = None
    minimum_open: bool = False
    maximum_open: bool = False

    def __post_init__(self) -> None:
        if self.kind not in (int, float, str):
            raise ValueError(f"parameter {self.name}: kind must be int, float or str, got {self.kind!r}")
        self.parse(self.default)

    def _range(self) -> str:
        low = "-inf" if self.minimum is None else repr(self.minimum)
        high = "inf" if self.maximum is None else repr(self.maximum)
        return f"{'(' if self.minimum_open or self.minimum is None else '['}{low}, {high}" \
            f"{')' if self.maximum_open or self.maximum is None else ']'}"

    def _in_range(self, value: Bound) -> bool:
        if self.minimum is not None and (value <= self.minimum if self.minimum_open else value < self.minimum):
            return False
        if self.maximum is not None and (value >= self.maximum if self.maximum_open else value > self.maximum):
            return False
        return True

    def parse(self, value: Union[str, Param]) -> Param:
        """Convert and validate ``value`` (a CLI string or an already typed value)."""
        wrong = InvalidParameterError(
            f"parameter {self.name} must be of type {self.kind.__name__}, got {value!r}"
        )
        if isinstance(value, bool) or (self.kind is int and isinstance(value, float)):
            # int(2.5) would silently truncate and True would pass as 1
            raise wrong
        try:
            if self.kind is int:
                result: Param = int(value)
            elif self.kind is float:
                result = float(value)
                if not math.isfinite(result):
                    raise wrong
            else:
                result = str(value)
        except (TypeError, ValueError):  # int(None), float([1]): not a value of the declared type
            raise wrong from None
        if self.choices and result not in self.choices:
            raise InvalidParameterError(
                f"parameter {self.name} must be one of {', '.join(self.choices)}; got {value!r}"
            )
        if not isinstance(result, str) and not self._in_range(result):
            raise InvalidParameterError(f"parameter {self.name} must be in {self._range()}, got {value!r}")
        return result
