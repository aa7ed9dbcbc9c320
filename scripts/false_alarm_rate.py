"""Measure how often the Monte-Carlo audit refutes a *correct* mechanism, next to alpha.

For each planted case, the correct mechanism is audited on the case's pair
``--repetitions`` times with independent seeds, at a false-alarm level
``--alpha`` large enough for false alarms to be countable, with ``--trials``
runs per side in each batch.  Printed as Markdown: false alarms, the rate
and its 95% Clopper-Pearson interval, alpha, and the largest certified
bound seen against the claimed epsilon; then the pooled rate.  Usage:

    python scripts/false_alarm_rate.py [--repetitions 500] [--trials 500] [--alpha 0.05]
                                       [--seed 2024] [--cases NAME,NAME,...]

The default cases are the cheap ones; the counts released with discrete
Laplace noise are exactly at the edge of their claim (their worst log-ratio
equals epsilon), which is where a false alarm is likeliest.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import List, Optional

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from refdp.audit.montecarlo import TESTS  # noqa: E402
from refdp.audit.planted import FalseAlarmRate, false_alarm_rate, get_case, planted_names  # noqa: E402
from refdp.stats import clopper_pearson  # noqa: E402

DEFAULT_CASES = (
    "laplace-scale-epsilon",
    "float-laplace-inverse-cdf",
    "noise-on-present-classes",
    "exponential-without-half",
    "exact-score-released",
)


def markdown(rows: List[FalseAlarmRate], seconds: float, test: str) -> str:
    """The table, the pooled rate and the wall time."""
    lines = [
        "| correct mechanism of | false alarms | rate | 95% interval | alpha | largest bound | epsilon |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lo, hi = r.interval
        lines.append(
            f"| {r.case} | {r.refuted}/{r.repetitions} | {r.rate:.4f} | [{lo:.4f}, {hi:.4f}] | {r.alpha:g} "
            f"| {r.largest_bound:.4f} | {r.epsilon:g} |"
        )
    refuted = sum(r.refuted for r in rows)
    total = sum(r.repetitions for r in rows)
    lo, hi = clopper_pearson(refuted, total, 0.05)
    lines.append("")
    lines.append(
        f"pooled: {refuted}/{total} false alarms, rate {refuted / total:.4f}, 95% interval [{lo:.4f}, {hi:.4f}], "
        f"alpha={rows[0].alpha:g}; {rows[0].trials} runs per side and batch; seed {rows[0].seed}; "
        f"test {test}; "
        f"{seconds:.0f} s"
    )
    return "\n".join(lines)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=500, help="audits per case (default 500)")
    parser.add_argument("--trials", type=int, default=500, help="runs per side in each batch (default 500)")
    parser.add_argument("--alpha", type=float, default=0.05, help="the audit's false-alarm level (default 0.05)")
    parser.add_argument("--seed", type=int, default=2024, help="seed of the repetitions' seeds (default 2024)")
    parser.add_argument("--cases", default=",".join(DEFAULT_CASES), help=f"comma-separated, from: {', '.join(planted_names())}")
    parser.add_argument("--test", default="combined", choices=TESTS, help="the audit's test (default combined)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    rows = []
    for name in args.cases.split(","):
        row = false_alarm_rate(
            get_case(name.strip()), repetitions=args.repetitions, trials=args.trials, alpha=args.alpha, seed=args.seed,
            test=args.test,
        )
        print(row.summary(), file=sys.stderr)
        rows.append(row)
    print(markdown(rows, time.perf_counter() - started, args.test))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
