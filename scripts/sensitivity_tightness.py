"""Print, as Markdown, how tight the quality functions' sensitivities are.

For each quality function, relation and size bound N, every 2-cell x 2-class
count table of at most N records is enumerated (the claim files in proofs/
show the largest change is reached there) and the largest change between
neighbours is compared with the implemented sensitivity.  Usage:

    python scripts/sensitivity_tightness.py [N ...]

The enumeration helpers live in tests/test_scoring_exhaustive.py, which the
test suite runs on more shapes; this script needs pytest installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from test_scoring_exhaustive import markdown_table, tightness_rows  # noqa: E402

DEFAULT_SIZES = (1, 2, 3, 4, 8, 16, 32)


def main() -> int:
    try:
        sizes = tuple(int(arg) for arg in sys.argv[1:]) or DEFAULT_SIZES
    except ValueError:
        print("usage: sensitivity_tightness.py [N ...]  (positive integers)", file=sys.stderr)
        return 2
    if min(sizes) < 1:
        print("every N must be >= 1", file=sys.stderr)
        return 2
    print(markdown_table(tightness_rows(sorted(set(sizes)))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
