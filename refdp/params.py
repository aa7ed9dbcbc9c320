"""Algorithm parameters: typed, with their ranges declared once.

A :class:`Parameter` says what ``--param name=value`` (or a keyword of an
estimator) may be: its type, its default, the choices of a string, and the
range of a number.  :meth:`Parameter.parse` is the only place a value is
checked, so every learner receives values that are already of the declared
type and in range; checks that involve several parameters or the data (a
forest no larger than the number of attributes, say) stay with the learner.

Every number parameter declares a minimum and a maximum, so that no value
makes a learner's time or memory unbounded (a depth of ``2**70`` would
otherwise plan ``2**70`` levels): a value outside is refused at once, with
the range in the message.  A number given as text is ASCII digits in
plain syntax (``12``, ``-1``, ``0.5``, ``1e-3``; :mod:`refdp.numbers`): no
underscores, no full-width or other scripts' digits, at most
:data:`MAX_TEXT` characters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional, Tuple, Union

from refdp.errors import InvalidParameterError
from refdp.numbers import is_plain_decimal, is_plain_int

__all__ = ["MAX_DEPTH", "MAX_TEXT", "Param", "Parameter"]

Param = Union[int, float, str]
"""A parameter's value: an int, a float or a string."""

Bound = Union[int, float]

MAX_DEPTH = 64
"""The deepest tree any learner accepts (the tree code recurses once per level)."""

MAX_TEXT = 100
"""The longest text read as a number parameter (a value in range is far shorter)."""



@dataclass(frozen=True)
class Parameter:
    """A typed algorithm parameter, settable as ``--param name=value``.

    ``minimum`` and ``maximum`` bound an int or float parameter (inclusive,
    or exclusive where ``minimum_open`` / ``maximum_open``); every number
    parameter declares both.  ``choices`` lists a string parameter's values.
    The default must itself be valid.

    >>> depth = Parameter("max_depth", int, 3, "depth", minimum=0, maximum=MAX_DEPTH)
    >>> depth.parse(" 5 ")
    5
    >>> depth.parse(2**70)
    Traceback (most recent call last):
    refdp.errors.InvalidParameterError: parameter max_depth must be in [0, 64], got 1180591620717411303424
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
        if self.kind is not str and (self.minimum is None or self.maximum is None):
            raise ValueError(f"parameter {self.name}: a number parameter declares its minimum and maximum")
        self.parse(self.default)

    def range_text(self) -> str:
        """The range of a number parameter, as ``[0, 64]`` or ``(0.0, 1.0)``; empty for a string."""
        if self.kind is str:
            return ""
        return self._range()

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
            f"parameter {self.name} must be of type {self.kind.__name__}, got {_shown(value)}"
        )
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            # int(2.5) would silently truncate and True would pass as 1
            raise wrong
        if self.kind is int and isinstance(value, float):
            raise wrong
        if self.kind is str:
            result: Param = str(value)
        elif isinstance(value, str):
            result = self._number(value)
        else:
            try:
                number = int(value) if self.kind is int else float(value)
            except OverflowError:  # an int too large for a float
                raise InvalidParameterError(
                    f"parameter {self.name} must be in {self._range()}, got {_shown(value)}"
                ) from None
            if not math.isfinite(number):
                raise wrong
            result = number
        if self.choices and result not in self.choices:
            raise InvalidParameterError(
                f"parameter {self.name} must be one of {', '.join(self.choices)}; got {_shown(value)}"
            )
        if not isinstance(result, str) and not self._in_range(result):
            raise InvalidParameterError(f"parameter {self.name} must be in {self._range()}, got {_shown(value)}")
        return result

    def _number(self, text: str) -> Union[int, float]:
        """``text`` as the parameter's number: plain ASCII syntax, a finite value, short enough to be in range."""
        text = text.strip()
        if len(text) > MAX_TEXT:
            raise InvalidParameterError(
                f"parameter {self.name} must be in {self._range()}, got {len(text)} characters"
            )
        if not (is_plain_int if self.kind is int else is_plain_decimal)(text):
            example = "3 or -1" if self.kind is int else "0.5 or 1e-3"
            raise InvalidParameterError(
                f"parameter {self.name} must be of type {self.kind.__name__}, written in ASCII digits such as "
                f"{example}, got {_shown(text)}"
            )
        number = int(text) if self.kind is int else float(text)
        if not math.isfinite(number):
            raise InvalidParameterError(f"parameter {self.name} must be in {self._range()}, got {text!r}")
        return number


def _shown(value: object) -> str:
    """``value`` for a message, cut to a readable length."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text)} characters)"
