"""``python3 -m refdp audit``: verdicts on planted faults and registry algorithms, and its errors.

In-process through :func:`refdp.cli.main`.  Planted cases are checked
exactly (deterministic); Monte-Carlo runs use small trial counts where the
violation is large enough for them (each refutation below has a certified
bound far above the claim; the audit's false-alarm probability is 1e-6).
"""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Tuple

import pytest

from refdp.audit.planted import planted_names
from refdp.audit.views import VIEWS
from refdp.cli import main

VOTE_ROW = "n,y,n,y,y,y,n,n,n,y,?,y,y,y,n,y"  # 16 votes


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    status = main(["audit", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Dict[str, Any]:
    status, out, err = run(capsys, *argv, "--json")
    result: Dict[str, Any] = json.loads(out)
    # the exit status says the verdict: 1 refuted, 0 not (stderr may hold progress lines)
    assert status == (1 if result["verdict"] == "refuted" else 0), err
    return result


def test_list_planted(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--list-planted")
    assert status == 0
    for name in planted_names():
        assert f"{name}: " in out
    rows: List[Dict[str, Any]] = json.loads(run(capsys, "--list-planted", "--json")[1])
    assert [r["name"] for r in rows] == planted_names() and all(r["exact"] for r in rows)


@pytest.mark.claim("exact-max-log-ratio")
@pytest.mark.parametrize("name", planted_names())
def test_planted_faults_are_refuted_and_their_fixes_are_not(capsys: pytest.CaptureFixture[str], name: str) -> None:
    status, out, err = run(capsys, "--algorithm", f"planted:{name}", "--seed", "1")
    assert status == 1, err
    assert "check: exact" in out and "verdict: REFUTED" in out, out
    status, out, err = run(capsys, "--algorithm", f"correct:{name}", "--seed", "1")
    assert status == 0, err
    assert "verdict: NOT REFUTED" in out, out


@pytest.mark.smoke
def test_exact_verdicts_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    faulty = run_json(capsys, "--algorithm", "planted:sensitivity-understated", "--seed", "1")
    assert faulty["verdict"] == "refuted" and faulty["method"] == "exact" and faulty["runs"] == 0
    assert abs(faulty["max_log_ratio"] - 1.175) < 1e-9 and faulty["epsilon"] == "1"
    mismatch = run_json(capsys, "--algorithm", "planted:noise-on-present-classes", "--seed", "1")
    assert mismatch["max_log_ratio"] == "inf" and mismatch["only_in"] in ("D", "D'")
    correct = run_json(capsys, "--algorithm", "correct:laplace-scale-epsilon", "--seed", "1")
    assert correct["verdict"] == "not refuted" and abs(correct["max_log_ratio"] - 0.5) < 1e-9


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_monte_carlo_on_planted_cases(capsys: pytest.CaptureFixture[str]) -> None:
    faulty = run_json(capsys, "--algorithm", "planted:laplace-scale-epsilon", "--method", "monte-carlo", "--seed", "5")
    assert faulty["verdict"] == "refuted" and faulty["lower_bound"] > 0.5, faulty
    assert faulty["runs"] == 2 * (faulty["trials"] + faulty["selection_trials"]) and faulty["seed"] == 5
    correct = run_json(capsys, "--algorithm", "correct:laplace-scale-epsilon", "--method", "monte-carlo", "--seed", "5")
    assert correct["verdict"] == "not refuted", correct
    status, out, _ = run(capsys, "--algorithm", "planted:exact-score-released", "--method", "monte-carlo",
                         "--trials", "60", "--seed", "2")
    assert status == 1 and "verdict: REFUTED: certified lower bound" in out and "given by --trials" in out, out
    status, out, _ = run(capsys, "--algorithm", "correct:exact-score-released", "--method", "monte-carlo",
                         "--trials", "60", "--seed", "2")
    assert status == 0 and "verdict: NOT REFUTED" in out and "power: these runs detect" in out, out


@pytest.mark.claim("empirical-epsilon-lower-bound", "discrete-laplace-mechanism")
def test_registry_algorithm_with_a_searched_neighbour(capsys: pytest.CaptureFixture[str]) -> None:
    first = run_json(capsys, "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                     "--seed", "3", "--trials", "300")
    assert first["verdict"] == "not refuted", first
    assert first["output"] in VIEWS and first["receipt"].endswith("(level proved)")
    assert first["neighbour_choice"].startswith("searched: ") and first["pilot_runs"] > 0
    assert first["runs"] == first["pilot_runs"] + 600 and first["trials"] == 300
    assert re.fullmatch(r"--seed 3 --pilot-runs [1-9][0-9]* --trials 300", first["replay"]), first["replay"]
    # The pilot's size comes from one run's time, so a busy machine may size it otherwise; the replay flags fix it.
    again = run_json(capsys, "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1",
                     *first["replay"].split())
    for key in ("wall_time", "seconds_per_run", "pilot_seconds"):
        first.pop(key), again.pop(key)
    assert first == again  # replayable from the seed and the replay flags


@pytest.mark.claim("empirical-epsilon-lower-bound")
def test_non_private_baseline_is_refuted(capsys: pytest.CaptureFixture[str]) -> None:
    result = run_json(capsys, "--algorithm", "tree-baseline", "--data", "vote", "--epsilon", "1", "--seed", "3",
                      "--output", "structure", "--neighbour", "remove:0", "--trials", "200", "--method", "monte-carlo")
    assert result["verdict"] == "refuted" and result["lower_bound"] > 1, result
    assert result["neighbour_choice"] == "given by --neighbour" and result["receipt"].endswith("(level unsound)")


def test_given_neighbours(capsys: pytest.CaptureFixture[str]) -> None:
    added = run_json(capsys, "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--seed", "4",
                     "--neighbour", f"add:{VOTE_ROW},republican", "--trials", "100", "--output", "predictions")
    assert added["neighbour"].startswith("add (n,y,n,y") and added["output"] == "predictions"
    replaced = run_json(capsys, "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--seed", "4",
                        "--relation", "substitute", "--neighbour", f"replace:2:{VOTE_ROW},republican",
                        "--trials", "100", "--rows", "10")
    assert replaced["neighbour"].startswith("replace row 2 ") and replaced["relation"] == "substitute"
    assert replaced["rows"] == 10


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "--algorithm is required"),
        (["--algorithm", "no-such-algorithm", "--data", "vote", "--epsilon", "1"], "unknown algorithm"),
        (["--algorithm", "planted:no-such-case"], "unknown planted case"),
        (["--algorithm", "faulty:laplace-scale-epsilon"], "prefix must be planted: or correct:"),
        (["--algorithm", "noisy-majority", "--epsilon", "1"], "--data is required"),
        (["--algorithm", "noisy-majority", "--data", "vote"], "--epsilon is required"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "0"], "epsilon must be > 0"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--rows", "0"], "--rows must be >= 1"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--rows", "9999"], "has only 435 rows"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--param", "depth=3"], "no parameter depth"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--neighbour", "remove:99"], "rows 0..39"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--neighbour", "add:y,n,democrat"],
         "needs 17 comma-separated values"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--neighbour", f"add:{VOTE_ROW},whig"],
         "unknown class"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--neighbour", "replace:0:" + VOTE_ROW],
         "under add-remove give search"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--alpha", "2"], "--alpha must be in"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--output", "shrubs"], "invalid choice"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--method", "replay"], "apply to registry algorithms"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--pairs", "0"], "--pairs must be >= 1"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--method", "exact", "--trials", "5"],
         "--trials applies to the Monte-Carlo audit"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--method", "monte-carlo", "--pairs",
          "5"], "--pairs applies to the replay"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--rows", "5"], "--rows does not apply to planted cases"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--epsilon", "1"], "claims epsilon=1/2"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--data", "vote"], "runs on 'tic-tac-toe'"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--relation", "substitute"], "stated under add-remove"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--trials", "10"], "--trials applies to the Monte-Carlo"),
        (["--algorithm", "planted:laplace-scale-epsilon", "--pilot-runs", "10"], "--pilot-runs does not apply"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--pilot-runs", "0"],
         "--pilot-runs must be >= 1"),
        (["--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--neighbour", "remove:0",
          "--output", "counts", "--pilot-runs", "10"], "--pilot-runs applies to a search"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: List[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "", (out, err)
    assert err.startswith("refdp: error: ") and err.count("\n") == 1 and message in err, err
