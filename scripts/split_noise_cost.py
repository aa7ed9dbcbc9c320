"""Where thesis-tree's accuracy goes at a given epsilon: the splits' noise, level by level (issue 31). NOT private.

An experiment, never a learner: in this process only, the splits of the
levels up to L (root 0) get epsilon 10^6 instead of their share (in the
last row the leaves' counts do instead) and the budget checks that would
refuse such a model are switched off.  Everything else (depth plan,
candidates, leaf noise, defaults) is thesis-tree's.  The gap between a row
and the defaults is what that part's noise costs on adult -> adult-test
(mean of ``--repeats`` models from seed 1, array engine).

    PYTHONPATH=. python3 scripts/split_noise_cost.py [--epsilon 1] [--repeats 5]
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from typing import Any, Callable, Sequence

import refdp.algorithms.models as models
import refdp.algorithms.thesis_tree as thesis_tree
from refdp.algorithms.thesis_tree_plan import TreePlan
from refdp.data import load
from refdp.evaluation import train_test_evaluate

HUGE = Fraction(10**6)


def _no_checks() -> None:
    """Switch off the two budget checks of this process, which an over-budget model would fail."""

    def nothing(*_: Any, **__: Any) -> None:
        return None

    setattr(thesis_tree, "close_budget", nothing)
    setattr(models, "_check_derivation", nothing)


def _splits_exact_to(level: int, original: Callable[[TreePlan, int], Fraction]) -> Callable[[TreePlan, int], Fraction]:
    def at(plan: TreePlan, remaining: int) -> Fraction:
        return HUGE if plan.depth - remaining <= level else original(plan, remaining)

    return at


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    train, test = load("adult"), load("adult-test")
    _no_checks()
    original_at = TreePlan.at
    original_counts = TreePlan.counts_epsilon
    print("| noise-free part | accuracy | macro AUC |")
    print("|---|---:|---:|")
    rows = [("none (the defaults)", -1, False)] + [(f"splits of levels 0..{L}", L, False) for L in range(0, 6)]
    rows.append(("the leaves' counts", -1, True))
    for name, level, leaves in rows:
        setattr(TreePlan, "at", _splits_exact_to(level, original_at))
        setattr(TreePlan, "counts_epsilon", (lambda plan, r, leaf: HUGE) if leaves else original_counts)
        result = train_test_evaluate(
            "thesis-tree", train, test, args.epsilon, repeats=args.repeats, seed=1, engine="array"
        )
        auc = "-" if result.auc_mean is None else f"{result.auc_mean:.4f}"
        print(f"| {name} | {result.mean:.4f} | {auc} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
