"""Schemas: validation, lookups and the exact JSON round trip."""

from __future__ import annotations

import copy
import json
import math
from pathlib import Path
from typing import Any, Dict, List

import pytest
from hypothesis import given
from hypothesis import strategies as st

from refdp.data import (
    Attribute,
    CategoricalAttribute,
    ContinuousAttribute,
    Schema,
    read_schema,
)
from refdp.errors import SchemaError


def _schema() -> Schema:
    return Schema(
        attributes=(
            CategoricalAttribute("colour", ("red", "green")),
            ContinuousAttribute("age", 0, 120),
        ),
        label="class",
        classes=("yes", "no"),
    )


@pytest.mark.smoke
def test_lookups() -> None:
    schema = _schema()
    assert schema.n_attributes == 2 and schema.n_classes == 2
    assert schema.names == ("colour", "age")
    assert schema.index_of("age") == 1
    assert schema.attribute("colour") == CategoricalAttribute("colour", ("red", "green"))
    assert schema.class_index("no") == 1
    age = schema.attribute("age")
    assert isinstance(age, ContinuousAttribute) and age.lower == 0.0 and type(age.lower) is float
    colour = schema.attribute("colour")
    assert isinstance(colour, CategoricalAttribute)
    assert colour.code("green") == 1 and colour.n_values == 2 and colour.kind == "categorical"
    assert age.contains(120.0) and not age.contains(math.nan) and not age.contains(-0.5)
    with pytest.raises(TypeError):
        colour.codes["blue"] = 2  # type: ignore[index]
    assert schema.leaks == ()


def test_lookup_errors_name_the_alternatives() -> None:
    schema = _schema()
    with pytest.raises(SchemaError, match="no attribute named 'size'.*'colour'"):
        schema.index_of("size")
    with pytest.raises(SchemaError, match="unknown class 'maybe'.*'yes', 'no'"):
        schema.class_index("maybe")
    colour = schema.attribute("colour")
    assert isinstance(colour, CategoricalAttribute)
    with pytest.raises(SchemaError, match="no value 'blue'.*declare"):
        colour.code("blue")


def test_lists_are_copied_into_tuples() -> None:
    values = ["a", "b"]
    attribute = CategoricalAttribute("x", values)  # type: ignore[arg-type]
    values.append("c")
    assert attribute.values == ("a", "b")
    classes = ["p", "q"]
    schema = Schema([attribute], "y", classes)  # type: ignore[arg-type]
    classes.clear()
    assert schema.classes == ("p", "q") and schema.attributes == (attribute,)
    assert hash(schema) == hash(Schema((attribute,), "y", ("p", "q")))


@pytest.mark.parametrize(
    "build, message",
    [
        (lambda: ContinuousAttribute("x", 1, 1), "strictly below"),
        (lambda: ContinuousAttribute("x", 2, 1), "strictly below"),
        (lambda: ContinuousAttribute("x", 0, math.inf), "finite public bounds"),
        (lambda: ContinuousAttribute("x", math.nan, 1), "finite public bounds"),
        (lambda: ContinuousAttribute("x", True, 2), "real number"),
        (lambda: ContinuousAttribute("x", "0", 2), "real number"),  # type: ignore[arg-type]
        (lambda: ContinuousAttribute("", 0, 1), "non-empty string"),
        (lambda: CategoricalAttribute("x", ()), "is empty"),
        (lambda: CategoricalAttribute("x", ("a", "a")), r"\['a'\] more than once"),
        (lambda: CategoricalAttribute("x", "abc"), "tuple or list"),  # type: ignore[arg-type]
        (lambda: CategoricalAttribute("x", ("a", "")), "non-empty strings"),
        (lambda: CategoricalAttribute("x", ("a", 1)), "non-empty strings"),  # type: ignore[arg-type]
        (lambda: CategoricalAttribute(3, ("a",)), "non-empty string"),  # type: ignore[arg-type]
    ],
)
def test_bad_attributes(build: Any, message: str) -> None:
    with pytest.raises(SchemaError, match=message):
        build()


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (
            dict(
                attributes=(CategoricalAttribute("a", ("x",)), ContinuousAttribute("a", 0, 1)),
                label="y",
                classes=("p",),
            ),
            "'a' is used twice",
        ),
        (dict(attributes=(CategoricalAttribute("y", ("x",)),), label="y", classes=("p",)), "also an attribute"),
        (dict(attributes=(), label="y", classes=()), "is empty"),
        (dict(attributes=(), label="y", classes=("p", "p")), "more than once"),
        (dict(attributes=(), label="", classes=("p",)), "non-empty string"),
        (dict(attributes=("a",), label="y", classes=("p",)), "CategoricalAttribute or"),
        (dict(attributes=(), label="y", classes=("p",), leaks="oops"), "tuple or list"),
        (dict(attributes=(), label="y", classes=("p",), leaks=("",)), "leak description"),
    ],
)
def test_bad_schemas(kwargs: Dict[str, Any], message: str) -> None:
    before = copy.deepcopy(kwargs)
    with pytest.raises(SchemaError, match=message):
        Schema(**kwargs)
    assert kwargs == before


@pytest.mark.smoke
def test_one_class_and_no_attributes_are_allowed() -> None:
    schema = Schema((), "y", ("only",))
    assert schema.n_classes == 1 and schema.n_attributes == 0


@pytest.mark.smoke
def test_json_round_trip_is_exact() -> None:
    schema = Schema(
        attributes=(
            ContinuousAttribute("x", 0.1, 1 / 3),
            CategoricalAttribute("c", ("é", "a b", "?")),
        ),
        label="class",
        classes=("1", "0"),
        leaks=("bounds of 'x' read off the data",),
    )
    obj = schema.to_json()
    again = Schema.from_json(json.loads(json.dumps(obj)))
    assert again == schema
    assert again.leaks == schema.leaks
    x = again.attribute("x")
    assert isinstance(x, ContinuousAttribute) and x.upper == 1 / 3


_names = st.text(min_size=1, max_size=8)


@st.composite
def schemas(draw: Any) -> Schema:
    names = draw(st.lists(_names, unique=True, max_size=6))
    label = draw(_names.filter(lambda n: n not in names))
    attributes: List[Attribute] = []
    for name in names:
        if draw(st.booleans()):
            attributes.append(
                CategoricalAttribute(name, tuple(draw(st.lists(_names, min_size=1, max_size=5, unique=True))))
            )
        else:
            a = draw(st.floats(allow_nan=False, allow_infinity=False))
            b = draw(st.floats(allow_nan=False, allow_infinity=False).filter(lambda v: v != a))
            attributes.append(ContinuousAttribute(name, min(a, b), max(a, b)))
    classes = tuple(draw(st.lists(_names, min_size=1, max_size=4, unique=True)))
    leaks = tuple(draw(st.lists(_names, max_size=2)))
    return Schema(tuple(attributes), label, classes, leaks)


@given(schemas())
def test_json_round_trip_property(schema: Schema) -> None:
    text = json.dumps(schema.to_json())
    assert Schema.from_json(json.loads(text)) == schema
    assert Schema.from_json(json.loads(text)).to_json() == schema.to_json()


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda o: o.update(format="other"), "not a refdp schema"),
        (lambda o: o.update(extra=1), "unknown keys"),
        (lambda o: o.pop("label"), "lacks keys"),
        (lambda o: o.update(attributes={}), "must be a list"),
        (lambda o: o["attributes"][0].update(kind="ordinal"), "kind 'ordinal'"),
        (lambda o: o["attributes"][0].pop("values"), "exactly the keys"),
        (lambda o: o["attributes"][1].update(lower="0"), "real number"),
        (lambda o: o["attributes"][1].update(upper=-1.0), "strictly below"),
        (lambda o: o.update(classes="yes"), "tuple or list"),
        (lambda o: o["attributes"].__setitem__(0, "colour"), "must be an object"),
    ],
)
def test_malformed_json(mutate: Any, message: str) -> None:
    obj = _schema().to_json()
    mutate(obj)
    before = copy.deepcopy(obj)
    with pytest.raises(SchemaError, match=message):
        Schema.from_json(obj)
    assert obj == before


def test_from_json_names_every_wrong_attribute_at_once() -> None:
    obj = _schema().to_json()
    obj["attributes"] = [
        {"name": "age", "kind": "continuous", "lower": 0},
        {"name": "height", "kind": "continuous", "upper": 3},
        {"name": "colour", "kind": "categorical", "values": ["red"]},
    ]
    with pytest.raises(SchemaError, match="2 attributes of the schema JSON are wrong: schema JSON attribute 0 .*"
                                          "; schema JSON attribute 1 "):
        Schema.from_json(obj)


def test_from_json_rejects_non_objects() -> None:
    with pytest.raises(SchemaError, match="JSON object"):
        Schema.from_json([1, 2])


def test_leaks_key_is_optional_in_json() -> None:
    obj = _schema().to_json()
    del obj["leaks"]
    assert Schema.from_json(obj) == _schema()


def test_read_schema(tmp_path: Path) -> None:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(_schema().to_json()), encoding="utf-8")
    assert read_schema(path) == _schema()
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(SchemaError, match="not JSON"):
        read_schema(path)
    with pytest.raises(SchemaError, match="cannot read schema file"):
        read_schema(tmp_path / "absent.json")
