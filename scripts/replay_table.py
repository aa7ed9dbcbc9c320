"""The replay audit on every published, planted and sound variant: docs/audit.md's replay table.

Runs ``python3 -m refdp audit --method replay --algorithm NAME --param variant=V --data DATA --epsilon 1
--seed SEED [--pairs N]`` as a separate process for each row (so the exit status is the command's), and
prints a Markdown table: exit status, verdict, pairs, mechanism calls checked, wall time, the violation.
The unsound variants run with the default ``--pairs``; the sound ones with ``--pairs`` (default 10000).

    PYTHONPATH=. python3 scripts/replay_table.py [--data vote,credit-g] [--seed 1] [--pairs 10000] [--only sound]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

ROOT = Path(__file__).resolve().parent.parent

UNSOUND: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("thesis-tree", ("variant=published",)),
    ("dpdf", ("variant=published",)),
    ("dpea", ("variant=published",)),
    ("dpea", ("variant=published", "embed_depth=1")),
    ("dp-adaboost", ("variant=published",)),
    ("kanon-rdt", ("variant=leaf-total",)),
    ("thesis-tree", ("variant=float-threshold",)),
)

SOUND: Tuple[Tuple[str, Tuple[str, ...]], ...] = tuple(
    (name, ()) for name in (
        "thesis-tree", "dpdf", "dpea", "dp-adaboost", "kanon-rdt", "diffpid3", "private-rdt", "noisy-majority",
    )
)


def run(name: str, params: Sequence[str], data: str, seed: int, pairs: Optional[int]) -> str:
    argv = [sys.executable, "-m", "refdp", "audit", "--method", "replay", "--algorithm", name, "--data", data,
            "--epsilon", "1", "--seed", str(seed), "--json"]
    for p in params:
        argv += ["--param", p]
    if pairs is not None:
        argv += ["--pairs", str(pairs)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    shown = " ".join(params) or "sound (defaults)"
    if done.returncode == 2:
        return f"| {name} | {shown} | {data} | 2 | error: {done.stderr.strip()[:100]} | | | {seconds:.0f} s | |"
    report = json.loads(done.stdout)
    violation = report.get("violation", "").replace("|", "/")
    if len(violation) > 160:
        violation = violation[:157] + "..."
    return (
        f"| {name} | {shown} | {data} | {done.returncode} | {report['verdict'].upper()} | {report['pairs']} | "
        f"{report['calls']} | {seconds:.1f} s | {violation} |"
    )


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="vote,credit-g")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pairs", type=int, default=10000, help="pairs for the sound variants")
    parser.add_argument("--only", choices=("sound", "unsound"), default=None)
    args = parser.parse_args(argv)
    print("| algorithm | variant | data | exit | verdict | pairs | calls checked | time | first violation |")
    print("|---|---|---|---:|---|---:|---:|---:|---|")
    rows = (() if args.only == "sound" else tuple((n, p, None) for n, p in UNSOUND)) + (
        () if args.only == "unsound" else tuple((n, p, args.pairs) for n, p in SOUND)
    )
    for data in args.data.split(","):
        for name, params, pairs in rows:
            print(run(name, params, data, args.seed, pairs), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
