"""What a missing value becomes: one public rule, applied alike to the rows a model learns from and predicts.

A missing value is a cell equal to the marker ``?`` in a file (an unquoted
``?`` in ARFF), or ``None`` or NaN in rows given from Python.  A
:class:`MissingPolicy` says what it becomes, per kind of attribute:

* categorical: ``"category"`` (default) reads it as the category ``?``,
  which this policy adds as the last value of every categorical domain that
  does not list it (:func:`with_missing_category`, a rule of the schema
  format that never looks at the rows), whether the schema comes from an
  ARFF header or a schema file.  ``"drop"`` drops the row; ``"error"``
  refuses it.
* continuous: ``"midpoint"`` (default) reads it as :func:`fill_value`, the
  midpoint of the attribute's public bounds; ``"drop"`` drops the row;
  ``"error"`` refuses it.

Both defaults map each row to a row of the public schema by a rule fixed
before the data is read, so a learner's guarantee carries over under both
neighbouring relations (claim ``missing-values-public-rule``); dropping
carries over an add-remove guarantee (claim ``missing-values-drop``).  The
policy a data set was read with is :attr:`refdp.data.Dataset.missing`; a
model keeps it (``TreeModel.missing``), its receipt records it, and
prediction applies it to the rows to predict.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Dict, Mapping, Tuple

from refdp.data.schema import CategoricalAttribute, ContinuousAttribute, Schema
from refdp.errors import InvalidParameterError

__all__ = [
    "MARKER",
    "CATEGORICAL_POLICIES",
    "CONTINUOUS_POLICIES",
    "MissingPolicy",
    "DEFAULT_POLICY",
    "fill_value",
    "with_missing_category",
    "PUBLIC_RULE_CLAIM",
    "DROP_CLAIM",
]

MARKER = "?"
"""The missing-value marker of the files, and the category a missing categorical value becomes."""

CATEGORICAL_POLICIES = ("category", "drop", "error")
CONTINUOUS_POLICIES = ("midpoint", "drop", "error")

PUBLIC_RULE_CLAIM = "missing-values-public-rule"
DROP_CLAIM = "missing-values-drop"


@dataclass(frozen=True)
class MissingPolicy:
    """How missing values were (and are to be) read: one policy per kind of attribute.

    >>> policy = MissingPolicy()
    >>> policy.categorical, policy.continuous
    ('category', 'midpoint')
    >>> MissingPolicy.from_json(policy.to_json()) == policy
    True
    >>> MissingPolicy("drop", "drop").claims
    ('missing-values-drop',)
    """

    categorical: str = "category"
    continuous: str = "midpoint"

    def __post_init__(self) -> None:
        if self.categorical not in CATEGORICAL_POLICIES:
            raise InvalidParameterError(
                f"categorical_missing must be one of {CATEGORICAL_POLICIES}, got {self.categorical!r}"
            )
        if self.continuous not in CONTINUOUS_POLICIES:
            raise InvalidParameterError(
                f"continuous_missing must be one of {CONTINUOUS_POLICIES}, got {self.continuous!r}"
            )

    @property
    def drops(self) -> bool:
        """Whether rows with a missing value (of some kind) are dropped."""
        return "drop" in (self.categorical, self.continuous)

    @property
    def claims(self) -> Tuple[str, ...]:
        """The claims behind this policy: the public rule's, the dropping's, or both."""
        kept = self.categorical != "drop" or self.continuous != "drop"
        return ((PUBLIC_RULE_CLAIM,) if kept else ()) + ((DROP_CLAIM,) if self.drops else ())

    def describe(self) -> str:
        """One line for people (and for the receipt).

        >>> MissingPolicy().describe()
        "a missing categorical value is the category '?' of the public domain; a missing continuous value is the midpoint of the public bounds"
        """
        categorical = {
            "category": f"a missing categorical value is the category {MARKER!r} of the public domain",
            "drop": "a row with a missing categorical value is dropped",
            "error": "a missing categorical value is an error",
        }[self.categorical]
        continuous = {
            "midpoint": "a missing continuous value is the midpoint of the public bounds",
            "drop": "a row with a missing continuous value is dropped",
            "error": "a missing continuous value is an error",
        }[self.continuous]
        return f"{categorical}; {continuous}"

    def to_json(self) -> Dict[str, str]:
        """``{"categorical": ..., "continuous": ...}``."""
        return {"categorical": self.categorical, "continuous": self.continuous}

    @classmethod
    def from_json(cls, obj: object) -> MissingPolicy:
        """Read :meth:`to_json` output (InvalidParameterError when malformed)."""
        if not isinstance(obj, Mapping) or set(obj) != {"categorical", "continuous"}:
            raise InvalidParameterError(
                f"a missing-value policy must be an object with the keys 'categorical' and 'continuous', got {obj!r}"
            )
        return cls(str(obj["categorical"]), str(obj["continuous"]))


DEFAULT_POLICY = MissingPolicy()
"""The readers' default: the category ``?``, and the midpoint of the bounds."""


def fill_value(attribute: ContinuousAttribute) -> float:
    """The value a missing value of ``attribute`` reads as: the midpoint of its public bounds.

    Computed as ``lower / 2 + upper / 2``, which cannot overflow and, as
    rounding is monotone, lies in ``[lower, upper]``.

    >>> fill_value(ContinuousAttribute("age", 0, 120))
    60.0
    """
    return min(max(attribute.lower / 2 + attribute.upper / 2, attribute.lower), attribute.upper)


def with_missing_category(schema: Schema) -> Schema:
    """``schema`` with the category ``?`` last in every categorical domain that lacks it (classes unchanged).

    The rule of the ``category`` policy: it looks at the schema only, never
    at the rows, so the domains are the same whatever the data hold.

    >>> schema = Schema((CategoricalAttribute("colour", ("red", "blue")),), "class", ("no", "yes"))
    >>> with_missing_category(schema).attributes[0].values
    ('red', 'blue', '?')
    >>> with_missing_category(with_missing_category(schema)) == with_missing_category(schema)
    True
    """
    attributes = tuple(
        CategoricalAttribute(a.name, a.values + (MARKER,))
        if isinstance(a, CategoricalAttribute) and MARKER not in a.codes else a
        for a in schema.attributes
    )
    # the same object when nothing is added, so that a schema that has '?' everywhere stays itself
    return schema if attributes == schema.attributes else replace(schema, attributes=attributes)
