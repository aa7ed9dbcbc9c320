"""Numbers written as text: ASCII digits in plain syntax, nothing else.

Python's ``int``, ``float`` and ``Fraction`` also read other scripts' digits
(full-width ``５``, Arabic-Indic ``٣``) and underscores (``1_000``,
``5_0e-1``).  refdp reads a number that a person typed or a data file holds
only in its plain form -- an optional sign, ASCII digits, an optional
decimal point and exponent, or for an exact number ``p/q`` -- so that a
value that looks like one number cannot be read as another, and a receipt
records what was meant.  Surrounding whitespace is ignored.
"""

from __future__ import annotations

import re

__all__ = ["is_plain_decimal", "is_plain_fraction", "is_plain_int"]

_INT = re.compile(r"[+-]?[0-9]+\Z")
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z")
_RATIO = re.compile(r"[+-]?[0-9]+/[0-9]+\Z")


def is_plain_int(text: str) -> bool:
    """Whether ``text`` is an integer in ASCII digits, such as ``3`` or ``-12``.

    >>> is_plain_int(" 42 "), is_plain_int("1_000"), is_plain_int("\\uff14\\uff12")
    (True, False, False)
    """
    return bool(_INT.match(text.strip()))


def is_plain_decimal(text: str) -> bool:
    """Whether ``text`` is a decimal number in ASCII digits, such as ``0.5``, ``.5``, ``3`` or ``1e-3``.

    ``inf`` and ``nan`` are not numbers here.

    >>> is_plain_decimal("2.5e-3"), is_plain_decimal("5_0e-1"), is_plain_decimal("inf")
    (True, False, False)
    """
    return bool(_DECIMAL.match(text.strip()))


def is_plain_fraction(text: str) -> bool:
    """Whether ``text`` is a plain decimal number or a ratio ``p/q`` of ASCII integers, such as ``1/3``.

    >>> is_plain_fraction("1/3"), is_plain_fraction("0.1"), is_plain_fraction("1/3.0")
    (True, True, False)
    """
    stripped = text.strip()
    return bool(_DECIMAL.match(stripped) or _RATIO.match(stripped))
