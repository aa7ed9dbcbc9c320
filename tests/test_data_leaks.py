"""leaky_infer_schema: it works, it says it leaks, and neighbours get different schemas."""

from __future__ import annotations

import copy
import io
import math
from typing import Any, List, Sequence, Tuple

import pytest

from refdp.data import (
    CategoricalAttribute,
    ContinuousAttribute,
    Dataset,
    RawValue,
    leaky_infer_schema,
    read_arff,
)
from refdp.errors import DataError, InvalidParameterError

Rows = List[Sequence[RawValue]]

# (name, relation, D, D') with D' a neighbour of D; each row is (colour, age, label).
NEIGHBOURS: List[Tuple[str, str, List[Tuple[str, float, str]], List[Tuple[str, float, str]]]] = [
    (
        "domain, add-remove",
        "add-remove",
        [("red", 30, "yes"), ("red", 40, "no")],
        [("red", 30, "yes"), ("red", 40, "no"), ("blue", 35, "yes")],
    ),
    (
        "bound, add-remove",
        "add-remove",
        [("red", 30, "yes"), ("red", 40, "no")],
        [("red", 30, "yes"), ("red", 40, "no"), ("red", 95, "yes")],
    ),
    (
        "bound, substitute",
        "substitute",
        [("red", 30, "yes"), ("red", 40, "no")],
        [("red", 30, "yes"), ("red", 95, "no")],
    ),
    (
        "domain, substitute",
        "substitute",
        [("red", 30, "yes"), ("red", 40, "no")],
        [("red", 30, "yes"), ("blue", 40, "no")],
    ),
    (
        "classes, substitute",
        "substitute",
        [("red", 30, "yes"), ("red", 40, "no")],
        [("red", 30, "yes"), ("red", 40, "maybe")],
    ),
]


def _infer(data: List[Tuple[str, float, str]]) -> Any:
    return leaky_infer_schema(
        [(c, a) for c, a, _ in data],
        [y for _, _, y in data],
        attribute_names=("colour", "age"),
        continuous=("age",),
    )


def _is_neighbour(relation: str, d: List[Any], e: List[Any]) -> bool:
    if relation == "add-remove":
        longer, shorter = (d, e) if len(d) > len(e) else (e, d)
        return len(longer) == len(shorter) + 1 and any(
            longer[:i] + longer[i + 1 :] == shorter for i in range(len(longer))
        )
    return len(d) == len(e) and sum(a != b for a, b in zip(d, e)) == 1


@pytest.mark.smoke
@pytest.mark.claim("schema-inference-leaks")
@pytest.mark.parametrize("case, relation, d, d_prime", NEIGHBOURS, ids=[n[0] for n in NEIGHBOURS])
def test_neighbours_get_different_schemas(
    case: str, relation: str, d: List[Any], d_prime: List[Any]
) -> None:
    assert _is_neighbour(relation, d, d_prime)
    s, s_prime = _infer(d), _infer(d_prime)
    # I is deterministic: the event {I(D)} has probability 1 under D and 0
    # under D', so no finite epsilon bounds the ratio.
    assert s != s_prime, case
    for schema in (s, s_prime):
        assert len(schema.leaks) == 3
        assert any("domain of 'colour'" in leak for leak in schema.leaks)
        assert any("bounds of 'age'" in leak for leak in schema.leaks)
        assert any("classes of 'class'" in leak for leak in schema.leaks)
    assert s.to_json()["leaks"] == list(s.leaks)


@pytest.mark.claim("schema-inference-leaks")
def test_declared_schemas_do_not_depend_on_the_neighbour() -> None:
    header = "@relation r\n@attribute colour {red, blue}\n@attribute age real\n@attribute class {yes, no, maybe}\n@data\n"
    for _, _, d, d_prime in NEIGHBOURS:
        a = read_arff(io.StringIO(header + "".join(f"{c},{x},{y}\n" for c, x, y in d)), bounds={"age": (0, 120)})
        b = read_arff(io.StringIO(header + "".join(f"{c},{x},{y}\n" for c, x, y in d_prime)), bounds={"age": (0, 120)})
        assert a.schema == b.schema and a.schema.leaks == ()


@pytest.mark.smoke
def test_inferred_schema_fits_its_data() -> None:
    rows: Rows = [["b", "2.5", "x"], ["a", 7, "x"], ["b", -1.0, "y"]]
    labels = ["no", "yes", "no"]
    before = copy.deepcopy((rows, labels))
    schema = leaky_infer_schema(
        rows, labels, attribute_names=["c", "n", "k"], continuous=["n"], label="outcome"
    )
    assert (rows, labels) == before
    assert schema.attributes == (
        CategoricalAttribute("c", ("a", "b")),
        ContinuousAttribute("n", -1.0, 7.0),
        CategoricalAttribute("k", ("x", "y")),
    )
    assert schema.label == "outcome" and schema.classes == ("no", "yes")
    data = Dataset.from_rows(schema, rows, labels)
    assert data.schema.leaks == schema.leaks and len(data) == 3


def test_constant_columns_get_a_proper_interval() -> None:
    schema = leaky_infer_schema([[5], [5]], ["a", "a"], attribute_names=["n"], continuous=["n"])
    assert schema.attributes == (ContinuousAttribute("n", 4.5, 5.5),)
    huge = leaky_infer_schema([[1e300]], ["a"], attribute_names=["n"], continuous=["n"])
    n = huge.attributes[0]
    assert isinstance(n, ContinuousAttribute) and n.lower < 1e300 < n.upper


@pytest.mark.parametrize(
    "rows, labels, kwargs, error, message",
    [
        ([], [], {}, DataError, "no rows"),
        ([["a", 1]], ["y", "z"], {}, DataError, "1 rows but 2 labels"),
        ([["a"]], ["y"], {}, DataError, "row 0 has 1 values but 2"),
        ([["a", math.inf]], ["y"], {}, DataError, "'n': inf is not a finite"),
        ([["a", "x"]], ["y"], {}, DataError, "'n': 'x' is not a finite"),
        ([["a", True]], ["y"], {}, DataError, "'n': True is not a finite"),
        ([[1, 1]], ["y"], {}, DataError, "'c': categorical values must be non-empty strings"),
        ([["a", 1]], [""], {}, DataError, "'class': categorical values"),
        ([["a", 1]], ["y"], {"continuous": ["z"]}, InvalidParameterError, "continuous must name"),
        ([["a", 1]], ["y"], {"continuous": "n"}, InvalidParameterError, "continuous must name"),
        ([["a", 1]], ["y"], {"attribute_names": "cn"}, InvalidParameterError, "not one string"),
    ],
)
def test_bad_input(rows: Rows, labels: List[str], kwargs: Any, error: type, message: str) -> None:
    arguments = {"attribute_names": ["c", "n"], "continuous": ["n"], **kwargs}
    with pytest.raises(error, match=message):
        leaky_infer_schema(rows, labels, **arguments)
