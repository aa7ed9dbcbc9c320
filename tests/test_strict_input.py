"""Strict reading of numbers, a byte-order mark, oversized fields and repeated flags (issue 26).

A number is ASCII digits in plain syntax wherever refdp reads one from text:
command-line flags (``--epsilon``, ``--seed``, ``--bounds``, ``--param``,
``--timeout``...) and the continuous values of data files.  A UTF-8
byte-order mark at the start of a CSV, ARFF or JSON file is skipped.  A
field of megabytes is cut in the error message that quotes it.
"""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import List

import pytest

from refdp.cli import main
from refdp.data import load, read_arff, read_csv, read_schema
from refdp.errors import MAX_MESSAGE, DataError, InvalidParameterError, RefdpError
from refdp.privacy import as_budget

SCHEMA = {
    "format": "refdp-schema/1", "label": "class", "classes": ["a", "b"], "leaks": [],
    "attributes": [{"name": "x", "kind": "continuous", "lower": 0, "upper": 100},
                   {"name": "colour", "kind": "categorical", "values": ["red", "blue"]}],
}
ARFF_HEAD = "@relation t\n@attribute x numeric\n@attribute colour {red, blue}\n@attribute class {a, b}\n@data\n"
NOT_PLAIN = ["\uff15", "\uff15.\uff11", "\u0663", "\u0967", "5_0", "5_0e-1", "1_000", "\u00b2", "\u2155"]


def _run(capsys: pytest.CaptureFixture[str], argv: List[str]) -> str:
    status = main(argv)
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1, (argv, out, err)
    return err


@pytest.fixture
def schema_file(tmp_path: Path) -> str:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(SCHEMA), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_flags_take_ascii_numbers_only(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    train = ["train", "--algorithm", "thesis-tree", "--data", "vote", "--out", str(tmp_path / "m.json")]
    assert "--epsilon" in _run(capsys, [*train, "--epsilon", text])
    assert "--seed" in _run(capsys, [*train, "--epsilon", "1", "--seed", text])
    assert "--param max_depth" in _run(capsys, [*train, "--epsilon", "1", "--param", f"max_depth={text}"])
    assert "--param level_ratio" in _run(capsys, [*train, "--epsilon", "1", "--param", f"level_ratio={text}"])
    assert "--folds" in _run(capsys, ["evaluate", "--algorithm", "thesis-tree", "--data", "vote", "--epsilon", "1",
                                      "--folds", text])
    assert "--k" in _run(capsys, ["delta", "--k", text, "--beta", "0.1", "--epsilon", "1"])
    assert "--timeout" in _run(capsys, ["audit-cmd", "--cmd", "p {data} {seed}", "--data", "vote", "--epsilon", "1",
                                        "--timeout", text])
    assert "--alpha" in _run(capsys, ["audit", "--algorithm", "thesis-tree", "--data", "vote", "--epsilon", "1",
                                      "--alpha", text])
    arff = tmp_path / "p.arff"
    arff.write_text(ARFF_HEAD + "1,red,a\n", encoding="utf-8")
    assert "--bounds" in _run(capsys, [*train, "--epsilon", "1", "--data", str(arff), "--bounds", f"x=0:{text}"])


@pytest.mark.parametrize("text", NOT_PLAIN)
def test_the_api_reads_epsilon_in_ascii_digits_only(text: str) -> None:
    with pytest.raises(InvalidParameterError, match="ASCII digits"):
        as_budget(text)


def test_plain_numbers_still_read() -> None:
    assert [as_budget(t) for t in ("1", "0.5", "1/3", " 2 ", "1e-3", ".25")] == [
        1, as_budget("1/2"), as_budget("2/6"), 2, as_budget("1/1000"), as_budget("1/4")]


@pytest.mark.parametrize("text", NOT_PLAIN + ["1,5"])
def test_a_continuous_value_in_a_data_file_is_ascii_digits(
    text: str, tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_path = tmp_path / "d.csv"
    csv_path.write_text(f'x,colour,class\n1,red,a\n"{text}",blue,b\n', encoding="utf-8")
    err = _run(capsys, ["train", "--algorithm", "noisy-majority", "--data", str(csv_path), "--schema", schema_file,
                        "--epsilon", "1", "--out", str(tmp_path / "m.json")])
    assert "line 3" in err and "column 'x'" in err and "not a number in ASCII digits" in err, err
    arff = tmp_path / "d.arff"
    arff.write_text(ARFF_HEAD + f"1,red,a\n'{text}',blue,b\n", encoding="utf-8")
    with pytest.raises(DataError, match="line 7 .*column 'x'.*not a number in ASCII digits"):
        read_arff(arff, bounds={"x": (0, 100)})


def test_schema_of_a_file_with_unicode_digits_makes_the_column_categorical(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    csv_path = tmp_path / "d.csv"
    csv_path.write_text("x,class\n1,a\n\uff15,b\n", encoding="utf-8")
    assert main(["schema", "--data", str(csv_path), "--out", str(tmp_path / "s.json")]) == 0
    capsys.readouterr()
    assert read_schema(tmp_path / "s.json").attribute("x").kind == "categorical"


def test_a_byte_order_mark_is_skipped(tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]) -> None:
    bom = "\ufeff"
    csv_path = tmp_path / "d.csv"
    csv_path.write_text(bom + "x,colour,class\n1,red,a\n5,blue,b\n", encoding="utf-8")
    arff = tmp_path / "d.arff"
    arff.write_text(bom + ARFF_HEAD + "1,red,a\n5,blue,b\n", encoding="utf-8")
    schema = tmp_path / "bom-schema.json"
    schema.write_text(bom + json.dumps(SCHEMA), encoding="utf-8")
    assert len(read_csv(csv_path, schema=read_schema(schema))) == 2
    assert len(read_csv(io.StringIO(bom + "x,colour,class\n1,red,a\n"), schema=read_schema(schema))) == 1
    assert len(read_arff(arff, bounds={"x": (0, 100)})) == 2
    out = str(tmp_path / "m.json")
    for argv in (
        ["train", "--algorithm", "noisy-majority", "--data", str(csv_path), "--schema", str(schema), "--epsilon", "1",
         "--out", out],
        ["train", "--algorithm", "noisy-majority", "--data", str(arff), "--bounds", "x=0:100", "--epsilon", "1",
         "--out", out],
        ["predict", "--model", out, "--data", str(csv_path)],
        ["schema", "--data", str(csv_path), "--out", str(tmp_path / "s.json")],
    ):
        assert main(argv) == 0, capsys.readouterr().err
    assert read_schema(tmp_path / "s.json").names == ("x", "colour")
    capsys.readouterr()


@pytest.mark.parametrize("where", ["category", "number", "class", "header"])
def test_an_oversized_field_is_cut_in_the_message(
    where: str, tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    big = "y" * 100_000  # the csv module refuses a field beyond 128 kB in a short message of its own
    rows = {
        "category": f"x,colour,class\n1,{big},a\n",
        "number": f"x,colour,class\n{big},red,a\n",
        "class": f"x,colour,class\n1,red,{big}\n",
        "header": f"x,colour,{big}\n1,red,a\n",
    }
    csv_path = tmp_path / "d.csv"
    csv_path.write_text(rows[where], encoding="utf-8")
    err = _run(capsys, ["train", "--algorithm", "noisy-majority", "--data", str(csv_path), "--schema", schema_file,
                        "--epsilon", "1", "--out", str(tmp_path / "m.json")])
    assert len(err) < MAX_MESSAGE + 50 and "characters cut" in err, err[:300]
    arff = tmp_path / "d.arff"
    arff.write_text(ARFF_HEAD + f"1,{big * 30},a\n", encoding="utf-8")
    with pytest.raises(RefdpError) as info:
        read_arff(arff, bounds={"x": (0, 100)})
    assert len(str(info.value)) <= MAX_MESSAGE and "line 6" in str(info.value) and "declare it" in str(info.value)


def test_a_long_message_keeps_its_ends() -> None:
    message = str(DataError("line 3: " + "a b " * 10_000 + "; fix the value"))
    assert len(message) <= MAX_MESSAGE and message.startswith("line 3: a b") and message.endswith("; fix the value")
    assert str(DataError("short")) == "short"


def test_a_repeated_param_is_an_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    err = _run(capsys, ["train", "--algorithm", "thesis-tree", "--data", "vote", "--epsilon", "1", "--param",
                        "max_depth=3", "--param", "max_depth = 4", "--out", str(tmp_path / "m.json")])
    assert "--param names 'max_depth' twice" in err
    assert list(tmp_path.iterdir()) == []


def test_a_data_set_still_loads_its_numbers() -> None:
    assert len(load("adult")) == 32561


def test_braces_that_are_no_placeholder_name_stay_the_program_s() -> None:
    from refdp.cli._args import command_words

    words = command_words("""prog --config '{"depth": 3}' {data} {seed} {out} {schema}""")
    assert words[2] == '{"depth": 3}'
    for bad in ("prog {data} {seed} {output}", "prog {data} {seed} {DATA}", "prog {data} {seed} x{y_1}z"):
        with pytest.raises(InvalidParameterError, match="unknown placeholder"):
            command_words(bad)


def test_a_gzip_file_that_expands_to_one_huge_line_is_refused_early(
    tmp_path: Path, schema_file: str, capsys: pytest.CaptureFixture[str]
) -> None:
    import gzip

    from refdp.data.readers import MAX_LINE

    bomb = tmp_path / "bomb.csv.gz"
    with gzip.open(bomb, "wb") as stream:  # 9 MB of one line in 9 kB
        stream.write(b"x" * (MAX_LINE + 2**20))
    err = _run(capsys, ["train", "--algorithm", "noisy-majority", "--data", str(bomb), "--schema", schema_file,
                        "--epsilon", "1", "--out", str(tmp_path / "m.json")])
    assert f"line 1 of {bomb} is longer than {MAX_LINE} characters" in err
    err = _run(capsys, ["schema", "--data", str(bomb), "--out", str(tmp_path / "s.json")])
    assert "is longer than" in err
