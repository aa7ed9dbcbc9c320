"""Every algorithm with its defaults on every built-in data set: the accuracy table of docs/results.md.

For each epsilon, one Markdown table: a row per algorithm (default
parameters, sound variants), a column per data set, and two reference
rows, the majority rate (the share of the largest class, what a constant
model gets) and refdp's non-private tree (tree-baseline).
Small data sets are scored by stratified k-fold cross-validation; adult
trains on adult and tests on adult-test, as the papers do.  A cell more than
2 points below the majority rate is marked with ``!``.

    PYTHONPATH=. python3 scripts/utility_table.py --epsilon 0.1,1,10 [--folds 10] [--repeats 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Dict, Sequence

from refdp.algorithms import algorithm_names
from refdp.data import Dataset, load
from refdp.evaluation import CVResult, cross_validate, train_test_evaluate

DATA_SETS = ("vote", "credit-g", "tic-tac-toe", "monk1", "monk2", "monk3", "adult")
BASELINE = "tree-baseline"
_MARGIN = 0.02


def _majority(test: Dataset) -> float:
    counts: Dict[int, int] = {}
    for label in test.labels:
        counts[label] = counts.get(label, 0) + 1
    return max(counts.values()) / len(test)


def _score(algorithm: str, name: str, epsilon: str, folds: int, repeats: int, seed: int, engine: str) -> CVResult:
    if name == "adult":
        return train_test_evaluate(
            algorithm, load("adult"), load("adult-test"), epsilon, repeats=repeats, seed=seed, engine=engine
        )
    return cross_validate(algorithm, load(name), epsilon, folds=folds, repeats=repeats, seed=seed, engine=engine)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", default="0.1,1,10", help="comma-separated epsilons")
    parser.add_argument("--data", default=",".join(DATA_SETS))
    parser.add_argument("--algorithms", default=None, help="comma-separated (default: every DP algorithm)")
    parser.add_argument("--folds", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--engine", default="array")
    args = parser.parse_args(argv)
    names = args.data.split(",")
    algorithms = args.algorithms.split(",") if args.algorithms else [a for a in algorithm_names() if a != BASELINE]
    # Stratified folds keep the class shares, so the whole set's majority share is the folds' to within a row.
    majority = {n: _majority(load("adult-test" if n == "adult" else n)) for n in names}
    started = time.perf_counter()
    for epsilon in args.epsilon.split(","):
        print(f"\nepsilon {epsilon}; {args.folds}-fold CV x {args.repeats} (adult: adult -> adult-test x "
              f"{args.repeats}); seed {args.seed}; engine {args.engine}; `!` more than 2 points below the majority rate")
        print("| algorithm | " + " | ".join(names) + " |")
        print("|---|" + "---:|" * len(names))
        print("| majority rate | " + " | ".join(f"{majority[n]:.3f}" for n in names) + " |")
        for algorithm in [BASELINE, *algorithms]:
            cells = []
            for name in names:
                try:
                    mean = _score(algorithm, name, epsilon, args.folds, args.repeats, args.seed, args.engine).mean
                    flag = "!" if mean < majority[name] - _MARGIN else ""
                    cells.append(f"{mean:.3f}{flag}")
                except Exception as exc:  # a refused default is part of the table
                    cells.append(f"refused ({type(exc).__name__})")
            label = f"{algorithm} (not private)" if algorithm == BASELINE else algorithm
            print(f"| {label} | " + " | ".join(cells) + " |", flush=True)
            print(f"  {algorithm} at epsilon {epsilon}: {time.perf_counter() - started:.0f} s so far", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
