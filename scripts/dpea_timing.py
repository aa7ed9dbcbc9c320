"""Time DPEA per tree against the number of training rows (the set-up of Bai et al. 2017, Figure 8).

The paper times trees of depth 20 on 500 to 8000 rows of mushroom, which
refdp does not ship.  This script resamples, with replacement and a fixed
seed, 500 to 8000 rows of a built-in categorical data set (tic-tac-toe by
default; ``adult`` uses its categorical attributes only, a public choice of
columns) and prints, as Markdown, the CPU (and wall-clock) seconds per tree
for each embedding depth.  Usage:

    python scripts/dpea_timing.py [--data tic-tac-toe|vote|adult] [--max-depth 8]
        [--epsilon 1] [--embed 1,2,3,whole] [--rows 500,1000,2000,4000,8000]
        [--search exact] [--trees 1] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from typing import List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from refdp.algorithms import train  # noqa: E402
from refdp.data import CategoricalAttribute, Dataset, Schema, load_builtin  # noqa: E402


def categorical_part(data: Dataset) -> Dataset:
    """``data`` restricted to its categorical attributes (DPEA splits categorical attributes only)."""
    keep = [a for a, attribute in enumerate(data.schema.attributes) if isinstance(attribute, CategoricalAttribute)]
    schema = Schema(tuple(data.schema.attributes[a] for a in keep), data.schema.label, data.schema.classes)
    return Dataset.from_codes(schema, [list(data.codes(a)) for a in keep], list(data.labels))


def resample(data: Dataset, n: int, rng: random.Random) -> Dataset:
    """``n`` rows drawn uniformly with replacement."""
    rows = [rng.randrange(len(data)) for _ in range(n)]
    columns = [[data.codes(a)[i] for i in rows] for a in range(data.schema.n_attributes)]
    return Dataset.from_codes(data.schema, columns, [data.labels[i] for i in rows])


def seconds_per_tree(data: Dataset, params: dict, epsilon: str, trees: int, seed: int) -> Tuple[float, float]:  # type: ignore[type-arg]
    """(CPU seconds, wall-clock seconds) per tree; CPU time is the stable one on a shared machine."""
    cpu, wall = time.process_time(), time.perf_counter()
    for t in range(trees):
        train("dpea", data, epsilon, params, rng=seed + t)
    return (time.process_time() - cpu) / trees, (time.perf_counter() - wall) / trees


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="tic-tac-toe")
    parser.add_argument("--max-depth", type=int, default=8)
    parser.add_argument("--epsilon", default="1")
    parser.add_argument("--embed", default="1,2,3,whole")
    parser.add_argument("--rows", default="500,1000,2000,4000,8000")
    parser.add_argument("--search", default="exact")
    parser.add_argument("--trees", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    base = categorical_part(load_builtin(args.data))
    embeds: List[str] = args.embed.split(",")
    sizes = [int(n) for n in args.rows.split(",")]
    print(
        f"DPEA seconds per tree: {args.data} ({base.schema.n_attributes} categorical attributes) resampled "
        f"with replacement, D={args.max_depth}, eps={args.epsilon}, search={args.search}, "
        f"{args.trees} tree(s) per cell, seed {args.seed}; CPU seconds per tree (wall-clock in brackets)\n"
    )
    print("| rows | " + " | ".join(f"d={d}" for d in embeds) + " |")
    print("|---:|" + "---:|" * len(embeds))
    for n in sizes:
        data = resample(base, n, random.Random(args.seed * 1_000_003 + n))
        cells = []
        for d in embeds:
            params = {"max_depth": args.max_depth, "embed_depth": d, "search": args.search}
            cpu, wall = seconds_per_tree(data, params, args.epsilon, args.trees, args.seed)
            cells.append(f"{cpu:.2f} ({wall:.2f})")
        print(f"| {n} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
