"""Release the number of rows of a CSV file plus Laplace noise: an external program to audit.

    python3 noisy_count.py DATA SEED OUT EPSILON [FACTOR]
    audit-cmd --python 'examples/audit_external/noisy_count.py:count EPSILON [FACTOR]' ...

writes ``{"count": n + Laplace(FACTOR / EPSILON)}`` to OUT, n being the rows
of DATA (a CSV file with a header line).  The count has sensitivity 1 under
add-remove, so FACTOR = 1 (the default) is EPSILON-DP; FACTOR = 0.5 is the
classic slip of a scale 1/(2 epsilon), which is only 2 EPSILON-DP; FACTOR = 0
releases the exact count (no privacy at all).  SEED seeds the noise, so a
run is a function of the data and the seed.  Standard library only, and no
refdp: it stands for a program written by someone else.
"""

import json
import math
import random
import sys


def count(data, seed, schema, epsilon, factor="1"):
    """One run: ``{"count": n + noise}``; also what ``audit-cmd --python 'noisy_count.py:count EPSILON'`` calls."""
    epsilon, factor = float(epsilon), float(factor)
    with open(data, encoding="utf-8") as f:
        n = sum(1 for line in f if line.strip()) - 1  # minus the header
    rng = random.Random(seed)
    noise = 0.0
    if factor > 0:
        u = rng.random() - 0.5
        while u == -0.5:  # log(0) below
            u = rng.random() - 0.5
        noise = -(factor / epsilon) * math.copysign(1.0, u) * math.log(1.0 - 2.0 * abs(u))
    return {"count": n + noise}


def main(argv):
    if len(argv) not in (4, 5):
        sys.exit("usage: noisy_count.py DATA SEED OUT EPSILON [FACTOR]")
    data, seed, out = argv[0], int(argv[1]), argv[2]
    with open(out, "w", encoding="utf-8") as f:
        json.dump(count(data, seed, None, *argv[3:]), f)


if __name__ == "__main__":
    main(sys.argv[1:])
