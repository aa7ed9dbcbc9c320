"""Known-answer vectors: refdp reproduces the checked-in files, and the files hold the right answers.

Three kinds of check: (1) ``python3 -m refdp vectors`` regenerates
``tests/vectors/`` byte for byte; (2) :func:`check_vectors` recomputes every
case from its inputs; (3) independent recomputations here (hand formulas,
brute-force binomial tails, math.exp) agree with the stored values, so the
vectors are not merely refdp agreeing with itself.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List

import pytest

from refdp.cli import main
from refdp.errors import InvalidParameterError
from refdp.vectors import FILES, FORMAT, build_vectors, check_vectors, dumps_document, write_vectors

VECTORS = Path(__file__).parent / "vectors"


def _load(name: str) -> Dict[str, Any]:
    document: Dict[str, Any] = json.loads((VECTORS / name).read_text(encoding="utf-8"))
    return document


def test_checked_in_vectors_are_regenerated_identically() -> None:
    built = build_vectors()
    assert sorted(built) == sorted(FILES)
    for name, document in built.items():
        assert (VECTORS / name).read_text(encoding="utf-8") == dumps_document(document), name


def test_refdp_reproduces_every_checked_in_case() -> None:
    assert check_vectors(VECTORS) == []


def test_cli_writes_and_checks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors", "--out", str(tmp_path / "v"), "--check", str(VECTORS)]) == 0
    for name in FILES:
        assert (tmp_path / "v" / name).read_bytes() == (VECTORS / name).read_bytes()
    assert "all vectors reproduced" in capsys.readouterr().out


def test_a_tampered_value_is_reported(tmp_path: Path) -> None:
    write_vectors(tmp_path)
    path = tmp_path / "quality.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    document["cases"][0]["expected"]["gini"] = "-1"
    path.write_text(json.dumps(document), encoding="utf-8")
    problems = check_vectors(tmp_path)
    assert len(problems) == 1 and "gini" in problems[0]
    (tmp_path / "lqs.json").unlink()
    assert any("missing" in p for p in check_vectors(tmp_path))


def test_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["vectors"]) == 2
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["vectors", "--out", str(blocker)]) == 2
    assert blocker.read_text(encoding="utf-8") == "x"
    with pytest.raises(InvalidParameterError):
        write_vectors(blocker)
    assert "error" in capsys.readouterr().err


def test_every_file_states_format_and_tolerances() -> None:
    for name in FILES:
        document = _load(name)
        assert document["format"] == FORMAT and document["cases"]
        assert isinstance(document["tolerances"], dict)


def _entropy_quality(table: List[List[int]]) -> float:
    total = 0.0
    for row in table:
        size = sum(row)
        total += sum(c * math.log2(c / size) for c in row if c)
    return total


def test_quality_values_by_hand() -> None:
    for case in _load("quality.json")["cases"]:
        table = case["inputs"]["table"]
        expected = case["expected"]
        assert Fraction(expected["max"]) == sum(max(row) for row in table)
        gini = -sum(
            (Fraction(sum(row)) - Fraction(sum(c * c for c in row), sum(row)) for row in table if sum(row)),
            Fraction(0),
        )
        assert Fraction(expected["gini"]) == gini
        n = sum(map(sum, table))
        assert Fraction(expected["gini-weighted"]) == (gini / n if n else 0)
        assert expected["info-gain"] == pytest.approx(_entropy_quality(table), abs=1e-9)
    first = _load("quality.json")["cases"][0]
    assert first["inputs"]["table"] == [[3, 1], [0, 2]]
    assert first["expected"]["max"] == "5" and first["expected"]["gini"] == "-3/2"


def test_sensitivities_are_the_proved_constants() -> None:
    known = {"max": Fraction(1), "gini": Fraction(2), "gini-weighted": Fraction(1, 2)}
    for case in _load("sensitivity.json")["cases"]:
        inputs, expected = case["inputs"], case["expected"]
        if inputs["quality"] in known:
            assert Fraction(expected["value"]) == known[inputs["quality"]]
        elif inputs["quality"] == "info-gain":
            if "max_size" in inputs:
                bound = math.log2(inputs["max_size"] + 1) + 1 / math.log(2)
                assert expected["value"] == pytest.approx(bound, rel=1e-9)
            else:
                assert expected == {"error": "InvalidParameterError"}
        else:
            n = inputs["n"]
            assert Fraction(expected["value"]) == Fraction(2 * n, (n + 1) ** 2) and expected["sound"] is False


def test_exponential_probabilities_by_hand() -> None:
    for case in _load("exponential.json")["cases"]:
        inputs, expected = case["inputs"], case["expected"]
        eps, du = Fraction(inputs["epsilon"]), Fraction(inputs["sensitivity"])
        exponents = [eps * Fraction(u) / (2 * du) for u in inputs["utilities"]]
        assert [Fraction(c) for c in expected["exponents"]] == exponents
        weights = [float(Fraction(w)) for w in inputs.get("base_weights", ["1"] * len(exponents))]
        top = max(float(c) for c, w in zip(exponents, weights) if w > 0)
        raw = [w * math.exp(float(c) - top) for c, w in zip(exponents, weights)]
        total = math.fsum(raw)
        assert expected["probabilities"] == pytest.approx([r / total for r in raw], abs=1e-12)
        for p, lp in zip(expected["probabilities"], expected["log_probabilities"]):
            if lp == "-inf":
                assert p == 0.0
            elif p > 1e-300:
                assert lp == pytest.approx(math.log(p), abs=1e-9)


def _tail(n: int, beta: float, gamma: float) -> float:
    """P[Bin(n, beta) > gamma n], summed directly."""
    t = math.floor(gamma * n)
    return math.fsum(math.comb(n, j) * beta**j * (1 - beta) ** (n - j) for j in range(t + 1, n + 1))


def test_lqs_delta_against_brute_force() -> None:
    for case in _load("lqs.json")["cases"]:
        inputs, expected = case["inputs"], case["expected"]
        k, beta, eps = inputs["k"], float(Fraction(inputs["beta"])), float(Fraction(inputs["epsilon"]))
        if eps < -math.log1p(-beta):
            assert expected == {"error": "InvalidParameterError"}
            continue
        gamma = (math.exp(eps) - 1 + beta) / math.exp(eps)
        assert expected["gamma"] == pytest.approx(gamma, rel=1e-12)
        n_m = math.ceil(k / gamma - 1)
        assert expected["n_m"] == n_m
        tails = [(_tail(n, beta, gamma), n) for n in range(n_m, n_m + 400)]
        best, n_best = max(tails)
        assert expected["n_at_max"] == n_best
        # certified and rounded up: never below the exact maximum, at most 1e-9 above it
        assert best * (1 - 1e-12) <= expected["delta"] <= best * (1 + 1.1e-9) + 1e-300


def test_budget_splits_by_hand() -> None:
    for case in _load("budgets.json")["cases"]:
        inputs, expected = case["inputs"], case["expected"]
        eps, substitute = Fraction(inputs["epsilon"]), inputs["relation"] == "substitute"
        algorithm = inputs["algorithm"]
        if algorithm == "diffpid3" and not substitute:
            assert Fraction(expected["per_query_epsilon"]) == eps / (2 * (inputs["max_depth"] + 1))
        elif algorithm == "thesis-tree" and (inputs["variant"] == "published" or not substitute):
            assert Fraction(expected["per_query_epsilon"]) == eps / (2 * (inputs["max_depth"] + 1) - 1)
        elif algorithm == "dpdf" and not substitute:
            assert Fraction(expected["per_query_epsilon"]) == eps / (inputs["n_trees"] * (2 * inputs["max_depth"] - 1))
        elif algorithm == "private-rdt":
            assert Fraction(expected["per_cell_epsilon"]) == eps / (inputs["n_trees"] * (2 if substitute else 1))
        elif algorithm == "kanon-rdt" and "error" not in expected:
            assert Fraction(expected["per_tree_epsilon"]) == eps / inputs["n_trees"]
