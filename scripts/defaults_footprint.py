"""Every algorithm with its defaults on every built-in training set at epsilon 1: fit time and model size.

Each fit runs in this process on the reference engine (CPU seconds, one
seed); the size is the model file ``train`` writes.  A refused setting is
part of the table.  Prints Markdown.

    PYTHONPATH=. python3 scripts/defaults_footprint.py [--seed 1] [--epsilon 1]
"""

from __future__ import annotations

import argparse
import random
import time
from fractions import Fraction
from typing import List, Optional

from refdp.algorithms import algorithm_names, get_algorithm
from refdp.data import BUILTIN_NAMES, load
from refdp.errors import RefdpError
from refdp.privacy import Relation
from refdp.tree import dumps_model

# adult-test is the test part of adult, not a training set
_TRAINING = tuple(name for name in BUILTIN_NAMES if name != "adult-test")


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--epsilon", default="1")
    args = parser.parse_args(argv)
    epsilon = Fraction(args.epsilon)
    data = {name: load(name) for name in _TRAINING}
    print("| algorithm | " + " | ".join(_TRAINING) + " |")
    print("|---|" + "---:|" * len(_TRAINING))
    worst_seconds, worst_bytes = 0.0, 0
    for name in algorithm_names():
        spec = get_algorithm(name)
        cells = []
        for data_name in _TRAINING:
            started = time.process_time()
            try:
                model = spec.fit(data[data_name], epsilon, spec.resolve({}), random.Random(args.seed),
                                 Relation.ADD_REMOVE)
            except RefdpError as exc:
                cells.append(f"refused: {exc}"[:60])
                continue
            seconds = time.process_time() - started
            size = len(dumps_model(model).encode())
            worst_seconds, worst_bytes = max(worst_seconds, seconds), max(worst_bytes, size)
            cells.append(f"{seconds:.2f} s, {size / 1024:.0f} KiB")
        print(f"| {name} | " + " | ".join(cells) + " |")
    print(f"\nslowest fit {worst_seconds:.2f} CPU s; largest model {worst_bytes / 1024:.0f} KiB "
          f"(epsilon {epsilon}, seed {args.seed}, reference engine)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
