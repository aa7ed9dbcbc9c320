"""The public schema: attribute domains, continuous bounds and class labels.

A differentially private learner may depend on the data only through its
mechanisms.  Everything else it uses -- which attributes exist, which values a
categorical attribute can take, the interval a continuous attribute lives in,
and the class labels -- must be fixed *before* looking at the data.  A
:class:`Schema` is that public declaration.  Inferring it from the rows is
possible only through :func:`refdp.data.readers.leaky_infer_schema`, whose
schemas carry a non-empty :attr:`Schema.leaks` (claim
``schema-inference-leaks``), and the ledger turns each leak into an unsound
receipt.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Sequence, Tuple, Union, cast

from refdp.errors import SchemaError

__all__ = [
    "CategoricalAttribute",
    "ContinuousAttribute",
    "Attribute",
    "Schema",
    "SCHEMA_FORMAT",
]

SCHEMA_FORMAT = "refdp-schema/1"
"""The ``format`` tag of :meth:`Schema.to_json` objects."""


def _check_name(name: object, what: str) -> str:
    if not isinstance(name, str) or not name:
        raise SchemaError(f"{what} must be a non-empty string, got {name!r}")
    return name


def _as_tuple(items: object, what: str) -> Tuple[object, ...]:
    """``items`` as a tuple; only a tuple or a list is accepted."""
    # A bare string is a sequence of characters; accepting it would silently
    # turn "yes" into the domain ("y", "e", "s").
    if not isinstance(items, (tuple, list)):
        raise SchemaError(f"{what} must be a tuple or list, got {items!r}")
    return tuple(items)


def _check_values(values: object, what: str) -> Tuple[str, ...]:
    """A non-empty tuple of distinct non-empty strings (copied from ``values``)."""
    out = _as_tuple(values, what)
    if not out:
        raise SchemaError(f"{what} is empty; declare at least one value")
    for value in out:
        if not isinstance(value, str) or not value:
            raise SchemaError(f"{what} must hold non-empty strings, got {value!r}")
    if len(set(out)) != len(out):
        repeated = sorted({str(v) for v in out if out.count(v) > 1})
        raise SchemaError(f"{what} lists {repeated} more than once; list each value once")
    return cast(Tuple[str, ...], out)


def _check_bound(value: object, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SchemaError(f"{what} must be a real number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise SchemaError(
            f"{what} is {number}; declare finite public bounds (the sensitivity of "
            "interval-based mechanisms grows with the width)"
        )
    return number


@dataclass(frozen=True)
class CategoricalAttribute:
    """An attribute with a finite public domain ``values``.

    Rows store the *code* of a value: its position in ``values``.  A list is
    accepted for ``values`` and stored as a tuple.
    """

    name: str
    values: Tuple[str, ...]
    _codes: Dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        _check_name(self.name, "an attribute name")
        values = _check_values(self.values, f"the domain of attribute {self.name!r}")
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "_codes", {v: i for i, v in enumerate(values)})

    @property
    def kind(self) -> str:
        """``"categorical"``, as written in JSON."""
        return "categorical"

    @property
    def n_values(self) -> int:
        """The size of the domain, |A| in the papers."""
        return len(self.values)

    @property
    def codes(self) -> Mapping[str, int]:
        """The map from each value to its code (read-only)."""
        return MappingProxyType(self._codes)

    def code(self, value: str) -> int:
        """The code of ``value``; SchemaError if it is not in the domain."""
        try:
            return self._codes[value]
        except (KeyError, TypeError):
            raise SchemaError(
                f"attribute {self.name!r} has no value {value!r}; its public domain is "
                f"{self.values}; fix the data or declare the value in the schema"
            ) from None


@dataclass(frozen=True)
class ContinuousAttribute:
    """A real attribute with public bounds ``lower < upper`` (both finite).

    The bounds are part of the privacy argument: interval mechanisms (for
    example the exponential mechanism over split points weighted by interval
    length) assume every value lies in [lower, upper].  Ints are stored as
    floats.
    """

    name: str
    lower: float
    upper: float

    def __post_init__(self) -> None:
        _check_name(self.name, "an attribute name")
        lower = _check_bound(self.lower, f"the lower bound of attribute {self.name!r}")
        upper = _check_bound(self.upper, f"the upper bound of attribute {self.name!r}")
        if not lower < upper:
            raise SchemaError(
                f"attribute {self.name!r} has bounds [{lower!r}, {upper!r}]; the lower bound "
                "must be strictly below the upper bound"
            )
        object.__setattr__(self, "lower", lower)
        object.__setattr__(self, "upper", upper)

    @property
    def kind(self) -> str:
        """``"continuous"``, as written in JSON."""
        return "continuous"

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in [lower, upper] (False for NaN)."""
        return self.lower <= value <= self.upper


Attribute = Union[CategoricalAttribute, ContinuousAttribute]


@dataclass(frozen=True)
class Schema:
    """The public description of a labelled table.

    ``attributes`` are the input columns in order (names unique; zero
    attributes is allowed and means a table of labels only).  ``label`` names
    the class column and must differ from every attribute name.  ``classes``
    is the public list of class labels: at least one, without duplicates (a
    single class is legal -- the learners then have nothing to decide, but
    a neighbouring-data-set generator may produce it).  Class codes are
    positions in ``classes``.

    ``leaks`` lists every way this schema was read off private data (empty for
    a schema declared in advance).  Each entry becomes a leak in the ledger of
    any model trained on it, so its receipt says it is not DP.

    Lists are accepted for the tuple fields and stored as tuples.
    """

    attributes: Tuple[Attribute, ...]
    label: str
    classes: Tuple[str, ...]
    leaks: Tuple[str, ...] = ()
    _index: Dict[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        attributes: List[Attribute] = []
        for attribute in _as_tuple(self.attributes, "attributes"):
            if not isinstance(attribute, (CategoricalAttribute, ContinuousAttribute)):
                raise SchemaError(
                    "each attribute must be a CategoricalAttribute or ContinuousAttribute, "
                    f"got {attribute!r}"
                )
            attributes.append(attribute)
        index: Dict[str, int] = {}
        for position, attribute in enumerate(attributes):
            if attribute.name in index:
                raise SchemaError(
                    f"attribute name {attribute.name!r} is used twice (positions "
                    f"{index[attribute.name]} and {position}); rename one"
                )
            index[attribute.name] = position
        label = _check_name(self.label, "the label (class column) name")
        if label in index:
            raise SchemaError(
                f"the label {label!r} is also an attribute name; the class column needs its own name"
            )
        classes = _check_values(self.classes, "the list of classes")
        leaks = tuple(_check_name(x, "a leak description") for x in _as_tuple(self.leaks, "leaks"))
        object.__setattr__(self, "attributes", tuple(attributes))
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "leaks", leaks)
        object.__setattr__(self, "_index", index)

    @property
    def n_attributes(self) -> int:
        """The number of input attributes, d in the papers."""
        return len(self.attributes)

    @property
    def n_classes(self) -> int:
        """The number of classes, |C| in the papers."""
        return len(self.classes)

    @property
    def names(self) -> Tuple[str, ...]:
        """The attribute names in column order."""
        return tuple(a.name for a in self.attributes)

    def index_of(self, name: str) -> int:
        """The column position of attribute ``name``."""
        try:
            return self._index[name]
        except (KeyError, TypeError):
            raise SchemaError(
                f"no attribute named {name!r}; the schema has {list(self._index)}"
            ) from None

    def attribute(self, name: str) -> Attribute:
        """The attribute called ``name``."""
        return self.attributes[self.index_of(name)]

    def class_index(self, label: str) -> int:
        """The code of class ``label``."""
        try:
            return self.classes.index(label)
        except ValueError:
            raise SchemaError(
                f"unknown class {label!r}; the schema's classes are {self.classes}"
            ) from None

    def to_json(self) -> Dict[str, Any]:
        """A JSON-ready dict; :meth:`from_json` inverts it exactly.

        Bounds are written as Python floats, which :mod:`json` prints with
        ``repr`` and so reads back to the same float.
        """
        attributes: List[Dict[str, Any]] = []
        for a in self.attributes:
            if isinstance(a, CategoricalAttribute):
                attributes.append({"name": a.name, "kind": a.kind, "values": list(a.values)})
            else:
                attributes.append(
                    {"name": a.name, "kind": a.kind, "lower": a.lower, "upper": a.upper}
                )
        return {
            "format": SCHEMA_FORMAT,
            "attributes": attributes,
            "label": self.label,
            "classes": list(self.classes),
            "leaks": list(self.leaks),
        }

    @classmethod
    def from_json(cls, obj: object) -> Schema:
        """Rebuild a schema from :meth:`to_json` output (SchemaError if malformed)."""
        if not isinstance(obj, Mapping):
            raise SchemaError(f"a schema must be a JSON object, got {type(obj).__name__}")
        if obj.get("format") != SCHEMA_FORMAT:
            raise SchemaError(
                f"not a refdp schema: 'format' is {obj.get('format')!r}, expected {SCHEMA_FORMAT!r}"
            )
        expected = {"format", "attributes", "label", "classes", "leaks"}
        unknown = sorted(set(obj) - expected)
        missing = sorted(expected - set(obj) - {"leaks"})
        if unknown or missing:
            raise SchemaError(
                f"schema JSON has unknown keys {unknown} / lacks keys {missing}; "
                f"expected {sorted(expected)}"
            )
        raw_attributes = obj["attributes"]
        if not isinstance(raw_attributes, list):
            raise SchemaError("schema JSON 'attributes' must be a list of objects")
        attributes: List[Attribute] = []
        problems: List[str] = []
        for i, a in enumerate(raw_attributes):
            try:
                attributes.append(_attribute_from_json(a, i))
            except SchemaError as exc:
                problems.append(str(exc))
        if problems:
            # every attribute's problem at once, so that one edit fixes the file
            raise SchemaError(
                problems[0] if len(problems) == 1
                else f"{len(problems)} attributes of the schema JSON are wrong: " + "; ".join(problems)
            )
        return cls(
            attributes=tuple(attributes),
            label=obj["label"],
            classes=obj["classes"],
            leaks=obj.get("leaks", []),
        )


def _attribute_from_json(obj: object, position: int) -> Attribute:
    where = f"schema JSON attribute {position}"
    if not isinstance(obj, Mapping):
        raise SchemaError(f"{where} must be an object, got {obj!r}")
    kind = obj.get("kind")
    keys: Sequence[str]
    if kind == "categorical":
        keys = ("name", "kind", "values")
    elif kind == "continuous":
        keys = ("name", "kind", "lower", "upper")
    else:
        raise SchemaError(f"{where} has kind {kind!r}; use 'categorical' or 'continuous'")
    if set(obj) != set(keys):
        raise SchemaError(f"{where} ({kind}) must have exactly the keys {list(keys)}, got {sorted(obj)}")
    if kind == "categorical":
        return CategoricalAttribute(obj["name"], obj["values"])
    return ContinuousAttribute(obj["name"], obj["lower"], obj["upper"])
