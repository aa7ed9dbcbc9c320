"""CSV and ARFF readers: quoting, comments, missing-value policies, errors; load()."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path
from typing import Any, Dict

import pytest

from refdp.data import (
    CategoricalAttribute,
    ContinuousAttribute,
    Dataset,
    MissingPolicy,
    Schema,
    load,
    read_arff,
    read_csv,
)
from refdp.errors import DataError, InvalidParameterError, SchemaError

SCHEMA = Schema(
    attributes=(
        CategoricalAttribute("colour", ("red", "green, dark", "?")),
        ContinuousAttribute("age", 0.0, 100.0),
    ),
    label="class",
    classes=("yes", "no"),
)
NO_MARKER = Schema(
    attributes=(CategoricalAttribute("colour", ("red", "green, dark")), ContinuousAttribute("age", 0.0, 100.0)),
    label="class",
    classes=("yes", "no"),
)


def _table(data: Dataset) -> list:  # type: ignore[type-arg]
    return [(data.row(i), data.label(i)) for i in range(len(data))]


@pytest.mark.smoke
def test_csv_with_header_quoting_and_comments() -> None:
    text = (
        "# exported by hand\n"
        "age, class ,colour,note\n"
        '30,yes,red,"a, b"\n'
        "\n"
        '  41.5 , no , "green, dark" , x\n'
    )
    data = read_csv(io.StringIO(text), schema=SCHEMA, comment="#")
    assert _table(data) == [(("red", 30.0), "yes"), (("green, dark", 41.5), "no")]
    assert data.schema == SCHEMA


def test_csv_without_header_and_from_gzip(tmp_path: Path) -> None:
    path = tmp_path / "d.csv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write("red,30,yes\n?,1e1,no\n")
    data = read_csv(path, schema=SCHEMA, header=False)
    assert _table(data) == [(("red", 30.0), "yes"), (("?", 10.0), "no")]
    assert read_csv(str(path), schema=SCHEMA, header=False).class_counts() == [1, 1]


def test_csv_label_names_the_class_column() -> None:
    data = read_csv(io.StringIO("colour,age,outcome\nred,3,no\n"), schema=SCHEMA, label="outcome")
    assert _table(data) == [(("red", 3.0), "no")]


def test_csv_missing_policies() -> None:
    text = "colour,age,class\nred,1,yes\n?,2,no\nred,?,no\n"
    default = read_csv(io.StringIO(text), schema=SCHEMA)
    # the default: the category '?' the schema declares, and the midpoint of the public bounds
    assert _table(default) == [(("red", 1.0), "yes"), (("?", 2.0), "no"), (("red", 50.0), "no")]
    assert default.missing == MissingPolicy("category", "midpoint")
    kept = read_csv(io.StringIO(text), schema=SCHEMA, continuous_missing="drop")
    assert _table(kept) == [(("red", 1.0), "yes"), (("?", 2.0), "no")]
    assert kept.missing == MissingPolicy("category", "drop")
    dropped = read_csv(
        io.StringIO(text), schema=SCHEMA, categorical_missing="drop", continuous_missing="drop"
    )
    assert _table(dropped) == [(("red", 1.0), "yes")]
    with pytest.raises(DataError, match="line 4 of <stream>, column 'age': missing continuous value.*'midpoint'.*'drop'"):
        read_csv(io.StringIO(text), schema=SCHEMA, continuous_missing="error")
    with pytest.raises(DataError, match="line 3 of <stream>, column 'colour': missing value; fix"):
        read_csv(io.StringIO(text), schema=SCHEMA, categorical_missing="error", continuous_missing="drop")
    # a given schema gets the category '?' where it lacks it, whatever the rows hold (a rule of the format)
    added = read_csv(io.StringIO(text), schema=NO_MARKER, continuous_missing="drop")
    assert added.schema.attributes[0] == CategoricalAttribute("colour", ("red", "green, dark", "?"))
    assert _table(added) == [(("red", 1.0), "yes"), (("?", 2.0), "no")]
    assert read_csv(io.StringIO("colour,age,class\nred,1,yes\n"), schema=NO_MARKER).schema == added.schema
    assert read_csv(io.StringIO(text), schema=NO_MARKER, categorical_missing="drop",
                    continuous_missing="drop").schema == NO_MARKER
    # another marker: a missing value is still the category '?'
    custom = read_csv(io.StringIO("colour,age,class\nNA,NA,yes\nred,2,no\n"), schema=NO_MARKER, missing="NA")
    assert _table(custom) == [(("?", 50.0), "yes"), (("red", 2.0), "no")]


def test_csv_missing_class() -> None:
    text = "colour,age,class\nred,1,?\nred,2,no\n"
    with pytest.raises(DataError, match="line 2 of <stream>, column 'class': the class is missing"):
        read_csv(io.StringIO(text), schema=SCHEMA)
    with pytest.raises(DataError, match="the class is missing"):
        read_csv(io.StringIO(text), schema=SCHEMA, categorical_missing="error")
    assert len(read_csv(io.StringIO(text), schema=SCHEMA, categorical_missing="drop")) == 1
    with pytest.raises(DataError, match="has no rows left after dropping"):
        read_csv(io.StringIO("colour,age,class\nred,?,no\n"), schema=SCHEMA, continuous_missing="drop")


@pytest.mark.parametrize(
    "text, kwargs, error, message",
    [
        ("colour,age,class\nred,1\n", {}, DataError, "line 2 of <stream> has 2 fields but the header has 3"),
        ("red,1,yes,extra\n", {"header": False}, DataError, r"line 1 .* has 4 fields but the schema needs"),
        ("colour,class\nred,yes\n", {}, SchemaError, r"lacks the column\(s\) \['age'\]"),
        ("colour,age,klass\nred,1,yes\n", {}, SchemaError, "pass label="),
        ("colour,age,age,class\nred,1,1,yes\n", {}, DataError, "column 'age' twice"),
        ("colour,age,class\nblue,1,yes\n", {}, SchemaError, "line 2 of <stream>, column 'colour': unknown category 'blue'"),
        ("colour,age,class\nred,101,yes\n", {}, SchemaError, "line 2 of <stream>, column 'age': 101.0 lies outside"),
        ("colour,age,class\nred,nan,yes\n", {}, DataError, "line 2 .* nan is not a finite number"),
        ("colour,age,class\nred,1,perhaps\n", {}, SchemaError, "line 2 of <stream>: unknown class 'perhaps'"),
        ("", {}, DataError, "is empty"),
        ("colour,age,class\n", {}, DataError, "no rows left"),
        # An unterminated quote swallows the rest of the file into one field.
        ('colour,age,class\n"red,1,yes\nred,2,no\n', {}, DataError, "line 3 of <stream> has 1 fields"),
        ("red,1,yes\n", {"header": False, "label": "class"}, InvalidParameterError, "without a header"),
        ("colour,age,class\nred,1,yes\n", {"label": "age"}, InvalidParameterError, "'age' is an attribute"),
        ("red,1,yes\n", {"categorical_missing": "guess"}, InvalidParameterError, "categorical_missing must be one of"),
        ("red,1,yes\n", {"continuous_missing": "category"}, InvalidParameterError, "continuous_missing must be one of"),
    ],
)
def test_csv_errors(text: str, kwargs: Dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        read_csv(io.StringIO(text), schema=SCHEMA, **kwargs)


def test_csv_module_errors_name_the_line() -> None:
    text = "colour,age,class\nred,1,yes\n\"" + "x" * 200_000 + "\",2,no\n"
    with pytest.raises(DataError, match="line 3 of <stream>: field larger than field limit"):
        read_csv(io.StringIO(text), schema=SCHEMA)


def test_csv_file_errors(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot open"):
        read_csv(tmp_path / "absent.csv", schema=SCHEMA)
    (tmp_path / "bad.csv").write_bytes(b"colour,age,class\n\xff\xfe,1,yes\n")
    with pytest.raises(DataError, match="UTF-8"):
        read_csv(tmp_path / "bad.csv", schema=SCHEMA)
    (tmp_path / "bad.csv.gz").write_bytes(b"not gzip")
    with pytest.raises(DataError, match="cannot read"):
        read_csv(tmp_path / "bad.csv.gz", schema=SCHEMA)
    with pytest.raises(InvalidParameterError, match="needs a public schema"):
        read_csv(io.StringIO("a\n"), schema=None)  # type: ignore[arg-type]
    with pytest.raises(DataError, match="not text"):
        read_csv(io.BytesIO(b"colour,age,class\n"), schema=SCHEMA)  # type: ignore[arg-type]


ARFF = """% A comment line
@RELATION 'test data'

@attribute 'colour name' { red, 'green, dark', "blue", ? }
@attribute age NUMERIC  % trailing comment
@Attribute size integer
@attribute class {yes,no}

@data
red, 30, 1, yes
'green, dark',41.5,2,no   % a comment after a row
"blue", 0, 3, 'yes'
?, 100, 4, no
'?', 1, 5, no
"""

BOUNDS = {"age": (0.0, 100.0), "size": (0.0, 10.0)}


@pytest.mark.smoke
def test_arff_header_schema_and_rows() -> None:
    data = read_arff(io.StringIO(ARFF.replace("'?'", "red")), bounds=BOUNDS)
    schema = data.schema
    assert schema.label == "class" and schema.classes == ("yes", "no")
    assert schema.attributes == (
        CategoricalAttribute("colour name", ("red", "green, dark", "blue", "?")),
        ContinuousAttribute("age", 0.0, 100.0),
        ContinuousAttribute("size", 0.0, 10.0),
    )
    assert schema.leaks == ()
    assert _table(data) == [
        (("red", 30.0, 1.0), "yes"),
        (("green, dark", 41.5, 2.0), "no"),
        (("blue", 0.0, 3.0), "yes"),
        (("?", 100.0, 4.0), "no"),
        (("red", 1.0, 5.0), "no"),
    ]


def test_arff_header_domains_get_the_missing_category() -> None:
    # With the default policy, every nominal attribute of a header gets the category '?' (last), whatever
    # the rows hold: a rule of the schema format, never read off the data.  The classes do not.
    text = "@relation r\n@attribute a {x, y}\n@attribute b {u, v, ?}\n@attribute c {p, q}\n@data\nx,u,p\ny,?,q\n"
    for rows in (text, text.replace("y,?,q", "y,v,q")):
        data = read_arff(io.StringIO(rows))
        assert data.schema.attributes == (
            CategoricalAttribute("a", ("x", "y", "?")), CategoricalAttribute("b", ("u", "v", "?"))
        )
        assert data.schema.classes == ("p", "q") and data.missing == MissingPolicy()
    assert _table(read_arff(io.StringIO(text.replace("y,?,q", "?,?,q")))) == [(("x", "u"), "p"), (("?", "?"), "q")]
    # error and drop keep the header's domains as declared
    for policy in ("error", "drop"):
        schema = read_arff(io.StringIO(text.replace("y,?,q", "y,v,q")), categorical_missing=policy).schema
        assert schema.attributes == (CategoricalAttribute("a", ("x", "y")), CategoricalAttribute("b", ("u", "v", "?")))
    # A given schema decides instead of the header, with the same rule.
    given = Schema((CategoricalAttribute("a", ("x", "y", "?")), CategoricalAttribute("b", ("u", "v"))), "c", ("p", "q"))
    assert _table(read_arff(io.StringIO(text.replace("y,?,q", "?,v,q")), schema=given)) == [
        (("x", "u"), "p"), (("?", "v"), "q")
    ]
    data = read_arff(io.StringIO(text), schema=given)
    assert data.schema.attributes[1] == CategoricalAttribute("b", ("u", "v", "?")) and data.row(1) == ("y", "?")
    assert read_arff(io.StringIO(text.replace("y,?,q", "y,v,q")), schema=given, categorical_missing="error").schema is given


def test_arff_quoted_question_mark_is_a_value() -> None:
    text = "@relation r\n@attribute a {'?', x}\n@attribute c {p, q}\n@data\n'?',p\n?,q\nx,p\n"
    with pytest.raises(DataError, match="line 6 of <stream>, column 'a': missing value"):
        read_arff(io.StringIO(text), categorical_missing="error")
    data = read_arff(io.StringIO(text))
    # A header that declares '?' itself does not get a second one; the
    # literal and the missing marker then coincide (documented).
    assert data.schema.attributes[0] == CategoricalAttribute("a", ("?", "x"))
    assert [data.row(i)[0] for i in range(3)] == ["?", "?", "x"]
    assert len(read_arff(io.StringIO(text), categorical_missing="drop")) == 2


def test_arff_missing_policies() -> None:
    text = "@relation r\n@attribute a {x, y}\n@attribute n real\n@attribute c {p, q}\n@data\nx,?,p\n?,2,q\ny,3,p\n"
    data = read_arff(io.StringIO(text), bounds={"n": (0, 5)})
    assert _table(data) == [(("x", 2.5), "p"), (("?", 2.0), "q"), (("y", 3.0), "p")]
    with pytest.raises(DataError, match="line 6 of <stream>, column 'n': missing continuous value"):
        read_arff(io.StringIO(text), bounds={"n": (0, 5)}, continuous_missing="error")
    kept = read_arff(io.StringIO(text), bounds={"n": (0, 5)}, continuous_missing="drop")
    assert _table(kept) == [(("?", 2.0), "q"), (("y", 3.0), "p")]
    with pytest.raises(DataError, match="line 7 of <stream>, column 'a': missing value; fix"):
        read_arff(io.StringIO(text), bounds={"n": (0, 5)}, categorical_missing="error", continuous_missing="drop")
    only_y = read_arff(io.StringIO(text), bounds={"n": (0, 5)}, categorical_missing="drop", continuous_missing="drop")
    assert only_y.schema.attributes[0] == CategoricalAttribute("a", ("x", "y"))
    assert _table(only_y) == [(("y", 3.0), "p")] and only_y.missing == MissingPolicy("drop", "drop")


def test_arff_names_every_unbounded_attribute_at_once() -> None:
    text = "@relation r\n@attribute 'a b' real\n@attribute k {x}\n@attribute n integer\n@attribute m numeric\n@attribute c {p}\n@data\n"
    with pytest.raises(SchemaError, match=(
        r"3 numeric attribute\(s\) have no public bounds: 'a b', 'n', 'm'; "
        r"pass bounds=\{'a b': \(lower, upper\), 'n': \(lower, upper\), 'm': \(lower, upper\)\}"
    )):
        read_arff(io.StringIO(text + "1,x,2,3,p\n"), bounds=None)
    with pytest.raises(SchemaError, match=r"1 numeric attribute\(s\) have no public bounds: 'm';"):
        read_arff(io.StringIO(text + "1,x,2,3,p\n"), bounds={"a b": (0, 1), "n": (0, 9)})


def test_arff_label_and_escapes() -> None:
    text = (
        "@relation r\n@attribute c {p, q}\n@attribute a {'it\\'s', \"say \\\"hi\\\"\", 'tab\\tx'}\n"
        "@data\np,'it\\'s'\nq,\"say \\\"hi\\\"\"\np,'tab\\tx'\n"
    )
    data = read_arff(io.StringIO(text), label="c")
    assert data.schema.label == "c" and data.schema.classes == ("p", "q")
    assert data.schema.names == ("a",)
    assert [data.row(i)[0] for i in range(3)] == ["it's", 'say "hi"', "tab\tx"]


@pytest.mark.parametrize(
    "text, kwargs, error, message",
    [
        ("@relation r\n@attribute n numeric\n@attribute c {p}\n@data\n1,p\n", {}, SchemaError, r"1 numeric attribute\(s\) have no public bounds: 'n'; pass bounds=\{'n': \(lower, upper\)\}.*leaky_infer_schema"),
        ("@relation r\n@attribute n numeric\n@attribute c {p}\n@data\n1,p\n", {"bounds": {"m": (0, 1), "n": (0, 1)}}, SchemaError, r"bounds given for \['m'\]"),
        ("@relation r\n@attribute n numeric\n@attribute c {p}\n@data\n1,p\n", {"bounds": {"n": (0, 1, 2)}}, InvalidParameterError, "must be a pair"),
        ("@relation r\n@attribute n numeric\n@attribute c {p}\n@data\n1,p\n", {"bounds": {"n": (1, 0)}}, SchemaError, "strictly below"),
        ("@relation r\n@attribute s string\n@attribute c {p}\n@data\n", {}, SchemaError, "type 'string'"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\n{0 x}\n", {}, SchemaError, "sparse ARFF"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\nx\n", {}, DataError, "line 5 of <stream> has 1 fields but the header declares 2"),
        ("@relation r\n@attribute a {x}\n@attribute c numeric\n@data\nx,1\n", {"bounds": {"c": (0, 2)}}, SchemaError, "the class 'c' is numeric"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\nx,p\n", {"label": "z"}, SchemaError, "no attribute 'z'"),
        ("@relation r\n@attribute a {x}\n@attribute a {p}\n@data\nx,p\n", {}, SchemaError, "declares an attribute name twice"),
        ("@relation r\n@attribute a {x\n@data\n", {}, SchemaError, "lacks its closing"),
        ("@relation r\n@attribute a {}\n@data\n", {}, SchemaError, "empty domain"),
        ("@relation r\n@attribute a {x} junk\n@data\n", {}, SchemaError, "unexpected 'junk'"),
        ("@relation r\n@attribute 'a {x}\n@data\n", {}, SchemaError, "unterminated quoted name"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\n'x,p\n", {}, DataError, "never closed"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\n'x' y,p\n", {}, DataError, "after a quoted value"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\nz,p\n", {}, SchemaError, "line 5 of <stream>, column 'a': unknown category 'z'"),
        ("@relation r\nhello\n", {}, SchemaError, "expected @relation, @attribute or @data"),
        ("% nothing\n", {}, SchemaError, "declares no @attribute"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\n", {}, DataError, "no rows left"),
        ("@relation r\n@attribute a {x}\n@attribute c {p}\n@data\nx,p\n", {"schema": SCHEMA, "bounds": {}}, InvalidParameterError, "either schema or bounds"),
    ],
)
def test_arff_errors(text: str, kwargs: Dict[str, Any], error: type, message: str) -> None:
    with pytest.raises(error, match=message):
        read_arff(io.StringIO(text), **kwargs)


def test_arff_with_a_given_schema() -> None:
    text = "@relation r\n@attribute extra {e}\n@attribute age real\n@attribute colour {red, blue}\n@attribute class {yes, no}\n@data\ne,3,red,no\ne,4,?,yes\n"
    data = read_arff(io.StringIO(text), schema=SCHEMA)
    assert data.schema is SCHEMA
    assert _table(data) == [(("red", 3.0), "no"), (("?", 4.0), "yes")]
    with pytest.raises(SchemaError, match="unknown category 'blue'"):
        read_arff(io.StringIO(text.replace("e,3,red", "e,3,blue")), schema=SCHEMA)
    with pytest.raises(SchemaError, match="'age' is nominal in the header but continuous"):
        read_arff(io.StringIO(text.replace("age real", "age {3, 4}")), schema=SCHEMA)
    with pytest.raises(SchemaError, match=r"attribute\(s\) \['colour'\] are not in the ARFF header"):
        read_arff(io.StringIO(text.replace("colour {", "color {")), schema=SCHEMA)
    # every problem at once
    with pytest.raises(SchemaError, match=r"attribute\(s\) \['colour', 'age'\] are not in the ARFF header"):
        read_arff(io.StringIO(text.replace("colour {", "color {").replace("age real", "years real")), schema=SCHEMA)
    with pytest.raises(SchemaError, match="'colour' is numeric in the header but categorical in the schema; attribute "
                                          "'age' is nominal"):
        read_arff(io.StringIO(text.replace("colour {red, blue}", "colour real").replace("age real", "age {3, 4}")),
                  schema=SCHEMA)
    with pytest.raises(SchemaError, match="no attribute 'class' to use as the class"):
        read_arff(io.StringIO(text.replace("class {", "klass {")), schema=SCHEMA)
    with pytest.raises(InvalidParameterError, match="'age' is an attribute of the schema"):
        read_arff(io.StringIO(text), schema=SCHEMA, label="age")
    with pytest.raises(SchemaError, match="the class 'extra' is numeric"):
        read_arff(io.StringIO(text.replace("extra {e}", "extra real")), schema=SCHEMA, label="extra")


def test_arff_from_gzip_file(tmp_path: Path) -> None:
    path = tmp_path / "t.arff.gz"
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.write(ARFF)
    assert len(read_arff(path, bounds=BOUNDS)) == 5


def test_load_dispatch(tmp_path: Path) -> None:
    assert len(load("tic-tac-toe")) == 958
    assert len(load("monk1", schema=load("monk1").schema)) == 432
    with pytest.raises(InvalidParameterError, match="built-in data set with a fixed schema"):
        load("monk1", label="a1")
    with pytest.raises(InvalidParameterError, match="does not match the built-in"):
        load("monk1", schema=SCHEMA)
    csv_path = tmp_path / "d.csv"
    csv_path.write_text("colour,age,class\nred,1,yes\n", encoding="utf-8")
    assert _table(load(str(csv_path), schema=SCHEMA)) == [(("red", 1.0), "yes")]
    with pytest.raises(InvalidParameterError, match="needs a public schema"):
        load(csv_path)
    with pytest.raises(InvalidParameterError, match="bounds are for ARFF"):
        load(csv_path, schema=SCHEMA, bounds={})
    arff_path = tmp_path / "d.ARFF"
    arff_path.write_text(ARFF, encoding="utf-8")
    assert len(load(arff_path, bounds=BOUNDS)) == 5
    schema_path = tmp_path / "schema.json"
    schema_path.write_text(json.dumps(SCHEMA.to_json()), encoding="utf-8")
    with pytest.raises(InvalidParameterError, match="neither a built-in data set"):
        load(schema_path)
    with pytest.raises(InvalidParameterError, match="neither a built-in data set"):
        load("adult.xlsx")
