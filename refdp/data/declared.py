"""The public schema of an estimator's fit: from ``schema=``, or from ``bounds=``, ``categories=`` and ``classes=``.

A scikit-learn user describes what is public by estimator parameters, as
diffprivlib's users do:

* ``bounds=``: a pair ``(lower, upper)``, each a number (for every
  continuous feature) or a sequence with one entry per feature (None where a
  feature has no public bounds; entries of categorical features are not
  used); or a mapping from a feature to its pair;
* ``categories=``: a mapping from a categorical feature to its public
  categories (values of any hashable type);
* ``categorical_features=``: the features that are categorical (names,
  positions or a boolean mask), whose categories are not public;
* ``classes=``: the public class labels.

A feature is named by its name (a DataFrame's column; ``x0``, ``x1``, ...
for an array or a list) or by its position.  :func:`declare` checks the
parameters before any data is seen; :func:`fit_schema` builds the schema of
a table from them.  Whatever they leave open is read off the data: a
feature's kind (a numeric dtype, or numbers only, make it continuous) with
its bounds or categories, and the classes.  Each such part leaks (claim
``schema-inference-leaks``): it is listed in the schema's ``leaks``, so the
model's receipt is unsound, and in :attr:`FitSchema.read_off`, so that the
estimator can warn.

A ``schema=`` given to the estimator wins over all four
(:func:`given_schema`): a DataFrame's columns are then matched to its
attributes by name, other tables by position.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from refdp.data.coding import Coding, category_codes, is_complex, is_real, label_codes, numbers
from refdp.data.readers import leaky_bounds
from refdp.data.rows import CATEGORY, NUMBER, Table, is_array_like
from refdp.data.schema import Attribute, CategoricalAttribute, ContinuousAttribute, Schema
from refdp.errors import DataError, InvalidParameterError, SchemaError

__all__ = ["Declared", "FitSchema", "declare", "fit_schema", "given_schema", "dataset_schema", "feature_names"]

Key = Union[str, int]
"""A feature, by name or by position."""

Pair = Tuple[float, float]


@dataclass(frozen=True)
class Declared:
    """The schema parameters of an estimator, checked; no data seen yet.

    ``every`` is ``bounds=(lower, upper)`` with two numbers; ``per_feature``
    the pair of sequences (one entry per feature, None for no bounds);
    ``by_key`` the mapping form.
    """

    every: Optional[Pair] = None
    per_feature: Optional[Tuple[Optional[Pair], ...]] = None
    by_key: Dict[Key, Pair] = field(default_factory=dict)
    categories: Dict[Key, Coding] = field(default_factory=dict)
    categorical: Tuple[Key, ...] = ()
    classes: Optional[Coding] = None


def _items(obj: object, what: str) -> List[Any]:
    """A list from a list, a tuple or an array (by its own ``tolist``); nothing else."""
    if is_array_like(obj):
        array = obj if hasattr(obj, "tolist") else obj.__array__()  # type: ignore[attr-defined]
        return list(array.tolist())
    if not isinstance(obj, (list, tuple)):
        raise InvalidParameterError(f"{what} must be a list, a tuple or an array, got {obj!r}")
    return list(obj)


def _pair(lower: object, upper: object, what: str) -> Pair:
    if not (is_real(lower) and is_real(upper)):
        raise InvalidParameterError(f"{what} must be two numbers (lower, upper), got ({lower!r}, {upper!r})")
    low, high = float(lower), float(upper)  # type: ignore[arg-type]
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise InvalidParameterError(f"{what} must be finite with lower < upper, got ({lower!r}, {upper!r})")
    return low, high


def _key(key: object, what: str) -> Key:
    if isinstance(key, str):
        return key
    if is_real(key) and float(key).is_integer():  # type: ignore[arg-type]
        return int(key)  # type: ignore[call-overload, no-any-return]
    raise InvalidParameterError(f"{what} names a feature by its name (a str) or its position (an int), got {key!r}")


def _coding(values: object, what: str) -> Coding:
    try:
        return Coding.of_values(_items(values, what), what)
    except SchemaError as error:
        raise InvalidParameterError(str(error)) from None


def declare(
    bounds: object = None, categories: object = None, categorical_features: object = None, classes: object = None,
) -> Declared:
    """Check the schema parameters of an estimator (InvalidParameterError naming the parameter).

    >>> d = declare(bounds=([0, 0], [10, 1]), classes=[0, 1])
    >>> d.per_feature, d.classes.texts
    (((0.0, 10.0), (0.0, 1.0)), ('0', '1'))
    """
    declared: Dict[str, Any] = {}
    if bounds is not None:
        if isinstance(bounds, Mapping):
            declared["by_key"] = {
                _key(k, "bounds="): _pair(*_two(v, f"bounds[{k!r}]"), f"bounds[{k!r}]") for k, v in bounds.items()
            }
        else:
            lower, upper = _two(bounds, "bounds=")
            if is_real(lower) and is_real(upper):
                declared["every"] = _pair(lower, upper, "bounds=")
            else:
                lows, highs = _items(lower, "bounds= lower"), _items(upper, "bounds= upper")
                if len(lows) != len(highs):
                    raise InvalidParameterError(
                        f"bounds= gives {len(lows)} lower and {len(highs)} upper bounds; give one pair per feature"
                    )
                declared["per_feature"] = tuple(
                    None if lo is None and hi is None else _pair(lo, hi, f"bounds= of feature {j}")
                    for j, (lo, hi) in enumerate(zip(lows, highs))
                )
    if categories is not None:
        if not isinstance(categories, Mapping):
            raise InvalidParameterError(
                f"categories= must map each categorical feature to its public categories, got {categories!r}"
            )
        declared["categories"] = {
            _key(k, "categories="): _coding(v, f"categories[{k!r}]") for k, v in categories.items()
        }
    if categorical_features is not None:
        features = _items(categorical_features, "categorical_features=")
        if features and all(isinstance(f, bool) for f in features):  # a boolean mask
            features = [j for j, chosen in enumerate(features) if chosen]
        declared["categorical"] = tuple(_key(f, "categorical_features=") for f in features)
    if classes is not None:
        declared["classes"] = _coding(classes, "classes=")
    return Declared(**declared)


def _two(obj: object, what: str) -> Tuple[Any, Any]:
    items = _items(obj, what)
    if len(items) != 2:
        raise InvalidParameterError(
            f"{what} must be a pair (lower, upper) of numbers or of sequences with one entry per feature, or a "
            f"mapping from features to pairs; got {obj!r}"
        )
    return items[0], items[1]


@dataclass(frozen=True)
class FitSchema:
    """A public schema and how a table's columns and labels meet it.

    ``order[a]`` is the table column read as attribute ``a``; ``columns[a]``
    the coding of a categorical attribute (None for a continuous one);
    ``classes`` the coding of the labels (its values are what ``predict``
    returns); ``read_off`` the parts read off the data (also in
    ``schema.leaks``).
    """

    schema: Schema
    order: Tuple[int, ...]
    columns: Tuple[Optional[Coding], ...]
    classes: Coding
    read_off: Tuple[str, ...] = ()

    def encode(self, table: Table) -> List[List[Any]]:
        """The table's columns in schema order as :meth:`~refdp.data.Dataset.from_codes` takes them."""
        return [
            numbers(table.columns[j], a.name) if coding is None else category_codes(table.columns[j], coding, a.name)
            for a, j, coding in zip(self.schema.attributes, self.order, self.columns)
        ]

    def label_codes(self, labels: Sequence[object]) -> List[int]:
        """The class code of every label (SchemaError for a label that is not a public class)."""
        return label_codes(labels, self.classes)


def feature_names(table: Table) -> Tuple[str, ...]:
    """The table's column names, or ``x0``, ``x1``, ... when it has none (scikit-learn's names).

    >>> from refdp.data.rows import read_table
    >>> feature_names(read_table([[1, 2]]))
    ('x0', 'x1')
    """
    return table.names if table.names is not None else tuple(f"x{j}" for j in range(table.n_columns))


def _positions(keys: Sequence[Key], names: Sequence[str], what: str) -> List[int]:
    out = []
    for key in keys:
        if isinstance(key, int):
            if not 0 <= key < len(names):
                raise InvalidParameterError(f"{what} names feature {key}, but X has {len(names)} features")
            out.append(key)
        elif key in names:
            out.append(names.index(key))
        else:
            raise InvalidParameterError(
                f"{what} names {key!r}, which is not a feature of X; its features are {', '.join(names)} (a "
                "DataFrame's are its column names, an array's or a list's x0, x1, ...)"
            )
    return out


def _sorted_unique(values: Sequence[object], what: str) -> List[object]:
    try:
        unique = list(dict.fromkeys(values))
    except TypeError:
        bad = next(v for v in values if not _hashable(v))
        raise DataError(f"{what} holds {bad!r}, a {type(bad).__name__}; values must be numbers or strings") from None
    for value in unique:
        if value is None or (is_real(value) and not math.isfinite(float(value))):  # type: ignore[arg-type]
            raise DataError(f"{what} holds a missing or non-finite value ({value!r}, NaN or inf); drop or fix the row")
    try:
        return sorted(unique)  # type: ignore[type-var]
    except TypeError:  # mixed types: by type, then by text
        return sorted(unique, key=lambda v: (type(v).__name__, str(v)))


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _read_classes(labels: Sequence[object]) -> Coding:
    for value in labels:
        if is_complex(value):
            raise DataError(f"y holds {value!r}: Complex data not supported; give class labels")
        if is_real(value) and math.isfinite(float(value)) and not float(value).is_integer():  # type: ignore[arg-type]
            raise DataError(
                f"Unknown label type: continuous. y holds numbers such as {value!r} that are not whole: a "
                "classifier needs class labels (declare them with classes= if these are)"
            )
    return Coding.of_values(_sorted_unique(labels, "y"), "the classes read off y")


def _label_name(names: Sequence[str], wanted: Optional[str]) -> str:
    label = wanted or "y"
    while label in names:
        label += "_"
    return label


def fit_schema(table: Table, labels: Sequence[object], declared: Declared, label: Optional[str] = None) -> FitSchema:
    """The schema of ``table`` from ``declared``; what it leaves open is read off the data and recorded.

    The class column is called ``label`` (a Series's name, say), or ``y``,
    with underscores added while a feature has that name.

    >>> from refdp.data.rows import read_table
    >>> fs = fit_schema(read_table([[1.5, "a"], [2.5, "b"]]), [0, 1], declare(bounds={0: (0, 10)},
    ...     categories={1: ["a", "b"]}, classes=[0, 1]))
    >>> [a.kind for a in fs.schema.attributes], fs.schema.classes, fs.read_off
    (['continuous', 'categorical'], ('0', '1'), ())
    """
    names = feature_names(table)
    n = len(names)
    categorical = set(_positions(declared.categorical, names, "categorical_features="))
    categories = dict(zip(_positions(list(declared.categories), names, "categories="), declared.categories.values()))
    by_key = dict(zip(_positions(list(declared.by_key), names, "bounds="), declared.by_key.values()))
    if declared.per_feature is not None and len(declared.per_feature) != n:
        raise InvalidParameterError(
            f"bounds= gives bounds for {len(declared.per_feature)} features but X has {n}; give one pair per feature"
        )
    attributes: List[Attribute] = []
    codings: List[Optional[Coding]] = []
    read_off: List[str] = []
    for j, name in enumerate(names):
        if j in categorical or j in categories:
            if j in by_key:
                raise InvalidParameterError(
                    f"feature {name!r} is categorical (categories= or categorical_features=) but bounds= gives it "
                    "bounds; declare it one way"
                )
            coding = categories.get(j)
            leak = "" if coding is not None else "categories"
        else:
            per_feature = declared.per_feature[j] if declared.per_feature is not None else None
            pair = by_key.get(j) or per_feature or declared.every
            coding, pair, leak = (None, pair, "") if pair is not None else _undeclared(table, j, name)
        if leak:
            read_off.append(f"{leak} of {name!r} read off the data (estimator fit)")
            coding = _read_categories(table, j, name) if leak.endswith("categories") else coding
        if coding is None:
            assert pair is not None
            attributes.append(ContinuousAttribute(name, *pair))
        else:
            attributes.append(CategoricalAttribute(name, coding.texts))
        codings.append(coding)
    classes = declared.classes
    if classes is None:
        classes = _read_classes(labels)
        read_off.append("classes read off the data (estimator fit)")
    schema = Schema(tuple(attributes), _label_name(names, label), classes.texts, tuple(read_off))
    return FitSchema(schema, tuple(range(n)), tuple(codings), classes, tuple(read_off))


def _undeclared(table: Table, j: int, name: str) -> Tuple[None, Optional[Pair], str]:
    """A feature the parameters do not declare: its bounds when it is continuous, and what was read off.

    Continuous when its dtype is numeric, or (without a dtype that says) when
    every value is a number; the kind then is read off the values too.
    """
    hint, column = table.hints[j], table.columns[j]
    kind = "" if hint else "kind and "
    if hint == NUMBER or (hint != CATEGORY and all(is_real(v) for v in column)):
        return None, leaky_bounds(numbers(column, name), name), f"{kind}bounds"
    return None, None, f"{kind}categories"


def _read_categories(table: Table, j: int, name: str) -> Coding:
    declared = table.categories[j]
    values = list(declared) if declared is not None else _sorted_unique(table.columns[j], f"column {name!r}")
    return Coding.of_values(values, f"the categories of {name!r} read off the data")


def given_schema(table: Table, labels: Sequence[object], schema: Schema) -> FitSchema:
    """How ``table`` meets a given ``schema``: a DataFrame by column name, other tables by position.

    Categories and classes match by text or by the number a text spells; the
    labels come back as numbers when every label of ``labels`` is one.
    """
    if table.names is not None:
        missing = [name for name in schema.names if name not in table.names]
        extra = [name for name in table.names if name not in schema.names]
        if missing or extra:
            raise SchemaError(
                f"X's columns do not match the schema's attributes: missing {missing}, not in the schema {extra}; "
                "select the schema's columns (X[list(schema.names)])"
            )
        order = tuple(table.names.index(name) for name in schema.names)
    elif table.n_columns != schema.n_attributes:
        raise DataError(
            f"X has {table.n_columns} features but the schema has {schema.n_attributes} attributes "
            f"{list(schema.names)}; every row needs one value per attribute"
        )
    else:
        order = tuple(range(table.n_columns))
    fitted = dataset_schema(schema, order)
    if labels and all(is_real(v) for v in labels):
        return FitSchema(schema, order, fitted.columns, fitted.classes.as_numbers())
    return fitted


def dataset_schema(schema: Schema, order: Optional[Tuple[int, ...]] = None) -> FitSchema:
    """How rows in ``schema``'s own order and texts meet it (a Dataset's schema, or a given one).

    >>> from refdp.data import load_builtin
    >>> dataset_schema(load_builtin("vote").schema).classes.values
    ('democrat', 'republican')
    """
    columns = tuple(
        Coding.of_texts(a.values) if isinstance(a, CategoricalAttribute) else None for a in schema.attributes
    )
    return FitSchema(
        schema, tuple(range(schema.n_attributes)) if order is None else order, columns,
        Coding.of_texts(schema.classes),
    )
