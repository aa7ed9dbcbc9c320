"""``python3 -m refdp delta``: the certified Li-Qardaji-Su delta on the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import List

import pytest

from refdp.cli import main
from refdp.privacy import largest_beta, lqs_delta, smallest_k


@pytest.mark.claim("lqs-delta-certified")
def test_delta_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", "--k", "5", "--beta", "0.1", "--epsilon", "0.5"]) == 0
    out = capsys.readouterr().out
    result = lqs_delta(5, 0.1, 0.5)
    assert f"delta <= {result.delta:.6g}" in out
    assert f"attained at n={result.n_at_max}; n_m={result.n_m}" in out
    assert "Chernoff" in out


def test_delta_json_with_trees(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", "--k", "10", "--beta", "2/5", "--epsilon", "0.9", "--trees", "10", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    result = lqs_delta(10, Fraction(2, 5), 0.9)
    assert obj["delta"] == result.delta and obj["n_at_max"] == result.n_at_max
    assert obj["total_epsilon"] == "9" and obj["total_delta"] == result.for_trees(10)[1]
    assert obj["beta"] == "2/5" and obj["question"] == "delta"


def test_inverse_questions(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", "--beta", "0.1", "--epsilon", "0.5", "--target-delta", "1e-6", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["question"] == "smallest-k" and obj["k"] == smallest_k(0.1, 0.5, 1e-6)
    assert main(["delta", "--k", "10", "--epsilon", "0.5", "--target-delta", "1e-6"]) == 0
    out = capsys.readouterr().out
    assert f"beta = {float(largest_beta(10, 0.5, 1e-6))}" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["delta", "--k", "5", "--beta", "0.4", "--epsilon", "0.5"], "-ln(1 - beta)"),
        (["delta", "--k", "0", "--beta", "0.1", "--epsilon", "0.5"], "must be >= 1"),
        (["delta", "--k", "5", "--beta", "1.5", "--epsilon", "0.5"], "between 0 and 1"),
        (["delta", "--k", "5", "--beta", "0.1", "--epsilon", "nan"], "finite"),
        (["delta", "--k", "5", "--epsilon", "0.5"], "needs --k, --beta and --epsilon"),
        (["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1", "--target-delta", "0.1"], "leave out --k"),
        (["delta", "--k", "5", "--beta", "0.1", "--epsilon", "1", "--trees", "0"], "number of trees"),
        (["delta", "--k", "five", "--beta", "0.1", "--epsilon", "1"], "invalid integer value"),
    ],
)
def test_bad_input_exits_2_with_one_line(argv: List[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert fragment in captured.err, captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err


@pytest.mark.claim("lqs-delta-certified")
def test_delta_table_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", "--table", "--k", "2,10", "--beta", "0.1,0.5", "--epsilon", "0.5,1"]) == 0
    out = capsys.readouterr().out
    blocks = out.strip().split("\n\n")
    assert len(blocks) == 2 and "epsilon=0.5" in blocks[0] and "epsilon=1" in blocks[1]
    rows = blocks[1].splitlines()[2:]
    assert [row.split()[0] for row in rows] == ["2", "10"]
    assert rows[1].split()[2:] == [f"{lqs_delta(10, b, 1).delta:.3g}" for b in ("0.1", "0.5")]
    # epsilon 0.5 < -ln(1 - 0.5): outside the theorem, shown as "-"
    assert [row.split()[-1] for row in blocks[0].splitlines()[2:]] == ["-", "-"]


def test_delta_table_json_and_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["delta", "--table", "--epsilon", "1", "--json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["question"] == "table" and len(obj["cells"]) == 7 * 6
    cell = next(c for c in obj["cells"] if c["k"] == 5 and c["beta"] == "0.1")
    assert cell["delta"] == lqs_delta(5, "0.1", 1).delta and cell["epsilon"] == "1"


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["delta", "--k", "5,6", "--beta", "0.1", "--epsilon", "1"], "lists only with --table"),
        (["delta", "--table", "--epsilon", "1", "--trees", "3"], "drop --trees"),
        (["delta", "--table", "--k", "0", "--epsilon", "1"], "must be >= 1"),
        (["delta", "--table", "--beta", "0.1,2", "--epsilon", "1"], "between 0 and 1"),
        (["delta", "--table", "--epsilon", "1,x"], "epsilon"),
    ],
)
def test_delta_table_bad_input(argv: List[str], fragment: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert fragment in captured.err, captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
