"""Built-in data sets: documented sizes and class counts, public schemas, loading."""

from __future__ import annotations

from pathlib import Path

import pytest

from refdp.data import (
    BUILTIN_NAMES,
    CategoricalAttribute,
    ContinuousAttribute,
    describe_builtin,
    load_builtin,
    read_arff,
)
from refdp.data.builtin import (
    ADULT_SCHEMA,
    CREDIT_G_SCHEMA,
    VOTE_SCHEMA,
    _BUILTINS,
    builtin_schema,
)
from refdp.errors import InvalidParameterError

FILES = Path(__file__).resolve().parent.parent / "refdp" / "data" / "files"

# (rows, class counts in schema order), from the data sets' documentation.
EXPECTED = {
    "tic-tac-toe": (958, [626, 332]),
    "monk1": (432, [216, 216]),
    "monk2": (432, [142, 290]),
    "monk3": (432, [228, 204]),
    "vote": (435, [267, 168]),
    "credit-g": (1000, [700, 300]),
    "adult": (32561, [7841, 24720]),
    "adult-test": (16281, [3846, 12435]),
}


@pytest.mark.smoke
def test_names() -> None:
    assert set(BUILTIN_NAMES) == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_rows_and_class_counts(name: str) -> None:
    data = load_builtin(name)
    rows, counts = EXPECTED[name]
    assert len(data) == rows
    assert data.class_counts() == counts
    assert data.schema == builtin_schema(name)
    assert data.schema.leaks == ()
    line = describe_builtin(name)
    assert line.startswith(f"{name}: {rows} rows, {data.schema.n_attributes} attributes")
    assert f"{data.schema.n_classes} classes" in line and "\n" not in line


def test_unknown_name() -> None:
    with pytest.raises(InvalidParameterError, match="no built-in data set 'iris'.*'adult'"):
        load_builtin("iris")
    with pytest.raises(InvalidParameterError, match="no built-in"):
        describe_builtin("iris")


@pytest.mark.smoke
def test_vendored_arff_headers_match_the_public_schemas() -> None:
    # The constants in builtin.py must say what the ARFF headers say; the
    # bounds are ours (the headers only say 'numeric').
    # vote.arff declares n and y; the documentation makes "?" a third
    # disposition, which VOTE_SCHEMA declares (the reader adds nothing).
    header = read_arff(FILES / "vote.arff.gz", categorical_missing="drop").schema
    assert header.label == VOTE_SCHEMA.label and header.classes == VOTE_SCHEMA.classes
    assert [(a.name, a.values + ("?",)) for a in header.attributes] == [  # type: ignore[union-attr]
        (a.name, a.values) for a in VOTE_SCHEMA.attributes  # type: ignore[union-attr]
    ]
    assert read_arff(FILES / "vote.arff.gz", schema=VOTE_SCHEMA).schema is VOTE_SCHEMA
    bounds = {
        a.name: (a.lower, a.upper)
        for a in CREDIT_G_SCHEMA.attributes
        if isinstance(a, ContinuousAttribute)
    }
    credit = read_arff(FILES / "credit-g.arff.gz", bounds=bounds, categorical_missing="error")
    assert credit.schema == CREDIT_G_SCHEMA


def test_adult_domains_match_adult_names() -> None:
    text = (FILES / "adult.names").read_text(encoding="utf-8")
    declared = {}
    for line in text.splitlines():
        name, sep, rest = line.partition(": ")
        if sep and rest.endswith(".") and not line.startswith("|"):
            declared[name] = rest[:-1]
    assert list(declared) == list(ADULT_SCHEMA.names)
    with_missing = {"workclass", "occupation", "native-country"}
    for attribute in ADULT_SCHEMA.attributes:
        if isinstance(attribute, ContinuousAttribute):
            assert declared[attribute.name] == "continuous"
        else:
            values = tuple(v.strip() for v in declared[attribute.name].split(","))
            expected = values + (("?",) if attribute.name in with_missing else ())
            assert attribute.values == expected


def test_adult_test_labels_are_normalised() -> None:
    train, test = load_builtin("adult"), load_builtin("adult-test")
    assert test.schema == train.schema
    assert {test.label(i) for i in range(len(test))} == {">50K", "<=50K"}
    assert test.row(0)[:3] == (25.0, "Private", 226802.0) and test.label(0) == "<=50K"
    assert train.row(0)[:3] == (39.0, "State-gov", 77516.0) and train.label(0) == "<=50K"
    workclass = ADULT_SCHEMA.attribute("workclass")
    assert isinstance(workclass, CategoricalAttribute)
    assert list(train.codes("workclass")).count(workclass.code("?")) == 1836


def test_loading_adult_uncached() -> None:
    # How long this takes is the benchmark's business (the machine may be busy), not a test's.
    data = _BUILTINS["adult"].load()
    assert len(data) == 32561


def test_load_builtin_is_cached_and_immutable() -> None:
    assert load_builtin("vote") is load_builtin("vote")


@pytest.mark.parametrize("name", ["adult.data", "adult.test"])
def test_the_encoded_form_loads_the_same_data_set_as_the_text(name: str) -> None:
    from refdp.data import builtin

    parse = {"adult.data": builtin._parse_adult, "adult.test": builtin._parse_adult_test}[name]
    encoded = builtin._encoded(name, ADULT_SCHEMA)
    assert encoded is not None, f"run: python3 scripts/encode_builtin.py ({name}.codes is missing or stale)"
    parsed = parse()
    assert list(encoded.labels) == list(parsed.labels)
    for j in range(ADULT_SCHEMA.n_attributes):
        assert list(encoded.column(j)) == list(parsed.column(j)), ADULT_SCHEMA.names[j]


def test_an_encoded_form_for_another_schema_is_not_used() -> None:
    from refdp.data.codes import decode, encode

    vote = load_builtin("vote")
    assert decode(encode(vote), ADULT_SCHEMA) is None


def test_a_truncated_encoded_form_is_refused() -> None:
    import zlib

    from refdp.data.codes import decode, encode
    from refdp.errors import DataError

    vote = load_builtin("vote")
    short = zlib.compress(zlib.decompress(encode(vote))[:-1])
    with pytest.raises(DataError, match="bytes after its header"):
        decode(short, vote.schema)
