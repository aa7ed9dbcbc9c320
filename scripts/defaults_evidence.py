"""Evidence for an algorithm's default parameters: cross-validation on training data only.

For each setting of a small grid, stratified k-fold cross-validation at a
given epsilon on the built-in data sets (the training part of adult; never
adult-test), printed as a Markdown table with the mean accuracy per data
set and the mean over data sets.  The defaults are chosen from this table
(docs/results.md says which run and why).

    python3 scripts/defaults_evidence.py --algorithm diffpid3 \\
        --grid quality=max,gini,info-gain --grid max_depth=3,4,5 --folds 5 --repeats 2
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
import time
from typing import Dict, List, Sequence, Tuple

from refdp.algorithms import get_algorithm
from refdp.data import load
from refdp.evaluation import cross_validate

DATA_SETS = ("vote", "credit-g", "tic-tac-toe", "monk1", "monk2", "monk3", "adult")


def _grid(pairs: Sequence[str]) -> List[Dict[str, str]]:
    axes: List[Tuple[str, List[str]]] = []
    for pair in pairs:
        name, _, values = pair.partition("=")
        axes.append((name, values.split(",")))
    return [dict(zip([n for n, _ in axes], combo)) for combo in itertools.product(*[v for _, v in axes])]


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--algorithm", required=True)
    parser.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...")
    parser.add_argument("--param", action="append", default=[], metavar="NAME=VALUE", help="fixed for every cell")
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--data", default=",".join(DATA_SETS))
    parser.add_argument("--engine", default="array")
    args = parser.parse_args(argv)
    fixed = dict(p.partition("=")[::2] for p in args.param)
    # an algorithm without the requested engine runs on the reference engine (the same models)
    engine = args.engine if args.engine in get_algorithm(args.algorithm).engines else "reference"
    names = args.data.split(",")
    data = {name: load(name) for name in names}
    print(f"{args.algorithm}, epsilon {args.epsilon}, {args.folds}-fold x {args.repeats}, seed {args.seed}; "
          f"fixed: {fixed or 'none'}")
    print("| setting | " + " | ".join(names) + " | mean |")
    print("|---|" + "---:|" * (len(names) + 1))
    for cell in _grid(args.grid):
        params = {**fixed, **cell}
        scores = []
        started = time.perf_counter()
        for name in names:
            try:
                result = cross_validate(
                    args.algorithm, data[name], args.epsilon, folds=args.folds, repeats=args.repeats,
                    params=params, seed=args.seed, engine=engine,
                )
                scores.append(f"{result.mean:.3f}")
            except Exception as exc:  # a refused setting is part of the evidence
                scores.append(f"refused ({type(exc).__name__})")
        numbers = [float(s) for s in scores if not s.startswith("refused")]
        mean = f"{statistics.mean(numbers):.3f}" if len(numbers) == len(names) else "-"
        label = ", ".join(f"{k}={v}" for k, v in cell.items())
        print(f"| {label} | " + " | ".join(scores) + f" | {mean} |", flush=True)
        print(f"  ({time.perf_counter() - started:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
