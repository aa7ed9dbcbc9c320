"""The command line on files: --bounds, --missing, --schema for ARFF, the schema command, predict without a class.

Also the small things of issue 17: --version, datasets naming each set once,
evaluate's plurals and progress, train's ticker, atomic outputs.
"""

from __future__ import annotations

import io
import json
import math
import threading
from pathlib import Path
from typing import List, Tuple

import pytest

import refdp.cli._progress as progress
from refdp import __version__
from refdp.algorithms import read_model, train
from refdp.cli import main
from refdp.data import BUILTIN_NAMES, CategoricalAttribute, ContinuousAttribute, Dataset, Schema, builtin_schema, load, read_csv
from refdp.files import write_text
from refdp.tree import dumps_model

CSV = "age,colour,class\n30,red,yes\n41,blue,no\n?,red,yes\n25,?,no\n52,blue,no\n"
CSV_NO_CLASS = "colour,age\nred,30\nblue,41\n"
ARFF = """% a comment
@relation people

@attribute age numeric
@attribute colour {red, blue}
@attribute class {yes, no}
@data
30,red,yes
41,blue,no
% another comment
52,blue,?
"""


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def _schema(path: str) -> Schema:
    return Schema.from_json(json.loads(Path(path).read_text(encoding="utf-8")))


# --- small things --------------------------------------------------------------------------------


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert status == 0 and out == f"refdp {__version__}\n"


def test_datasets_name_each_set_once(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "datasets")
    lines = out.splitlines()
    assert status == 0 and len(lines) == len(BUILTIN_NAMES)
    for name, line in zip(BUILTIN_NAMES, lines):
        assert line.startswith(f"{name}: ") and not line.startswith(f"{name}: {name}:"), line


def test_evaluate_says_repeat_and_repeats(capsys: pytest.CaptureFixture[str]) -> None:
    common = ("evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--folds", "2",
              "--seed", "1")
    status, out, err = run(capsys, *common)
    assert status == 0 and "over 2 folds x 1 repeat\n" in out, err
    status, out, err = run(capsys, *common, "--repeats", "2")
    assert status == 0 and "over 2 folds x 2 repeats\n" in out, err


def test_evaluate_reports_each_model_on_stderr(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "AFTER", 0.0)  # show the line from the first model on
    monkeypatch.setattr(progress, "_terminal", lambda: True)
    status, out, err = run(capsys, "evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                           "--folds", "3", "--seed", "1")
    assert status == 0 and "accuracy" in out
    assert [part.split(",")[0] for part in err.strip().split("\r") if part] == [
        f"evaluate noisy-majority: {i}/3 models ({100 * i // 3}%)" for i in (1, 2, 3)
    ], err
    assert err.endswith("\n")


def test_progress_elsewhere_than_a_terminal_is_whole_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "_terminal", lambda: False)  # a log file or a pipe
    status, _, err = run(capsys, "evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                         "--folds", "3", "--seed", "1")
    assert status == 0 and "\r" not in err, err
    # the first update, then none for EVERY seconds but the last
    assert [line.split(",")[0] for line in err.splitlines()] == [
        "evaluate noisy-majority: 1/3 models (33%)", "evaluate noisy-majority: 3/3 models (100%)"
    ], err
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    shown = threading.Event()
    with progress.Ticker("training x"):
        while not shown.wait(0.01):
            if "training x" in stream.getvalue():
                shown.set()
    assert stream.getvalue() == "training x: 0 s\n"


def test_the_ticker_shows_the_time_of_a_long_step(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr("sys.stderr", stream)
    monkeypatch.setattr(progress, "AFTER", 0.0)
    monkeypatch.setattr(progress, "_terminal", lambda: True)
    shown = threading.Event()
    with progress.Ticker("training x"):
        # wait for the ticker's first line (a long step would simply outlast it)
        while not shown.wait(0.01):
            if "training x" in stream.getvalue():
                shown.set()
    assert stream.getvalue().startswith("\rtraining x: 0 s ") and stream.getvalue().endswith("\n")


def test_outputs_are_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "model.json"
    write_text(target, "old\n")

    def broken(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr("os.replace", broken)
    with pytest.raises(OSError):
        write_text(target, "new\n")
    assert target.read_text() == "old\n" and [p.name for p in tmp_path.iterdir()] == ["model.json"]


def test_dpea_trains_at_epsilon_1e100(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "m.json"
    status, _, err = run(capsys, "train", "--algorithm", "dpea", "--data", "vote", "--epsilon", "1e100",
                         "--seed", "1", "--out", str(out))
    assert status == 0, err
    assert read_model(out).receipt.epsilon == 10**100


# --- reading files -------------------------------------------------------------------------------


def test_arff_with_bounds_and_with_a_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    arff = _write(tmp_path, "p.arff", ARFF)
    out = str(tmp_path / "m.json")
    status, _, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", arff, "--bounds", "age=0:120",
                         "--missing", "drop", "--epsilon", "1", "--seed", "1", "--out", out)
    assert status == 0, err
    schema = read_model(out).schema
    assert schema.attribute("age").lower == 0 and schema.attribute("age").upper == 120  # type: ignore[union-attr]
    given = _write(tmp_path, "s.json", json.dumps(schema.to_json()))
    status, _, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", arff, "--schema", given,
                         "--missing", "drop", "--epsilon", "1", "--seed", "1", "--out", out)
    assert status == 0, err
    assert read_model(out).schema == schema


def test_missing_drop_drops_rows_with_a_missing_value(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    schema = Schema.from_json({
        "format": "refdp-schema/1", "label": "class", "classes": ["yes", "no"], "leaks": [],
        "attributes": [{"name": "age", "kind": "continuous", "lower": 0, "upper": 120},
                       {"name": "colour", "kind": "categorical", "values": ["red", "blue"]}],
    })
    data = _write(tmp_path, "d.csv", CSV)
    given = _write(tmp_path, "s.json", json.dumps(schema.to_json()))
    status, out, err = run(capsys, "evaluate", "--algorithm", "noisy-majority", "--data", data, "--schema", given,
                           "--missing", "drop", "--epsilon", "1", "--folds", "2", "--seed", "1", "--json")
    assert status == 0, err
    assert len(read_csv(data, schema=schema, categorical_missing="drop", continuous_missing="drop")) == 3
    assert len(json.loads(out)["accuracies"]) == 2


# --- the schema command --------------------------------------------------------------------------


def test_schema_of_a_csv_file_is_read_off_the_data_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write(tmp_path, "d.csv", CSV)
    path = str(tmp_path / "schema.json")
    status, out, err = run(capsys, "schema", "--data", data, "--out", path)
    assert status == 0 and f"wrote {path}: 2 attributes (1 categorical, 1 continuous)" in out, err
    assert "'age' is continuous with missing values: they read as the midpoint of its bounds" in out
    assert "read off the data" in err and "leak" in err and "docs/schema.md" in err
    schema = _schema(path)
    assert schema.attribute("age").lower == 25 and schema.attribute("age").upper == 52  # type: ignore[union-attr]
    # '?' ends every categorical domain, the category of a missing value (a rule, whether or not one occurs)
    assert schema.attribute("colour").values == ("blue", "red", "?")  # type: ignore[union-attr]
    assert schema.classes == ("no", "yes") and schema.label == "class"
    assert len(schema.leaks) == 3 and all("read off the data" in leak for leak in schema.leaks)


@pytest.mark.claim("schema-inference-leaks")
def test_a_model_trained_with_a_written_schema_is_marked_as_leaking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _write(tmp_path, "d.csv", CSV)
    schema_path, model_path = str(tmp_path / "schema.json"), str(tmp_path / "m.json")
    assert run(capsys, "schema", "--data", data, "--out", schema_path)[0] == 0
    status, out, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", data, "--schema", schema_path,
                           "--missing", "drop", "--epsilon", "1", "--seed", "1", "--out", model_path)
    assert status == 0 and "leak(s)" in out, err
    model = read_model(model_path)  # a sound variant on a leaky schema still verifies
    assert model.receipt.level == "unsound" and set(model.receipt.leaks) == set(_schema(schema_path).leaks)
    status, out, _ = run(capsys, "receipt", "--model", model_path)
    assert status == 0 and "leaks (data read outside any mechanism):" in out and "read off the data" in out
    status, out, err = run(capsys, "predict", "--model", model_path, "--data", data)
    # one line per row; the two rows with a missing value have no prediction under the model's --missing drop
    assert status == 0 and len(out.splitlines()) == 1 + 5, err
    assert [line.endswith(",") for line in out.splitlines()[1:]] == [False, False, True, True, False]
    assert "row 2 (line 4 of" in err and "row 3 (line 5 of" in err


def test_schema_of_a_csv_file_without_a_header_line_says_its_first_record_names_the_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # UCI's adult.data has no header line; its first record would become the column names.
    data = _write(tmp_path, "adult.csv", "39, State-gov, 77516, <=50K\n50, Private, 83311, >50K\n38, Private, 2156, <=50K\n")
    status, out, err = run(capsys, "schema", "--data", data, "--out", str(tmp_path / "schema.json"))
    assert status == 0, err
    assert "column name(s) '39', '77516' of" in out and "add a header line" in out
    schema = _write(tmp_path, "public.json", json.dumps(Schema(
        (ContinuousAttribute("age", 0, 120), CategoricalAttribute("workclass", ("State-gov", "Private")),
         ContinuousAttribute("fnlwgt", 0, 1e7)), "income", ("<=50K", ">50K")).to_json()))
    status, _, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", data, "--schema", schema,
                         "--epsilon", "1", "--out", str(tmp_path / "m.json"))
    assert status == 2 and "its first line looks like a record: add a header line" in err, err


def test_schema_of_an_arff_file_leaks_only_the_numeric_bounds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    arff = _write(tmp_path, "p.arff", ARFF)
    path = str(tmp_path / "schema.json")
    status, out, err = run(capsys, "schema", "--data", arff, "--out", path)
    assert status == 0, err
    schema = _schema(path)
    assert schema.attribute("colour").values == ("red", "blue", "?")  # type: ignore[union-attr]
    assert schema.classes == ("yes", "no")
    age = schema.attribute("age")
    assert (age.lower, age.upper) == (30, 41)  # type: ignore[union-attr]  # the row without a class is left out
    assert len(schema.leaks) == 1 and "'age'" in schema.leaks[0]


def test_schema_of_a_built_in_is_its_public_schema(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(tmp_path / "schema.json")
    status, _, err = run(capsys, "schema", "--data", "credit-g", "--out", path)
    assert status == 0 and "leak" not in err and _schema(path) == builtin_schema("credit-g")
    assert _schema(path).leaks == ()


# --- predict -------------------------------------------------------------------------------------


@pytest.fixture
def vote_files(tmp_path: Path) -> Tuple[Path, Dataset]:
    """A vote model and the first 20 rows of vote."""
    vote = load("vote").subset(range(20))
    (tmp_path / "m.json").write_text(dumps_model(train("private-rdt", load("vote"), 1, rng=3)), encoding="utf-8")
    return tmp_path, vote


def _vote_csv(data: Dataset, with_class: bool) -> str:
    names = list(data.schema.names) + ([data.schema.label] if with_class else [])
    lines = [",".join(reversed(names))]  # the columns in another order than the schema's
    for i in range(len(data)):
        row = [str(v) for v in data.row(i)] + ([data.label(i)] if with_class else [])
        lines.append(",".join(reversed(row)))
    return "\n".join(lines) + "\n"


def _vote_arff(data: Dataset, label: str) -> str:
    head = ["@relation vote"]
    head += [f"@attribute '{a.name}' {{{', '.join(a.values)}}}" for a in data.schema.attributes]  # type: ignore[union-attr]
    if label == "missing":
        head.append(f"@attribute Class {{{', '.join(data.schema.classes)}}}")
    rows = [",".join(str(v) for v in data.row(i)) + (",?" if label == "missing" else "") for i in range(len(data))]
    return "\n".join(head + ["@data"] + rows) + "\n"


def _predict(capsys: pytest.CaptureFixture[str], model: Path, data: str, *flags: str) -> List[str]:
    """The prediction column of ``predict``'s CSV, after checking its header and row numbers."""
    status, out, err = run(capsys, "predict", "--model", str(model), "--data", data, *flags)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0].startswith("row,prediction")
    assert [line.split(",")[0] for line in lines[1:]] == [str(i) for i in range(len(lines) - 1)]
    return [line.split(",")[1] for line in lines[1:]]


def test_predict_needs_no_class_column(vote_files: Tuple[Path, Dataset], capsys: pytest.CaptureFixture[str]) -> None:
    tmp_path, vote = vote_files
    model = tmp_path / "m.json"
    expected = read_model(model).predict(vote)
    assert _predict(capsys, model, _write(tmp_path, "with.csv", _vote_csv(vote, True))) == expected
    assert _predict(capsys, model, _write(tmp_path, "without.csv", _vote_csv(vote, False))) == expected
    assert _predict(capsys, model, _write(tmp_path, "q.arff", _vote_arff(vote, "missing"))) == expected
    assert _predict(capsys, model, _write(tmp_path, "n.arff", _vote_arff(vote, "absent"))) == expected


def test_predict_errors_keep_the_line_numbers(
    vote_files: Tuple[Path, Dataset], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path, vote = vote_files
    for name, text in (("n.arff", _vote_arff(vote, "absent")), ("w.csv", _vote_csv(vote, False))):
        lines = text.splitlines()
        bad = (lines.index("@data") if "@data" in lines else 0) + 3
        lines[bad] = "maybe," + lines[bad].split(",", 1)[1]
        path = _write(tmp_path, name, "\n".join(lines) + "\n")
        # the row keeps its place with an empty prediction, and the reason names its line
        predictions = _predict(capsys, tmp_path / "m.json", path)
        status, _, err = run(capsys, "predict", "--model", str(tmp_path / "m.json"), "--data", path)
        assert status == 0 and f"row 2 (line {bad + 1} of {path}) has no prediction" in err and "'maybe'" in err, err
        assert len(predictions) == len(vote) and predictions[2] == "" and all(predictions[:2] + predictions[3:])


def test_predict_proba_prints_csv_with_probabilities(
    vote_files: Tuple[Path, Dataset], capsys: pytest.CaptureFixture[str]
) -> None:
    tmp_path, vote = vote_files
    model = read_model(tmp_path / "m.json")
    status, out, err = run(capsys, "predict", "--model", str(tmp_path / "m.json"), "--data",
                           _write(tmp_path, "v.csv", _vote_csv(vote, False)), "--proba")
    lines = out.splitlines()
    assert status == 0 and lines[0] == "row,prediction,democrat,republican" and len(lines) == len(vote) + 1, err
    for i, (line, label, expected) in enumerate(zip(lines[1:], model.predict(vote), model.predict_proba(vote))):
        cells = line.split(",")
        assert cells[:2] == [str(i), label] and [float(c) for c in cells[2:]] == expected
        assert math.isclose(sum(expected), 1.0) and all(0 <= p <= 1 for p in expected)


def test_values_beyond_the_public_bounds_are_clipped_to_predict_and_to_test(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A deployed model must predict any row; a clipped value takes the branch of the bound it passed.
    credit = load("credit-g").subset(range(60))
    model_path = str(tmp_path / "m.json")
    status, _, err = run(capsys, "train", "--algorithm", "thesis-tree", "--data", "credit-g", "--epsilon", "10",
                         "--seed", "4", "--out", model_path)
    assert status == 0, err
    model = read_model(model_path)
    schema = credit.schema
    columns = [list(credit.column(a)) for a in range(schema.n_attributes)]
    beyond = [list(c) for c in columns]
    for a, attribute in enumerate(schema.attributes):
        if isinstance(attribute, ContinuousAttribute):
            beyond[a][a % 7] = attribute.upper * 10 + 5
            beyond[a][a % 7 + 20] = attribute.lower - 100
            columns[a][a % 7], columns[a][a % 7 + 20] = attribute.upper, attribute.lower
    clipped = Dataset.from_codes(schema, columns, credit.labels)
    header = ",".join(schema.names + (schema.label,))

    def cell(a: int, value: object) -> str:
        attribute = schema.attributes[a]
        return str(value) if isinstance(attribute, ContinuousAttribute) else attribute.values[int(value)]  # type: ignore[call-overload]

    body = [",".join([cell(a, beyond[a][i]) for a in range(schema.n_attributes)] + [schema.classes[credit.labels[i]]])
            for i in range(len(credit))]
    path = _write(tmp_path, "beyond.csv", "\n".join([header] + body) + "\n")
    assert _predict(capsys, Path(model_path), path) == model.predict(clipped)
    status, out, err = run(capsys, "predict", "--model", model_path, "--data", path)
    assert "value(s) of" in err and "clipped" in err
    schema_path = _write(tmp_path, "credit.json", json.dumps(schema.to_json()))
    status, out, err = run(capsys, "evaluate", "--algorithm", "noisy-majority", "--data", path, "--schema", schema_path,
                           "--test-data", path, "--epsilon", "1", "--seed", "1")
    assert status == 2 and "outside the declared bounds" in err  # the training data must respect the bounds
    status, out, err = run(capsys, "evaluate", "--algorithm", "noisy-majority", "--data", "credit-g",
                           "--test-data", path, "--epsilon", "1", "--seed", "1")
    assert status == 0 and "14 value(s) of" in err and "clipped" in err, err  # read with credit-g's schema
    assert "over the test set" in out


def test_the_example_of_docs_schema_md_reads_a_csv_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(__file__).resolve().parent.parent / "docs" / "schema.md").read_text(encoding="utf-8")
    example = text.split("```json\n")[1].split("```")[0]
    schema = _write(tmp_path, "people.json", example)
    assert _schema(schema).names == ("age", "workclass", "hours")
    data = _write(tmp_path, "people.csv", "hours,age,workclass,income\n40,30,private,<=50K\n60,45,?,>50K\n")
    out = str(tmp_path / "m.json")
    status, _, err = run(capsys, "train", "--algorithm", "noisy-majority", "--data", data, "--schema", schema,
                         "--epsilon", "1", "--seed", "1", "--out", out)
    assert status == 0 and read_model(out).receipt.level == "proved", err
