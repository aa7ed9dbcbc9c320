"""How ``audit-cmd`` and ``crosscheck-cmd`` run a program: per run, per batch (``{seeds}``), workers, ``--python``.

One small Python program (the noisy class counts of noisy-majority, a
function of the data and the seed) runs under every protocol: the outputs,
hence the reports' statistics, must be the same.  Then each protocol's
failures: a batch that exits non-zero, runs over its time limit or writes
another number of lines fails with all its runs; an empty line fails its
run alone; a worker that dies or hangs fails the run it was on and a fresh
one takes the next; a Python function that raises fails its run with the
exception's line, and what it prints does not reach the outputs.  The
diffpid3 example at refdp's defaults (a noisy size choosing the depth) is
accepted and its planted budget off by 2 rejected, under ``--python`` and
``{seeds}``, with the runs that reject it with probability at least
1 - 1e-6 (computed below).  Signals are ``tests/test_signals.py``'s.
"""

from __future__ import annotations

import json
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from refdp.algorithms import diffpid3_laws, get_algorithm
from refdp.audit.goodness_of_fit import tv_sample_size
from refdp.cli import main
from refdp.data import load
from refdp.privacy import Relation

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "crosscheck_external" / "diffpid3_root.py"
SEED = 5

# noisy-majority's counts on vote at epsilon 1/2 (scale 2), by a program that reads the seed in four ways
PROGRAM = '''
import csv, json, math, random, sys, time

def counts(data, seed, schema, *args):
    if "print" in args:
        print("chatter on stdout")
    if "raise" in args and seed % 3 == 0:
        raise ValueError(f"no run for seed {seed}")
    with open(data, newline="") as f:
        labels = [row[-1] for row in list(csv.reader(f))[1:]]
    rng = random.Random(seed)
    noise = lambda: math.floor(-2 * math.log(1 - rng.random())) - math.floor(-2 * math.log(1 - rng.random()))
    return {"counts": [labels.count(c) + noise() for c in json.load(open(schema))["classes"]]}

if __name__ == "__main__":
    mode, data, schema, *rest = sys.argv[1:]
    if mode == "run":
        seed, out = rest
        open(out, "w").write(json.dumps(counts(data, int(seed), schema)))
    elif mode == "batch":
        seeds, out, *faults = rest
        lines = [json.dumps(counts(data, int(s), schema)) for s in open(seeds)]
        if "empty-first" in faults:
            lines[0] = ""
        if "short" in faults:
            lines.pop()
        if "exit" in faults:
            sys.exit("the batch gave up")
        if "sleep" in faults:
            time.sleep(60)
        open(out, "w").write("".join(line + "\\n" for line in lines))
    else:
        done = 0
        for line in sys.stdin:
            if "die-after-3" in rest and done == 3:
                sys.exit("the worker gave up")
            if "hang-on-3" in rest and done == 3:
                time.sleep(60)
            print(json.dumps(counts(data, int(line), schema)), flush=True)
            done += 1
'''

COUNTS = ("--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1/2", "--output", "leaf-counts",
          "--seed", str(SEED), "--jobs", "2", "--json")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("protocols") / "counts.py"
    path.write_text(PROGRAM, encoding="utf-8")
    return path


def crosscheck(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, Dict[str, Any], str]:
    status = main(["crosscheck-cmd", *argv])
    out, err = capsys.readouterr()
    return status, (json.loads(out) if out else {}), err


def _protocols(program: Path) -> Dict[str, List[str]]:
    py = f"{sys.executable} {program}"
    return {
        "run": ["--cmd", f"{py} run {{data}} {{schema}} {{seed}} {{out}}"],
        "batch": ["--cmd", f"{py} batch {{data}} {{schema}} {{seeds}} {{out}}", "--batch", "7"],
        "worker": ["--worker", "--cmd", f"{py} worker {{data}} {{schema}}"],
        "python": ["--python", f"{program}:counts"],
    }


@pytest.mark.claim("crosscheck-command", "crosscheck-discrete-laplace-ks")
def test_every_protocol_gives_the_same_outputs(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reports = {}
    for name, flags in _protocols(program).items():
        status, report, err = crosscheck(capsys, *flags, *COUNTS, "--runs", "16")
        assert status == 0 and report["verdict"] == "ACCEPT" and report["failures"] == 0, (name, err, report)
        assert report["protocol"] == name and report["samples"] == 32, report
        reports[name] = report
    assert reports["batch"]["batch"] == 7 and reports["worker"]["batch"] is None
    assert len({r["distance"] for r in reports.values()}) == 1, {k: r["distance"] for k, r in reports.items()}


def test_a_failed_batch_fails_all_its_runs_and_an_empty_line_one(
    program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = f"{sys.executable} {program} batch {{data}} {{schema}} {{seeds}} {{out}}"
    common = (*COUNTS, "--runs", "20", "--batch", "5", "--max-failure-rate", "1")
    status, report, err = crosscheck(capsys, "--cmd", batch + " empty-first", *common)
    assert status == 0 and report["failures"] == 4 and report["failure_kinds"] == {"output": 4}, (err, report)
    assert report["samples"] == 2 * 16
    status, report, err = crosscheck(capsys, "--cmd", batch + " short", *common)
    assert status == 2 and "the first 8 runs of the program all failed" in err, err
    assert "wrote 4 lines for 5 seeds" in err, err
    status, report, err = crosscheck(capsys, "--cmd", batch + " exit", *common)
    assert status == 2 and "exit status 1" in err and "the batch gave up" in err, err
    status, report, err = crosscheck(capsys, "--cmd", batch + " sleep", *common, "--timeout", "0.5")
    assert status == 2 and "no result after 0.5 s (the batch of 5 runs from seed" in err, err


def test_a_worker_that_dies_or_hangs_fails_one_run_and_is_replaced(
    program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    worker = f"{sys.executable} {program} worker {{data}} {{schema}}"
    common = (*COUNTS, "--runs", "20", "--max-failure-rate", "1", "--jobs", "1")
    status, report, err = crosscheck(capsys, "--worker", "--cmd", worker + " die-after-3", *common)
    # every fourth run meets a worker that has answered three: 5 of 20 fail, each with the worker's last line
    assert status == 0 and report["failures"] == 5 and report["failure_kinds"] == {"error": 5}, (err, report)
    assert "the worker ended with exit status 1" in report["first_failure"], report
    assert "the worker gave up" in report["first_failure"], report
    status, report, err = crosscheck(capsys, "--worker", "--cmd", worker + " hang-on-3", *common, "--timeout", "1")
    assert status == 0 and report["failure_kinds"] == {"timeout": 5}, (err, report)


def test_a_python_function_that_raises_fails_its_run_and_its_prints_stay_out(
    program: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, report, err = crosscheck(capsys, "--python", f"{program}:counts print raise", *COUNTS, "--runs", "30",
                                     "--max-failure-rate", "1")
    assert status == 0 and report["failures"] > 0 and set(report["failure_kinds"]) == {"error"}, (err, report)
    assert "ValueError: no run for seed" in report["first_failure"], report
    assert report["impossible"] == 0 and report["samples"] == 2 * (30 - report["failures"])
    status, report, err = crosscheck(capsys, "--python", "no_such_module_here:counts", *COUNTS, "--runs", "30")
    assert status == 2 and "ModuleNotFoundError" in err and "no_such_module_here" in err, err


def _planted_runs() -> int:
    """Runs that reject the planted budget with probability at least 1 - 1e-6.

    refdp's law at epsilon 1/5: the root is a leaf with probability 0.28418
    (the noisy size N~ = 435 + DLap(100) must reach 3 sqrt(2 x 2) x 3 /
    0.0475, about 379, for depth 1: P[N~ >= 379] = 0.716).  With every
    per-query budget doubled, depth 1 needs N~ >= about 190, P = 0.957, so
    the planted law puts at most 0.05 on a leaf: a total variation above
    0.23.  The runs are sized for 0.2.
    """
    law = diffpid3_laws.root_split_law(load("vote"), Fraction(1, 5), get_algorithm("diffpid3").resolve({}),
                                  Relation.ADD_REMOVE)
    assert abs(law.probabilities()[-1] - 0.28418) < 1e-5
    return tv_sample_size(law.probabilities(), 0.2, beta=1e-6)


@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice", "crosscheck-noisy-size-mixture")
def test_the_python_example_at_refdps_defaults(capsys: pytest.CaptureFixture[str]) -> None:
    runs = _planted_runs()
    assert runs < 3000
    common = ("--algorithm", "diffpid3", "--data", "vote", "--epsilon", "1/5", "--output", "root-split", "--seed",
              str(SEED), "--jobs", "2", "--runs", str(runs), "--json")
    target = f"{EXAMPLE}:root_split 1/5"
    status, correct, err = crosscheck(capsys, "--python", target, *common)
    assert status == 0 and correct["verdict"] == "ACCEPT" and correct["failures"] == 0, (SEED, err, correct)
    assert [p["plan"] for p in correct["plans"]] == ["depth 0", "depth 1", "depth 2"], correct["plans"]
    status, planted, err = crosscheck(capsys, "--python", target + " budget-times-2", *common)
    assert status == 1 and planted["verdict"] == "REJECT", (SEED, err, planted)
    batch = f"{sys.executable} {EXAMPLE} {{data}} {{schema}} {{seeds}} {{out}} 1/5"
    status, same, err = crosscheck(capsys, "--cmd", batch, *common)
    assert status == 0 and same["distance"] == correct["distance"], (err, same)  # same program, same outputs
    status, planted, err = crosscheck(capsys, "--cmd", batch + " budget-times-2", *common)
    assert status == 1 and planted["verdict"] == "REJECT", (SEED, err, planted)


@pytest.mark.slow
@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice", "crosscheck-noisy-size-mixture")
def test_the_python_example_full_run(capsys: pytest.CaptureFixture[str]) -> None:
    common = ("--algorithm", "diffpid3", "--data", "vote", "--epsilon", "1/5", "--output", "root-split", "--seed",
              "2026", "--jobs", "2", "--json")
    target = f"{EXAMPLE}:root_split 1/5"
    status, correct, err = crosscheck(capsys, "--python", target, *common)
    assert status == 0 and correct["runs"] == correct["runs_for_power"], (err, correct)
    status, planted, err = crosscheck(capsys, "--python", target + " budget-times-2", *common)
    assert status == 1, (err, planted)


def test_audit_cmd_runs_a_python_function_and_batches(program: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The counts differ between D and D' (a row removed) by one in one class, under noise of scale 2: a claim
    # of epsilon 1/100 is refuted with few runs.
    common = ("--data", "vote", "--epsilon", "1/100", "--neighbours", "index:3", "--trials", "300",
              "--output-kind", "json-field:counts.0", "--jobs", "2", "--seed", "3", "--json")
    reports = []
    for flags in (["--python", f"{program}:counts"],
                  ["--cmd", f"{sys.executable} {program} batch {{data}} {{schema}} {{seeds}} {{out}}"]):
        status = main(["audit-cmd", *flags, *common])
        out, err = capsys.readouterr()
        report = json.loads(out)
        assert report["failures_d"] == 0 and report["failures_d_prime"] == 0, (err, report)
        reports.append((status, report))
    (s1, r1), (s2, r2) = reports
    assert r1["protocol"] == "python" and r2["protocol"] == "batch" and r2["batch"] >= 1
    assert (s1, r1["lower_bound"], r1["k1"], r1["k2"]) == (s2, r2["lower_bound"], r2["k1"], r2["k2"])


@pytest.mark.parametrize(
    "argv, message",
    [
        ([], "give the program to run: --cmd COMMAND or --python MODULE:FUNCTION"),
        (["--cmd", "p {data} {seed}", "--python", "m:f"], "(one of them)"),
        (["--cmd", "p {data} {seed} {seeds}"], "has both {seed} (one process per run) and {seeds}"),
        (["--cmd", "p {data} {seed}", "--batch", "5"], "this --cmd has no {seeds}"),
        (["--cmd", "p {data} {seeds}", "--batch", "0"], "--batch must be >= 1"),
        (["--worker", "--cmd", "p {data} {seed} {out}"], "--worker: --cmd starts a worker, which reads the seeds on its "
                                                         "standard input and writes its outputs on its standard "
                                                         "output; remove {out}, {seed}"),
        (["--worker", "--cmd", "p {schema}"], "put {data} where its path goes"),
        (["--python", "m:f", "--worker"], "--worker and --batch go with --cmd"),
        (["--python", "justamodule"], "--python 'justamodule': give MODULE:FUNCTION"),
        (["--python", "m:not-a-name"], "give MODULE:FUNCTION"),
        (["--python", "m:f 'unclosed"], "--python cannot be split into words"),
    ],
)
@pytest.mark.parametrize("command", ["audit-cmd", "crosscheck-cmd"])
def test_bad_program_flags_are_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], command: str, argv: List[str], message: str
) -> None:
    rest = (["--algorithm", "noisy-majority", "--output", "leaf-counts"] if command == "crosscheck-cmd" else [])
    status = main([command, *argv, "--data", "vote", "--epsilon", "1", *rest])
    out, err = capsys.readouterr()
    assert status == 2 and out == "", (out, err)
    assert err.startswith("refdp: error: ") and err.count("\n") == 1 and message in err, err
