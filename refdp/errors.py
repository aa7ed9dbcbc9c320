"""One exception hierarchy for refdp.

Every error refdp raises on bad input is a :class:`RefdpError`, and every
message says what was wrong and what to do about it.  The classes also inherit
from the matching built-in exception so that callers who catch ``ValueError``
keep working.  A message that quotes an oversized value (a 30 MB field of a
data file) is cut: a run of 200 or more characters without a space keeps its
ends, and a message still longer than :data:`MAX_MESSAGE` characters loses
its middle, so that where the error is and what to do remain.
The warnings refdp gives (a schema part read off the data, an input reshaped)
are here too.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_MESSAGE",
    "RefdpError",
    "InvalidParameterError",
    "SchemaError",
    "DataError",
    "PrivacyError",
    "ModelError",
    "NotFittedError",
    "PrivacyLeakWarning",
    "DataConversionWarning",
]


MAX_MESSAGE = 1200
"""The longest message a refdp error keeps; a longer one loses its middle."""


_LONG_WORD = re.compile(r"\S{200,}")


def _shorter(word: "re.Match[str]") -> str:
    text = word.group()
    return f"{text[:60]}...({len(text) - 80} characters cut)...{text[-20:]}"


def _cut(message: str) -> str:
    if len(message) < 200:
        return message
    message = _LONG_WORD.sub(_shorter, message)
    if len(message) <= MAX_MESSAGE:
        return message
    keep = (MAX_MESSAGE - 40) // 2
    return f"{message[:keep]}...({len(message) - 2 * keep} characters cut)...{message[-keep:]}"


class RefdpError(Exception):
    """Base class of every error refdp raises on purpose.

    >>> len(str(RefdpError("unknown category " + "x" * 10**6 + "; declare it"))) <= MAX_MESSAGE
    True
    """

    def __init__(self, *args: object) -> None:
        if len(args) == 1 and isinstance(args[0], str):
            args = (_cut(args[0]),)
        super().__init__(*args)


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


class NotFittedError(ModelError, AttributeError):
    """An estimator's fitted attribute (``classes_``, ``model_``...) was read before ``fit``.

    Also an AttributeError, as scikit-learn's own ``NotFittedError`` is, so that
    ``hasattr(clf, "classes_")`` is False on an unfitted estimator.
    """


class PrivacyLeakWarning(UserWarning):
    """Part of a public schema (bounds, categories, classes) was read off the data.

    The model trained with it is not differentially private, and its receipt
    says so (claim ``schema-inference-leaks``); the message says which
    parameter makes that part public.
    """


class DataConversionWarning(UserWarning):
    """Input was reshaped to what refdp expects (a column vector ``y`` read as a flat one).

    The name and meaning are scikit-learn's warning of the same case, so that
    code filtering warnings by name treats both alike.
    """
