"""What exact sampling costs: the exponential mechanism's exact and float samplers on real calls.

Trains each learner on Adult (the array engine where it has one), records every call of
the exponential mechanism the fit makes (utilities, base weights, budget,
sensitivity), then replays each recorded call with the exact sampler (the
default) and with the float sampler, timing both in CPU seconds, interleaved
call by call over several rounds (medians per call summed).  Also prints
the whole fit's CPU time, so the sampler's share is visible.  Standard
library only:

    PYTHONPATH=. python3 bench/exact_sampler.py              # every exact learner but DPEA, 5 rounds
    PYTHONPATH=. python3 bench/exact_sampler.py --rounds 9
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from typing import Any, Dict, List, Tuple

import refdp.algorithms.adaboost_rounds as adaboost_module
import refdp.algorithms.diffpid3 as diffpid3_module
import refdp.algorithms.dpdf as dpdf_module
import refdp.algorithms.thesis_tree as thesis_module
from refdp.algorithms import train
from refdp.data import load_builtin
from refdp.mechanisms import exponential_mechanism
from refdp.privacy import Ledger

Call = Dict[str, Any]

LEARNERS: Tuple[Tuple[str, Dict[str, str]], ...] = (
    ("thesis-tree", {"max_depth": "5"}),
    ("thesis-tree", {"quality": "gini", "max_depth": "5"}),
    ("diffpid3", {"quality": "max"}),
    ("diffpid3", {"quality": "gini"}),
    ("dpdf", {}),
    ("dp-adaboost", {}),
)


def _recorded(name: str, params: Dict[str, str], seed: int) -> Tuple[float, List[Call]]:
    calls: List[Call] = []
    modules = (thesis_module, diffpid3_module, dpdf_module, adaboost_module)
    originals = [m.exponential_mechanism for m in modules]

    def recording(utilities: Any, **kwargs: Any) -> int:
        calls.append({"utilities": list(utilities), **{k: v for k, v in kwargs.items() if k != "exact"}})
        kwargs["exact"] = True
        return exponential_mechanism(utilities, **kwargs)

    for module in modules:
        module.exponential_mechanism = recording  # type: ignore[attr-defined]
    try:
        data = load_builtin("adult")
        start = time.process_time()
        engine = "array" if name in ("thesis-tree", "diffpid3", "dpdf") else "reference"
        train(name, data, 1, params, rng=seed, engine=engine)
        fit = time.process_time() - start
    finally:
        for module, original in zip(modules, originals):
            module.exponential_mechanism = original  # type: ignore[attr-defined]
    return fit, calls


def _time_call(call: Call, exact: bool, seed: int) -> float:
    kwargs = dict(call)
    kwargs["rng"] = random.Random(seed)
    kwargs["ledger"] = Ledger()
    if not exact:
        kwargs["utilities"] = [float(u) for u in kwargs["utilities"]]
        if kwargs.get("base_weights") is not None:
            kwargs["base_weights"] = [float(w) for w in kwargs["base_weights"]]
    start = time.process_time()
    exponential_mechanism(exact=exact, **kwargs)
    return time.process_time() - start


def sampler_table(rounds: int, seed: int) -> List[str]:
    """The Markdown table: per learner, the fit's CPU time and its exponential mechanism calls
    replayed with the exact and with the float sampler (medians per call, summed)."""
    lines = [
        "| learner | fit CPU s | EM calls | candidates (mean) | exact sampler s | float sampler s | exact / float |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, params in LEARNERS:
        fit, calls = _recorded(name, params, seed)
        exact_times: List[List[float]] = [[] for _ in calls]
        float_times: List[List[float]] = [[] for _ in calls]
        for r in range(rounds):
            for i, call in enumerate(calls):
                exact_times[i].append(_time_call(call, True, r))
                float_times[i].append(_time_call(call, False, r))
        exact_total = sum(statistics.median(t) for t in exact_times)
        float_total = sum(statistics.median(t) for t in float_times)
        size = statistics.mean(len(c["utilities"]) for c in calls)
        label = name + (" " + ", ".join(f"{k}={v}" for k, v in params.items()) if params else "")
        lines.append(
            f"| {label} | {fit:.3f} | {len(calls)} | {size:.0f} | {exact_total:.4f} | {float_total:.4f} | "
            f"{exact_total / float_total:.1f}x |"
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    print("\n".join(sampler_table(args.rounds, args.seed)))


if __name__ == "__main__":
    main()
