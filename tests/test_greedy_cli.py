"""The greedy trees through the command line: train, predict, evaluate, algorithms."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import List, Tuple

import pytest

from refdp.cli import main
from refdp.algorithms import model_from_json


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize(
    "name, params",
    [
        ("diffpid3", []),
        ("thesis-tree", []),
        ("thesis-tree", ["--param", "quality=gini", "--param", "variant=published"]),
        ("tree-baseline", ["--param", "quality=info-gain"]),
    ],
)
def test_train_and_predict_with_each_name(
    name: str, params: List[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "model.json"
    status, out, err = run(
        capsys, "train", "--algorithm", name, "--data", "credit-g", "--epsilon", "1/2", "--seed", "4",
        "--out", str(path), *params,
    )
    assert status == 0, err
    model = model_from_json(json.loads(path.read_text()))
    assert model.algorithm == name
    if name == "tree-baseline" or "variant=published" in params:
        assert "level unsound" in out and model.receipt.level == "unsound"
    else:
        assert model.receipt.epsilon == Fraction(1, 2) and f"level {model.receipt.level}:" in out
        assert model.receipt.level != "unsound"
    status, out, err = run(capsys, "predict", "--model", str(path), "--data", "credit-g")
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == "row,prediction" and len(lines) == 1 + 1000
    assert {line.split(",")[1] for line in lines[1:]} <= {"good", "bad"}


@pytest.mark.parametrize(
    "name, params",
    [("diffpid3", []), ("thesis-tree", []), ("thesis-tree", ["--param", "quality=gini"]), ("tree-baseline", [])],
)
def test_evaluate_json_with_each_name(name: str, params: List[str], capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "evaluate", "--algorithm", name, "--data", "vote", "--epsilon", "1", "--folds", "3",
        "--seed", "1", "--json", *params,
    )
    assert status == 0, err
    result = json.loads(out)
    assert len(result["accuracies"]) == 3 and 0.5 < result["accuracy_mean"] <= 1.0
    if name == "tree-baseline":
        assert result["level"] == "unsound" and result["sound"] is False and result["receipt_epsilon"] == "0"
    else:
        assert result["level"] != "unsound" and result["receipt_epsilon"] == "1"
        assert result["sound"] is (result["level"] == "proved")


def test_algorithms_lists_the_greedy_trees(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "algorithms", "--json")
    assert status == 0
    listed = {a["name"]: a for a in json.loads(out)}
    assert {"diffpid3", "thesis-tree", "tree-baseline"} <= set(listed)
    variants = {v["name"]: v["sound"] for v in listed["thesis-tree"]["variants"]}
    assert variants == {"sound": True, "published": False, "float-threshold": False}
    assert listed["tree-baseline"]["variants"][0]["sound"] is False


def test_bad_parameter_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(
        capsys, "train", "--algorithm", "diffpid3", "--data", "vote", "--epsilon", "1",
        "--param", "quality=info-gain", "--param", "max_size=100", "--out", str(tmp_path / "m.json"),
    )
    assert status == 2 and err.count("\n") == 1 and "max_size=100" in err
    assert not (tmp_path / "m.json").exists()
