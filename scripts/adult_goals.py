"""Issue 19's goals on adult: every algorithm's defaults, adult -> adult-test, 5 runs, with the command of each number.

Each row is the mean accuracy (and the 5 accuracies), the mean macro AUC
and the mean macro F1 of what this command prints:

    python3 -m refdp evaluate --algorithm A --data adult --test-data adult-test --epsilon E \\
        --seed 1 --repeats 5 --engine array --json

(the reference engine for an algorithm that has no array engine; the same
models).  Prints a Markdown table.

    PYTHONPATH=. python3 scripts/adult_goals.py [--epsilon 1,0.1] [--algorithms a,b]
"""

from __future__ import annotations

import argparse
import sys
from typing import Sequence

from refdp.algorithms import algorithm_names, get_algorithm
from refdp.data import load
from refdp.errors import InvalidParameterError
from refdp.evaluation import train_test_evaluate


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", default="1,0.1")
    parser.add_argument("--algorithms", default=None)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    names = args.algorithms.split(",") if args.algorithms else list(algorithm_names())
    train, test = load("adult"), load("adult-test")
    print("| algorithm | epsilon | mean | runs | macro AUC | macro F1 | command |")
    print("|---|---|---:|---|---:|---:|---|")
    for epsilon in args.epsilon.split(","):
        for name in names:
            engine = "array" if "array" in get_algorithm(name).engines else "reference"
            command = (
                f"`python3 -m refdp evaluate --algorithm {name} --data adult --test-data adult-test "
                f"--epsilon {epsilon} --seed 1 --repeats {args.repeats} --engine {engine} --json`"
            )
            try:
                result = train_test_evaluate(name, train, test, epsilon, repeats=args.repeats, seed=1, engine=engine)
            except InvalidParameterError:
                print(f"| {name} | {epsilon} | refused | | | | {command} |", flush=True)
                continue
            runs = " ".join(f"{a:.4f}" for a in result.accuracies)
            auc = "-" if result.auc_mean is None else f"{result.auc_mean:.4f}"
            f1 = "-" if result.f1_mean is None else f"{result.f1_mean:.4f}"
            print(f"| {name} | {epsilon} | {result.mean:.4f} | {runs} | {auc} | {f1} | {command} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
