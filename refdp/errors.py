"""One exception hierarchy for refdp.

Every error refdp raises on bad input is a :class:`RefdpError`, and every
message says what was wrong and what to do about it.  The classes also inherit
from the matching built-in exception so that callers who catch ``ValueError``
keep working.  The warnings refdp gives (a schema part read off the data, an
input reshaped) are here too.
"""

from __future__ import annotations

__all__ = [
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
