"""Evidence for the algorithms' default parameters: cross-validation on training data only.

Data: the built-in sets (adult's training part, never adult-test) and the
tuning corpus, ``../shared/datasets/tuning`` next to the repository unless
``--tuning DIR`` says otherwise (public classification sets of other shapes
with refdp schemas; never vendored here: without the folder its sets are
skipped with a note).  Rows with a missing value are dropped (the corpus's
schemas declare no ``?``).  Every score is stratified k-fold
cross-validation (default 5-fold x 2, seed 2026, the array engine where an
algorithm has it: the same models).

Two modes:

* ``--table``: every learner with its defaults on every set at each
  ``--epsilon`` (default 0.1, 1, 10), one Markdown table per epsilon (a row
  per set with its size, classes, majority rate and non-private tree; a
  column per learner; each cell the accuracy / macro AUC / macro F1, the
  accuracy alone for scores kept by an older version of this script), then
  the checks of issue 28 (on accuracy): at epsilon 1, the share
  of the gap between the majority rate and the non-private tree that the
  best sound default closes (sets of 150 rows or more); cells more than
  0.02 below the majority rate (``!``); and, given the previous release's
  scores (``--compare FILE``), cells more than 0.03 below them (``v``).
  ``--out FILE`` keeps every score as JSON and resumes from it;
  ``--previous COMMIT`` scores that commit's learners (exported with
  ``git archive``, run with this script) into ``--out``.

      PYTHONPATH=. python3 scripts/defaults_evidence.py --previous d49b20e --out /tmp/previous.json
      PYTHONPATH=. python3 scripts/defaults_evidence.py --table --out /tmp/now.json --compare /tmp/previous.json

* ``--algorithm A --grid NAME=V1,V2``: for each setting of a small grid,
  one line with the mean accuracy (/ macro AUC / macro F1) per set and the
  mean accuracy over sets.

      PYTHONPATH=. python3 scripts/defaults_evidence.py --algorithm diffpid3 \\
          --grid quality=max,gini --grid max_depth=3,4,5 --data builtin,tuning
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

from refdp.algorithms import get_algorithm
from refdp.data import Dataset, load, read_csv, read_schema
from refdp.evaluation import cross_validate, stratified_split

BUILTIN = ("vote", "credit-g", "tic-tac-toe", "monk1", "monk2", "monk3", "adult")
BASELINE = "tree-baseline"
LEARNERS = (
    "noisy-majority", "diffpid3", "thesis-tree", "private-rdt", "dpdf", "dp-adaboost", "kanon-rdt", "dpea",
)
"""The DP learners whose defaults are scored (their sound default variants)."""
EPSILONS = ("0.1", "1", "10")
TUNING = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "tuning"
BELOW_MAJORITY = 0.02
WORSE_THAN_PREVIOUS = 0.03
LARGE = 150
"""Sets with at least this many rows count towards the gap the defaults must close."""

Scores = Dict[str, Dict[str, object]]
"""``"algorithm|data|epsilon"`` -> ``{"mean": float}`` or ``{"refused": "reason"}``."""


def tuning_names(folder: Path) -> List[str]:
    """The corpus's sets (a schema ``NAME.schema.json`` beside ``NAME.csv`` or ``NAME.csv.gz``)."""
    if not folder.is_dir():
        return []
    return sorted(p.name[: -len(".schema.json")] for p in folder.glob("*.schema.json"))


def read_set(name: str, folder: Path) -> Dataset:
    """A built-in set by name, else the corpus's set ``name`` with its rows that miss a value dropped.

    ``NAME@N`` is a stratified sample of N rows of NAME (seeded by N): the
    shapes of small data sets, from larger training sets.
    """
    if "@" in name:
        whole, _, size = name.partition("@")
        data = read_set(whole, folder)
        _, kept = stratified_split(data.labels, int(size) / len(data), random.Random(int(size)))
        return data.subset(kept)
    if name in BUILTIN:
        return load(name)
    path = folder / f"{name}.csv"
    if not path.exists():
        path = folder / f"{name}.csv.gz"
    return read_csv(
        path, schema=read_schema(folder / f"{name}.schema.json"),
        categorical_missing="drop", continuous_missing="drop",
    )


def set_names(spec: str, folder: Path) -> List[str]:
    """``builtin``, ``tuning``, ``all`` or set names, comma-separated; corpus sets need the folder."""
    corpus = tuning_names(folder)
    names: List[str] = []
    for part in spec.split(","):
        chosen = {"builtin": list(BUILTIN), "tuning": corpus, "all": list(BUILTIN) + corpus}.get(part, [part])
        names += [n for n in chosen if n not in names]
    missing = [n for n in names if n.partition("@")[0] not in BUILTIN and n.partition("@")[0] not in corpus]
    if missing:
        print(f"note: {', '.join(missing)} not found (no tuning corpus at {folder}?); skipped", file=sys.stderr)
    return [n for n in names if n not in missing]


def majority_rate(data: Dataset) -> float:
    """The share of the largest class (stratified folds keep it to within a row)."""
    counts: Dict[int, int] = {}
    for label in data.labels:
        counts[label] = counts.get(label, 0) + 1
    return max(counts.values()) / len(data)


def score(
    algorithm: str, data: Dataset, epsilon: str, params: Mapping[str, str], args: argparse.Namespace
) -> Dict[str, object]:
    """The mean cross-validated accuracy, or the refusal (a refused default is part of the evidence)."""
    engine = args.engine if args.engine in get_algorithm(algorithm).engines else "reference"
    try:
        result = cross_validate(
            algorithm, data, epsilon, folds=args.folds, repeats=args.repeats, params=dict(params),
            seed=args.seed, engine=engine,
        )
    except Exception as exc:  # noqa: BLE001 - any refusal is recorded, whatever its class
        return {"refused": f"{type(exc).__name__}: {str(exc)[:200]}"}
    return {"mean": result.mean, "auc": result.auc_mean, "f1": result.f1_mean}


def _key(algorithm: str, name: str, epsilon: str) -> str:
    return f"{algorithm}|{name}|{epsilon}"


def _mean(cell: Optional[Mapping[str, object]]) -> Optional[float]:
    value = None if cell is None else cell.get("mean")
    return float(value) if isinstance(value, (int, float)) else None


def _others(cell: Optional[Mapping[str, object]]) -> str:
    """`` / AUC / F1`` of a cell that has them (the macro AUC and F1 next to its accuracy), else nothing."""
    if cell is None or "f1" not in cell:
        return ""
    auc, f1 = cell.get("auc"), cell.get("f1")
    return "".join(f" / {v:.3f}" if isinstance(v, (int, float)) else " / -" for v in (auc, f1))


def _load_scores(path: Optional[Path]) -> Scores:
    if path is None or not path.exists():
        return {}
    loaded: Scores = json.loads(path.read_text())["scores"]
    return loaded


def _save(path: Optional[Path], scores: Scores, info: Mapping[str, object]) -> None:
    if path is not None:
        temporary = path.with_suffix(path.suffix + ".tmp")
        temporary.write_text(json.dumps({"info": dict(info), "scores": scores}, indent=0, sort_keys=True))
        temporary.replace(path)


def fill_scores(names: Sequence[str], args: argparse.Namespace) -> Tuple[Scores, Dict[str, Dict[str, float]]]:
    """Every (learner, set, epsilon) score, resumed from and saved to ``--out``; and each set's facts."""
    out = Path(args.out) if args.out else None
    scores = _load_scores(out)
    info: Dict[str, object] = {"folds": args.folds, "repeats": args.repeats, "seed": args.seed}
    facts: Dict[str, Dict[str, float]] = {}
    learners = [BASELINE] + [a for a in args.algorithms.split(",") if a]
    for name in names:
        data = read_set(name, args.tuning)
        facts[name] = {"rows": len(data), "classes": data.schema.n_classes, "majority": majority_rate(data)}
        for epsilon in args.epsilon.split(","):
            for algorithm in learners:
                if algorithm == BASELINE and epsilon != args.epsilon.split(",")[0]:
                    continue  # the non-private tree ignores epsilon: scored once
                key = _key(algorithm, name, epsilon)
                if key in scores:
                    continue
                started = time.perf_counter()
                scores[key] = score(algorithm, data, epsilon, {}, args)
                print(f"  {key}: {scores[key]} ({time.perf_counter() - started:.1f} s)", file=sys.stderr)
                _save(out, scores, {**info, "facts": facts})
    _save(out, scores, {**info, "facts": facts})
    return scores, facts


def _baseline(scores: Scores, name: str) -> Optional[float]:
    found = [_mean(c) for k, c in scores.items() if k.startswith(f"{BASELINE}|{name}|")]
    return next((m for m in found if m is not None), None)


def _cell(now: Optional[Mapping[str, object]], before: Optional[Mapping[str, object]], majority: float) -> str:
    mean, old = _mean(now), _mean(before)
    if mean is None:
        text = "refused" if now is not None else "-"
    else:
        text = f"{mean:.3f}"
        text += "!" if mean < majority - BELOW_MAJORITY else ""
        text += "v" if old is not None and mean < old - WORSE_THAN_PREVIOUS else ""
        text += _others(now)
    if before is not None:
        text += f" ({old:.3f})" if old is not None else " (refused)"
    return text


def table(
    epsilon: str, names: Sequence[str], learners: Sequence[str], scores: Scores, previous: Scores,
    facts: Mapping[str, Mapping[str, float]],
) -> List[str]:
    """The Markdown lines of one epsilon's table."""
    lines = [
        "| set | rows | classes | majority | tree | " + " | ".join(learners) + " |",
        "|---|---:|---:|---:|---:|" + "---:|" * len(learners),
    ]
    for name in names:
        fact = facts[name]
        tree = _baseline(scores, name)
        cells = [
            _cell(scores.get(_key(a, name, epsilon)), previous.get(_key(a, name, epsilon)), fact["majority"])
            for a in learners
        ]
        lines.append(
            f"| {name} | {int(fact['rows'])} | {int(fact['classes'])} | {fact['majority']:.3f} | "
            + (f"{tree:.3f}" if tree is not None else "-") + " | " + " | ".join(cells) + " |"
        )
    return lines


def checks(
    names: Sequence[str], learners: Sequence[str], scores: Scores, previous: Scores,
    facts: Mapping[str, Mapping[str, float]],
) -> List[str]:
    """Issue 28's done-when measures, one line each."""
    lines: List[str] = []
    gaps: List[Tuple[float, str]] = []
    for name in names:
        fact, tree = facts[name], _baseline(scores, name)
        if fact["rows"] < LARGE or tree is None or tree <= fact["majority"]:
            continue
        best = max((m for a in learners if (m := _mean(scores.get(_key(a, name, "1")))) is not None), default=None)
        if best is not None:
            gaps.append(((best - fact["majority"]) / (tree - fact["majority"]), name))
    if gaps:
        worst = min(gaps)
        lines.append(
            f"- epsilon 1, {len(gaps)} sets of >= {LARGE} rows where the tree beats the majority rate: the best "
            f"default closes a median {statistics.median(g for g, _ in gaps):.2f} of the gap (worst "
            f"{worst[0]:.2f}, {worst[1]})"
        )
    for epsilon in sorted({k.split("|")[2] for k in scores}, key=float):
        below = []
        for name in names:
            fact, tree = facts[name], _baseline(scores, name)
            for a in learners:
                mean = _mean(scores.get(_key(a, name, epsilon)))
                if mean is not None and mean < fact["majority"] - BELOW_MAJORITY:
                    beats = tree is not None and tree > fact["majority"]
                    below.append(f"{a} on {name} {mean:.3f} < {fact['majority']:.3f}" + ("" if beats else " (tree too)"))
        worse = []
        for name in names:
            for a in learners:
                mean, old = _mean(scores.get(_key(a, name, epsilon))), _mean(previous.get(_key(a, name, epsilon)))
                if mean is not None and old is not None and mean < old - WORSE_THAN_PREVIOUS:
                    worse.append(f"{a} on {name} {mean:.3f} < {old:.3f}")
        refused = [f"{a} on {n}" for n in names for a in learners if scores.get(_key(a, n, epsilon), {}).get("refused")]
        lines.append(f"- epsilon {epsilon}: {len(below)} cells more than {BELOW_MAJORITY} below the majority rate"
                     + (f": {'; '.join(below)}" if below else ""))
        if previous:
            lines.append(f"- epsilon {epsilon}: {len(worse)} cells more than {WORSE_THAN_PREVIOUS} below the previous "
                         "release" + (f": {'; '.join(worse)}" if worse else ""))
        if refused:
            lines.append(f"- epsilon {epsilon}: refused: {', '.join(refused)}")
    return lines


def run_table(args: argparse.Namespace) -> int:
    names = set_names(args.data, args.tuning)
    scores, facts = fill_scores(names, args)
    previous = _load_scores(Path(args.compare)) if args.compare else {}
    learners = [a for a in args.algorithms.split(",") if a]
    print(f"{args.folds}-fold CV x {args.repeats}, seed {args.seed}, default parameters; `!` more than "
          f"{BELOW_MAJORITY} below the majority rate" + (f"; (previous release), `v` more than "
                                                        f"{WORSE_THAN_PREVIOUS} below it" if previous else ""))
    for epsilon in args.epsilon.split(","):
        print(f"\n**epsilon {epsilon}**\n")
        print("\n".join(table(epsilon, names, learners, scores, previous, facts)))
    print()
    print("\n".join(checks(names, learners, scores, previous, facts)))
    return 0


def run_previous(args: argparse.Namespace) -> int:
    """Score ``--previous``'s learners: export the commit, run this script's ``--table`` on it."""
    if not args.out:
        raise SystemExit("--previous needs --out FILE")
    root = Path(__file__).resolve().parent.parent
    with tempfile.TemporaryDirectory() as folder:
        archive = subprocess.run(["git", "archive", args.previous], cwd=root, check=True, capture_output=True)
        subprocess.run(["tar", "-x", "-C", folder], input=archive.stdout, check=True)
        command = [
            sys.executable, str(Path(__file__).resolve()), "--table", "--out", str(Path(args.out).resolve()),
            "--tuning", str(args.tuning), "--data", args.data, "--epsilon", args.epsilon,
            "--algorithms", args.algorithms, "--folds", str(args.folds), "--repeats", str(args.repeats),
            "--seed", str(args.seed), "--engine", args.engine,
        ]
        environment = {**os.environ, "PYTHONPATH": folder}
        return subprocess.run(command, cwd=folder, env=environment, check=False).returncode


def _grid(pairs: Sequence[str]) -> List[Dict[str, str]]:
    axes: List[Tuple[str, List[str]]] = []
    for pair in pairs:
        name, _, values = pair.partition("=")
        axes.append((name, values.split(",")))
    return [dict(zip([n for n, _ in axes], combo)) for combo in itertools.product(*[v for _, v in axes])]


def run_grid(args: argparse.Namespace) -> int:
    fixed = dict(p.partition("=")[::2] for p in args.param)
    names = set_names(args.data, args.tuning)
    data = {name: read_set(name, args.tuning) for name in names}
    for epsilon in args.epsilon.split(","):
        print(f"{args.algorithm}, epsilon {epsilon}, {args.folds}-fold x {args.repeats}, seed {args.seed}; "
              f"fixed: {fixed or 'none'}")
        print("| setting | " + " | ".join(names) + " | mean |")
        print("|---|" + "---:|" * (len(names) + 1))
        for cell in _grid(args.grid):
            started = time.perf_counter()
            results = [score(args.algorithm, data[n], epsilon, {**fixed, **cell}, args) for n in names]
            means = [_mean(r) for r in results]
            shown = [f"{m:.3f}{_others(r)}" if m is not None else "refused" for m, r in zip(means, results)]
            numbers = [m for m in means if m is not None]
            mean = f"{statistics.mean(numbers):.3f}" if len(numbers) == len(names) else "-"
            label = ", ".join(f"{k}={v}" for k, v in cell.items()) or "defaults"
            print(f"| {label} | " + " | ".join(shown) + f" | {mean} |", flush=True)
            print(f"  ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--table", action="store_true", help="every learner's defaults on every set")
    mode.add_argument("--previous", metavar="COMMIT", help="score COMMIT's defaults into --out")
    mode.add_argument("--algorithm", help="score a grid of this algorithm's settings")
    parser.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="fixed for every cell")
    parser.add_argument("--algorithms", default=",".join(LEARNERS), help="--table's learners")
    parser.add_argument("--epsilon", default=",".join(EPSILONS))
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--data", default="all", help="builtin, tuning, all, or set names (comma-separated)")
    parser.add_argument("--tuning", type=Path, default=TUNING, help="the tuning corpus's folder")
    parser.add_argument("--engine", default="array")
    parser.add_argument("--out", help="--table: scores as JSON, resumed when the file exists")
    parser.add_argument("--compare", help="--table: the previous release's scores (JSON of --out)")
    args = parser.parse_args(argv)
    if args.previous:
        return run_previous(args)
    return run_table(args) if args.table else run_grid(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
