"""Mutation testing of refdp's privacy-critical code: which checks kill which mutant (docs/audit.md's table).

Each mutant changes one line of a calibration, a budget split, a composition
rule, a stopping rule, a threshold, a sampler or a suppression rule.  For
each, in a fresh copy of the working tree, the script runs

* **tests**: the default-suite files that cover the mutated code and
  ``tests/test_replay.py`` (``pytest -m "not slow" -x``), killed when one
  fails;
* **replay**: ``audit --method replay --pairs N`` on the sound variants
  the mutant touches, on vote and credit-g, killed when one exits 1 (or
  2, the learner failing);
* **monte-carlo**: ``audit --method monte-carlo`` on the same, on vote,
  killed when one exits 1 (or 2).

and prints one Markdown row per mutant, then a summary and the run time.
It checks the committed tree (``git archive HEAD``), not uncommitted edits.
Too slow for the default check (tens of minutes); run it by hand:

    .venv/bin/python scripts/mutants.py [--only ID,ID] [--pairs 500] [--skip-mc] [--jobs 2]
"""

from __future__ import annotations

import argparse
import concurrent.futures
import io
import os
import tarfile
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent

Config = Tuple[str, Tuple[str, ...], str]
"""(algorithm, --param values, relation) of one audit."""


@dataclass(frozen=True)
class Mutant:
    id: str
    category: str
    path: str
    old: str
    new: str
    what: str
    tests: Tuple[str, ...]
    audits: Tuple[Config, ...]


def _sound(*names: str, params: Tuple[str, ...] = (), relation: str = "add-remove") -> Tuple[Config, ...]:
    return tuple((name, params, relation) for name in names)


ALWAYS = ("tests/test_replay.py",)
"""Test files run for every mutant besides its own: the replay tests cover every learner."""

ALL = ("thesis-tree", "dpdf", "dpea", "dp-adaboost", "kanon-rdt", "diffpid3", "private-rdt", "noisy-majority")
GREEDY = ("thesis-tree", "dpdf", "diffpid3")

MUTANTS: Tuple[Mutant, ...] = (
    # --- sensitivities and calibration --------------------------------------------------------------------
    Mutant("histogram-scale-half", "sensitivity", "refdp/mechanisms/counts.py",
           "    return 1 / as_epsilon(epsilon)\n", "    return Fraction(1, 2) / as_epsilon(epsilon)\n",
           "a histogram cell's noise scale 1/(2 eps) instead of 1/eps",
           ("tests/test_mechanisms_counts.py", "tests/test_vectors.py"), _sound(*ALL)),
    Mutant("count-scale-ignores-sensitivity", "sensitivity", "refdp/mechanisms/counts.py",
           "    scale = delta / eps\n", "    scale = 1 / eps\n",
           "a noisy count calibrated to sensitivity 1 whatever it declares",
           ("tests/test_mechanisms_counts.py", "tests/test_adaboost.py"), _sound("dp-adaboost")),
    Mutant("exponential-no-factor-2", "sensitivity", "refdp/mechanisms/exponential.py",
           "    return delta_u / 2 if monotone else delta_u\n", "    return delta_u / 2\n",
           "the exponential mechanism drops its factor 2 for utilities that are not monotone",
           ("tests/test_mechanisms_exponential.py", "tests/test_monotone_exponential.py"),
           _sound("dpdf", params=("quality=gini-weighted",)) + _sound("thesis-tree", "dpdf", relation="substitute")),
    Mutant("float-exponential-coefficient", "sensitivity", "refdp/mechanisms/exponential.py",
           "        return float(eps / (2 * delta_u))\n", "        return float(eps / delta_u)\n",
           "the float sampler's coefficient eps/Delta instead of eps/(2 Delta)",
           ("tests/test_mechanisms_exponential.py", "tests/test_vectors.py"),
           _sound("diffpid3", params=("quality=info-gain",)) + _sound("dpea", params=("search=exhaustive",))),
    Mutant("exact-exponential-coefficient", "sensitivity", "refdp/mechanisms/exponential.py",
           "    c = eps / (2 * delta_u)\n", "    c = eps / delta_u\n",
           "the exact sampler's coefficient eps/Delta instead of eps/(2 Delta)",
           ("tests/test_mechanisms_exponential.py", "tests/test_greedy_exact.py"), _sound(*GREEDY, "dp-adaboost")),
    Mutant("gini-sensitivity-1", "sensitivity", "refdp/scoring/sensitivity.py",
           "    return Fraction(2)\n", "    return Fraction(1)\n",
           "the unnormalised Gini's sensitivity 1 instead of 2",
           ("tests/test_scoring_quality.py", "tests/test_scoring_exhaustive.py"), _sound("dpdf", "thesis-tree")),
    Mutant("max-operator-sensitivity-half", "sensitivity", "refdp/scoring/sensitivity.py",
           "    return Fraction(1)\n", "    return Fraction(1, 2)\n",
           "the max operator's sensitivity 1/2 instead of 1",
           ("tests/test_scoring_quality.py", "tests/test_scoring_exhaustive.py"), _sound("diffpid3", "thesis-tree")),
    Mutant("gini-weighted-sensitivity-quarter", "sensitivity", "refdp/scoring/sensitivity.py",
           "    return Fraction(1, 2)\n", "    return Fraction(1, 4)\n",
           "the weighted Gini's sensitivity 1/4 instead of 1/2",
           ("tests/test_scoring_quality.py", "tests/test_scoring_exhaustive.py"),
           _sound("dpdf", params=("quality=gini-weighted",))),
    Mutant("dpea-quality-sensitivity-1", "sensitivity", "refdp/algorithms/dpea_subtrees.py",
           "QUALITY_SENSITIVITY = 2\n", "QUALITY_SENSITIVITY = 1\n",
           "DPEA's q' calibrated to sensitivity 1 instead of 2",
           ("tests/test_dpea.py", "tests/test_dpea_exact.py"), _sound("dpea")),
    Mutant("adaboost-split-sensitivity", "sensitivity", "refdp/algorithms/adaboost_rounds.py",
           "sensitivity=2 * self.cap, rng=self.rng,", "sensitivity=self.cap, rng=self.rng,",
           "dp-adaboost's weighted Gini calibrated to theta Q instead of 2 theta Q",
           ("tests/test_adaboost.py",), _sound("dp-adaboost")),
    Mutant("adaboost-leaf-sensitivity", "sensitivity", "refdp/algorithms/adaboost_rounds.py",
           "totals[c], sensitivity=self.cap,", "totals[c], sensitivity=1,",
           "dp-adaboost's weighted leaf counts calibrated to one unit instead of the weight cap",
           ("tests/test_adaboost.py",), _sound("dp-adaboost", params=("size_share=0",))),
    Mutant("monotone-under-substitute", "sensitivity", "refdp/scoring/sensitivity.py",
           "    return relation is Relation.ADD_REMOVE and quality in MONOTONE_QUALITIES\n",
           "    return quality in MONOTONE_QUALITIES\n",
           "the split qualities called monotone under substitute too (no factor 2)",
           ("tests/test_monotone_exponential.py", "tests/test_scoring_properties.py"),
           _sound("thesis-tree", "dpdf", "diffpid3", relation="substitute")),
    Mutant("dpea-monotone-under-substitute", "sensitivity", "refdp/algorithms/dpea_plan.py",
           "embed, relation is Relation.ADD_REMOVE and rules.monotone)\n",
           "embed, rules.monotone)\n",
           "DPEA drops the factor 2 under substitute",
           ("tests/test_dpea.py", "tests/test_dpea_exact.py"), _sound("dpea", relation="substitute")),
    # --- budget splits and composition -----------------------------------------------------------------------
    Mutant("plan-units-substitute", "budget", "refdp/algorithms/greedy.py",
           "        one, two = internal.one + one, internal.two + max(two, 2 * one)\n",
           "        one, two = internal.one + one, internal.two + two\n",
           "a tree's substitute cost ignores the two-cell case",
           ("tests/test_greedy_budget.py", "tests/test_greedy_shared.py"),
           _sound("thesis-tree", "dpdf", "diffpid3", relation="substitute")),
    Mutant("size-share-spent-twice", "budget", "refdp/algorithms/noisy_depth.py",
           "    return (1 - share) * epsilon\n", "    return epsilon\n",
           "the noisy size's share of epsilon is not taken from the tree's budget",
           ("tests/test_noisy_size_plan.py",), _sound("private-rdt", "thesis-tree")),
    Mutant("dpdf-forest-not-split", "budget", "refdp/algorithms/dpdf_plan.py",
           "    return budget / (n_trees * plan_units(INTERNAL, LEAF, max_depth - 1, relation))\n",
           "    return budget / plan_units(INTERNAL, LEAF, max_depth - 1, relation)\n",
           "DPDF gives every tree the whole budget",
           ("tests/test_dpdf.py",), _sound("dpdf") + _sound("dpdf", params=("n_trees=3",))),
    Mutant("private-rdt-trees-not-split", "budget", "refdp/algorithms/private_rdt.py",
           "left / (relation_factor * n_trees), noisy)",
           "left / relation_factor, noisy)",
           "private-rdt gives every tree the whole budget",
           ("tests/test_rdt_private.py",), _sound("private-rdt")),
    Mutant("ledger-parallel-min", "composition", "refdp/privacy/ledger.py",
           "        first, second = _two_largest([c[0] for c in cells])\n        one += first\n",
           "        first, second = _two_largest([c[0] for c in cells])\n        one += min(c[0] for c in cells)\n",
           "parallel composition takes the cheapest cell instead of the most expensive",
           ("tests/test_privacy_ledger.py", "tests/test_receipt_verify.py"), _sound("thesis-tree", "dpdf")),
    Mutant("ledger-substitute-one-cell", "composition", "refdp/privacy/ledger.py",
           "        two += max(max(c[1] for c in cells), first + second)\n",
           "        two += max(c[1] for c in cells)\n",
           "a substitution's two-cell cost is left out of parallel composition",
           ("tests/test_privacy_ledger.py", "tests/test_receipt_verify.py"),
           _sound("thesis-tree", "dpdf", relation="substitute")),
    Mutant("ledger-grid-no-doubling", "composition", "refdp/privacy/ledger.py",
           "            two = max(two, 2 * one)\n", "            two = max(two, one)\n",
           "a compact histogram's substitution cost is one cell's",
           ("tests/test_privacy_ledger.py",), _sound("private-rdt", relation="substitute")),
    # --- stopping rules ------------------------------------------------------------------------------------
    Mutant("thesis-stop-on-true-count", "stopping", "refdp/algorithms/thesis_tree.py",
           "        if not attributes or depth == 0:\n            return Leaf(tuple(self._counts(total, path, depth, leaf=True)))\n",
           "        if not attributes or depth == 0 or sum(total) < 4:\n"
           "            return Leaf(tuple(self._counts(total, path, depth, leaf=True)))\n",
           "thesis-tree stops on a node's true size",
           ("tests/test_greedy_exact.py", "tests/test_greedy_shared.py"), _sound("thesis-tree")),
    Mutant("dpdf-stop-on-true-count", "stopping", "refdp/algorithms/dpdf.py",
           "not splits(counts, self.min_size):", "not splits(self.counts.class_counts(rows), self.min_size):",
           "DPDF's stopping test reads the true counts",
           ("tests/test_dpdf.py",), _sound("dpdf")),
    Mutant("diffpid3-stop-on-true-size", "stopping", "refdp/algorithms/diffpid3.py",
           "depth == 0 or stops(n_t, largest,", "depth == 0 or stops(len(rows), largest,",
           "DiffP-ID3 stops on the true node size",
           ("tests/test_greedy_exact.py", "tests/test_greedy_budget.py"), _sound("diffpid3")),
    Mutant("dpea-sound-uses-published-stop", "stopping", "refdp/algorithms/dpea_plan.py",
           "stops on its true counts: never.\"\"\"\n        return False\n",
           "stops on its true counts: never.\"\"\"\n        return rows < min_size or sum(1 for n in class_counts if n) <= 1\n",
           "the sound DPEA stops on true counts like the published one",
           ("tests/test_dpea.py",), _sound("dpea", params=("embed_depth=1",))),
    Mutant("depth-plan-on-true-size", "stopping", "refdp/algorithms/noisy_depth.py",
           "choose_depth(noisy, left,", "choose_depth(size, left,",
           "the depth plan reads the true size, not the noisy one",
           ("tests/test_noisy_size_plan.py",), _sound("thesis-tree", "dpdf", "private-rdt")),
    Mutant("kanon-plan-on-true-size", "stopping", "refdp/algorithms/kanon_rdt.py",
           "sum(prior) if auto and prior is not None else None)",
           "len(data) if auto and prior is not None else None)",
           "kanon-rdt chooses its plan on the true size",
           ("tests/test_kanon_rdt.py", "tests/test_noisy_size_plan.py"), _sound("kanon-rdt")),
    # --- thresholds and releases ------------------------------------------------------------------------------
    Mutant("diffpid3-threshold-from-size", "threshold", "refdp/algorithms/diffpid3.py",
           "            thresholds.append(grid.point(chosen + 1))\n",
           "            thresholds.append(grid.point(max(1, min(chosen + 1, len(rows)))))\n",
           "DiffP-C4.5's released threshold depends on the node's size",
           ("tests/test_greedy_exact.py", "tests/test_threshold_bits.py"), _sound("diffpid3")),
    Mutant("dpdf-leaf-raw-counts", "release", "refdp/algorithms/dpdf.py",
           "            return Leaf(tuple(counts))\n", "            return Leaf(tuple(self.counts.class_counts(rows)))\n",
           "DPDF releases a leaf's true counts",
           ("tests/test_dpdf.py",), _sound("dpdf")),
    Mutant("histogram-skips-zero-cells", "release", "refdp/mechanisms/counts.py",
           "            return [int(c) + sampler(scale, rng) for c in values]\n",
           "            return [int(c) + sampler(scale, rng) if c else 0 for c in values]\n",
           "a histogram releases an empty cell as an exact 0",
           ("tests/test_mechanisms_counts.py",), _sound("noisy-majority", "thesis-tree", "dpdf")),
    # --- suppression -----------------------------------------------------------------------------------------
    Mutant("kanon-threshold-off-by-one", "suppression", "refdp/algorithms/kanon_rdt.py",
           "    return tuple(c if c >= k else 0 for c in counts)\n",
           "    return tuple(c if c >= k - 1 else 0 for c in counts)\n",
           "kanon-rdt releases counts of k - 1",
           ("tests/test_kanon_rdt.py",), _sound("kanon-rdt")),
    Mutant("kanon-leaf-total", "suppression", "refdp/algorithms/kanon_rdt.py",
           "    return tuple(c if c >= k else 0 for c in counts)\n",
           "    return tuple(counts) if sum(counts) >= k else (0,) * len(counts)\n",
           "kanon-rdt's sound variant suppresses on the leaf total",
           ("tests/test_kanon_rdt.py",), _sound("kanon-rdt")),
    # --- samplers ------------------------------------------------------------------------------------------------
    Mutant("discrete-laplace-double-zero", "sampler", "refdp/mechanisms/exact.py",
           "        if negative and y == 0:\n            continue\n", "",
           "the discrete Laplace counts zero twice",
           ("tests/test_mechanisms_exact.py", "tests/test_vectors.py"), _sound("noisy-majority")),
    Mutant("laplace-half-scale-above", "sampler", "refdp/mechanisms/laplace.py",
           "            return -b * math.log(2.0 - u - u)\n", "            return -b * math.log(2.0 - u - u) / 2\n",
           "Laplace noise with half the scale on the positive side",
           ("tests/test_mechanisms_laplace.py",), _sound("noisy-majority", params=("noise=laplace",))),
    Mutant("kanon-sample-rate-doubled", "sampler", "refdp/algorithms/kanon_rdt.py",
           "bernoulli_sample(len(rows), beta, rng,", "bernoulli_sample(len(rows), min(Fraction(1), 2 * beta), rng,",
           "kanon-rdt samples at twice the beta its delta is certified for",
           ("tests/test_kanon_rdt.py",), _sound("kanon-rdt")),
    Mutant("bootstrap-probability", "sampler", "refdp/mechanisms/exact.py",
           "    return k % 2 == 0\n", "    return k % 2 == 1\n",
           "dp-adaboost's bootstrap keeps a record with probability 1/e instead of 1 - 1/e",
           ("tests/test_adaboost.py",), _sound("dp-adaboost")),
    Mutant("sample-index-closed-interval", "sampler", "refdp/mechanisms/exponential.py",
           "            if u < cumulative:\n", "            if u <= cumulative:\n",
           "the float sampler's inversion takes U = S_i into candidate i",
           ("tests/test_mechanisms_exponential.py", "tests/test_fast_equivalence.py"),
           _sound("diffpid3", params=("quality=info-gain",))),
)


def _copy(into: Path) -> None:
    """The committed tree (HEAD), so that a run checks one version whatever the working tree holds."""
    archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(archive.stdout)) as tar:
        tar.extractall(into)


def _apply(root: Path, mutant: Mutant) -> None:
    path = root / mutant.path
    text = path.read_text(encoding="utf-8")
    if text.count(mutant.old) != 1:
        raise SystemExit(f"mutant {mutant.id}: the text to replace occurs {text.count(mutant.old)} times in {mutant.path}")
    path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def _run(argv: Sequence[str], cwd: Path, timeout: float) -> int:
    env = dict(os.environ, PYTHONPATH=str(cwd), PYTHONDONTWRITEBYTECODE="1")
    try:
        return subprocess.run(list(argv), cwd=cwd, env=env, capture_output=True, timeout=timeout).returncode
    except subprocess.TimeoutExpired:
        return -1


def _audits(root: Path, mutant: Mutant, method: str, datasets: Sequence[str], pairs: int) -> str:
    """'killed (NAME ...)' by the first audit that exits 1 or 2, else 'survived'."""
    for name, params, relation in mutant.audits:
        for data in datasets:
            argv = [sys.executable, "-m", "refdp", "audit", "--method", method, "--algorithm", name, "--data", data,
                    "--epsilon", "1", "--seed", "1", "--relation", relation]
            if method == "replay":
                argv += ["--pairs", str(pairs)]
            for p in params:
                argv += ["--param", p]
            status = _run(argv, root, timeout=900)
            if status in (1, 2):
                what = "refuted" if status == 1 else "error"
                shown = " ".join([name, *params] + ([relation] if relation != "add-remove" else []))
                return f"killed ({what}: {shown}, {data})"
            if status == -1:
                return "timeout"
    return "survived"


def check(mutant: Mutant, pairs: int, skip_mc: bool) -> Dict[str, str]:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix=f"refdp-mutant-{mutant.id}-") as tmp:
        root = Path(tmp)
        _copy(root)
        _apply(root, mutant)
        tests = _run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-x", "-m", "not slow",
                      *mutant.tests, *ALWAYS], root, timeout=1800)
        result = {"tests": "killed" if tests not in (0, -1) else ("timeout" if tests == -1 else "survived")}
        result["replay"] = _audits(root, mutant, "replay", ("vote", "credit-g"), pairs)
        result["monte-carlo"] = "skipped" if skip_mc else _audits(root, mutant, "monte-carlo", ("vote",), pairs)
    result["seconds"] = f"{time.perf_counter() - started:.0f}"
    return result


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default=None, help="comma-separated mutant ids")
    parser.add_argument("--pairs", type=int, default=500, help="replay pairs per audit (default 500)")
    parser.add_argument("--skip-mc", action="store_true", help="skip the Monte-Carlo audits")
    parser.add_argument("--jobs", type=int, default=1, help="mutants checked at once (default 1)")
    parser.add_argument("--list", action="store_true", help="list the mutants and exit")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if args.only is None or m.id in args.only.split(",")]
    for m in chosen:  # every mutant must apply before anything runs
        text = (ROOT / m.path).read_text(encoding="utf-8")
        if text.count(m.old) != 1:
            raise SystemExit(f"mutant {m.id}: the text to replace occurs {text.count(m.old)} times in {m.path}")
    if args.list:
        for m in chosen:
            print(f"{m.id} [{m.category}] {m.path}: {m.what}")
        return 0
    started = time.perf_counter()
    print("| mutant | kind | change | tests | replay | Monte Carlo | s |")
    print("|---|---|---|---|---|---|---:|")
    results: Dict[str, Dict[str, str]] = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = {pool.submit(check, m, args.pairs, args.skip_mc): m for m in chosen}
        for future in concurrent.futures.as_completed(futures):
            m = futures[future]
            r = results[m.id] = future.result()
            print(f"| {m.id} | {m.category} | {m.what} | {r['tests']} | {r['replay']} | {r['monte-carlo']} | "
                  f"{r['seconds']} |", flush=True)
    killed = {k: sum(1 for r in results.values() if r[k].startswith("killed")) for k in ("tests", "replay", "monte-carlo")}
    survivors = [m for m in chosen if not any(results[m.id][k].startswith("killed") for k in killed)]
    print()
    print(f"{len(chosen)} mutants; killed by the tests {killed['tests']}, by the replay {killed['replay']}, "
          f"by the Monte-Carlo audit {killed['monte-carlo']}; survived all: "
          f"{', '.join(m.id for m in survivors) or 'none'}; {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
