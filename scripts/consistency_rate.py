"""How fast the greedy DP trees approach the non-private tree of the same shape as epsilon grows (issue 31).

For each data set and epsilon, 5-fold CV (seed 7) of thesis-tree (Gini) and
diffpid3 (Gini, information gain) at depth 4, against tree-baseline with
the same depth, quality and split shape (``split=binary`` for thesis-tree,
``multiway`` for diffpid3); prints a Markdown table of accuracy, macro AUC
and macro F1 with the accuracy gap to the baseline.  The test
tests/test_consistency.py checks the gap at epsilon 10^6.

    PYTHONPATH=. python3 scripts/consistency_rate.py [--epsilon 1,10,100,1000,10000,1000000] [--data tic-tac-toe,credit-g]
"""

from __future__ import annotations

import argparse
import sys
from typing import Dict, Sequence

from refdp.data import load
from refdp.evaluation import CVResult, cross_validate

PAIRS = (
    ("thesis-tree", {"quality": "gini"}, {"quality": "gini", "split": "binary"}),
    ("diffpid3", {"quality": "gini"}, {"quality": "gini", "split": "multiway"}),
    ("diffpid3", {"quality": "info-gain"}, {"quality": "info-gain", "split": "multiway"}),
)


def _cell(result: CVResult) -> str:
    auc = "-" if result.auc_mean is None else f"{result.auc_mean:.3f}"
    return f"{result.mean:.3f} / {auc} / {result.f1_mean:.3f}"


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", default="1,10,100,1000,10000,1000000")
    parser.add_argument("--data", default="tic-tac-toe,credit-g")
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args(argv)
    epsilons = args.epsilon.split(",")
    print("| data | learner | quality | non-private (acc / AUC / F1) | "
          + " | ".join(f"eps {e}: acc / AUC / F1 (gap)" for e in epsilons) + " |")
    print("|---|---|---|---:|" + "---:|" * len(epsilons))
    for name in args.data.split(","):
        data = load(name)

        def run(algorithm: str, params: Dict[str, str], epsilon: str) -> CVResult:
            return cross_validate(
                algorithm, data, epsilon, folds=5, params={**params, "max_depth": str(args.depth)}, seed=7,
                engine="array",
            )

        for algorithm, params, baseline in PAIRS:
            reference = run("tree-baseline", baseline, "1")
            cells = []
            for epsilon in epsilons:
                result = run(algorithm, params, epsilon)
                cells.append(f"{_cell(result)} ({result.mean - reference.mean:+.3f})")
            print(f"| {name} | {algorithm} | {params['quality']} | {_cell(reference)} | " + " | ".join(cells) + " |",
                  flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
