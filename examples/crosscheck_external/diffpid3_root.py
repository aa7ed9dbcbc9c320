"""DiffP-ID3's root split at refdp's defaults, written from the documentation as another implementation would be.

max_depth 5, size_share 0.05, leaf_sigmas 3, the max operator, add-remove.  Standard library only, no refdp.
    crosscheck-cmd --python 'examples/crosscheck_external/diffpid3_root.py:root_split 1/5' ...   (one call per run)
    python3 diffpid3_root.py DATA SCHEMA SEEDS OUT EPSILON [budget-times-2]                      (a {seeds} batch)
budget-times-2 plants a per-query budget twice refdp's (every noise scale of the tree off by 2).
"""
import csv, json, math, random, sys
from fractions import Fraction

_data = {}


def dlap(rng, scale):  # two-sided geometric: the difference of two geometric counts of failures
    return math.floor(-scale * math.log(1 - rng.random())) - math.floor(-scale * math.log(1 - rng.random()))


def root_split(data, seed, schema, epsilon, fault=""):
    if data not in _data:
        with open(data, newline="") as f:
            rows = list(csv.reader(f))[1:]
        public = json.load(open(schema))
        attributes = public["attributes"]
        _data[data] = rows, [a["values"] for a in attributes], [a["name"] for a in attributes], public["classes"]
    rows, domains, names, classes = _data[data]
    rng, eps, n, c = random.Random(seed), float(Fraction(epsilon)), len(rows), len(classes)
    noisy = n + dlap(rng, 1 / (0.05 * eps))                                  # N~, 5% of the budget
    branching = max(2.0, sum(len(d) for d in domains) / len(domains))
    per_query = lambda d: 0.95 * eps / ((d + 1) if fault == "budget-times-2" else 2 * (d + 1))
    depth = next((d for d in range(5, 0, -1)
                  if noisy > 0 and (noisy / branching ** d) ** 2 >= 9 * 2 * c / per_query(d) ** 2), 0)
    if depth == 0:
        return {"attribute": None}
    q = per_query(depth)
    n_t = n + dlap(rng, 1 / q)                                               # the root's noisy size N_T
    if n_t * q <= 0 or (n_t * q) ** 2 < 2 * (max(len(d) for d in domains) * c) ** 2:
        return {"attribute": None}
    scores = []
    for a in range(len(domains)):                                            # max operator: sum_v max_c n(v, c)
        table = {}
        for r in rows:
            table[r[a], r[-1]] = table.get((r[a], r[-1]), 0) + 1
        scores.append(sum(max(table.get((v, k), 0) for k in classes) for v in domains[a]))
    weights = [math.exp(q * (s - max(scores))) for s in scores]             # monotone: no factor 2
    pick, a = rng.random() * sum(weights), 0
    while pick >= weights[a] and a < len(weights) - 1:
        pick, a = pick - weights[a], a + 1
    return {"attribute": names[a]}


if __name__ == "__main__":
    data, schema, seeds, out, *rest = sys.argv[1:]
    with open(seeds) as f, open(out, "w") as w:
        for line in f:
            w.write(json.dumps(root_split(data, int(line), schema, *rest)) + "\n")
