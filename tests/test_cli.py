"""The command line: the stable contract of demo, train, predict, evaluate, algorithms."""

from __future__ import annotations

import json
import re
from fractions import Fraction
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

import pytest

from refdp.cli import main
from refdp.data import load
from refdp.algorithms import model_from_json

ROOT = Path(__file__).resolve().parent.parent


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.smoke
def test_help_lists_subcommands() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "refdp", "--help"], cwd=ROOT, capture_output=True, text=True, check=True
    )
    for name in ("demo", "train", "predict", "evaluate", "algorithms", "datasets"):
        assert name in proc.stdout


@pytest.mark.smoke
def test_demo_trains_a_dp_tree_next_to_the_baseline(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "demo", "--seed", "3")
    assert status == 0
    assert "thesis-tree (sound" in out and "tree-baseline (NOT private" in out
    assert out.count("test accuracy") == 2
    assert "if " in out and ("democrat" in out or "republican" in out)
    assert "epsilon=1 (1)" in out and re.search(r"level (proved|idealised):", out), out
    status2, out2, _ = run(capsys, "demo", "--seed", "3")
    assert out == out2
    status3, out3, _ = run(capsys, "demo", "--seed", "3", "--epsilon", "0.5")
    assert status3 == 0 and "epsilon=0.5 (1/2)" in out3


def test_train_predict_round_trip(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model_path = tmp_path / "m.json"
    status, out, err = run(
        capsys, "train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "0.5",
        "--seed", "1", "--out", str(model_path),
    )
    assert status == 0, err
    model = model_from_json(json.loads(model_path.read_text()))
    assert model.receipt.epsilon == Fraction(1, 2)
    first = model_path.read_bytes()
    run(capsys, "train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "0.5",
        "--seed", "1", "--out", str(model_path))
    assert model_path.read_bytes() == first, "same seed, same model, byte for byte"
    labels_path = tmp_path / "labels.txt"
    status, _, err = run(capsys, "predict", "--model", str(model_path), "--data", "vote", "--out", str(labels_path))
    assert status == 0, err
    lines = labels_path.read_text().splitlines()
    assert lines[0] == "row,prediction"
    labels = [line.split(",")[1] for line in lines[1:]]
    assert len(labels) == len(load("vote"))
    assert set(labels) <= set(model.schema.classes)


def test_evaluate_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys, "evaluate", "--algorithm", "noisy-majority", "--data", "tic-tac-toe", "--epsilon", "1",
        "--folds", "5", "--repeats", "2", "--seed", "1", "--json",
    )
    assert status == 0, err
    result = json.loads(out)
    assert len(result["accuracies"]) == 10
    assert result["receipt_epsilon"] == "1"
    assert 0.6 < result["accuracy_mean"] < 0.7  # the majority class share is 626/958
    assert result["sound"] is True
    # Predicting one class: its F1 is 2 p / (1 + p) for its share p, the other class's is 0.
    assert len(result["f1_macro"]) == len(result["auc_macro"]) == 10
    assert 0.3 < result["f1_macro_mean"] < 0.45
    assert result["auc_macro_mean"] == pytest.approx(0.5)  # one leaf: every row tied


def test_algorithms_lists_claims(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "algorithms")
    assert status == 0 and "noisy-majority" in out and "claim parallel-composition" in out
    status, out, _ = run(capsys, "algorithms", "--json")
    assert "noisy-majority" in [a["name"] for a in json.loads(out)]


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["train", "--algorithm", "nope", "--data", "vote", "--epsilon", "1", "--out", "x.json"], "unknown algorithm"),
        (["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "0", "--out", "x.json"], "epsilon"),
        (["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "nan", "--out", "x.json"], "epsilon"),
        (["train", "--algorithm", "noisy-majority", "--data", "no-such-data", "--epsilon", "1", "--out", "x.json"], "no-such-data"),
        (["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--param", "noise=gauss", "--out", "x.json"], "noise"),
        (["train", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--param", "depth", "--out", "x.json"], "KEY=VALUE"),
        (["evaluate", "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--folds", "1"], "folds"),
        (["predict", "--model", "/nonexistent/model.json", "--data", "vote"], "model.json"),
        (["train", "--algorithm", "noisy-majority"], "required"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_exit_2(
    argv: List[str], fragment: str, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    status, out, err = run(capsys, *argv)
    assert status == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("refdp: error:"), err
    assert fragment in lines[0]
    assert not (tmp_path / "x.json").exists()


def test_predict_rejects_non_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    status, _, err = run(capsys, "predict", "--model", str(bad), "--data", "vote")
    assert status == 2 and "not JSON" in err


def test_evaluate_on_a_fixed_test_set(capsys: pytest.CaptureFixture[str]) -> None:
    # monk1 and monk2 share one schema: train on one, test on the other
    status, out, err = run(
        capsys, "evaluate", "--algorithm", "noisy-majority", "--data", "monk1", "--test-data", "monk2",
        "--epsilon", "1", "--repeats", "2", "--seed", "1", "--json",
    )
    assert status == 0, err
    result = json.loads(out)
    assert result["folds"] == 1 and len(result["accuracies"]) == 2
    status, _, err = run(
        capsys, "evaluate", "--algorithm", "noisy-majority", "--data", "monk1", "--test-data", "vote",
        "--epsilon", "1",
    )
    assert status == 2 and err.startswith("refdp: error:")


def test_a_closed_pipe_ends_quietly(tmp_path: Path) -> None:
    """`predict ... | head` stops reading early: exit 0, no error line, no traceback."""
    model = tmp_path / "m.json"
    assert main(["train", "--algorithm", "noisy-majority", "--data", "adult", "--epsilon", "1",
                 "--seed", "1", "--out", str(model)]) == 0
    proc = subprocess.Popen(
        [sys.executable, "-m", "refdp", "predict", "--model", str(model), "--data", "adult"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(100)
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    # no error line and no traceback; what else stderr holds is not this test's business
    assert "refdp: error" not in err and "Traceback" not in err and "BrokenPipe" not in err, err
