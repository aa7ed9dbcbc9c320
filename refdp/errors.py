"""One exception hierarchy for refdp.

Every error refdp raises on bad input is a :class:`RefdpError`, and every
message says what was wrong and what to do about it.  The classes also inherit
from the matching built-in exception so that callers who catch ``ValueError``
keep working.
"""

from __future__ import annotations

__all__ = [
    "RefdpError",
    "InvalidParameterError",
    "SchemaError",
    "DataError",
    "PrivacyError",
    "ModelError",
]


class RefdpError(Exception):
    """Base class of every error refdp raises on purpose."""


class InvalidParameterError(RefdpError, ValueError):
    """A parameter (epsilon, delta, a depth, a scale...) is out of range."""


class SchemaError(RefdpError, ValueError):
    """A schema is malformed, or data does not fit the declared schema."""


class DataError(RefdpError, ValueError):
    """Input rows cannot be read or validated (ragged rows, empty data...)."""


class PrivacyError(RefdpError, RuntimeError):
    """A privacy accounting rule was broken (mixed relations, overspent budget)."""


class ModelError(RefdpError, ValueError):
    """A model file or model object is malformed or used wrongly."""
