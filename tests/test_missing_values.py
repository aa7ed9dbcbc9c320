"""Missing values: the public rule and dropping keep neighbours neighbours; real files train, evaluate and predict.

The files in ``tests/files/`` were written for refdp (an invented clinic data
set with missing nominal and numeric values, as ARFF and as CSV with a
schema); Weka's and scikit-learn's sample files are used to measure, not to
test.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from refdp.algorithms import algorithm_names, get_algorithm, model_from_json, train
from refdp.algorithms.models import check_model
from refdp.algorithms.models import MISSING_VALUE_RULE
from refdp.cli import main
from refdp.data import (
    CategoricalAttribute,
    ContinuousAttribute,
    Dataset,
    MissingPolicy,
    Schema,
    load,
    read_arff,
    read_csv,
    read_schema,
)
from refdp.data.predict_rows import encode_row, is_missing, raw_rows, rows_to_predict
from refdp.errors import DataError, ModelError, SchemaError
from refdp.evaluation import cross_validate
from refdp.privacy import Relation
from refdp.tree import dumps_model
from refdp.tree.integrity import model_digest

FILES = Path(__file__).resolve().parent / "files"
ARFF = FILES / "clinic.arff"
CSV = FILES / "clinic.csv"
SCHEMA = FILES / "clinic.schema.json"
BOUNDS = {"age": (0.0, 120.0), "blood pressure": (50.0, 250.0), "chol": (0.0, 600.0)}
BOUNDS_FLAGS = ["--bounds", "age=0:120", "--bounds", "blood pressure=50:250", "--bounds", "chol=0:600"]
ROWS, MISSING_ROWS = 80, 29  # rows of the clinic files, and those with a missing value


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# --- the claims: neighbours stay neighbours -------------------------------------------------------

HEADER = "@relation r\n@attribute colour {red, blue}\n@attribute size real\n@attribute class {p, q}\n@data\n"
RAW_BOUNDS = {"size": (0.0, 10.0)}
# 5.0 is the midpoint of size's bounds: a row with it and one with a missing size read the same
_cells = st.tuples(st.sampled_from(["red", "blue", "?"]), st.sampled_from(["0.5", "3", "5.0", "9.5", "?"]),
                   st.sampled_from(["p", "q"]))
_data = st.lists(_cells, min_size=1, max_size=6)


def _arff(rows: Sequence[Tuple[str, str, str]]) -> str:
    return HEADER + "".join(",".join(row) + "\n" for row in rows)


def _read(rows: Sequence[Tuple[str, str, str]], policy: str) -> Optional[Dataset]:
    """The rows as read by read_arff under ``policy`` for both kinds; None when none is left."""
    import io

    try:
        return read_arff(io.StringIO(_arff(rows)), bounds=RAW_BOUNDS, categorical_missing=policy,
                         continuous_missing="midpoint" if policy == "category" else policy)
    except DataError as exc:
        assert "no rows left" in str(exc)
        return None


def _multiset(data: Optional[Dataset]) -> Counter[Tuple[Any, ...]]:
    if data is None:
        return Counter()
    return Counter(data.row(i) + (data.label(i),) for i in range(len(data)))


def _difference(a: Counter[Tuple[Any, ...]], b: Counter[Tuple[Any, ...]]) -> Tuple[int, int]:
    """(rows of a not in b, rows of b not in a), as multisets."""
    return sum((a - b).values()), sum((b - a).values())


@pytest.mark.claim("missing-values-public-rule")
@settings(max_examples=200)
@given(data=_data, extra=_cells, position=st.integers(0, 5))
def test_the_public_rule_keeps_neighbours_neighbours(
    data: List[Tuple[str, str, str]], extra: Tuple[str, str, str], position: int
) -> None:
    read = _read(data, "category")
    assert read is not None and len(read) == len(data)
    # add-remove: one more raw row is one more encoded row
    added = _read(data + [extra], "category")
    assert added is not None and added.schema == read.schema and added.missing == read.missing
    assert _difference(_multiset(read), _multiset(added)) == (0, 1)
    # substitute: one raw row replaced is one encoded row replaced, or the same data set; the size is kept
    substituted = list(data)
    substituted[position % len(data)] = extra
    other = _read(substituted, "category")
    assert other is not None and other.schema == read.schema and len(other) == len(read)
    assert _difference(_multiset(read), _multiset(other)) in ((1, 1), (0, 0))


@pytest.mark.claim("missing-values-public-rule")
def test_a_missing_value_and_the_fill_read_the_same() -> None:
    # the equal case of the proof: a substitution that the rule turns into no change at all
    one, two = _read([("red", "?", "p")], "category"), _read([("red", "5.0", "p")], "category")
    assert one is not None and two is not None and _multiset(one) == _multiset(two)
    header = _read([("?", "?", "q")], "category")
    assert header is not None and header.row(0) == ("?", 5.0)
    assert header.schema.attributes[0] == CategoricalAttribute("colour", ("red", "blue", "?"))


@pytest.mark.claim("missing-values-drop")
@settings(max_examples=200)
@given(data=_data, extra=_cells, position=st.integers(0, 5))
def test_dropping_keeps_add_remove_neighbours_and_turns_a_substitution_into_at_most_one_change(
    data: List[Tuple[str, str, str]], extra: Tuple[str, str, str], position: int
) -> None:
    read = _multiset(_read(data, "drop"))
    assert _difference(read, _multiset(_read(data + [extra], "drop"))) in ((0, 0), (0, 1))
    substituted = list(data)
    substituted[position % len(data)] = extra
    # a substitution, nothing, or one addition or one removal (the sizes may then differ)
    assert _difference(read, _multiset(_read(substituted, "drop"))) in ((1, 1), (0, 0), (1, 0), (0, 1))


@pytest.mark.claim("missing-values-drop")
def test_dropping_turns_a_substitution_into_a_removal() -> None:
    # the counterexample of the claim: under substitute the filtered sizes differ
    kept, dropped = ("red", "3", "p"), ("red", "?", "p")
    before = _read([("blue", "0.5", "q"), kept], "drop")
    after = _read([("blue", "0.5", "q"), dropped], "drop")
    assert before is not None and after is not None and (len(before), len(after)) == (2, 1)
    assert _difference(_multiset(before), _multiset(after)) == (1, 0)


@pytest.mark.claim("missing-values-public-rule")
def test_the_receipt_records_the_policy_whether_or_not_a_value_is_missing() -> None:
    import io

    def model(text: str) -> Any:
        return train("noisy-majority", read_arff(io.StringIO(text), bounds=RAW_BOUNDS), 1, rng=5)

    complete, gappy = model(_arff([("red", "3", "p"), ("blue", "1", "q")])), model(_arff([("?", "?", "p"), ("blue", "1", "q")]))
    entries = [[c for c in m.receipt.charges if c.mechanism == MISSING_VALUE_RULE] for m in (complete, gappy)]
    assert entries[0] == entries[1] and len(entries[0]) == 1
    entry = entries[0][0]
    assert entry.epsilon == 0 and entry.delta == 0 and entry.claims == ("missing-values-public-rule",)
    assert complete.receipt.epsilon == 1 and complete.receipt.level == "proved"
    assert complete.missing == MissingPolicy() and MissingPolicy().describe() in entry.label


def test_the_model_file_keeps_the_policy_and_must_agree_with_its_receipt() -> None:
    data = read_arff(ARFF, bounds=BOUNDS, categorical_missing="drop", continuous_missing="drop")
    model = train("thesis-tree", data, 5, rng=2)
    obj = json.loads(dumps_model(model))
    assert obj["missing"] == {"categorical": "drop", "continuous": "drop"}
    again = model_from_json(obj)
    assert again.missing == MissingPolicy("drop", "drop") and dumps_model(again) == dumps_model(model)
    assert [c.claims for c in model.receipt.charges if c.mechanism == MISSING_VALUE_RULE] == [("missing-values-drop",)]
    # the whole-file digest catches an edit; with the digest recomputed (a forger can), the policy must still
    # agree with the receipt
    obj["missing"] = {"categorical": "category", "continuous": "midpoint"}
    with pytest.raises(ModelError, match="digest does not match"):
        model_from_json(obj)
    obj["digest"] = model_digest(obj)
    with pytest.raises(ModelError, match="missing-value policy .* is not what its receipt records"):
        model_from_json(obj)
    del obj["missing"]
    obj["digest"] = model_digest(obj)
    with pytest.raises(ModelError, match="is not what its receipt records"):
        model_from_json(obj)
    obj["missing"] = {"categorical": "perhaps", "continuous": "midpoint"}
    obj["digest"] = model_digest(obj)
    with pytest.raises(ModelError, match="categorical_missing must be one of"):
        model_from_json(obj)
    # a built-in has no policy and no entry
    vote = train("noisy-majority", load("vote"), 1, rng=1)
    assert vote.missing is None and "missing" not in vote.to_json()
    check_model(vote)


# --- real files: every algorithm, both relations, both engines ------------------------------------


def _epsilon(name: str, relation: Relation) -> int:
    # kanon-rdt certifies its delta only at a small epsilon under substitute, where its group privacy costs more
    return 4 if name == "kanon-rdt" else 50


def _cases() -> Iterator[Tuple[str, Relation]]:
    for name in algorithm_names():
        for relation in (Relation.ADD_REMOVE, Relation.SUBSTITUTE):
            yield name, relation


@pytest.mark.claim("missing-values-public-rule")
@pytest.mark.parametrize("name, relation", list(_cases()))
def test_every_algorithm_learns_and_predicts_a_file_with_missing_values(name: str, relation: Relation) -> None:
    data = read_arff(ARFF, bounds=BOUNDS)
    assert len(data) == ROWS and data.missing == MissingPolicy()
    spec = get_algorithm(name)
    models = [train(name, data, _epsilon(name, relation), rng=11, relation=relation, engine=e) for e in spec.engines]
    assert len({dumps_model(m) for m in models}) == 1, "the engines give the same model"
    model = models[0]
    assert model.missing == MissingPolicy() and model.receipt.relation is relation
    assert any(c.mechanism == MISSING_VALUE_RULE for c in model.receipt.charges)
    predictions = model.predict(data)
    assert len(predictions) == ROWS and set(predictions) <= set(data.schema.classes)
    # the raw rows, missing values as None, predict the same
    raw = [[None if v == "?" else v for v in data.row(i)] for i in range(ROWS)]
    assert model.predict(raw) == predictions
    # the CSV file with its schema reads the same rows
    same = read_csv(CSV, schema=read_schema(SCHEMA))
    assert same.schema == data.schema and [same.row(i) for i in range(ROWS)] == [data.row(i) for i in range(ROWS)]
    assert dumps_model(train(name, same, _epsilon(name, relation), rng=11, relation=relation)) == dumps_model(model)


def test_raw_rows_with_none_predict_as_the_file_reads_them() -> None:
    data = read_arff(ARFF, bounds=BOUNDS)
    model = train("thesis-tree", data, 20, rng=4)
    text_rows = [line.split(",") for line in ARFF.read_text(encoding="utf-8").split("@data\n")[1].splitlines()]
    as_python: List[List[object]] = []
    for cells in text_rows:
        values: List[object] = []
        for attribute, cell in zip(data.schema.attributes, cells):
            values.append(None if cell == "?" else float(cell) if isinstance(attribute, ContinuousAttribute) else cell)
        as_python.append(values)
    assert sum(any(v is None for v in row) for row in as_python) == MISSING_ROWS
    assert model.predict(as_python) == model.predict(data)
    assert model.predict_proba(as_python) == model.predict_proba(data)
    by_name = [dict(zip(data.schema.names, row), **{"class": "sick"}) for row in as_python]
    assert model.predict(by_name) == model.predict(data)


def test_cross_validation_on_a_file_with_missing_values() -> None:
    data = read_arff(ARFF, bounds=BOUNDS)
    result = cross_validate("diffpid3", data, 10, folds=4, seed=3, engine="array")
    assert len(result.accuracies) == 4 and all(0 <= a <= 1 for a in result.accuracies)


# --- rows from Python: lists, dicts, arrays and frames by duck typing --------------------------------


class _NA:
    """pandas.NA: comparing it raises, so refdp must recognise it by its type's name."""

    def __bool__(self) -> bool:
        raise TypeError("boolean value of NA is ambiguous")


_NA.__name__ = "NAType"

SMALL = Schema(
    (CategoricalAttribute("colour", ("red", "blue", "?")), ContinuousAttribute("age", 0, 100),
     CategoricalAttribute("digit", ("0", "1"))),
    "class", ("no", "yes"),
)


def test_rows_come_as_tuples_and_dicts() -> None:
    expected = [("red", 30, "1"), ("blue", None, "0")]
    assert raw_rows(expected, SMALL) == expected
    assert raw_rows([list(r) for r in expected], SMALL) == expected
    assert raw_rows([{"digit": "1", "age": 30, "colour": "red", "class": "no"},
                     {"colour": "blue", "age": None, "digit": "0"}], SMALL) == expected
    assert raw_rows([expected[0], {"colour": "blue", "age": None, "digit": "0"}], SMALL) == expected  # mixed
    with pytest.raises(DataError, match="row 1 has 2 values but the schema has 3 attributes"):
        raw_rows([{"colour": "blue", "age": None, "digit": "0"}, ("red", 1)], SMALL)
    with pytest.raises(DataError, match=r"row 1 lacks the attribute\(s\) \['age'\]"):
        raw_rows([{"colour": "red", "age": 1, "digit": "0"}, {"colour": "red", "digit": "0"}], SMALL)
    with pytest.raises(DataError, match="the rows have 2 values but the schema has 3 attributes"):
        raw_rows([("red", 1)], SMALL)
    with pytest.raises(DataError, match="put it in a list"):
        raw_rows({"colour": "red", "age": 1, "digit": "0"}, SMALL)
    with pytest.raises(DataError, match="got str"):
        raw_rows("red,1,0", SMALL)


def test_rows_come_as_arrays_and_frames() -> None:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    expected = [("red", 30, "1"), ("blue", None, "0")]
    assert raw_rows(np.array(expected, dtype=object), SMALL) == expected
    frame = pd.DataFrame({"class": ["no", "yes"], "digit": ["1", "0"], "age": [30, None], "colour": ["red", "blue"]})
    rows = raw_rows(frame, SMALL)
    assert [r[0] for r in rows] == ["red", "blue"] and rows[0][1] == 30 and math.isnan(rows[1][1])  # type: ignore[arg-type]
    assert raw_rows(pd.DataFrame(np.array(expected, dtype=object)), SMALL) == expected  # a frame from an array
    with pytest.raises(DataError, match=r"lacks the column\(s\) \['digit'\]"):
        raw_rows(pd.DataFrame({"colour": ["red"], "age": [1]}), SMALL)


def test_a_row_is_read_with_the_models_policy() -> None:
    policy = MissingPolicy()
    nan, na = float("nan"), _NA()
    assert all(is_missing(v) for v in (None, nan, "?", na)) and not any(is_missing(v) for v in (0, "", "red"))
    assert encode_row(("?", nan, 1), SMALL, policy) == ((2, 50.0, 1), 0)  # an int read as its decimal text
    assert encode_row((na, "-3", "0"), SMALL, policy) == ((2, 0.0, 0), 1)  # clipped to the bound
    with pytest.raises(DataError, match="'age' is missing, and the model has no rule for that .*dropped"):
        encode_row(("red", None, "0"), SMALL, MissingPolicy("drop", "drop"))
    with pytest.raises(DataError, match="'colour' is missing, .*refused"):
        encode_row((None, 1, "0"), SMALL, MissingPolicy("error", "error"))
    with pytest.raises(DataError, match="'age' is missing, .*without a rule"):
        encode_row(("red", None, "0"), SMALL, None)
    assert encode_row(("?", 1, "0"), SMALL, None)[0][0] == 2  # a '?' the domain declares reads without a rule
    with pytest.raises(SchemaError, match="unknown category 'green'"):
        encode_row(("green", 1, "0"), SMALL, policy)
    with pytest.raises(DataError, match="'age' is 'old', not a number"):
        encode_row(("red", "old", "0"), SMALL, policy)
    with pytest.raises(DataError, match="not a finite number"):
        encode_row(("red", math.inf, "0"), SMALL, policy)
    data, clipped = rows_to_predict([("red", 300, "1"), (None, None, "0")], SMALL, policy)
    assert [data.row(i) for i in range(2)] == [("red", 100.0, "1"), ("?", 50.0, "0")] and clipped == 1
    with pytest.raises(SchemaError, match="row 1: 'colour' has the unknown category 'green'"):
        rows_to_predict([("red", 3, "1"), ("green", 3, "1")], SMALL, policy)


def test_real_numpy_and_pandas_if_installed() -> None:
    np = pytest.importorskip("numpy")
    pd = pytest.importorskip("pandas")
    data = read_arff(ARFF, bounds=BOUNDS)
    model = train("thesis-tree", data, 20, rng=4)
    names = list(data.schema.names)
    frame = pd.read_csv(CSV, na_values="?")
    assert model.predict(frame) == model.predict(data)
    assert model.predict(np.array(frame[names].to_numpy(dtype=object))) == model.predict(data)


# --- the command line on the files ---------------------------------------------------------------


@pytest.mark.parametrize("name", algorithm_names())
def test_train_evaluate_predict_with_default_flags(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = str(tmp_path / "m.json")
    epsilon = str(_epsilon(name, Relation.ADD_REMOVE))
    status, out, err = run(capsys, "train", "--algorithm", name, "--data", str(ARFF), *BOUNDS_FLAGS,
                           "--epsilon", epsilon, "--seed", "3", "--out", model)
    assert status == 0, err
    level = model_from_json(json.loads(Path(model).read_text(encoding="utf-8"))).receipt.level
    assert out.startswith(f"trained {name} on {ROWS} rows, level {level}") and "(sound)" not in out.splitlines()[0]
    assert "missing values: a missing categorical value is the category '?'" in out
    status, out, err = run(capsys, "evaluate", "--algorithm", name, "--data", str(ARFF), *BOUNDS_FLAGS,
                           "--epsilon", epsilon, "--seed", "3", "--folds", "2")
    assert status == 0 and "accuracy" in out, err
    for data in (ARFF, CSV):
        status, out, err = run(capsys, "predict", "--model", model, "--data", str(data), "--proba")
        lines = out.splitlines()
        assert status == 0 and len(lines) == 1 + ROWS, err
        assert lines[0] == "row,prediction,sick,healthy"
        assert all(line.split(",")[1] in ("sick", "healthy") for line in lines[1:]), "every row has a prediction"


def test_a_model_trained_with_drop_leaves_the_rows_with_missing_values_without_a_prediction(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = str(tmp_path / "m.json")
    status, out, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(ARFF), *BOUNDS_FLAGS,
                           "--missing", "drop", "--epsilon", "20", "--seed", "3", "--out", model)
    assert status == 0 and f"on {ROWS - MISSING_ROWS} rows" in out, err
    status, out, err = run(capsys, "predict", "--model", model, "--data", str(CSV))
    lines = out.splitlines()
    assert status == 0 and len(lines) == 1 + ROWS, "one line per input row, never a shorter file"
    empty = [line for line in lines[1:] if line.endswith(",")]
    assert len(empty) == MISSING_ROWS
    assert "row 1 (line 3 of" in err and "'sex' is missing, and the model has no rule for that" in err
    assert f"{MISSING_ROWS} of {ROWS} rows have no prediction" in err


def test_predict_scores_when_the_class_column_is_there(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = str(tmp_path / "m.json")
    assert run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(ARFF), *BOUNDS_FLAGS, "--missing", "drop",
               "--epsilon", "20", "--seed", "3", "--out", model)[0] == 0
    status, out, err = run(capsys, "predict", "--model", model, "--data", str(ARFF), "--score")
    assert status == 0 and len(out.splitlines()) == 1 + ROWS, err
    predicted = [line.split(",")[1] for line in out.splitlines()[1:]]
    truth = [line.rsplit(",", 1)[1] for line in ARFF.read_text(encoding="utf-8").split("@data\n")[1].splitlines()]
    pairs = [(p, t) for p, t in zip(predicted, truth) if p]
    accuracy = sum(p == t for p, t in pairs) / len(pairs)
    assert f"score on {ROWS - MISSING_ROWS} of {ROWS} rows ({MISSING_ROWS} without a prediction left out): " \
           f"accuracy {accuracy:.4f}" in err
    assert "confusion matrix (rows: the class, columns: the prediction):" in err
    status, out, err = run(capsys, "predict", "--model", model, "--data", str(CSV), "--score", "json")
    score: Dict[str, Any] = json.loads(err.strip().splitlines()[-1])
    assert score["accuracy"] == accuracy and score["scored"] == len(pairs) and score["rows"] == ROWS
    assert sum(map(sum, score["confusion"])) == len(pairs) and score["classes"] == ["sick", "healthy"]
    no_class = tmp_path / "no-class.csv"
    no_class.write_text("\n".join(line.split(",", 1)[1] for line in CSV.read_text(encoding="utf-8").splitlines()) + "\n")
    status, out, err = run(capsys, "predict", "--model", model, "--data", str(no_class), "--score")
    assert status == 2 and "--score needs the class column 'class'" in err and out == ""
    status, out, _ = run(capsys, "predict", "--model", model, "--data", str(no_class))
    assert status == 0 and len(out.splitlines()) == 1 + ROWS


def test_every_unbounded_attribute_in_one_message_with_a_bounds_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(ARFF), "--epsilon", "1",
                         "--out", "unused.json")
    assert status == 2 and err.count("\n") == 1
    assert "3 numeric attribute(s) have no public bounds: 'age', 'blood pressure', 'chol'" in err
    assert "pass --bounds age=LO:HI --bounds 'blood pressure=LO:HI' --bounds chol=LO:HI with values chosen" in err
    assert "`python3 -m refdp schema`" in err
    status, _, err = run(capsys, "evaluate", "--algorithm", "thesis-tree", "--data", str(ARFF), "--epsilon", "1",
                         "--bounds", "age=0:120")
    assert status == 2 and "pass --bounds 'blood pressure=LO:HI' --bounds chol=LO:HI" in err


def test_a_single_leaf_gets_a_one_line_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # 80 rows at epsilon 0.1: the noisy size plans no split
    model = str(tmp_path / "m.json")
    status, out, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(ARFF), *BOUNDS_FLAGS,
                           "--epsilon", "0.1", "--seed", "1", "--out", model)
    assert status == 0 and ": a single leaf; wrote" in out.splitlines()[0], err
    warnings = [line for line in err.splitlines() if "warning" in line]
    depth = next(p.default for p in get_algorithm("thesis-tree").parameters if p.name == "max_depth")
    assert warnings == [
        "refdp: warning: the model is a single leaf: it predicts one class for every row; at epsilon 0.1 the noisy "
        "size of the data gave a plan too small to split (depth 0); a larger --epsilon, or --param size_share=0 "
        f"(always --param max_depth={depth}), would grow a tree"
    ], err
    status, out, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(ARFF), *BOUNDS_FLAGS,
                           "--epsilon", "20", "--seed", "1", "--out", model)
    assert status == 0 and "warning" not in err and "one tree of depth" in out, err
    # noisy-majority is a single leaf by definition: nothing to warn about
    status, out, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                           "--out", model)
    assert status == 0 and "a single leaf" in out and "warning" not in err, err


def test_a_csv_file_without_a_header_line_is_told_what_the_header_must_hold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # scikit-learn's bundled CSV files start with the numbers of rows and columns and the class names
    path = tmp_path / "bundled.csv"
    path.write_text("3,2,malignant,benign\n1.5,2.0,0\n1.0,0.5,1\n3.0,1.0,0\n", encoding="utf-8")
    status, _, err = run(capsys, "schema", "--data", str(path), "--out", str(tmp_path / "s.json"))
    assert status == 2 and "has 3 fields but the header (its first line) has 4" in err
    assert "add a header line naming every column (every attribute and the class), comma-separated" in err
    assert "'3,2,malignant,benign' is the first line of scikit-learn's bundled CSV files" in err
    schema = tmp_path / "schema.json"
    schema.write_text(json.dumps(Schema(
        (ContinuousAttribute("radius", 0, 10), ContinuousAttribute("texture", 0, 10)), "target", ("0", "1")
    ).to_json()), encoding="utf-8")
    status, _, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", str(path), "--schema",
                         str(schema), "--epsilon", "1", "--out", str(tmp_path / "m.json"))
    assert status == 2 and "the attributes ['radius', 'texture'] and the class column 'target'" in err, err


def test_a_dataset_read_with_another_schema_is_read_by_attribute_name() -> None:
    # the ARFF file read with --missing drop has no category '?': a default model reads its rows by value
    same = read_arff(ARFF, bounds=BOUNDS)
    model = train("thesis-tree", same, 20, rng=4)
    dropped = read_arff(ARFF, bounds=BOUNDS, categorical_missing="drop", continuous_missing="drop")
    assert dropped.schema.attributes != model.schema.attributes and len(dropped) == ROWS - MISSING_ROWS
    lines = ARFF.read_text(encoding="utf-8").split("@data\n")[1].splitlines()
    complete = [i for i, line in enumerate(lines) if "?" not in line.split(",")]
    assert model.predict(dropped) == model.predict(same.subset(complete))
    with pytest.raises(ModelError, match=r"attributes differ from the model's schema: it lacks \['sex', "):
        model.predict(load("vote"))


def test_a_schema_file_without_the_category_gets_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the clinic schema file without its '?': the default adds it to every categorical domain, as for a header
    plain = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for attribute in plain["attributes"]:
        if attribute["kind"] == "categorical":
            attribute["values"].remove("?")
    schema = tmp_path / "plain.json"
    schema.write_text(json.dumps(plain), encoding="utf-8")
    model = str(tmp_path / "m.json")
    status, out, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(CSV), "--schema", str(schema),
                           "--epsilon", "20", "--seed", "3", "--out", model)
    assert status == 0 and f"on {ROWS} rows" in out, err
    trained = model_from_json(json.loads(Path(model).read_text(encoding="utf-8")))
    assert trained.schema == read_schema(SCHEMA) and trained.schema != read_schema(schema)
    status, out, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", str(CSV), "--schema", str(schema),
                           "--missing", "drop", "--epsilon", "20", "--seed", "3", "--out", model)
    assert status == 0 and f"on {ROWS - MISSING_ROWS} rows" in out, err
    assert model_from_json(json.loads(Path(model).read_text(encoding="utf-8"))).schema == read_schema(schema)
