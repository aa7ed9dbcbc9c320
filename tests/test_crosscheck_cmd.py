"""``python3 -m refdp crosscheck-cmd``: another implementation, run as a program, against refdp's exact laws.

The C programs of ``examples/crosscheck_external/`` are built with ``cc``
(the tests that need them are skipped, saying so, without a compiler): the
correct ones must be accepted and the planted ones (the exponential
mechanism without its 1/2 under substitute, where the utilities are not
monotone; with it under add-remove, where refdp drops it; a noise scale of
epsilon instead of 1/epsilon) rejected.  By default they run with the number of runs that rejects the
planted law with probability at least 1 - 1e-6, computed here from the laws;
the slow tests run the number ``crosscheck-cmd`` computes for its stated
power (total variation 0.05, a scale off by 10%).  Every check has
false-alarm probability 1e-6 and a fixed seed, printed on failure.
"""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

from refdp.algorithms import diffpid3, diffpid3_laws, majority, thesis_tree, thesis_tree_laws, train
from refdp.algorithms.derivation import NO_RANDOMNESS
from refdp.algorithms.registry import get_algorithm
from refdp.algorithms.root_law import TAIL, noisy_size_plans
from refdp.audit.goodness_of_fit import (
    NoiseMixture,
    crosscheck_discrete_laplace,
    crosscheck_noise_mixture,
    crosscheck_finite,
    discrete_laplace_detectable_scale_error,
    discrete_laplace_sample_size,
    laplace_detectable_scale_error,
    laplace_sample_size,
    tv_detectable,
    tv_sample_size,
)
from refdp.audit.program_crosscheck import CountsReader, Reading, SplitReader
from refdp.cli import main
from refdp.data import CategoricalAttribute, Dataset, Schema, load
from refdp.errors import InvalidParameterError
from refdp.engine import REFERENCE
from refdp.mechanisms import discrete_laplace_pmf, exponential_probabilities
from refdp.privacy import Ledger, Relation
from refdp.tree import CategoricalSplit, ThresholdSplit, ValueSplit, dumps_model
from refdp.tree.integrity import model_digest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "crosscheck_external"
REFDP_ROOT = f"{sys.executable} {EXAMPLES / 'refdp_root.py'}"
SEED = 21
POWER = 1e-6  # the planted faults are missed with probability at most this at the runs computed below
VOTE = load("vote")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> Tuple[int, str, str]:
    status = main(["crosscheck-cmd", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Dict[str, Any]:
    status, out, err = run(capsys, *argv, "--json")
    assert status in (0, 1), err
    report: Dict[str, Any] = json.loads(out)
    assert status == (1 if report["verdict"] == "REJECT" else 0)  # the exit status says the verdict
    return report


def _tv(p: List[float], q: List[float]) -> float:
    return 0.5 * math.fsum(abs(a - b) for a, b in zip(p, q))


@pytest.fixture(scope="module")
def binaries(tmp_path_factory: pytest.TempPathFactory) -> Dict[str, Path]:
    if shutil.which("cc") is None:
        pytest.skip("no C compiler (cc) on this machine to build examples/crosscheck_external/*.c")
    folder = tmp_path_factory.mktemp("crosscheck-external")
    built = {}
    for name in ("root_split", "leaf_counts"):
        built[name] = folder / name
        subprocess.run(["cc", "-O2", "-o", str(built[name]), str(EXAMPLES / f"{name}.c"), "-lm"], check=True)
    return built


# The planted fault of root_split.c under each relation: the factor 2 where refdp has none, or none where it has one.
PLANTED = {Relation.ADD_REMOVE: "keep-half", Relation.SUBSTITUTE: "no-half"}


def _diffpid3_law_and_planted(relation: Relation = Relation.ADD_REMOVE) -> Tuple[List[float], List[float]]:
    params = get_algorithm("diffpid3").resolve({"size_share": "0"})
    root = diffpid3_laws.root_split_law(VOTE, Fraction(1), params, relation)
    law = root.single
    assert law is not None and root.leaf_is_outcome
    # Under add-remove refdp's max operator is monotone (no factor 2); under substitute it is not.
    assert law.monotone is (relation is Relation.ADD_REMOVE)
    planted = exponential_probabilities(
        law.utilities, epsilon=law.epsilon, sensitivity=law.sensitivity, monotone=not law.monotone
    )
    exact = root.probabilities()
    leaf = exact[-1]  # the root splits unless its noisy size N_T stops it, which both programs draw alike
    assert leaf < 1e-5
    return exact, [p * (1 - leaf) for p in planted] + [leaf]


def _c_root_split(binary: Path, relation: Relation, fault: str = "") -> str:
    # DiffP-ID3's default depth is 5: the program is told the same, and the relation.
    return f"{binary} {{data}} {{seed}} {{out}} 1 5 {relation.value} {fault}".strip()


def _c_leaf_counts(binary: Path, fault: str = "") -> str:
    return f"{binary} {{data}} {{schema}} {{seed}} {{out}} 0.5 {fault}".strip()


ROOT_SPLIT = ("--algorithm", "diffpid3", "--param", "size_share=0", "--data", "vote", "--epsilon", "1",
              "--output", "root-split", "--seed", str(SEED), "--jobs", "2")
RUNS_FOR_POWER = {Relation.ADD_REMOVE: 19670, Relation.SUBSTITUTE: 26812}  # TV 0.05, alpha 1e-6, power 0.999
LEAF_COUNTS = ("--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1/2", "--output", "leaf-counts",
               "--seed", str(SEED), "--jobs", "2")


@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice")
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE], ids=lambda r: r.value)
def test_c_root_split_correct_is_accepted_and_wrong_factor_is_rejected(
    binaries: Dict[str, Path], capsys: pytest.CaptureFixture[str], relation: Relation
) -> None:
    exact, planted = _diffpid3_law_and_planted(relation)
    tv = _tv(exact, planted)
    assert tv > 0.3
    runs = tv_sample_size(exact, tv, beta=POWER)
    assert runs < 1000
    argv = (*ROOT_SPLIT, "--relation", relation.value, "--runs", str(runs))
    correct = run_json(capsys, "--cmd", _c_root_split(binaries["root_split"], relation), *argv)
    assert correct["verdict"] == "ACCEPT", (SEED, correct["detail"])
    assert correct["runs"] == correct["samples"] == runs and correct["failures"] == 0 and correct["impossible"] == 0
    assert correct["sizing"] == "given by --runs" and correct["runs_for_power"] == RUNS_FOR_POWER[relation]
    wrong = run_json(capsys, "--cmd", _c_root_split(binaries["root_split"], relation, PLANTED[relation]), *argv)
    assert wrong["verdict"] == "REJECT" and wrong["distance"] > wrong["threshold"], (SEED, wrong["detail"])


@pytest.mark.claim("crosscheck-command", "crosscheck-discrete-laplace-ks")
def test_c_leaf_counts_correct_is_accepted_and_scale_times_epsilon_is_rejected(
    binaries: Dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    # Scale 2 (1/epsilon) against the planted 1/2 (epsilon): a factor 4, that is a scale error of 3.
    samples = discrete_laplace_sample_size(2, 3.0, beta=POWER)
    runs = math.ceil(samples / 2)
    correct = run_json(capsys, "--cmd", _c_leaf_counts(binaries["leaf_counts"]), *LEAF_COUNTS, "--runs", str(runs))
    assert correct["verdict"] == "ACCEPT", (SEED, correct["detail"])
    assert correct["samples"] == 2 * runs and correct["law"]["scale"] == "2" and correct["law"]["counts"] == [267, 168]
    wrong = run_json(capsys, "--cmd", _c_leaf_counts(binaries["leaf_counts"], "scale-times-epsilon"), *LEAF_COUNTS,
                     "--runs", str(runs))
    assert wrong["verdict"] == "REJECT", (SEED, wrong["detail"])


@pytest.mark.slow
@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice")
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE], ids=lambda r: r.value)
def test_c_root_split_full_example(
    binaries: Dict[str, Path], capsys: pytest.CaptureFixture[str], relation: Relation
) -> None:
    argv = (*ROOT_SPLIT, "--relation", relation.value)
    correct = run_json(capsys, "--cmd", _c_root_split(binaries["root_split"], relation), *argv)
    assert correct["verdict"] == "ACCEPT", (SEED, correct["detail"])
    assert correct["runs"] == correct["runs_for_power"] == RUNS_FOR_POWER[relation], (SEED, correct)
    wrong = run_json(capsys, "--cmd", _c_root_split(binaries["root_split"], relation, PLANTED[relation]), *argv)
    assert wrong["verdict"] == "REJECT", (SEED, wrong["detail"])


@pytest.mark.slow
@pytest.mark.claim("crosscheck-command", "crosscheck-discrete-laplace-ks")
def test_c_leaf_counts_full_example(binaries: Dict[str, Path], capsys: pytest.CaptureFixture[str]) -> None:
    correct = run_json(capsys, "--cmd", _c_leaf_counts(binaries["leaf_counts"]), *LEAF_COUNTS)
    assert correct["verdict"] == "ACCEPT", (SEED, correct["detail"])
    assert correct["runs"] == correct["runs_for_power"] == math.ceil(discrete_laplace_sample_size(2, 0.1) / 2)
    wrong = run_json(capsys, "--cmd", _c_leaf_counts(binaries["leaf_counts"], "scale-times-epsilon"), *LEAF_COUNTS)
    assert wrong["verdict"] == "REJECT", (SEED, wrong["detail"])


def test_text_report_states_the_comparison_false_alarm_and_power(
    binaries: Dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "--cmd", _c_root_split(binaries["root_split"], Relation.ADD_REMOVE, "keep-half"),
                           *ROOT_SPLIT, "--runs", "600")
    assert status == 1, err
    assert "exponential mechanism over 16 attributes: epsilon 1/12 per query from refdp's budget plan for a total " \
           "of 1 (size_share 0: no noisy size), quality max of sensitivity 1 under add-remove, monotone utilities: " \
           "P ~ exp(epsilon u / sensitivity), no factor 2" in out, out
    assert "false alarm: a program with refdp's law is rejected with probability at most 1e-06" in out, out
    assert "power: 19670 runs reject a law at total variation 0.05 or more from refdp's with probability at least " \
           "0.999; this check ran 600 (given by --runs)" in out, out
    assert "verdict: REJECT" in out and f"replay with --seed {SEED}" in out and "(exit 1)" in out, out


@pytest.mark.claim("crosscheck-command")
def test_refdp_as_a_separate_process_is_accepted(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    # Few runs (a Python start and a training each): the point is that refdp's own outputs name
    # candidates and counts the readers accept, for a binary value-vs-rest tree.
    common = ("--algorithm", "thesis-tree", "--param", "max_depth=1", "--param", "size_share=0", "--data", "vote",
              "--epsilon", "1/2", "--runs", "10", "--seed", "3", "--jobs", "2")
    cmd = f"{REFDP_ROOT} thesis-tree {{data}} {{schema}} {{seed}} {{out}} 1/2 max_depth=1 size_share=0"
    split = run_json(capsys, "--cmd", cmd, *common, "--output", "root-split")
    assert split["verdict"] == "ACCEPT" and split["impossible"] == 0 and split["failures"] == 0, split
    assert len(split["law"]) == 49 and split["law"][0]["candidate"] == "handicapped-infants=n"
    assert split["law"][-1]["candidate"] == "(leaf)" and split["law"][-1]["probability"] == 0
    # Counts at the leaves only (the default): the split root releases none, which refdp's law for a root that
    # always releases them (every node) calls impossible.
    every = ("--param", "node_counts=every-node")
    none = run_json(capsys, "--cmd", cmd, *common, *every, "--output", "leaf-counts")
    assert none["verdict"] == "REJECT" and none["impossible"] == 10, none
    assert "the root released no counts" in none["first_impossible"], none
    counts = run_json(capsys, "--cmd", f"{cmd} node_counts=every-node", *common, *every, "--output", "leaf-counts")
    # thesis-tree at depth 1 with counts at every node plans 3 queries on a path: 1/6 each, noise of scale 6.
    assert counts["verdict"] == "ACCEPT" and counts["samples"] == 20 and counts["law"]["scale"] == "6", counts
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    model = run_json(capsys, "--cmd", f"{sys.executable} -m refdp train --algorithm noisy-majority --data {{data}} "
                     "--schema {schema} --epsilon 1 --seed {seed} --out {out}",
                     "--algorithm", "noisy-majority", "--data", "vote", "--epsilon", "1", "--output", "model",
                     "--runs", "3", "--seed", "3", "--jobs", "2")
    assert model["verdict"] == "ACCEPT" and model["runs_for_power"] == 688, model


@pytest.mark.claim("crosscheck-command")
def test_model_files_that_disagree_are_rejected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    common = ("--algorithm", "thesis-tree", "--param", "size_share=0", "--data", "vote", "--epsilon", "1",
              "--output", "model", "--runs", "2", "--seed", "1", "--jobs", "2")

    def check(model_text: str) -> Dict[str, Any]:
        path = tmp_path / "model.json"
        path.write_text(model_text, encoding="utf-8")
        return run_json(capsys, "--cmd", f"sh -c 'cp \"$0\" \"$1\"' {path} {{out}} {{data}} {{seed}}", *common)

    fixed = {"size_share": 0}
    good = dumps_model(train("thesis-tree", VOTE, 1, fixed, rng=4))
    assert check(good)["verdict"] == "ACCEPT"
    shallow = check(dumps_model(train("thesis-tree", VOTE, 1, {**fixed, "max_depth": 2}, rng=4)))
    assert shallow["verdict"] == "REJECT" and "parameters are grid=256, leaf_sigmas=3.0, level_ratio=1.0, " \
        "max_depth=2," in shallow["detail"], shallow
    # refdp's own default (a noisy size chooses the depth, here 3 of 6): not the model of size_share=0
    noisy = check(dumps_model(train("thesis-tree", VOTE, 1, rng=4)))
    assert noisy["verdict"] == "REJECT" and "size_share=0.05" in noisy["detail"], noisy
    halved = check(dumps_model(train("thesis-tree", VOTE, Fraction(1, 2), fixed, rng=4)))
    assert halved["verdict"] == "REJECT" and "total epsilon is 1/2; refdp's is 1" in halved["detail"], halved
    forged = json.loads(good)
    forged["receipt"]["charges"][0]["epsilon"] = "1/8"
    assert "does not verify" in check(json.dumps(forged))["detail"]


@pytest.mark.claim("crosscheck-command", "receipt-rederivation")
@pytest.mark.parametrize("name", ["thesis-tree", "diffpid3", "dp-adaboost"])
def test_model_files_at_the_defaults(tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    # A noisy size chooses the plan; loading a model re-derives its charges from its plan and noisy size,
    # so refdp's models at the defaults are accepted, and one with a charge of another plan is not.
    common = ("--algorithm", name, "--data", "vote", "--epsilon", "1", "--output", "model", "--runs", "2",
              "--seed", "1", "--jobs", "2")
    path = tmp_path / "model.json"
    model = train(name, VOTE, 1, rng=4)
    assert model.plan_inputs["noisy_size"] is not None
    path.write_text(dumps_model(model), encoding="utf-8")
    report = run_json(capsys, "--cmd", f"sh -c 'cp \"$0\" \"$1\"' {path} {{out}} {{data}} {{seed}}", *common)
    assert report["verdict"] == "ACCEPT" and report["model_charges"] == "re-derived", report
    forged = json.loads(dumps_model(model))
    forged["plan_inputs"]["noisy_size"] += 10_000  # another plan: the charges no longer re-derive
    forged["digest"] = model_digest(forged)
    path.write_text(json.dumps(forged), encoding="utf-8")
    report = run_json(capsys, "--cmd", f"sh -c 'cp \"$0\" \"$1\"' {path} {{out}} {{data}} {{seed}}", *common)
    assert report["verdict"] == "REJECT" and "does not verify" in report["detail"], report
    assert "digest" not in report["detail"], report  # refused by the plan or structure, not the integrity


@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice")
def test_an_output_that_is_no_candidate_rejects(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "--cmd", "sh -c 'echo \"{\\\"attribute\\\": \\\"nope\\\"}\" > \"$0\"' {out} {data} {seed}",
                           *ROOT_SPLIT, "--runs", "5")
    assert status == 1, err
    assert "5 outputs have probability 0 under refdp's law; the first: nope is not one of refdp's candidate" in out
    counts = run_json(capsys, "--cmd", "sh -c 'echo \"{\\\"counts\\\": [267.5, 168]}\" > \"$0\"' {out} {data} {seed}",
                      *LEAF_COUNTS, "--runs", "3")
    assert counts["verdict"] == "REJECT" and "267.5 of class democrat is not an integer" in counts["detail"], counts


def test_failures_and_leaf_roots_stop_the_check_with_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    failing = ("--cmd", "sh -c 'echo oops >&2; exit 3' {data} {seed}", *ROOT_SPLIT, "--runs", "20")
    status, out, err = run(capsys, *failing)
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "more than 0.01 of the 20 runs on the data failed (every one of the 1 runs so far failed)" in err, err
    status, out, err = run(capsys, *failing, "--max-failure-rate", "1")
    assert status == 2 and out == "" and err.count("\n") == 1, err
    assert "the first 8 runs of the program all failed" in err and "exit status 3" in err and ": oops" in err, err
    half = "sh -c 'case $1 in *[13579]) exit 3;; esac; echo \"{\\\"attribute\\\": null}\" > \"$0\"' {out} {seed} {data}"
    status, out, err = run(capsys, "--cmd", half, *ROOT_SPLIT, "--runs", "40")
    assert status == 2 and "of the 40 runs on the data failed" in err and "--max-failure-rate" in err, err
    # A leaf at the root is an outcome of diffpid3's law (its noisy size N_T may stop it), here of probability
    # about 4e-13: a program whose roots are all leaves is rejected.
    leaves = run_json(capsys, "--cmd", half, *ROOT_SPLIT, "--runs", "40", "--max-failure-rate", "1")
    assert leaves["verdict"] == "REJECT" and "largest gap at (leaf): observed 1.00000" in leaves["detail"], leaves


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--output", "tree"], "--output 'tree': use one of root-split, leaf-counts, model"),
        (["--output", "root-split", "--algorithm", "dpdf"], "--output root-split knows refdp's law for --algorithm "
                                                            "diffpid3 or thesis-tree, not dpdf"),
        (["--output", "leaf-counts", "--algorithm", "dpdf"], "for --algorithm diffpid3 or noisy-majority or thesis-tree"),
        (["--output", "root-split", "--param", "max_depth=0"], "--output root-split with --algorithm thesis-tree: "
                                                               "thesis-tree never splits its root with --param max_depth=0 or without attributes; "
                                                               "give --param max_depth=1 or more"),
        (["--output", "leaf-counts", "--param", "size_share=0"], "releases class counts at the leaves only, and its "
                                                                 "root is a leaf only under a plan of depth 0, which "
                                                                 "these parameters never make; give --param "
                                                                 "max_depth=0 or --param node_counts=every-node"),
        (["--output", "leaf-counts", "--algorithm", "diffpid3"], "--output leaf-counts: the power wanted needs "),
        (["--output", "root-split", "--param", "variant=published"], "variant=sound only"),
        (["--output", "root-split", "--algorithm", "diffpid3", "--data", "credit-g"], "continuous attributes"),
        (["--output", "root-split", "--param", "depth=2"], "thesis-tree has no parameter depth"),
        (["--output", "root-split", "--algorithm", "nope"], "unknown algorithm 'nope'"),
        (["--output", "root-split", "--runs", "0"], "--runs must be >= 1"),
        (["--output", "root-split", "--jobs", "0"], "--jobs must be >= 1"),
        (["--output", "root-split", "--alpha", "2"], "--alpha must be in (0, 1)"),
        (["--output", "root-split", "--timeout", "0"], "--timeout must be"),
        (["--output", "root-split", "--max-failure-rate", "2"], "--max-failure-rate must be in [0, 1]"),
        (["--output", "root-split", "--epsilon", "0"], "epsilon must be > 0"),
        (["--output", "root-split", "--cmd", "p {data}"], "--cmd must pass the seed"),
        (["--output", "root-split", "--cmd", "p {seed}"], "put {data} where its path goes"),
        (["--output", "root-split", "--param", "max_depth"], "--param takes KEY=VALUE"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], argv: List[str], message: str) -> None:
    defaults = {"--cmd": "p {data} {seed} {out}", "--algorithm": "thesis-tree", "--data": "vote", "--epsilon": "1"}
    given = dict(zip(argv[::2], argv[1::2]))
    words = [w for k, v in {**defaults, **given}.items() for w in (k, v)]
    status, out, err = run(capsys, *words)
    assert status == 2 and out == "", (out, err)
    assert err.startswith("refdp: error: ") and err.count("\n") == 1 and message in err, err


def _root_json(model: Any) -> str:
    root = model.trees[0]
    schema = model.schema
    if isinstance(root, ValueSplit):
        shown: Dict[str, Any] = {"attribute": schema.names[root.attribute],
                                 "value": schema.attributes[root.attribute].values[root.value]}
    elif isinstance(root, ThresholdSplit):
        shown = {"attribute": schema.names[root.attribute], "threshold": str(root.threshold)}
    elif isinstance(root, CategoricalSplit):
        shown = {"attribute": schema.names[root.attribute]}
    else:
        shown = {"attribute": None}
    return json.dumps({**shown, "counts": list(root.counts or ())})


def _samples(name: str, data: Dataset, epsilon: Fraction, params: Dict[str, str], seeds: range,
             relation: Relation = Relation.ADD_REMOVE) -> Tuple[List[Reading], List[Reading], Any, Any]:
    spec = get_algorithm(name)
    resolved = spec.resolve(params)
    split = {"thesis-tree": thesis_tree_laws.root_split_law, "diffpid3": diffpid3_laws.root_split_law}.get(name)
    split_law = split(data, epsilon, resolved, relation) if split else None
    counts = {"thesis-tree": thesis_tree_laws.root_counts_law, "noisy-majority": majority.root_counts_law}.get(name)
    # thesis-tree's root releases counts at every depth only when every node does
    releases = counts is not None and resolved.get("node_counts") != "leaves"
    counts_law = counts(data, epsilon, resolved, relation) if counts and releases else None
    splits, noises = [], []
    for seed in seeds:
        text = _root_json(train(name, data, epsilon, params, rng=seed, relation=relation))
        if split_law is not None:
            splits.append(SplitReader(split_law)(text))
        if counts_law is not None:
            noises.append(CountsReader(counts_law)(text))
    return splits, noises, split_law, counts_law


HALF = Fraction(1, 2)


@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice", "crosscheck-discrete-laplace-ks",
                   "crosscheck-noisy-size-mixture")
@pytest.mark.parametrize("name, data, params, epsilon", [
    ("thesis-tree", VOTE, {"max_depth": "1", "size_share": "0", "node_counts": "every-node"}, HALF),
    ("thesis-tree", VOTE, {"max_depth": "2", "size_share": "0", "quality": "gini", "level_ratio": "2"}, HALF),
    ("diffpid3", VOTE, {"max_depth": "1", "size_share": "0"}, HALF),
    ("thesis-tree", load("credit-g").subset(range(200)), {"max_depth": "1", "grid": "8", "size_share": "0"}, HALF),
    # a noisy size chooses the plan: the root is a leaf (depth 0) in 7% of the runs, else splits at depth 1 or 2
    ("thesis-tree", VOTE, {}, Fraction(1, 5)),
    # counts at every node, of a scale the plan chooses; the root stops on them now and then
    ("thesis-tree", VOTE, {"node_counts": "every-node", "max_depth": "3"}, Fraction(1, 5)),
    ("diffpid3", VOTE, {}, HALF),
    ("diffpid3", VOTE, {"leaf_sigmas": "1", "max_depth": "2"}, Fraction(1, 5)),
])
def test_laws_fit_refdps_own_trees(name: str, data: Dataset, params: Dict[str, str], epsilon: Fraction) -> None:
    splits, noises, split_law, counts_law = _samples(name, data, epsilon, params, range(300))
    assert all(r.kind == "sample" for r in splits), [r.detail for r in splits if r.kind != "sample"][:3]
    indices = [r.value for r in splits if isinstance(r.value, int)]
    assert len(indices) == len(splits)
    fit = crosscheck_finite(indices, split_law.probabilities())
    assert not fit.rejected, fit.summary()
    if counts_law is not None:
        runs = [r.value for r in noises if isinstance(r.value, tuple)]
        single = counts_law.single
        if single is None:
            fit = crosscheck_noise_mixture(
                runs, NoiseMixture(tuple(counts_law.mixture()), True, len(counts_law.first.classes))
            )
        else:
            fit = crosscheck_discrete_laplace([int(x) for run in runs for x in run], scale=single.scale)
        assert not fit.rejected, fit.summary()


@pytest.mark.claim("crosscheck-command")
@pytest.mark.parametrize("relation", [Relation.ADD_REMOVE, Relation.SUBSTITUTE])
@pytest.mark.parametrize("name, params", [
    ("thesis-tree", {"size_share": "0"}), ("thesis-tree", {"size_share": "0", "node_counts": "every-node"}),
    ("thesis-tree", {"quality": "gini", "max_depth": "2", "size_share": "0", "level_ratio": "0.5"}),
    ("thesis-tree", {"quality": "gini", "max_depth": "2", "size_share": "0", "node_counts": "every-node",
                     "level_ratio": "3"}),
    ("thesis-tree", {"max_depth": "0"}), ("diffpid3", {"size_share": "0"}),
    ("diffpid3", {"quality": "info-gain", "size_share": "0"}), ("diffpid3", {"quality": "gini", "size_share": "0"}),
    ("noisy-majority", {}), ("noisy-majority", {"noise": "laplace"}), ("diffpid3", {"max_depth": "0"}),
    # the defaults: a noisy size chooses the plan, and the laws are mixtures over the plans
    ("thesis-tree", {}), ("thesis-tree", {"node_counts": "every-node"}), ("diffpid3", {}),
    ("thesis-tree", {"quality": "gini", "max_depth": "3", "level_ratio": "0.5"}),
])
def test_laws_have_the_budget_and_sensitivity_of_refdps_receipt(
    name: str, params: Dict[str, str], relation: Relation
) -> None:
    # The receipt records what training charged at the root: the split's epsilon and sensitivity, and
    # each class cell's epsilon and mechanism.  The laws must say the same.
    spec = get_algorithm(name)
    resolved = spec.resolve(params)
    epsilon = Fraction(3, 4)
    model = train(name, VOTE, epsilon, params, rng=2, relation=relation)
    charges = model.receipt.charges
    depth = int(resolved.get("max_depth", 0))
    if name != "noisy-majority" and depth > 0:
        root = {"thesis-tree": thesis_tree_laws.root_split_law, "diffpid3": diffpid3_laws.root_split_law}[name](
            VOTE, epsilon, resolved, relation)
        (split,) = [c for c in charges if c.partition == () and c.mechanism == "exponential"]
        # the plan training made (chosen by its noisy size, if any) is one of the law's, with the same budget
        laws = [b.law for b in root.branches if b.law is not None and b.law.epsilon == split.epsilon]
        assert laws, (split.epsilon, [b.plan for b in root.branches])
        law = laws[0]
        assert split.sensitivity == law.sensitivity
        # the factor 2: dropped by the law exactly when training dropped it
        assert law.monotone is ("exponential-mechanism-monotone" in split.claims)
        assert law.monotone is (relation is Relation.ADD_REMOVE and resolved["quality"] != "info-gain")
        assert len(law.candidates) == (48 if name == "thesis-tree" else 16)
        assert math.isclose(sum(root.probabilities()), 1.0, abs_tol=1e-12)
    if name == "diffpid3" and depth > 0:
        return  # its root releases counts only when it stops, which it does not here
    if resolved.get("node_counts") == "leaves" and depth > 0 and "size_share" in params:
        return  # the root releases no counts: it is a leaf only under a plan of depth 0
    counts = {"thesis-tree": thesis_tree_laws.root_counts_law, "diffpid3": diffpid3_laws.root_counts_law,
              "noisy-majority": majority.root_counts_law}[name](VOTE, epsilon, resolved, relation)
    cells = [c for c in charges if len(c.partition) == 1 and c.partition[0].startswith("class=")]
    if not cells:
        assert not counts.always  # this run's plan released no counts at the root
        return
    assert sorted(c.partition[0] for c in cells) == ["class=democrat", "class=republican"]
    (kind,) = {(c.epsilon, c.sensitivity, c.mechanism) for c in cells}
    assert kind in {(law.epsilon, 1, law.noise) for _, law in counts.branches}
    assert all(law.scale == 1 / law.epsilon and law.counts == (267, 168) for _, law in counts.branches)


@pytest.mark.claim("crosscheck-command")
def test_readers() -> None:
    grid_law = thesis_tree_laws.root_split_law(
        load("credit-g"), Fraction(1), get_algorithm("thesis-tree").resolve({"size_share": "0"}), Relation.ADD_REMOVE
    )
    points = [c for c in grid_law.candidates if c.threshold is not None]
    first = points[0]
    assert first.threshold is not None
    for written in (str(first.threshold), float(first.threshold)):
        reading = SplitReader(grid_law)(json.dumps({"attribute": first.attribute, "threshold": written}))
        assert reading == Reading("sample", grid_law.candidates.index(first)), written
    off = SplitReader(grid_law)(json.dumps({"attribute": first.attribute, "threshold": float(first.threshold) + 0.5}))
    assert off.kind == "impossible"
    # a leaf is an outcome of the law (of probability 0 here: node_counts=leaves and size_share=0 always split)
    assert SplitReader(grid_law)('{"attribute": null}') == Reading("sample", len(grid_law.candidates))
    law = majority.root_counts_law(VOTE, Fraction(1), get_algorithm("noisy-majority").resolve({}), Relation.ADD_REMOVE)
    reader = CountsReader(law)
    assert reader('{"counts": {"republican": 170, "democrat": 260}}') == Reading("sample", (-7, 2))
    assert reader('{"counts": [268.0, 168]}') == Reading("sample", (1, 0))
    assert reader('{"counts": null}').kind == "impossible"
    for bad in ('{"counts": [1]}', '{"counts": {"democrat": 1}}', '{"count": 3}', '[1, 2]', '{"counts": [1, true]}',
                '{"attribute": 3}'):
        with pytest.raises(ValueError):
            (SplitReader(grid_law) if "attribute" in bad else reader)(bad)


@pytest.mark.claim("crosscheck-command", "crosscheck-finite-tv", "crosscheck-discrete-laplace-ks",
                   "crosscheck-laplace-ks")
def test_detectable_deviations_invert_the_sample_sizes() -> None:
    exact, _ = _diffpid3_law_and_planted()
    n = tv_sample_size(exact, 0.05)
    assert tv_detectable(exact, n) <= 0.05 < tv_detectable(exact, n - 1)
    for scale in (Fraction(1, 2), 2, 7):
        n = discrete_laplace_sample_size(scale, 0.1)
        assert 0.09 < discrete_laplace_detectable_scale_error(scale, n) <= 0.1 * 1.001
        assert discrete_laplace_detectable_scale_error(scale, n // 2) > 0.1
    n = laplace_sample_size(0.25)
    assert 0.24 < laplace_detectable_scale_error(n) <= 0.25 * 1.001
    assert math.isinf(laplace_detectable_scale_error(3))


@pytest.mark.claim("crosscheck-noisy-size-mixture")
@pytest.mark.parametrize("name, params, epsilon", [
    ("diffpid3", {}, Fraction(1, 2)),
    ("thesis-tree", {}, Fraction(1)),
    ("thesis-tree", {"node_counts": "every-node", "max_depth": "3", "leaf_sigmas": "1"}, Fraction(1, 2)),
])
def test_partition_agrees_with_every_noisy_size(name: str, params: Dict[str, str], epsilon: Fraction) -> None:
    # The plans' probabilities from the grid and bisection against a sum over every N~ within 40 scales,
    # each planned by the learner itself: the partition must find every change of plan.
    resolved = get_algorithm(name).resolve(params)
    module = {"diffpid3": diffpid3, "thesis-tree": thesis_tree}[name]

    def plan(engine: Any) -> Any:
        made = module.depth_plan(VOTE.schema, epsilon, resolved, Relation.ADD_REMOVE, 0, engine, NO_RANDOMNESS,
                                 Ledger())
        return made.depth, made.noisy_size is not None and made.noisy_size * epsilon >= 2000

    found, scale = noisy_size_plans(len(VOTE), plan)
    assert scale == 1 / (Fraction(resolved["size_share"]).limit_denominator(1000) * epsilon)
    enumerated: Dict[Any, float] = {}
    reach = math.ceil(TAIL * scale) + 1

    def replay(value: int) -> Any:
        return dataclasses.replace(REFERENCE, discrete_laplace=lambda scale, rng: value)

    for z in range(-reach, reach + 1):
        key = plan(replay(len(VOTE) + z))
        enumerated[key] = enumerated.get(key, 0.0) + discrete_laplace_pmf(z, scale)
    # (a plan whose mass is below what the CDF's floats resolve, about 1e-16, may be left out)
    assert len(found) >= 2 and {k for k, p in enumerated.items() if p > 1e-14} <= {k for k, _ in found}
    for key, p in found:
        assert p == pytest.approx(enumerated[key], abs=1e-12), (key, p, enumerated[key])


@pytest.mark.claim("crosscheck-command", "crosscheck-split-choice")
def test_three_classes_with_counts_at_every_node() -> None:
    # The probability that a root stops on three noisy counts is not computed: with one plan for sure, the law
    # is the split's given that the root splits (leaves left out); when a noisy size chooses the plan, refused.
    schema = Schema((CategoricalAttribute("a", ("x", "y")), CategoricalAttribute("b", ("u", "v"))), "class",
                    ("p", "q", "r"))
    rows = [("x", "u"), ("y", "v"), ("x", "v"), ("y", "u")] * 30
    data = Dataset.from_rows(schema, rows, ["p", "q", "r", "p"] * 30)
    every = {"node_counts": "every-node", "max_depth": "2"}
    fixed = thesis_tree_laws.root_split_law(data, Fraction(1), get_algorithm("thesis-tree").resolve(
        {**every, "size_share": "0"}), Relation.ADD_REMOVE)
    assert not fixed.leaf_is_outcome and len(fixed.probabilities()) == len(fixed.candidates) == 4
    assert SplitReader(fixed)('{"attribute": null}') == Reading("no-split")
    with pytest.raises(InvalidParameterError, match="more than two classes"):
        thesis_tree_laws.root_split_law(data, Fraction(1), get_algorithm("thesis-tree").resolve(every), Relation.ADD_REMOVE)
    leaves = thesis_tree_laws.root_split_law(data, Fraction(1), get_algorithm("thesis-tree").resolve({}), Relation.ADD_REMOVE)
    assert leaves.leaf_is_outcome
