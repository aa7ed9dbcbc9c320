"""``algorithms``: every registry algorithm with its variants and their soundness levels, parameters and claims.

``algorithms --plan A --epsilon E --data NAME`` prints learner A's budget plan instead: what its fit
computes from public inputs before it reads a row (:mod:`refdp.algorithms.plans`), for the noisy size
``--noisy-size`` (default: the built-in data set's row count).
"""

from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING, Dict

from refdp.cli._args import RELATIONS, add_param_argument, integer, parse_params
from refdp.cli._command import Command
from refdp.errors import InvalidParameterError
from refdp.privacy.levels import IDEALISED, UNKNOWN_STATUS, UNSOUND, claim_status

if TYPE_CHECKING:
    from refdp.algorithms import AlgorithmSpec, Variant

__all__ = ["COMMAND"]


def _add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--plan", default=None, metavar="ALGORITHM", help="print this learner's budget plan instead")
    p.add_argument("--epsilon", default=None, help="with --plan: the total privacy budget")
    p.add_argument("--data", default=None, help="with --plan: a built-in data set (its public schema only)")
    p.add_argument("--schema", default=None, metavar="FILE", help="with --plan: a public schema JSON instead of --data")
    p.add_argument(
        "--noisy-size", type=integer, default=None, metavar="N",
        help="with --plan: the value the noisy size N~ takes (default: the --data set's row count)",
    )
    add_param_argument(p)
    p.add_argument("--relation", default="add-remove", choices=RELATIONS, help="with --plan: the neighbouring relation")


def _plan(args: argparse.Namespace) -> int:
    from refdp.algorithms import get_algorithm
    from refdp.algorithms.plans import READS_TOTAL, learner_plan, plan_lines
    from refdp.data import BUILTIN_NAMES, builtin_schema, load_builtin, read_schema
    from refdp.privacy import as_budget, parse_relation

    if args.epsilon is None:
        raise InvalidParameterError("--plan needs --epsilon")
    if (args.data is None) == (args.schema is None):
        raise InvalidParameterError(f"--plan needs --data (one of {', '.join(BUILTIN_NAMES)}) or --schema FILE")
    if args.data is not None and args.data not in BUILTIN_NAMES:
        raise InvalidParameterError(f"--data with --plan names a built-in data set: one of {', '.join(BUILTIN_NAMES)}")
    schema = builtin_schema(args.data) if args.data is not None else read_schema(args.schema)
    noisy = args.noisy_size
    if noisy is None and args.data is not None:
        noisy = len(load_builtin(args.data))
    spec = get_algorithm(args.plan)
    epsilon, relation = as_budget(args.epsilon), parse_relation(args.relation)
    plan, ledger = learner_plan(spec.name, schema, epsilon, spec.resolve(parse_params(args.param)), relation, noisy)
    shown = "" if noisy is None or not ledger.charges and spec.name not in READS_TOTAL else f", noisy size N~ = {noisy}"
    print(f"plan of {spec.name} at epsilon {epsilon} ({relation}){shown}:")
    for line in plan_lines(plan):
        print(f"  {line}")
    for charge in ledger.charges:
        print(f"  charged while planning: {charge.label}: epsilon {charge.epsilon}")
    return 0


def _describe(spec: AlgorithmSpec) -> Dict[str, object]:
    return {
        "name": spec.name,
        "summary": spec.summary,
        "source": spec.source,
        "variants": [
            {
                "name": v.name,
                "sound": v.sound,
                "level": v.level,
                "claims": {cid: claim_status(cid) or UNKNOWN_STATUS for cid in v.claims},
                "description": v.description,
            }
            for v in spec.variants
        ],
        "parameters": [
            {
                "name": p.name, "type": p.kind.__name__, "default": p.default, "choices": list(p.choices),
                "range": p.range_text(), "help": p.help,
            }
            for p in spec.parameters
        ],
        "claims": list(spec.claims),
    }


def _why(variant: Variant) -> str:
    """The claims (and flag) that keep ``variant`` from level proved, for the listing."""
    worst = {IDEALISED: ("needs-idealised-numerics",), UNSOUND: ("published-but-unsound", None)}
    statuses = worst.get(variant.level, ())
    reasons = [] if variant.sound else ["registered unsound"]
    for status in statuses:
        cited = [cid for cid in variant.claims if claim_status(cid) == status]
        if cited:
            reasons.append(f"{status or UNKNOWN_STATUS}: {', '.join(cited)}")
    return f" ({'; '.join(reasons)})" if reasons else ""


def _run(args: argparse.Namespace) -> int:
    from refdp.algorithms import algorithm_names, get_algorithm

    if args.plan is not None:
        return _plan(args)

    specs = [get_algorithm(name) for name in algorithm_names()]
    if args.json:
        print(json.dumps([_describe(s) for s in specs], indent=1))
        return 0
    for spec in specs:
        print(f"{spec.name}: {spec.summary}")
        print(f"  source: {spec.source}")
        for v in spec.variants:
            print(f"  variant {v.name}: level {v.level} with default parameters{_why(v)}; {v.description}")
        for p in spec.parameters:
            allowed = f"one of {', '.join(p.choices)}" if p.choices else f"{p.kind.__name__} in {p.range_text()}"
            print(f"  --param {p.name}={p.default} ({allowed}): {p.help}")
        for cid in spec.claims:
            print(f"  claim {cid} [{claim_status(cid) or UNKNOWN_STATUS}]")
    return 0


COMMAND = Command(
    "algorithms",
    "list algorithms, variants (with their soundness level), parameters and claims; or one learner's plan",
    _add_arguments,
    _run,
)
