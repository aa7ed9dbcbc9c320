"""refdp itself as the program that ``crosscheck-cmd`` runs: what a correct implementation writes.

    python3 examples/crosscheck_external/refdp_root.py ALGORITHM DATA SCHEMA SEED OUT EPSILON [KEY=VALUE ...]

trains ``ALGORITHM`` (a refdp registry name) on the CSV file ``DATA`` with
the public schema ``SCHEMA``, the total budget ``EPSILON`` and the
parameters ``KEY=VALUE``, seeded with ``SEED``, and writes the root of the
first tree to ``OUT`` in both formats ``crosscheck-cmd`` reads:

    {"attribute": NAME, "value": V | "threshold": T, "counts": [n, ...]}

``attribute`` is null when the root is a leaf; ``value`` is the released
value of a value-vs-rest split, ``threshold`` the grid point of a threshold
split (a number, or ``p/q`` when no float equals it); ``counts`` are the
class counts the root releases (null when it releases none).  It is slow
next to a compiled program (a Python start and a training per run): use it
with ``--runs`` to see the formats, or as a yardstick that must be accepted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Dict, List

ROOT = Path(__file__).resolve().parent.parent.parent
if str(ROOT) not in sys.path:  # run from a clone, no install needed
    sys.path.insert(0, str(ROOT))

from refdp import train  # noqa: E402
from refdp.data import load, read_schema  # noqa: E402
from refdp.data.grid import format_threshold  # noqa: E402
from refdp.tree import CategoricalSplit, ThresholdSplit, ValueSplit  # noqa: E402


def root_of(model: Any) -> Dict[str, Any]:
    """The first tree's root as ``{"attribute", "value" | "threshold", "counts"}``."""
    root = model.trees[0]
    names = model.schema.names
    out: Dict[str, Any] = {"attribute": None}
    if isinstance(root, ValueSplit):
        out = {"attribute": names[root.attribute], "value": model.schema.attributes[root.attribute].values[root.value]}
    elif isinstance(root, ThresholdSplit):
        t = root.threshold
        out = {"attribute": names[root.attribute], "threshold": t if isinstance(t, float) else format_threshold(t)}
    elif isinstance(root, CategoricalSplit):
        out = {"attribute": names[root.attribute]}
    counts = root.counts
    out["counts"] = None if counts is None else list(counts)
    return out


def main(argv: List[str]) -> None:
    if len(argv) < 6:
        sys.exit("usage: refdp_root.py ALGORITHM DATA SCHEMA SEED OUT EPSILON [KEY=VALUE ...]")
    algorithm, data, schema, seed, out, epsilon = argv[:6]
    params = dict(pair.split("=", 1) for pair in argv[6:])
    model = train(algorithm, load(data, schema=read_schema(schema)), epsilon, params, rng=int(seed))
    Path(out).write_text(json.dumps(root_of(model)) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1:])
