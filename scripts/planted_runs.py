"""Runs per side the Monte-Carlo audit needs for each planted fault: the two-limit test against the conditional one.

For every planted case with exact laws, the event of :func:`refdp.audit.planted.case.monte_carlo_plan`
(the easiest to catch in the faulty mechanism's exact laws) is sized for power 0.999 at false alarm
``--alpha`` twice: by the two-limit Clopper-Pearson bound (:func:`refdp.audit.required_trials`, what
the audit used before the conditional test) and by the audit's default test, which reports the
larger of the conditional and the two-limit bound at ``alpha/2`` each
(:func:`refdp.audit.conditional.conditional_required_runs`).  Then the faulty mechanism is audited
with the smaller count and each test, from one seed: the measured verdicts and bounds.

    PYTHONPATH=. python3 scripts/planted_runs.py [--alpha 1e-6] [--seed 1]
"""

from __future__ import annotations

import argparse
import math
from typing import List, Optional

from refdp.audit.conditional import conditional_required_runs
from refdp.audit.planted import get_case, planted_names
from refdp.audit.planted.case import monte_carlo_check, monte_carlo_plan
from refdp.errors import InvalidParameterError

_POWER = 0.999
_IMPOSSIBLE = 1e-12


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--alpha", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("| planted case | event p1 / p2 | true epsilon | claimed | two-limit runs per side | default test "
          "runs per side | ratio | measured at the default test's runs: two-limit | default test |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|")
    for name in planted_names():
        case = get_case(name)
        if case.exact_faulty is None:
            continue
        plan = monte_carlo_plan(case, power=_POWER, alpha=args.alpha)
        p2 = max(plan.p2, _IMPOSSIBLE)
        true = math.log(0.95 * plan.p1 / p2)  # as the plan sizes it: the selected event may miss 5% of p1
        before = plan.trials
        try:
            after = (conditional_required_runs(
                true, case.epsilon, p2, power=_POWER, alpha=args.alpha / 2, delta=case.delta
            ) + 1) // 2
        except InvalidParameterError:  # p1 = e^true p2 > 1: no such event for the conditional sizing
            after = before
        measured = []
        for test in ("clopper-pearson", "combined"):
            r = monte_carlo_check(case, "faulty", seed=args.seed, trials=after,
                                  selection_trials=plan.selection_trials, alpha=args.alpha, test=test)
            measured.append(f"{'REFUTED' if r.refuted else 'not refuted'} ({r.lower_bound:.3f})")
        print(f"| {name} | {plan.p1:.3g} / {plan.p2:.3g} | {true:.3f} | {case.epsilon} | {before} | {after} | "
              f"{before / after:.2f} | {measured[0]} | {measured[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
