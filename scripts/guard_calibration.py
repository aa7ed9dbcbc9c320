"""Calibrate tests/test_defaults_guard.py: how often each learner's default beats majority + margin.

For every (learner, data set) of the guard, 200 runs on seeds 10,000 ..
10,199 (disjoint from the guard's own seeds), each a stratified 2/3 - 1/3
split and a model at epsilon 1 as the guard draws them; prints the number
of runs whose test accuracy is at least the majority rate plus the
learner's margin, as the guard's ``CALIBRATION`` table.  Re-run it after a change to
a learner's defaults and paste the table into the guard.

    PYTHONPATH=. python3 scripts/guard_calibration.py [--runs 200]
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Sequence

CALIBRATION_SEED = 10_000


def _guard() -> ModuleType:
    path = Path(__file__).resolve().parent.parent / "tests" / "test_defaults_guard.py"
    spec = importlib.util.spec_from_file_location("test_defaults_guard", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["test_defaults_guard"] = module
    spec.loader.exec_module(module)
    return module


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args(argv)
    guard = _guard()
    print("CALIBRATION: Dict[Tuple[str, str], int] = {")
    for name, make in guard.SETS.items():
        data = make()
        for learner in guard.LEARNERS:
            bar = guard.majority(data) + guard.margin(learner)
            started = time.perf_counter()
            above = sum(
                guard.run_accuracy(learner, data, CALIBRATION_SEED + r) >= bar for r in range(args.runs)
            )
            print(f"    ({learner!r}, {name!r}): {above},  # of {args.runs} ({time.perf_counter() - started:.0f} s)")
    print("}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
